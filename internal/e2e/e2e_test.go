package e2e

import (
	"reflect"
	"testing"

	"github.com/kgjudge/kgjudge/internal/gen"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/cayley"
	"github.com/kgjudge/kgjudge/matcher"
)

// TestSequentialStoresWhatItJudged: the reference pipeline leaves every
// sample's prediction and verdicts in the store, as judged.
func TestSequentialStoresWhatItJudged(t *testing.T) {
	run := gen.Generate(gen.Bases(t), 6, 2)
	st := openBackend(t, cayley.BBolt)
	defer st.Close()
	if err := Sequential(t.Context(), st, matcher.Offline{}, run); err != nil {
		t.Fatal(err)
	}
	keys, err := st.Samples(t.Context(), "e2e")
	if err != nil || len(keys) != len(run.Preds) {
		t.Fatalf("Samples: %d keys, %v; want %d", len(keys), err, len(run.Preds))
	}
	for i := range run.Preds {
		p := &run.Preds[i]
		key := kgstore.SampleKey{Run: "e2e", TaskID: p.TaskID, Sample: p.SampleIdx}
		j, err := matcher.Offline{}.Judge(t.Context(), run.Task(i), p)
		if err != nil {
			t.Fatal(err)
		}
		v, err := st.Verdicts(t.Context(), key)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(v.Coverage, j.Coverage) || !reflect.DeepEqual(v.Validity, j.Validity) {
			t.Errorf("%+v: stored verdicts differ from the judgement", key)
		}
		got, err := st.Prediction(t.Context(), key)
		if err != nil || !reflect.DeepEqual(got.Triples, p.Triples) {
			t.Errorf("%+v: stored prediction differs (%v)", key, err)
		}
	}
}
