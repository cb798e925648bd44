package report

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kgjudge/kgjudge/leaderboard"
)

// WriteMarkdown writes a text version of the overview, fit for a pull
// request: the leaderboard (when given), each run's avg@N and best@N, what
// was left unjudged or not scored, and the tasks where the runs differ most.
func WriteMarkdown(w io.Writer, in Input) error {
	ov, _, _ := buildPayload(in)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %s\n\n", mdEscape(ov.Title))
	if ov.LeaderboardNote != "" {
		fmt.Fprintf(bw, "%s\n\n", mdEscape(ov.LeaderboardNote))
	}
	for _, b := range ov.Leaderboards {
		// The leaderboard's own Markdown (percentage points), so the two
		// commands print one table the same way.
		fmt.Fprintf(bw, "## Leaderboard by %s\n\n", mdEscape(strings.Join(b.By, ", ")))
		if err := leaderboard.WriteMarkdown(bw, b); err != nil {
			return err
		}
		fmt.Fprintln(bw)
	}
	fmt.Fprintf(bw, "## Runs\n\n")
	cols := []string{"run", "judge", "protocol", "tasks", "N", "avg@N P", "avg@N R", "avg@N F1", "best@N F1", "node F1", "unjudged", "missing", "not scored"}
	var rows [][]string
	for _, r := range ov.Runs {
		rows = append(rows, []string{r.Name, r.Judge, r.Protocol, fmt.Sprint(r.NumQueries), fmt.Sprint(r.NumSamples),
			f4(r.Avg["triplet_precision"]), f4(r.Avg["triplet_recall"]), f4(r.Avg["triplet_f1"]), f4(r.Best["triplet_f1"]),
			f4(r.Avg["node_f1"]), fmt.Sprint(r.Unjudged.Coverage + r.Unjudged.Validity), fmt.Sprint(r.Missing), fmt.Sprint(len(r.Failed))})
	}
	mdTable(bw, cols, rows)
	var cons [][]string
	for _, r := range ov.Runs {
		if c := r.Consistency; c != nil {
			cons = append(cons, []string{r.Name, r.Judge, fmt.Sprint(c.Cited), fmt.Sprint(c.CitedInvalid), f4(c.Share)})
		}
	}
	if len(cons) > 0 {
		fmt.Fprintf(bw, "## Judge self-consistency\n\nOf the predicted triples a run's coverage pass cites as support, those its own validity pass marks invalid.\n\n")
		mdTable(bw, []string{"run", "judge", "supports cited", "marked invalid", "share invalid"}, cons)
	}
	if len(ov.Runs) >= 2 {
		a, b := ov.Runs[0].Name, ov.Runs[1].Name
		type delta struct {
			id string
			d  float64
		}
		var ds []delta
		for _, t := range ov.Tasks {
			x, y := t.Runs[a], t.Runs[b]
			if x != nil && y != nil {
				ds = append(ds, delta{t.ID, y.F1 - x.F1})
			}
		}
		sort.SliceStable(ds, func(i, j int) bool {
			if abs(ds[i].d) != abs(ds[j].d) {
				return abs(ds[i].d) > abs(ds[j].d)
			}
			return ds[i].id < ds[j].id
		})
		if len(ds) > 10 {
			ds = ds[:10]
		}
		fmt.Fprintf(bw, "## Largest per-task changes, %s -> %s (avg@N triplet F1)\n\n", mdEscape(a), mdEscape(b))
		rows = nil
		for _, d := range ds {
			rows = append(rows, []string{d.id, fmt.Sprintf("%+.4f", d.d)})
		}
		mdTable(bw, []string{"task", "ΔF1"}, rows)
	}
	return bw.Flush()
}

func mdTable(w io.Writer, cols []string, rows [][]string) {
	esc := func(cells []string) string {
		out := make([]string, len(cells))
		for i, c := range cells {
			out[i] = mdEscape(c)
		}
		return "| " + strings.Join(out, " | ") + " |\n"
	}
	io.WriteString(w, esc(cols))
	sep := make([]string, len(cols))
	for i := range sep {
		sep[i] = "---"
	}
	io.WriteString(w, "|"+strings.Join(sep, "|")+"|\n")
	for _, r := range rows {
		io.WriteString(w, esc(r))
	}
	io.WriteString(w, "\n")
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func f4(x float64) string { return fmt.Sprintf("%.4f", x) }

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
