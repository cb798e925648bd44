package calibrate_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/matcher/calibrate"
)

// wordCosine is a real (if crude) similarity: the cosine of two texts' word
// count vectors. It exercises the seam an embedding client plugs into.
type wordCosine struct {
	calls int
	pairs int
	fail  error
	short bool
}

func (w *wordCosine) Cosines(_ context.Context, pairs []calibrate.TextPair) ([]float64, error) {
	w.calls++
	w.pairs += len(pairs)
	if w.fail != nil {
		return nil, w.fail
	}
	out := make([]float64, 0, len(pairs))
	for _, p := range pairs {
		a, b := map[string]float64{}, map[string]float64{}
		for _, t := range strings.Fields(strings.ToLower(p.Claim)) {
			a[t]++
		}
		for _, t := range strings.Fields(strings.ToLower(p.Candidate)) {
			b[t]++
		}
		var dot, na, nb float64
		for t, x := range a {
			dot += x * b[t]
			na += x * x
		}
		for _, y := range b {
			nb += y * y
		}
		c := 0.0
		if na > 0 && nb > 0 {
			c = dot / math.Sqrt(na*nb)
		}
		out = append(out, c)
	}
	if w.short {
		out = out[:len(out)-1]
	}
	return out, nil
}

func TestSimilaritySeam(t *testing.T) {
	task := &kg.Task{ID: "t", Triples: []kg.GTTriple{{Triple: kg.Triple{Head: "Hotel Arts", Relation: "price", Tail: "$300"}}}}
	pred := &kg.Prediction{Triples: []kg.Triple{{Head: "Hotel Arts", Relation: "nightly rate", Tail: "$300"}, {Head: "Hotel Arts", Relation: "city", Tail: "Barcelona"}}}
	idx := map[string]int{}
	for i, n := range calibrate.FeatureNames {
		idx[n] = i
	}
	off, err := calibrate.Featurize(t.Context(), task, pred, calibrate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if x := off.Coverage[0].X; x[idx["has_cosine"]] != 0 || x[idx["cos_max"]] != 0 || off.Cosine {
		t.Errorf("without a similarity source the cosine features must be 0: %v", x)
	}
	sim := &wordCosine{}
	on, err := calibrate.Featurize(t.Context(), task, pred, calibrate.Options{Similarity: sim})
	if err != nil {
		t.Fatal(err)
	}
	x := on.Coverage[0].X
	if sim.calls != 1 || sim.pairs == 0 || !on.Cosine || x[idx["has_cosine"]] != 1 || x[idx["cos_max"]] <= 0.5 || x[idx["cos_best"]] <= 0.5 {
		t.Errorf("calls %d pairs %d; features has_cosine %v cos_max %v cos_best %v", sim.calls, sim.pairs, x[idx["has_cosine"]], x[idx["cos_max"]], x[idx["cos_best"]])
	}
	// The shipped weights were fitted without cosines: they ignore them.
	m := calibrate.Default()
	c0, _ := m.Decide(off)
	c1, _ := m.Decide(on)
	if c0[0].Prob != c1[0].Prob {
		t.Errorf("shipped model moved with cosines it was not fitted on: %v vs %v", c0[0].Prob, c1[0].Prob)
	}
	for _, bad := range []*wordCosine{{fail: errors.New("429 too many requests")}, {short: true}} {
		if _, err := calibrate.Featurize(t.Context(), task, pred, calibrate.Options{Similarity: bad}); err == nil || !strings.Contains(err.Error(), "similarity") {
			t.Errorf("a failing similarity source must fail the sample, got %v", err)
		}
	}
}
