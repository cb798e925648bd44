package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/runs"
)

func printTable(w io.Writer, o scoreOptions, res *runs.ScoreResult) {
	s := res.Summary
	fmt.Fprintf(w, "run %s · judge %s · protocol %s · store %s · out %s\n\n", s.Run, s.Judge, s.Protocol, o.Store, res.Out)
	if len(res.Items) == 0 {
		fmt.Fprintf(w, "no sample was scored: %d input problem(s), listed on stderr and in summary.json failed_inputs\n", len(s.Failed))
		return
	}
	tb := &table{}
	tb.add("task", "sample", "GT", "pred", "parse", "P", "R", "F1", "node P", "node R", "node F1", "unjudged")
	for i := range res.Items {
		it := &res.Items[i]
		gt := 0
		if it.Coverage != nil {
			gt = it.Coverage.TotalGTTriples
		}
		tb.add(it.QID, strconv.Itoa(it.SampleIdx), strconv.Itoa(gt), strconv.Itoa(it.NumPredTriples), string(it.ParseReport.Status),
			f4(it.TripletPrecision), f4(it.TripletRecall), f4(it.TripletF1), f4(it.NodePrecision), f4(it.NodeRecall), f4(it.NodeF1),
			strconv.Itoa(it.Unjudged.Total()))
	}
	tb.write(w)

	fmt.Fprintf(w, "\n%d task(s), %d sample(s) per task at most\n", s.NumQueries, s.NumSamples)
	tb = &table{}
	tb.add("", "P", "R", "F1", "node P", "node R", "node F1")
	for _, row := range []struct {
		name string
		m    map[string]float64
	}{{fmt.Sprintf("avg@%d", s.NumSamples), s.Avg}, {fmt.Sprintf("best@%d", s.NumSamples), s.Best}} {
		tb.add(row.name, f4(row.m["triplet_precision"]), f4(row.m["triplet_recall"]), f4(row.m["triplet_f1"]),
			f4(row.m["node_precision"]), f4(row.m["node_recall"]), f4(row.m["node_f1"]))
	}
	tb.write(w)
	if e := s.Estimate; e != nil {
		a := e.AvgTriplet
		fmt.Fprintf(w, "%s\n  expected P %.4f [%.4f, %.4f], R %.4f [%.4f, %.4f] (95%% intervals; the thresholded figures above are the verdicts)\n",
			e.Text, a.Precision.Expected, a.Precision.Low, a.Precision.High, a.Recall.Expected, a.Recall.Low, a.Recall.High)
	}

	var parts []string
	for _, st := range kg.ParseStatuses {
		if n := s.ParseReports[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", st, n))
		}
	}
	if n := len(s.Missing); n > 0 {
		how := "scored 0"
		if res.Info.Missing == string(runs.MissingSkip) {
			how = "left out of the means"
		}
		fmt.Fprintf(w, "\nmissing: %d sample(s) without a prediction, %s (summary.json \"missing\")", n, how)
	}
	fmt.Fprintf(w, "\nparse: %s\n", strings.Join(parts, ", "))
	fmt.Fprintf(w, "unjudged: %d claim(s) in %d sample(s) (coverage %d, validity %d)\n", s.Unjudged.Total(), s.UnjudgedItems, s.Unjudged.Coverage, s.Unjudged.Validity)
	if s.IndexProblems > 0 {
		fmt.Fprintf(w, "index problems: %d supporting index(es) not counted (see index_problems in the item files)\n", s.IndexProblems)
	}
	if inv := res.Invocation; inv != nil && inv.LLM != nil {
		m := inv.LLM
		fmt.Fprintf(w, "judge %s: %d call(s), %d attempt(s), %d re-ask(s); tokens %d in / %d out", m.Judge, m.Calls, m.Attempts, m.Reasks, m.Tokens.Prompt, m.Tokens.Completion)
		if m.Price.InPerM > 0 || m.Price.OutPerM > 0 {
			fmt.Fprintf(w, " ($%.4f)", m.USD)
		}
		fmt.Fprintf(w, "; cache %d hit(s), %d miss(es)", m.Cache.Hits, m.Cache.Misses)
		if m.BudgetReached {
			fmt.Fprint(w, "; token budget reached: rerun to continue")
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	printStructure(w, &res.Structure, 0, true)
	if len(s.Failed) > 0 {
		fmt.Fprintf(w, "not scored: %d input problem(s), listed on stderr and in summary.json failed_inputs\n", len(s.Failed))
	}
}

// progress reports long runs on stderr: a live line on a terminal, a line
// every logEvery on a log file or pipe (batch jobs), each with done/total,
// the rate and the time left. Output captured by tests (not an *os.File)
// gets none, and stdout and the output files never carry progress, so they
// stay deterministic.
type progress struct {
	w          io.Writer
	verb, past string // "scoring", "scored"
	total      int
	n          int
	tty, log   bool
	start      time.Time
	last       time.Time
}

const logEvery = 15 * time.Second

func newProgress(w io.Writer, total int) *progress {
	return newProgressVerb(w, total, "scoring", "scored")
}

func newProgressVerb(w io.Writer, total int, verb, past string) *progress {
	p := &progress{w: w, total: total, start: time.Now(), verb: verb, past: past}
	p.last = p.start
	if f, ok := w.(*os.File); ok && total > 0 {
		fi, err := f.Stat()
		p.tty = err == nil && fi.Mode()&os.ModeCharDevice != 0
		p.log = err == nil && !p.tty
	}
	// A line at once, so a long first sample is not silence.
	switch {
	case p.tty:
		fmt.Fprintf(w, "\r\033[K%s %s", verb, p.rate(p.start))
	case p.log:
		fmt.Fprintf(w, "kgjudge: %s %d sample(s) (a progress line every %s)\n", verb, total, logEvery)
	}
	return p
}

func (p *progress) step(task string, sample int) {
	p.n++
	now := time.Now()
	switch {
	case p.tty:
		fmt.Fprintf(p.w, "\r\033[K%s %s  %s sample %d", p.verb, p.rate(now), task, sample)
	case p.log && now.Sub(p.last) >= logEvery:
		p.last = now
		fmt.Fprintf(p.w, "kgjudge: %s %d/%d sample(s) (%d%%) in %s%s (last: %s sample %d)\n", p.past, p.n, p.total, p.pct(),
			now.Sub(p.start).Round(time.Second), p.speed(now), task, sample)
	}
}

// rate is "n/total (pct%), R/s, ETA d" at now.
func (p *progress) rate(now time.Time) string {
	return fmt.Sprintf("%d/%d (%d%%)%s", p.n, p.total, p.pct(), p.speed(now))
}

func (p *progress) pct() int {
	if p.total <= 0 {
		return 0
	}
	return 100 * p.n / p.total
}

// speed is ", R/s, ETA d" at now (empty before the first step).
func (p *progress) speed(now time.Time) string {
	el := now.Sub(p.start)
	if el <= 0 || p.n == 0 {
		return ""
	}
	r := float64(p.n) / el.Seconds()
	eta := time.Duration(float64(p.total-p.n) / r * float64(time.Second))
	return fmt.Sprintf(", %s/s, ETA %s", strconv.FormatFloat(r, 'g', 3, 64), eta.Round(time.Second))
}

func (p *progress) done() {
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func f4(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
