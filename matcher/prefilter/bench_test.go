package prefilter

import (
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

// benchSample builds a 400-GT x 600-predicted sample from the fixtures'
// real triples (mixed English and Chinese).
func benchSample(b *testing.B) (*kg.Task, *kg.Prediction) {
	task := &kg.Task{ID: "bench"}
	pred := &kg.Prediction{QID: "bench", TaskID: "bench"}
	for _, name := range fixtureNames {
		f := loadFixture(b, name)
		task.Nodes = append(task.Nodes, f.task.Nodes...)
		task.Triples = append(task.Triples, f.task.Triples...)
		pred.Triples = append(pred.Triples, f.pred.Triples...)
	}
	task.Triples = task.Triples[:400]
	pred.Triples = pred.Triples[:600]
	return task, pred
}

// BenchmarkPlan400x600 runs the whole planner (candidates both ways,
// deterministic tier, batching, accounting) on one 400 x 600 sample.
func BenchmarkPlan400x600(b *testing.B) {
	task, pred := benchSample(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Planner{}).Sample(b.Context(), task, pred); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlan400x600NoIndex is BenchmarkPlan400x600 without the Bleve
// stage (Options.NoIndex), for comparison.
func BenchmarkPlan400x600NoIndex(b *testing.B) {
	task, pred := benchSample(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Planner{Options: Options{NoIndex: true}}).Sample(b.Context(), task, pred); err != nil {
			b.Fatal(err)
		}
	}
}
