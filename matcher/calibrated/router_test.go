package calibrated_test

import (
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/internal/fixtures"
	"github.com/kgjudge/kgjudge/llmjudge"
	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/matcher/calibrate"
	"github.com/kgjudge/kgjudge/matcher/calibrated"
	"github.com/kgjudge/kgjudge/plan"
)

var _ llmjudge.Router = (*calibrated.Router)(nil)

func all(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestRouterScores: raw, the router reports the offline judge's own
// probability of every claim (the deterministic tier's claims: 1, with
// their supports); with thresholds, only the claims outside them keep
// their probability and the rest read Unsure, between the Routing's Low
// and High.
func TestRouterScores(t *testing.T) {
	f := fixtures.Load(t, "p020")
	off, err := matcher.Offline{}.Judge(t.Context(), &f.Task, &f.Pred)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := calibrated.New(nil, calibrate.Options{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(raw.Name(), "calibrated/1 weights ") || !strings.HasSuffix(raw.Name(), "raw p") {
		t.Errorf("name %q", raw.Name())
	}
	for _, pass := range []struct {
		p     plan.Pass
		n     int
		probs []float64
		tier  func(i int) bool
	}{
		{plan.Coverage, len(f.Task.Triples), off.CoverageProb, func(i int) bool { return strings.HasPrefix(off.Coverage[i].Reason, "deterministic tier") }},
		{plan.Validity, len(f.Pred.Triples), off.ValidityProb, func(i int) bool { return strings.HasPrefix(off.Validity[i].Reason, "deterministic tier") }},
	} {
		got, err := raw.Score(t.Context(), &f.Task, &f.Pred, pass.p, all(pass.n))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != pass.n {
			t.Fatalf("%s: %d scores for %d claims", pass.p, len(got), pass.n)
		}
		tiers := 0
		for i, s := range got {
			switch {
			case pass.tier(i):
				tiers++
				if s.P != 1 {
					t.Errorf("%s %d: tier claim p=%v, want 1", pass.p, i, s.P)
				}
			case s.P != pass.probs[i]:
				t.Errorf("%s %d: p=%v, offline judge %v", pass.p, i, s.P, pass.probs[i])
			}
		}
		if pass.p == plan.Coverage && tiers == 0 {
			t.Error("p020 has no deterministic-tier coverage claim; the tier case is untested")
		}
	}

	m := calibrate.Default()
	m.Route = &calibrate.Routes{Coverage: calibrate.Route{Low: 0.1, High: 0.9}, Validity: calibrate.Route{Low: 0.2, High: 1}}
	own, err := calibrated.New(m, calibrate.Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(own.Name(), "coverage [0.10, 0.90] validity [0.20, 1.00]") {
		t.Errorf("name %q", own.Name())
	}
	rt := own.Routing()
	if err := rt.Validate(); err != nil || rt.Low != 0.2 || rt.High != 0.9 {
		t.Fatalf("routing [%v, %v] (%v), want [0.2, 0.9]", rt.Low, rt.High, err)
	}
	got, err := own.Score(t.Context(), &f.Task, &f.Pred, plan.Coverage, all(len(f.Task.Triples)))
	if err != nil {
		t.Fatal(err)
	}
	routed := 0
	for i, s := range got {
		p := off.CoverageProb[i]
		tier := strings.HasPrefix(off.Coverage[i].Reason, "deterministic tier")
		switch {
		case tier:
			if s.P != 1 {
				t.Errorf("coverage %d: tier claim p=%v", i, s.P)
			}
		case p <= 0.1 || p >= 0.9:
			routed++
			if s.P != p {
				t.Errorf("coverage %d: p=%v outside the thresholds reported as %v", i, p, s.P)
			}
		default:
			if s.P != calibrated.Unsure {
				t.Errorf("coverage %d: p=%v inside the thresholds reported as %v, want %v", i, p, s.P, calibrated.Unsure)
			}
		}
	}
	if routed == 0 {
		t.Error("no p020 claim outside [0.1, 0.9]: the routed case is untested")
	}
	if _, err := own.Score(t.Context(), &f.Task, &f.Pred, plan.Validity, []int{len(f.Pred.Triples)}); err == nil {
		t.Error("a claim index past the sample: no error")
	}
}
