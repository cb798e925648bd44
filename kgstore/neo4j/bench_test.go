package neo4j

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
)

// synthRun builds a benchmark-sized run: tasks x gt GT triples, samples
// predictions of pred triples per task, and a full verdict set (one
// coverage verdict per GT triple, one validity verdict per predicted triple)
// per prediction.
type synthRun struct {
	tasks    []kg.Task
	keys     []kgstore.SampleKey
	preds    []kg.Prediction
	verdicts []kgstore.Verdicts
}

func synth(run string, tasks, gt, samples, pred int) synthRun {
	var r synthRun
	for ti := 0; ti < tasks; ti++ {
		id := fmt.Sprintf("task_%03d_synthetic", ti)
		nEnt := gt * 7 / 10
		t := kg.Task{ID: id, Language: []string{"en", "zh"}[ti%2], FinalQuery: "synthetic query " + id}
		for i := 0; i < nEnt; i++ {
			t.Nodes = append(t.Nodes, kg.Node{ID: fmt.Sprintf("n%d", i), Name: fmt.Sprintf("entity %d of %d", i, ti)})
		}
		for i := 0; i < gt; i++ {
			h, tl := i%nEnt, (i*7+1)%nEnt
			t.Triples = append(t.Triples, kg.GTTriple{
				Triple: kg.Triple{Head: t.Nodes[h].Name, Relation: fmt.Sprintf("relation %d", i%30), Tail: t.Nodes[tl].Name},
				HeadID: t.Nodes[h].ID, TailID: t.Nodes[tl].ID,
			})
		}
		r.tasks = append(r.tasks, t)
		for si := 0; si < samples; si++ {
			key := kgstore.SampleKey{Run: run, TaskID: id, Sample: si}
			p := kg.Prediction{QID: id, TaskID: id, SampleIdx: si, Report: kg.ParseReport{Status: kg.ParseClean, Method: "fence", Triples: pred}}
			for i := 0; i < pred; i++ {
				p.Triples = append(p.Triples, kg.Triple{
					Head:     fmt.Sprintf("entity %d of %d", (i*3+si)%(nEnt+50), ti),
					Relation: fmt.Sprintf("predicted %d", i%40),
					Tail:     fmt.Sprintf("entity %d of %d", (i*11+si)%(nEnt+50), ti),
				})
			}
			v := kgstore.Verdicts{Key: key}
			for i := 0; i < gt; i++ {
				c := kg.Verdict{GTIndex: i, State: kg.Uncovered, Support: []int{}, Judge: "synthetic"}
				if (i+si)%5 == 0 {
					c.State, c.Kind, c.Support = kg.Covered, kg.KindDirect, []int{i % pred, (i + 1) % pred}
				}
				v.Coverage = append(v.Coverage, c)
			}
			for i := 0; i < pred; i++ {
				c := kg.Validity{PredIndex: i, State: kg.Uncovered, Support: []int{}, Judge: "synthetic"}
				if (i+si)%4 == 0 {
					c.State, c.Support = kg.Covered, []int{i % gt}
				}
				v.Validity = append(v.Validity, c)
			}
			r.keys = append(r.keys, key)
			r.preds = append(r.preds, p)
			r.verdicts = append(r.verdicts, v)
		}
	}
	return r
}

func (r synthRun) sync(ctx context.Context, w *Writer) error {
	for _, t := range r.tasks {
		if err := w.PutTask(ctx, t); err != nil {
			return err
		}
	}
	for i := range r.preds {
		if err := w.PutPrediction(ctx, r.keys[i], r.preds[i]); err != nil {
			return err
		}
		if err := w.PutVerdicts(ctx, r.verdicts[i]); err != nil {
			return err
		}
	}
	return w.Flush(ctx)
}

func (r synthRun) triples() int {
	n := 0
	for _, t := range r.tasks {
		n += len(t.Triples)
	}
	for _, p := range r.preds {
		n += len(p.Triples)
	}
	return n
}

// BenchmarkSync writes a benchmark-sized run (200 tasks x 300 GT triples,
// 4 samples x 300 predicted triples, every verdict) into an empty
// namespace, then syncs it a second time (which must change nothing).
//
//	go test ./kgstore/neo4j -run '^$' -bench Sync -benchtime 1x
func BenchmarkSync(b *testing.B) {
	run := synth("bench", 200, 300, 4, 300)
	benchSync(b, run)
}

// BenchmarkSyncSmall is a tenth of BenchmarkSync, for a quick look.
func BenchmarkSyncSmall(b *testing.B) {
	benchSync(b, synth("bench", 20, 300, 4, 300))
}

func benchSync(b *testing.B, run synthRun) {
	ctx := context.Background()
	n := run.triples()
	var first, second time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		cfg := testConfig(b)
		s := openTest(b, cfg)
		b.StartTimer()
		start := time.Now()
		w := s.NewWriter()
		if err := run.sync(ctx, w); err != nil {
			b.Fatal(err)
		}
		first += time.Since(start)
		st := w.Stats()
		b.StopTimer()
		checkCounts(b, s, run)
		b.StartTimer()
		start = time.Now()
		w2 := s.NewWriter()
		if err := run.sync(ctx, w2); err != nil {
			b.Fatal(err)
		}
		second += time.Since(start)
		st2 := w2.Stats()
		if st2.Triples != 0 || st2.Unchanged != len(run.tasks)+2*len(run.preds) {
			b.Fatalf("second sync wrote %+v, want nothing", st2)
		}
		b.StopTimer()
		b.Logf("sync: %d triples (+%d verdicts) in %v = %.0f triples/s, %d transactions; second sync %v (%d graphs unchanged)",
			st.Triples, countVerdicts(run), first, float64(n)/first.Seconds(), st.Transactions, second, st2.Unchanged)
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(n)*float64(b.N)/first.Seconds(), "triples/s")
	b.ReportMetric(first.Seconds()/float64(b.N), "s/sync")
	b.ReportMetric(second.Seconds()/float64(b.N), "s/resync")
}

func countVerdicts(r synthRun) int {
	n := 0
	for _, v := range r.verdicts {
		n += len(v.Coverage) + len(v.Validity)
	}
	return n
}

// checkCounts compares the graph's size with the run's: every triple, every
// coverage verdict (JUDGED) and every in-range support (COVERED_BY).
func checkCounts(b *testing.B, s *Store, run synthRun) {
	b.Helper()
	var judged, covered int
	for _, v := range run.verdicts {
		judged += len(v.Coverage)
		for _, c := range v.Coverage {
			seen := map[int]bool{}
			for _, i := range c.Support {
				if !seen[i] {
					seen[i] = true
					covered++
				}
			}
		}
	}
	res, err := s.Query(context.Background(), `
MATCH (s:Sample {ns: $ns})
RETURN sum(COUNT { (s)-[:HAS_TRIPLE]->() }) AS pred, sum(COUNT { (s)-[:JUDGED]->() }) AS judged,
       sum(COUNT { (s)-[:HAS_TRIPLE]->()<-[:COVERED_BY]-() }) AS covered`, nil, false)
	if err != nil {
		b.Fatal(err)
	}
	got := fmt.Sprint(res.Rows[0])
	want := fmt.Sprint([]any{int64(run.triples() - len(run.tasks)*len(run.tasks[0].Triples)), int64(judged), int64(covered)})
	if got != want {
		b.Fatalf("graph has [pred triples, JUDGED, COVERED_BY] = %s, want %s", got, want)
	}
}
