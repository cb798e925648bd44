package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
)

// RunClasses is the conformance suite of kgstore.ClassReader: a backend
// opened by open with classifier c keeps c's class on every triple of every
// task and prediction it stores, reads it back in triple order, follows a
// rewrite and a deletion, and says ErrNotFound for a missing graph; opened
// with a nil classifier it says ErrNoClasses. The backend's test passes the
// product's classifier (hierarchy.GraphClassifier), so the classes checked
// are the ones the structure report computes. The classes of an empty graph
// are empty (nil or not).
func RunClasses(t *testing.T, open func(t *testing.T, c kgstore.Classifier) kgstore.Store, c kgstore.Classifier) {
	t.Helper()
	t.Run("Classes", func(t *testing.T) {
		s := open(t, c)
		defer closeStore(t, s)
		cr, ok := s.(kgstore.ClassReader)
		if !ok {
			t.Fatalf("%T does not implement kgstore.ClassReader", s)
		}
		ctx := context.Background()
		// A few graphs, not every fixture: each write is a transaction on
		// a server backend, and these cover GT and predicted graphs, the
		// three write paths (PutPrediction, PutSample, PutSamples), CJK
		// text and an empty graph; tasks through PutTask and PutTasks.
		for i, task := range Tasks()[:3] {
			if i == 2 {
				must(t, kgstore.PutTasks(ctx, s, []kg.Task{task}), "PutTasks")
			} else {
				mustPutTask(t, s, task)
			}
			got, err := cr.TaskClasses(ctx, task.ID)
			must(t, err, "TaskClasses "+task.ID)
			checkClasses(t, "task "+task.ID, got, c.Classify(gtGraph(task)))
		}
		preds := Predictions()
		for i, p := range preds[:4] {
			v := kgstore.Verdicts{Key: p.Key, Coverage: []kg.Verdict{}}
			switch i % 3 {
			case 0:
				must(t, s.PutPrediction(ctx, p.Key, p.Prediction), "PutPrediction")
			case 1:
				must(t, kgstore.PutSample(ctx, s, p.Key, p.Prediction, v), "PutSample")
			case 2:
				must(t, kgstore.PutSamples(ctx, s, []kgstore.Sample{{Key: p.Key, Prediction: p.Prediction, Verdicts: v}}), "PutSamples")
			}
			got, err := cr.PredictionClasses(ctx, p.Key)
			must(t, err, "PredictionClasses")
			checkClasses(t, brief(p.Key), got, c.Classify(p.Triples))
		}
		// The suite's fixtures must give the check something to see.
		if cls := c.Classify(preds[0].Triples); len(cls) == 0 || cls[0] == "" {
			t.Fatalf("classifier gave %q for %v: the suite needs classes", cls, preds[0].Triples)
		}

		// A rewritten graph's classes follow its new triples.
		key := preds[0].Key
		again := preds[0].Prediction
		again.Triples = append([]kg.Triple{{Head: "Curie (1911)", Relation: "publication year", Tail: "1911"}}, again.Triples[:2]...)
		must(t, s.PutPrediction(ctx, key, again), "PutPrediction (rewrite)")
		got, err := cr.PredictionClasses(ctx, key)
		must(t, err, "PredictionClasses after a rewrite")
		checkClasses(t, "rewritten "+brief(key), got, c.Classify(again.Triples))

		// Missing and deleted graphs.
		if _, err := cr.TaskClasses(ctx, "no such task"); !errors.Is(err, kgstore.ErrNotFound) {
			t.Errorf("TaskClasses of a missing task: err = %v, want ErrNotFound", err)
		}
		must(t, s.DeleteSample(ctx, key), "DeleteSample")
		if _, err := cr.PredictionClasses(ctx, key); !errors.Is(err, kgstore.ErrNotFound) {
			t.Errorf("PredictionClasses of a deleted sample: err = %v, want ErrNotFound", err)
		}
	})
	t.Run("NoClassifier", func(t *testing.T) {
		s := open(t, nil)
		defer closeStore(t, s)
		cr, ok := s.(kgstore.ClassReader)
		if !ok {
			t.Fatalf("%T does not implement kgstore.ClassReader", s)
		}
		ctx := context.Background()
		task := Tasks()[0]
		mustPutTask(t, s, task)
		if _, err := cr.TaskClasses(ctx, task.ID); !errors.Is(err, kgstore.ErrNoClasses) {
			t.Errorf("TaskClasses without a classifier: err = %v, want ErrNoClasses", err)
		}
		p := Predictions()[0]
		must(t, s.PutPrediction(ctx, p.Key, p.Prediction), "PutPrediction")
		if _, err := cr.PredictionClasses(ctx, p.Key); !errors.Is(err, kgstore.ErrNoClasses) {
			t.Errorf("PredictionClasses without a classifier: err = %v, want ErrNoClasses", err)
		}
	})
}

func closeStore(t *testing.T, s kgstore.Store) {
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func checkClasses(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("classes of %s = %q, want %q", what, got, want)
	}
}

func gtGraph(t kg.Task) []kg.Triple {
	out := make([]kg.Triple, len(t.Triples))
	for i, tr := range t.Triples {
		out[i] = tr.Triple
	}
	return out
}
