package cayley

import (
	"context"
	"reflect"
	"testing"

	"github.com/kgjudge/kgjudge/hierarchy"
	"github.com/kgjudge/kgjudge/internal/gen"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/storetest"
)

// TestClasses runs the class conformance suite on disk and in memory with
// the product's classifier.
func TestClasses(t *testing.T) {
	for _, path := range []string{"disk", Memory} {
		t.Run(path, func(t *testing.T) {
			storetest.RunClasses(t, func(t *testing.T, c kgstore.Classifier) kgstore.Store {
				p := path
				if p == "disk" {
					p = t.TempDir()
				}
				s := openT(t, p)
				s.SetClassifier(c)
				return s
			}, hierarchy.GraphClassifier{})
		})
	}
}

// TestClassesReopen: the classes are on disk, read back by a store opened
// without a classifier.
func TestClassesReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openT(t, dir)
	s.SetClassifier(hierarchy.GraphClassifier{})
	p := storetest.Predictions()[0]
	if err := s.PutPrediction(ctx, p.Key, p.Prediction); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openT(t, dir)
	defer s.Close()
	got, err := s.PredictionClasses(ctx, p.Key)
	if err != nil {
		t.Fatal(err)
	}
	if want := (hierarchy.GraphClassifier{}).Classify(p.Triples); !reflect.DeepEqual(got, want) {
		t.Errorf("after reopening: %q, want %q", got, want)
	}
}

// BenchmarkClassQuads is what keeping classes adds to writing one sample
// (internal/gen samples: 200-800 predicted triples): classifying its
// triples and encoding the record. Compare with BenchmarkPutSample's
// seconds per sample:
//
//	go test ./kgstore/cayley -run '^$' -bench ClassQuads -benchtime 20x
func BenchmarkClassQuads(b *testing.B) {
	run := gen.Generate(gen.Bases(b), 22, 1)
	s := &Store{classifier: hierarchy.GraphClassifier{}}
	triples := 0
	for b.Loop() {
		for i, p := range run.Preds {
			triples += len(p.Triples)
			if len(s.classQuads(predLabel(kgstore.SampleKey{Run: "bench", TaskID: run.Task(i).ID}), p.Triples)) != 2 {
				b.Fatal("no class quads")
			}
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N*len(run.Preds)), "s/sample")
	b.ReportMetric(float64(triples)/float64(b.N*len(run.Preds)), "triples/sample")
}
