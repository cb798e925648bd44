package calibrate

import "testing"

func TestChooseRoute(t *testing.T) {
	mk := func(ps []float64, ys []bool) []scored {
		out := make([]scored, len(ps))
		for i := range ps {
			out[i] = scored{ps[i], ys[i]}
		}
		return out
	}
	// Two samples: low probabilities are negatives up to 0.10, high ones
	// positives from 0.90, except that sample b has a positive at 0.04.
	a := mk([]float64{0.01, 0.02, 0.05, 0.08, 0.5, 0.92, 0.95, 0.99}, []bool{false, false, false, false, true, true, true, true})
	b := mk([]float64{0.03, 0.04, 0.06, 0.5, 0.91, 0.97}, []bool{false, true, false, false, true, true})
	r := chooseRoute([][]scored{a, b}, 1)
	// Perfect agreement on every sample: Low must stay under b's 0.04.
	if r.Low != 0.03 || r.High != 0.91 {
		t.Errorf("got low %v high %v, want 0.03 / 0.91", r.Low, r.High)
	}
	if r.CVAgreement != 1 || r.CVShare != round6(float64(3+5)/14) {
		t.Errorf("agreement %v share %v", r.CVAgreement, r.CVShare)
	}
	// At 0.8 per sample, b may keep its stray positive among 5 routed.
	r = chooseRoute([][]scored{a, b}, 0.8)
	if r.Low < 0.06 {
		t.Errorf("target 0.8: low %v, want >= 0.06", r.Low)
	}
	// Nothing qualifies: nothing routed.
	r = chooseRoute([][]scored{mk([]float64{0.01, 0.99}, []bool{true, false})}, 0.97)
	if r.Low != 0 || r.High != 1 || r.CVShare != 0 {
		t.Errorf("unroutable: %+v", r)
	}
	if ok, _ := r.Decides(0.0001); ok {
		t.Error("low 0 routed a negative")
	}
	if ok, c := (&Route{Low: 0.1, High: 0.9}).Decides(0.95); !ok || !c {
		t.Error("0.95 >= high 0.9 not routed covered")
	}
}
