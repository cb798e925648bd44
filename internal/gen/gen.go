// Package gen builds benchmark-scale scoring runs from the 11 recorded
// fixtures: N samples shaped like them (100-450 GT triples, 200-800
// predicted triples, English and Chinese), each a fixture's graphs sampled,
// extended from a second fixture of its language and perturbed with a
// fixed seed, so that no two samples share their strings. It is benchmark
// support: it owns no product behaviour and no data files (the data are
// built from the fixtures each time).
package gen

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/kgjudge/kgjudge/internal/fixtures"
	"github.com/kgjudge/kgjudge/kg"
)

// Shape bounds of a generated sample (the issue's: 100-450 GT, 200-800
// predicted triples).
const (
	MinGT, MaxGT     = 100, 450
	MinPred, MaxPred = 200, 800
	// SamplesPerTask is how many predicted samples share one task (avg@4).
	SamplesPerTask = 4
)

// Base is one real sample the generator draws from.
type Base struct {
	Name string
	Task kg.Task
	Pred kg.Prediction
}

// Bases loads the 11 fixtures (fixtures.All()).
func Bases(tb testing.TB) []Base {
	tb.Helper()
	var out []Base
	for _, name := range fixtures.All() {
		f := fixtures.Load(tb, name)
		out = append(out, Base{Name: name, Task: f.Task, Pred: f.Pred})
	}
	return out
}

// Run is a generated scoring run: tasks, and up to SamplesPerTask
// predictions of each (Preds[i] is a sample of Tasks[TaskOf[i]]).
type Run struct {
	Tasks  []kg.Task
	Preds  []kg.Prediction
	TaskOf []int
}

// Task returns the task of prediction i.
func (r *Run) Task(i int) *kg.Task { return &r.Tasks[r.TaskOf[i]] }

// FirstSamples keeps the first prediction of each task: a small set that
// still has every fixture's shape (task t is drawn from fixture t mod 11).
func (r *Run) FirstSamples() *Run {
	out := &Run{Tasks: r.Tasks}
	for i, p := range r.Preds {
		if p.SampleIdx == 0 {
			out.Preds = append(out.Preds, p)
			out.TaskOf = append(out.TaskOf, r.TaskOf[i])
		}
	}
	return out
}

// Generate builds n samples (ceil(n/SamplesPerTask) tasks) from bases with
// seed. The same bases and seed give the same run.
func Generate(bases []Base, n int, seed uint64) *Run {
	r := rand.New(rand.NewPCG(seed, 0x6b676a75646765)) // "kgjudge"
	byLang := map[string][]int{}
	for i, b := range bases {
		byLang[b.Task.Language] = append(byLang[b.Task.Language], i)
	}
	run := &Run{}
	var ren renamer
	for i := 0; i < n; i++ {
		ti := i / SamplesPerTask
		if i%SamplesPerTask == 0 {
			b := ti % len(bases)
			same := byLang[bases[b].Task.Language]
			other := same[r.IntN(len(same))]
			if other == b && len(same) > 1 {
				other = same[(indexOf(same, b)+1)%len(same)]
			}
			var t kg.Task
			t, ren = genTask(r, ti, &bases[b], &bases[other])
			run.Tasks = append(run.Tasks, t)
		}
		b, other := ti%len(bases), r.IntN(len(bases))
		run.Preds = append(run.Preds, genPred(r, &run.Tasks[ti], ren, i%SamplesPerTask, &bases[b], &bases[other]))
		run.TaskOf = append(run.TaskOf, ti)
	}
	return run
}

func indexOf(s []int, x int) int {
	for i, y := range s {
		if y == x {
			return i
		}
	}
	return -1
}

// renamer gives a task's entities sample-distinct names: a share of the
// entity names get a suffix of three random letters (a word no other name
// has), the same in the GT and in every prediction of the task, so that
// matching stays what it was while no two tasks share those strings.
type renamer map[string]string

func (m renamer) of(name string) string {
	if n, ok := m[name]; ok {
		return n
	}
	return name
}

func newRenamer(r *rand.Rand, names []string) renamer {
	m := renamer{}
	for _, n := range names {
		if n == "" || r.IntN(3) != 0 {
			continue
		}
		b := []byte{' ', 0, 0, 0}
		for i := 1; i < len(b); i++ {
			b[i] = byte('a' + r.IntN(26))
		}
		m[n] = n + string(b)
	}
	return m
}

