package rundiff

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/kgjudge/kgjudge/internal/textwidth"
)

// WriteJSON writes the whole comparison.
func WriteJSON(w io.Writer, r *Result) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteText writes the comparison for a person: the difference with its
// interval, the gate's verdict, per-task deltas (largest drop first) and at
// most maxFlips flipped claims (0: all).
func WriteText(w io.Writer, r *Result, maxFlips int) error {
	d := r.Diff
	fmt.Fprintf(w, "%s -> %s · avg %s · %s protocol · missing samples %s\n\n", r.A, r.B, r.Metric, r.Protocol, r.Missing)
	fmt.Fprintf(w, "%d shared task(s): %s %s, %s %s; difference %s points", d.Shared, r.A, pct(d.MeanA), r.B, pct(d.MeanB), signed(d.Delta))
	if d.HasCI {
		fmt.Fprintf(w, ", 95%% CI [%s, %s], p %s\n", pct(d.Low), pct(d.High), strconv.FormatFloat(d.P, 'g', 4, 64))
	} else {
		fmt.Fprintln(w, " (one shared task: no interval)")
	}
	if len(r.OnlyA)+len(r.OnlyB) > 0 {
		fmt.Fprintf(w, "not compared: %d task(s) only in %s, %d only in %s\n", len(r.OnlyA), r.A, len(r.OnlyB), r.B)
	}
	fmt.Fprintf(w, "%s\n\nper task (%s):\n", r.Verdict, r.Metric)
	col := 4
	for _, t := range r.Tasks {
		col = max(col, displayWidth(t.TaskID))
	}
	for _, t := range r.Tasks {
		fmt.Fprintf(w, "  %s  %6s -> %6s  %7s\n", padRight(t.TaskID, col), pct(t.A), pct(t.B), signed(t.Delta))
	}
	var keys []string
	for k := range r.FlipCounts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, r.FlipCounts[k]))
	}
	fmt.Fprintf(w, "\n%d flipped verdict(s)", len(r.Flips))
	if len(parts) > 0 {
		fmt.Fprintf(w, ": %s", strings.Join(parts, ", "))
	}
	fmt.Fprintln(w)
	for i, f := range r.Flips {
		if maxFlips > 0 && i == maxFlips {
			fmt.Fprintf(w, "  ... %d more (--flips 0 lists all, --format json has them)\n", len(r.Flips)-maxFlips)
			break
		}
		fmt.Fprintf(w, "  %s sample %d %s #%d %s -> %s: %s\n", f.TaskID, f.Sample, f.Pass, f.Index, f.From, f.To, f.Text)
	}
	return nil
}

func pct(x float64) string { return strconv.FormatFloat(100*x, 'f', 2, 64) }

func signed(x float64) string {
	s := pct(x)
	if x >= 0 {
		s = "+" + s
	}
	return s
}

// padRight pads by display columns (a CJK character takes two).
func padRight(s string, w int) string {
	if n := displayWidth(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// displayWidth: see textwidth.Of (one measure for every table).
func displayWidth(s string) int { return textwidth.Of(s) }
