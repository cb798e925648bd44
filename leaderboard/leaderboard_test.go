package leaderboard

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/runset"
	"github.com/kgjudge/kgjudge/stats"
)

func sample(task string, idx int, f1 float64) runset.Sample {
	return runset.Sample{TaskID: task, Index: idx, Metrics: runset.Metrics{
		TripletP: f1 + 0.1, TripletR: f1 - 0.1, TripletF1: f1, NodeP: f1 / 2, NodeR: f1 / 3, NodeF1: f1 / 4}}
}

func run(name string, samples ...runset.Sample) runset.Run {
	return runset.Run{Name: name, Model: name, Protocol: matcher.ProtocolPaper, Samples: samples}
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 5e-5 {
		t.Errorf("%s = %.5f, want %.5f", what, got, want)
	}
}

// A hand-made case: run a has 3 tasks and N = 2, but t3 has one sample.
// Zero-filled (the reference): x = (0.4+0.6)/2, (0.2+0.8)/2, (0.9+0)/2 =
// 0.5, 0.5, 0.45 -> avg@2 F1 0.48333; skipped: 0.5, 0.5, 0.9 -> 0.63333.
// best@2: 0.6, 0.8, 0.9 -> 0.76667 either way.
func TestBuildZeroFillHand(t *testing.T) {
	a := run("a", sample("t1", 0, 0.4), sample("t1", 1, 0.6), sample("t2", 0, 0.2), sample("t2", 1, 0.8), sample("t3", 0, 0.9))
	b, err := Build(runset.Set{Runs: []runset.Run{a}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := b.Rows[0]
	if r.Tasks != 3 || r.N != 2 || r.Missing != 1 || r.Samples != 6 {
		t.Fatalf("tasks %d N %d missing %d samples %d, want 3 2 1 6", r.Tasks, r.N, r.Missing, r.Samples)
	}
	near(t, "avg F1", r.Avg["triplet_f1"].Mean, 0.48333)
	near(t, "best F1", r.Best["triplet_f1"].Mean, 0.76667)
	// The interval is stats.ClusterMeanCI of the zero-filled tasks.
	want := stats.ClusterMeanCI([][]float64{{0.4, 0.6}, {0.2, 0.8}, {0.9, 0}})
	near(t, "ci low", r.Avg["triplet_f1"].Low, want.Low)
	near(t, "ci high", r.Avg["triplet_f1"].High, want.High)
	near(t, "within", r.Avg["triplet_f1"].WithinSD, want.WithinSD)
	// best@N takes every metric from the best-F1 sample: t3's node F1 is 0.9/4.
	near(t, "best node F1", r.Best["node_f1"].Mean, (0.6/4+0.8/4+0.9/4)/3)

	s, err := Build(runset.Set{Runs: []runset.Run{a}}, Options{Skip: true})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "skip avg F1", s.Rows[0].Avg["triplet_f1"].Mean, 0.63333)
	if s.Rows[0].Missing != 0 || s.Missing != "skip" {
		t.Errorf("skip: missing %d, %q", s.Rows[0].Missing, s.Missing)
	}

	// A universe (the GT) adds the task the run never answered: 2 zeros.
	u, err := Build(runset.Set{Runs: []runset.Run{a}, Universe: []string{"t1", "t2", "t3", "t4"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "universe avg F1", u.Rows[0].Avg["triplet_f1"].Mean, (0.5+0.5+0.45+0)/4)
	if u.Rows[0].Missing != 3 || u.Rows[0].Tasks != 4 {
		t.Errorf("universe: missing %d tasks %d, want 3 4", u.Rows[0].Missing, u.Rows[0].Tasks)
	}
}

func TestBuildGroupsAndPairs(t *testing.T) {
	var ra, rb, rc runset.Run
	ra, rb, rc = run("a"), run("b"), run("c")
	tasks := map[string]runset.Task{}
	for i := range 8 {
		id := "t" + string(rune('0'+i))
		lang := "en"
		if i%2 == 1 {
			lang = "zh"
		}
		tasks[id] = runset.Task{ID: id, Language: lang}
		x := 0.1 * float64(i)
		ra.Samples = append(ra.Samples, sample(id, 0, x), sample(id, 1, x+0.02))
		rb.Samples = append(rb.Samples, sample(id, 0, x+0.1), sample(id, 1, x+0.12+0.01*float64(i%3)))
		rc.Samples = append(rc.Samples, sample(id, 0, x), sample(id, 1, x+0.03*float64(i%2)))
	}
	set := runset.Set{Runs: []runset.Run{ra, rb, rc}, Tasks: tasks}
	b, err := Build(set, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, r := range b.Rows {
		order = append(order, r.Label)
	}
	if strings.Join(order, ",") != "b,a,c" {
		t.Errorf("rank order %v, want b,a,c", order)
	}
	if len(b.Pairs) != 3 {
		t.Fatalf("%d pairs, want 3", len(b.Pairs))
	}
	var ps []float64
	for _, p := range b.Pairs {
		ps = append(ps, p.P)
	}
	holm := stats.Holm(ps)
	for i, p := range b.Pairs {
		if p.Shared != 8 {
			t.Errorf("%s-%s: %d shared tasks", p.A, p.B, p.Shared)
		}
		near(t, "holm p", p.HolmP, holm[i])
		if p.HolmP < p.P {
			t.Errorf("Holm lowered a p-value: %v < %v", p.HolmP, p.P)
		}
	}
	// a - b is about -0.1 on every task: a real difference.
	if p := b.Pairs[0]; p.A != "b" || p.B != "a" || !p.Significant || p.Delta > -0.09 {
		t.Errorf("b vs a: %+v", p)
	}
	// a and c differ by 0.01 and 0.015 on alternate tasks: also real, and
	// far smaller.
	if p := b.Pairs[2]; p.A != "a" || p.B != "c" || p.Delta > 0 || p.Delta < -0.01 {
		t.Errorf("a vs c: %+v", p)
	}

	byLang, err := Build(set, Options{By: []string{"language", "run"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(byLang.Rows) != 6 {
		t.Fatalf("%d rows by language,run, want 6", len(byLang.Rows))
	}
	for _, p := range byLang.Pairs {
		if p.A[:2] != p.B[:2] {
			t.Errorf("pair across languages shares no task: %s vs %s", p.A, p.B)
		}
	}
	if len(byLang.Pairs) != 6 {
		t.Errorf("%d pairs, want 3 per language", len(byLang.Pairs))
	}
	if _, err := ParseBy("run,color"); err == nil {
		t.Error("--by color accepted")
	}
	if by, _ := ParseBy(" Model,framework,model"); strings.Join(by, ",") != "model,framework" {
		t.Errorf("ParseBy: %v", by)
	}
}

func TestBuildRefusesMixedProtocols(t *testing.T) {
	a, c := run("a", sample("t", 0, 1)), run("c", sample("t", 0, 1))
	c.Protocol = matcher.ProtocolCode
	if _, err := Build(runset.Set{Runs: []runset.Run{a, c}}, Options{}); err == nil || !strings.Contains(err.Error(), "protocol") {
		t.Errorf("mixed protocols: %v", err)
	}
}

// Same input, byte-identical output in every format, whatever the order
// the runs and samples came in.
func TestFormatsDeterministic(t *testing.T) {
	mk := func(rev bool) []byte {
		a := run("甲模型", sample("t1", 0, 0.4), sample("t2", 0, 0.6), sample("t3", 0, 0.5))
		b := run("model-b", sample("t1", 0, 0.5), sample("t2", 0, 0.6), sample("t3", 0, 0.7))
		rs := []runset.Run{a, b}
		if rev {
			rs = []runset.Run{b, a}
			for i, j := 0, len(a.Samples)-1; i < j; i, j = i+1, j-1 {
				a.Samples[i], a.Samples[j] = a.Samples[j], a.Samples[i]
			}
		}
		board, err := Build(runset.Set{Runs: rs}, Options{Bootstrap: true})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		for _, f := range []func(*bytes.Buffer, *Board) error{
			func(w *bytes.Buffer, b *Board) error { return WriteTable(w, b) },
			func(w *bytes.Buffer, b *Board) error { return WriteJSON(w, b) },
			func(w *bytes.Buffer, b *Board) error { return WriteCSV(w, b) },
			func(w *bytes.Buffer, b *Board) error { return WriteMarkdown(w, b) },
		} {
			if err := f(&out, board); err != nil {
				t.Fatal(err)
			}
		}
		return out.Bytes()
	}
	x, y := mk(false), mk(true)
	if !bytes.Equal(x, y) {
		t.Errorf("output depends on input order:\n%s\n---\n%s", x, y)
	}
	if !strings.Contains(string(x), "bootstrap") {
		t.Error("no bootstrap interval in the output")
	}
}

// The table lines up by display width: a CJK run name takes two columns a
// character.
func TestTableCJKAlignment(t *testing.T) {
	a := run("甲模型", sample("t1", 0, 0.4), sample("t2", 0, 0.6))
	b := run("model-b", sample("t1", 0, 0.5), sample("t2", 0, 0.6))
	board, err := Build(runset.Set{Runs: []runset.Run{a, b}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteTable(&out, board); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")[:3]
	col := func(line string) int { return displayWidth(line[:strings.Index(line, "tasks")]) }
	if !strings.Contains(lines[0], "tasks") {
		t.Fatalf("header: %q", lines[0])
	}
	// Every row's "tasks" column ends where the header's does.
	end := col(lines[0]) + len("tasks")
	for _, l := range lines[1:] {
		// The end of the third field (rank, run, tasks).
		off := 0
		for _, f := range strings.Fields(l)[:3] {
			off = strings.Index(l[off:], f) + off + len(f)
		}
		prefix := l[:off]
		if displayWidth(prefix) != end {
			t.Errorf("row %q: tasks column ends at %d, header at %d", l, displayWidth(prefix), end)
		}
	}
}

func TestCSVShape(t *testing.T) {
	a := run("a", sample("t1", 0, 0.4), sample("t2", 0, 0.6))
	board, err := Build(runset.Set{Runs: []runset.Run{a}}, Options{By: []string{"model"}})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteCSV(&out, board); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1+2*6 {
		t.Fatalf("%d lines, want 13", len(lines))
	}
	if !strings.HasPrefix(lines[0], "rank,model,stat,metric,tasks,") {
		t.Errorf("header %q", lines[0])
	}
	if want := "1,a,avg,triplet_f1,2,1,2,0,0.5000,"; !strings.Contains(out.String(), want) {
		t.Errorf("no line starting %q in\n%s", want, out.String())
	}
	var j map[string]any
	var jb bytes.Buffer
	if err := WriteJSON(&jb, board); err != nil || json.Unmarshal(jb.Bytes(), &j) != nil {
		t.Fatalf("json: %v", err)
	}
}

// A group of two runs (one framework, two models): a task's avg@N is the
// mean of both runs' samples, its best@N the mean of the two runs' best
// samples, and the within-task spread of best@N is between the runs.
func TestBuildGroupOfRuns(t *testing.T) {
	a := run("a", sample("t1", 0, 0.2), sample("t1", 1, 0.4), sample("t2", 0, 0.6), sample("t2", 1, 0.6))
	b := run("b", sample("t1", 0, 0.6), sample("t1", 1, 0.8), sample("t2", 0, 0.2), sample("t2", 1, 0.0))
	a.Framework, b.Framework = "react", "react"
	board, err := Build(runset.Set{Runs: []runset.Run{a, b}}, Options{By: []string{"framework"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(board.Rows) != 1 || len(board.Pairs) != 0 {
		t.Fatalf("%d rows %d pairs", len(board.Rows), len(board.Pairs))
	}
	r := board.Rows[0]
	if r.Tasks != 2 || r.Samples != 8 || strings.Join(r.Runs, ",") != "a,b" {
		t.Errorf("%+v", r)
	}
	// t1: (0.2+0.4+0.6+0.8)/4 = 0.5; t2: (0.6+0.6+0.2+0)/4 = 0.35.
	near(t, "avg", r.Avg["triplet_f1"].Mean, 0.425)
	// best: t1 (0.4+0.8)/2 = 0.6, t2 (0.6+0.2)/2 = 0.4.
	near(t, "best", r.Best["triplet_f1"].Mean, 0.5)
	// within best: sd{0.4,0.8} = sd{0.6,0.2} = 0.28284.
	near(t, "best within", r.Best["triplet_f1"].WithinSD, 0.28284)
}