// genTask draws a task of MinGT..MaxGT triples: base's GT triples sampled
// in order, topped up from other's (its node ids prefixed) when base has
// too few, entity names renamed (see renamer).
func genTask(r *rand.Rand, ti int, base, other *Base) (kg.Task, renamer) {
	want := MinGT + r.IntN(MaxGT-MinGT+1)
	t := kg.Task{ID: fmt.Sprintf("task_%04d_gen_%s", ti, base.Name), Language: base.Task.Language, FinalQuery: base.Task.FinalQuery}
	t.Nodes = append(t.Nodes, base.Task.Nodes...)
	triples := pick(r, base.Task.Triples, want)
	if len(triples) < want && other != base {
		for _, n := range other.Task.Nodes {
			n.ID = "x" + n.ID
			t.Nodes = append(t.Nodes, n)
		}
		for _, g := range pick(r, other.Task.Triples, want-len(triples)) {
			g.HeadID, g.TailID = prefixed(g.HeadID), prefixed(g.TailID)
			triples = append(triples, g)
		}
	}
	var names []string
	for _, n := range t.Nodes {
		names = append(names, n.Name)
	}
	for _, g := range triples {
		names = append(names, g.Head, g.Tail)
	}
	ren := newRenamer(r, names)
	for i := range t.Nodes {
		t.Nodes[i].Name = ren.of(t.Nodes[i].Name)
		t.Nodes[i].Aliases = append([]string(nil), t.Nodes[i].Aliases...)
	}
	for i := range triples {
		triples[i].Head, triples[i].Tail = ren.of(triples[i].Head), ren.of(triples[i].Tail)
	}
	t.Triples = triples
	return t, ren
}

// genPred draws a prediction of MinPred..MaxPred triples: base's predicted
// triples with about a tenth dropped, renamed like the task, then other's
// (another fixture's: statements about other things, as an agent's
// off-topic triples are) and repeats of base's (agents repeat themselves)
// until the size is reached.
func genPred(r *rand.Rand, task *kg.Task, ren renamer, sample int, base, other *Base) kg.Prediction {
	want := MinPred + r.IntN(MaxPred-MinPred+1)
	p := kg.Prediction{QID: task.ID, TaskID: task.ID, SampleIdx: sample}
	var own []kg.Triple
	for _, t := range base.Pred.Triples {
		if r.IntN(10) == 0 {
			continue
		}
		own = append(own, kg.Triple{Head: ren.of(t.Head), Relation: t.Relation, Tail: ren.of(t.Tail)})
	}
	p.Triples = append(p.Triples, own...)
	if len(p.Triples) < want && other != base {
		p.Triples = append(p.Triples, pick(r, other.Pred.Triples, want-len(p.Triples))...)
	}
	for len(p.Triples) < want && len(own) > 0 {
		p.Triples = append(p.Triples, own[r.IntN(len(own))])
	}
	if len(p.Triples) > want {
		p.Triples = p.Triples[:want]
	}
	p.Report = kg.ParseReport{Status: kg.ParseClean, Method: "generated", Triples: len(p.Triples)}
	return p
}

// WriteFiles writes the run as input files, as a user would give them:
// DIR/gt/<task>.json (id-based nodes and triples) and
// DIR/pred/<task>_sample<N>.csv (head,relation,tail,qid,sample_idx).
func (r *Run) WriteFiles(dir string) error {
	for _, sub := range []string{"gt", "pred"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	for _, t := range r.Tasks {
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "gt", t.ID+".json"), b, 0o644); err != nil {
			return err
		}
	}
	for _, p := range r.Preds {
		f, err := os.Create(filepath.Join(dir, "pred", fmt.Sprintf("%s_sample%d.csv", p.QID, p.SampleIdx)))
		if err != nil {
			return err
		}
		w := csv.NewWriter(f)
		w.Write([]string{"head", "relation", "tail", "qid", "sample_idx"})
		for _, t := range p.Triples {
			w.Write([]string{t.Head, t.Relation, t.Tail, p.QID, strconv.Itoa(p.SampleIdx)})
		}
		w.Flush()
		if err := w.Error(); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

func prefixed(id string) string {
	if id == "" {
		return ""
	}
	return "x" + id
}

// pick returns up to n elements of s in their order (all of s when n >= len(s)).
func pick[T any](r *rand.Rand, s []T, n int) []T {
	if n >= len(s) {
		return append([]T(nil), s...)
	}
	keep := r.Perm(len(s))[:n]
	mark := make([]bool, len(s))
	for _, i := range keep {
		mark[i] = true
	}
	out := make([]T, 0, n)
	for i, x := range s {
		if mark[i] {
			out = append(out, x)
		}
	}
	return out
}
