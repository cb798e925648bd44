package leaderboard

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kgjudge/kgjudge/internal/textwidth"
	"github.com/kgjudge/kgjudge/matcher"
)

// Formats are the names Write accepts.
var Formats = []string{"table", "json", "csv", "md", "site"}

// WriteJSON writes the board as indented JSON (fractions, 4 decimals).
func WriteJSON(w io.Writer, b *Board) error {
	out, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// WriteCSV writes one line per row, statistic (avg, best) and metric:
// the group columns, then tasks, n, samples, missing, mean, the 95%
// interval, se, between- and within-task sd (fractions), and the bootstrap
// interval when computed.
func WriteCSV(w io.Writer, b *Board) error {
	cw := csv.NewWriter(w)
	head := append(append([]string{"rank"}, b.By...), "stat", "metric", "tasks", "n", "samples", "missing",
		"mean", "ci_low", "ci_high", "se", "between_task_sd", "within_task_sd", "boot_low", "boot_high")
	if err := cw.Write(head); err != nil {
		return err
	}
	for i, r := range b.Rows {
		for _, stat := range []string{"avg", "best"} {
			figs := r.Avg
			if stat == "best" {
				figs = r.Best
			}
			for _, k := range matcher.MetricKeys {
				f := figs[k]
				rec := append(append([]string{strconv.Itoa(i + 1)}, r.Group...), stat, k,
					strconv.Itoa(r.Tasks), strconv.Itoa(r.N), strconv.Itoa(r.Samples), strconv.Itoa(r.Missing),
					f4(f.Mean), f4(f.Low), f4(f.High), f4(f.SE), f4(f.BetweenSD), f4(f.WithinSD), "", "")
				if f.Boot != nil {
					rec[len(rec)-2], rec[len(rec)-1] = f4(f.Boot.Low), f4(f.Boot.High)
				}
				if err := cw.Write(rec); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteTable writes the board for a terminal: percentages, the ranking
// metric with its interval, columns aligned by display width (CJK counts
// two), then the paired differences.
func WriteTable(w io.Writer, b *Board) error {
	t := &table{}
	t.add(headers(b)...)
	for i, r := range b.Rows {
		t.add(cells(b, i, r)...)
	}
	t.write(w)
	fmt.Fprintf(w, "\n%s protocol; missing samples: %s; %s.\n", b.Protocol, missingWords(b.Missing), b.CI)
	if b.Bootstrap != "" {
		fmt.Fprintf(w, "bootstrap: %s.\n", b.Bootstrap)
	}
	if len(b.Pairs) > 0 {
		fmt.Fprintf(w, "\npaired differences of avg %s (B - A, points, on shared tasks)%s:\n", metricName(b.Metric), holmNote(b))
		t := &table{}
		head := []string{"A", "B", "tasks", "delta", "95% CI"}
		if b.Bootstrap != "" {
			head = append(head, "bootstrap")
		}
		t.add(append(head, "p", "p (Holm)", "")...)
		for _, p := range b.Pairs {
			mark := ""
			if p.Significant {
				mark = "*"
			}
			row := []string{p.A, p.B, strconv.Itoa(p.Shared), pct(p.Delta), ci(p.Low, p.High, p.HasCI)}
			if b.Bootstrap != "" {
				row = append(row, bootCI(p.Boot))
			}
			t.add(append(row, pval(p.P), pval(p.HolmP), mark)...)
		}
		t.write(w)
		fmt.Fprintln(w, "* the interval excludes 0 after Holm's correction (p <= 0.05).")
	}
	return nil
}

// WriteMarkdown writes the same table as a GitHub Markdown table.
func WriteMarkdown(w io.Writer, b *Board) error {
	h := headers(b)
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(h, " | "), strings.Repeat(" --- |", len(h)))
	for i, r := range b.Rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(mdEscape(cells(b, i, r)), " | "))
	}
	fmt.Fprintf(w, "\n%s protocol; missing samples: %s; %s.\n", b.Protocol, missingWords(b.Missing), b.CI)
	if len(b.Pairs) > 0 {
		fmt.Fprintf(w, "\nPaired differences of avg %s (B - A, points, on shared tasks)%s:\n\n", metricName(b.Metric), holmNote(b))
		fmt.Fprintln(w, "| A | B | tasks | delta | 95% CI | p | p (Holm) |\n| --- | --- | --- | --- | --- | --- | --- |")
		for _, p := range b.Pairs {
			d := pct(p.Delta)
			if p.Significant {
				d = "**" + d + "**"
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(mdEscape([]string{p.A, p.B, strconv.Itoa(p.Shared), d, ci(p.Low, p.High, p.HasCI), pval(p.P), pval(p.HolmP)}), " | "))
		}
	}
	return nil
}

func headers(b *Board) []string {
	h := append([]string{"#"}, b.By...)
	h = append(h, "tasks", "N", "missing", "avg "+metricName(b.Metric), "95% CI")
	if b.Bootstrap != "" {
		h = append(h, "bootstrap")
	}
	return append(h, "P", "R", "node F1", "best "+metricName(b.Metric), "95% CI", "sd within task")
}

func cells(b *Board, i int, r Row) []string {
	a, best := r.Avg[b.Metric], r.Best[b.Metric]
	c := append([]string{strconv.Itoa(i + 1)}, r.Group...)
	c = append(c, strconv.Itoa(r.Tasks), strconv.Itoa(r.N), strconv.Itoa(r.Missing), pct(a.Mean), ci(a.Low, a.High, a.HasCI))
	if b.Bootstrap != "" {
		c = append(c, bootCI(a.Boot))
	}
	return append(c, pct(r.Avg["triplet_precision"].Mean), pct(r.Avg["triplet_recall"].Mean), pct(r.Avg["node_f1"].Mean),
		pct(best.Mean), ci(best.Low, best.High, best.HasCI), within(r, a))
}

// within is "-" when no task has two samples (nothing to spread).
func within(r Row, f Figure) string {
	if r.N < 2 {
		return "-"
	}
	return pct(f.WithinSD)
}

func bootCI(bt *Boot) string {
	if bt == nil {
		return "-"
	}
	return ci(bt.Low, bt.High, true)
}

func metricName(k string) string {
	return map[string]string{
		"triplet_precision": "P", "triplet_recall": "R", "triplet_f1": "F1",
		"node_precision": "node P", "node_recall": "node R", "node_f1": "node F1",
	}[k]
}

func holmNote(b *Board) string {
	if len(b.Pairs) > 1 {
		return fmt.Sprintf("; p Holm-corrected over %d pairs", len(b.Pairs))
	}
	return ""
}

func missingWords(m string) string {
	if m == "skip" {
		return "left out (--missing skip)"
	}
	return "scored 0, as the reference does"
}

func mdEscape(c []string) []string {
	out := make([]string, len(c))
	for i, s := range c {
		out[i] = strings.ReplaceAll(s, "|", `\|`)
	}
	return out
}

func f4(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }

// pct is a fraction as percentage points, 2 decimals.
func pct(x float64) string { return strconv.FormatFloat(x*100, 'f', 2, 64) }

func ci(lo, hi float64, ok bool) string {
	if !ok {
		return "-"
	}
	return "[" + pct(lo) + ", " + pct(hi) + "]"
}

func pval(p float64) string {
	if p < 0.0001 {
		return "<0.0001"
	}
	return strconv.FormatFloat(p, 'f', 4, 64)
}

// table aligns columns by display width: the first column (and the group
// columns, which are text) left, numbers right.
type table struct{ rows [][]string }

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// displayWidth: see textwidth.Of (one measure for every table).
func displayWidth(s string) int { return textwidth.Of(s) }

func numeric(s string) bool {
	if s == "" || s == "-" {
		return true
	}
	_, err := strconv.ParseFloat(strings.Trim(s, "[]<*%"), 64)
	return err == nil || strings.HasPrefix(s, "[")
}

func (t *table) write(w io.Writer) {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], displayWidth(c))
		}
	}
	var sb strings.Builder
	for ri, r := range t.rows {
		sb.Reset()
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-displayWidth(c))
			if i > 0 {
				sb.WriteString("  ")
			}
			// Headers and text left, numbers right.
			if ri > 0 && numeric(c) {
				sb.WriteString(pad + c)
			} else {
				sb.WriteString(c + pad)
			}
		}
		io.WriteString(w, strings.TrimRight(sb.String(), " ")+"\n")
	}
}
