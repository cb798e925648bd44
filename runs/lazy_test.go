package runs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/internal/gen"
	"github.com/kgjudge/kgjudge/kgstore/cayley"
	"github.com/kgjudge/kgjudge/matcher"
)

// LoadBatch keeps no triples, and what a worker reads again is what a
// whole read gives.
func TestLoadBatchReadsTriplesAgain(t *testing.T) {
	l := newLayout(t)
	b, err := LoadBatch(t.Context(), l.gt, "", []RunSpec{{Name: "full", Path: l.full}})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := ingest.ReadPredictions(t.Context(), l.full)
	if err != nil {
		t.Fatal(err)
	}
	ri := b.Runs[0]
	if len(ri.Preds) != len(whole) || len(ri.Preds) == 0 {
		t.Fatalf("%d predictions, a whole read gives %d", len(ri.Preds), len(whole))
	}
	files := newFileCache()
	for i := range ri.Preds {
		p := &ri.Preds[i]
		if p.Triples != nil {
			t.Errorf("%s sample %d: LoadBatch kept %d triples", p.Source, p.SampleIdx, len(p.Triples))
		}
		files.want(ri.refs[keyOf(p)].file)
		full, err := ri.prediction(t.Context(), files, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(whole[i].Triples) == 0 || !reflect.DeepEqual(full.Triples, whole[i].Triples) {
			t.Errorf("%s sample %d: read again %d triples, a whole read %d", p.Source, p.SampleIdx, len(full.Triples), len(whole[i].Triples))
		}
		if full.TaskID == "" || full.TaskID != p.TaskID || full.Report.Status != whole[i].Report.Status {
			t.Errorf("%s sample %d: metadata lost: %+v", p.Source, p.SampleIdx, full)
		}
	}
	if len(files.files) != 0 {
		t.Errorf("the file cache still holds %d files after every sample was read", len(files.files))
	}
}

// A prediction file that changes between LoadBatch and the judging stops
// the command with an input error naming the file.
func TestScoreStopsOnFileChangedBetweenReads(t *testing.T) {
	csvOf := func(tails ...string) string {
		s := "head,relation,tail,qid,sample_idx\n"
		for i, tail := range tails {
			s += fmt.Sprintf("Kyoto,has,%s,%s,%d\n", tail, taskE01, i%2)
		}
		return s
	}
	for _, tc := range []struct{ name, now string }{
		{"a triple changed", csvOf("temples", "tea", "moss", "maple")},
		{"a triple removed", csvOf("temples", "tea", "bamboo")},
		{"unreadable", "head,relation\n\"unterminated\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLayout(t)
			dir := t.TempDir()
			file := filepath.Join(dir, "e01.csv")
			if err := os.WriteFile(file, []byte(csvOf("temples", "tea", "bamboo", "maple")), 0o644); err != nil {
				t.Fatal(err)
			}
			b, err := LoadBatch(t.Context(), l.gt, "", []RunSpec{{Name: "r", Path: dir}})
			if err != nil || len(b.Runs[0].Problems) > 0 {
				t.Fatal(err, b.Runs[0].Problems)
			}
			if err := os.WriteFile(file, []byte(tc.now), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = Score(t.Context(), b, ScoreConfig{Store: openStore(t, cayley.Memory), Out: t.TempDir(),
				Judge: matcher.Offline{}, Now: fixedNow, Protocol: matcher.ProtocolPaper})
			var ce *ChangedInputError
			if !errors.As(err, &ce) || !IsInputError(err) || !strings.Contains(err.Error(), file) {
				t.Fatalf("Score = %v, want an input error saying %s changed", err, file)
			}
			t.Log(err)
		})
	}
}

// BenchmarkLoadBatchHeld measures the heap LoadBatch holds for N generated
// samples (one CSV file each, as gen.WriteFiles writes them): the whole
// batch, its runs alone (the predictions: what grows with the samples),
// and, for comparison, the predictions of a whole read (what LoadBatch
// held before it dropped the triples). Each figure is the heap freed when
// that part is let go. Run:
//
//	go test ./runs -run '^$' -bench LoadBatchHeld -benchtime 1x
func BenchmarkLoadBatchHeld(b *testing.B) {
	bases := gen.Bases(b)
	for _, n := range []int{50, 200} {
		b.Run(fmt.Sprintf("samples=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			if err := gen.Generate(bases, n, 1).WriteFiles(dir); err != nil {
				b.Fatal(err)
			}
			gt, pred := filepath.Join(dir, "gt"), filepath.Join(dir, "pred")
			heap := func() int64 {
				var m runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&m)
				return int64(m.HeapAlloc)
			}
			perSample := func(with, without int64) float64 { return float64(with-without) / float64(n) }
			var batch, preds, whole float64
			for b.Loop() {
				bt, err := LoadBatch(b.Context(), gt, "", []RunSpec{{Name: "r", Path: pred}})
				if err != nil || len(bt.Runs[0].Preds) != n {
					b.Fatal(err)
				}
				h0 := heap()
				bt.Runs = nil
				h1 := heap()
				runtime.KeepAlive(bt)
				bt = nil
				h2 := heap()
				batch, preds = perSample(h0, h2), perSample(h0, h1)
				ps, err := ingest.ReadPredictions(b.Context(), pred)
				if err != nil || len(ps) != n {
					b.Fatal(err)
				}
				h0 = heap()
				runtime.KeepAlive(ps)
				ps = nil
				whole = perSample(h0, heap())
			}
			b.ReportMetric(batch, "batch-B/sample")
			b.ReportMetric(preds, "batch-preds-B/sample")
			b.ReportMetric(whole, "whole-preds-B/sample")
		})
	}
}

// Plan over lazy inputs plans what it plans over whole ones, and stops on
// a file changed between the reads.
func TestPlanLazyInputs(t *testing.T) {
	l := newLayout(t)
	whole, err := Load(t.Context(), l.gt, l.full, "")
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := LoadLazy(t.Context(), l.gt, l.full, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range lazy.Samples() {
		if p.Triples != nil {
			t.Fatalf("%s: LoadLazy kept the triples", p.Source)
		}
	}
	want, err := Plan(t.Context(), whole, PlanConfig{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Plan(t.Context(), lazy, PlanConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Items) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("plan over lazy inputs differs:\n%+v\nwant\n%+v", got.Totals, want.Totals)
	}
	// A sample line dropped from one file after the first read.
	firstLines(t, filepath.Join(examplesPred, taskE02+".jsonl"), filepath.Join(l.full, taskE02+".jsonl"), 1)
	_, err = Plan(t.Context(), lazy, PlanConfig{})
	var ce *ChangedInputError
	if !errors.As(err, &ce) || !IsInputError(err) {
		t.Fatalf("Plan = %v, want an input error saying the file changed", err)
	}
}
