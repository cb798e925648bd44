package matcher

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kg"
)

// synthItem generates a task of nGT triples, a prediction of nPred triples and
// a recorded evaluation with random (seeded) verdicts, like a reference output.
func synthItem(r *rand.Rand, id string, nGT, nPred int) (kg.Task, kg.Prediction, ingest.Eval) {
	task := kg.Task{ID: id}
	for i := 0; i < nGT/2+1; i++ {
		task.Nodes = append(task.Nodes, kg.Node{ID: "n" + strconv.Itoa(i), Name: fmt.Sprintf("entity %s %d", id, i)})
	}
	for i := 0; i < nGT; i++ {
		h, t := task.Nodes[r.IntN(len(task.Nodes))], task.Nodes[r.IntN(len(task.Nodes))]
		task.Triples = append(task.Triples, kg.GTTriple{Triple: kg.Triple{Head: h.Name, Relation: "rel " + strconv.Itoa(i%17), Tail: t.Name}, HeadID: h.ID, TailID: t.ID})
	}
	pred := kg.Prediction{QID: id, TaskID: id, Report: kg.ParseReport{Status: kg.ParseClean, Triples: nPred}}
	for i := 0; i < nPred; i++ {
		pred.Triples = append(pred.Triples, kg.Triple{Head: fmt.Sprintf("entity %s %d", id, r.IntN(nGT)), Relation: "r" + strconv.Itoa(i%23), Tail: "value " + strconv.Itoa(i)})
	}
	ev := ingest.Eval{Source: id, Record: kg.Record{QID: id, NumPredTriples: nPred,
		Coverage: &kg.CoverageDetails{TotalGTTriples: nGT}, Validity: &kg.ValidityDetails{TotalPredTriples: nPred}}}
	for i, g := range task.Triples {
		rec := kg.GTRecord{GTIndex: i, GTTriple: g.Triple, Covered: r.IntN(4) == 0}
		if rec.Covered {
			for k := 0; k < 1+r.IntN(3); k++ {
				rec.SupportingPredIndices = append(rec.SupportingPredIndices, r.IntN(nPred))
			}
		}
		ev.Coverage.PerGTTriple = append(ev.Coverage.PerGTTriple, rec)
	}
	for i, p := range pred.Triples {
		ev.Validity.PerPredTriple = append(ev.Validity.PerPredTriple, kg.PredRecord{PredIndex: i, PredTriple: p, Valid: r.IntN(5) == 0})
	}
	return task, pred, ev
}

// BenchmarkReplayScore1000 replays and scores 1,000 items of 300 GT x 300
// predicted triples (paper protocol), then summarises them: one op is the
// whole batch.
func BenchmarkReplayScore1000(b *testing.B) {
	const items = 1000
	r := rand.New(rand.NewPCG(1, 2))
	tasks := make([]kg.Task, items)
	preds := make([]kg.Prediction, items)
	evals := make([]ingest.Eval, items)
	ids := make([]string, items)
	for i := range tasks {
		ids[i] = fmt.Sprintf("task_%04d_synthetic", i)
		tasks[i], preds[i], evals[i] = synthItem(r, ids[i], 300, 300)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rep, err := NewReplay(evals, ids, nil)
		if err != nil {
			b.Fatal(err)
		}
		out := make([]Item, 0, items)
		for i := range tasks {
			j, err := rep.Judge(b.Context(), &tasks[i], &preds[i])
			if err != nil {
				b.Fatal(err)
			}
			it, err := Score(&tasks[i], &preds[i], j, ProtocolPaper)
			if err != nil {
				b.Fatal(err)
			}
			out = append(out, it)
		}
		if s := Summarize(out); s.NumQueries != items {
			b.Fatalf("%d queries", s.NumQueries)
		}
	}
	b.ReportMetric(float64(items*b.N)/b.Elapsed().Seconds(), "items/s")
}
