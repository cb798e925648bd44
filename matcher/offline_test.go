package matcher

import (
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

// agreement is accuracy and Cohen's kappa of two yes/no raters.
func agreement(a, b []bool) (acc, kappa float64) {
	var yy, yn, ny, nn float64
	for i := range a {
		switch {
		case a[i] && b[i]:
			yy++
		case a[i]:
			yn++
		case b[i]:
			ny++
		default:
			nn++
		}
	}
	n := yy + yn + ny + nn
	if n == 0 {
		return 0, 0
	}
	acc = (yy + nn) / n
	pe := ((yy+yn)*(yy+ny) + (ny+nn)*(yn+nn)) / (n * n)
	if pe == 1 {
		return acc, 1
	}
	return acc, (acc - pe) / (1 - pe)
}

// TestOfflineAgreement measures the offline judge against the recorded
// verdicts of the three old fixtures (coverage and validity) and its F1 next
// to the published one. The shipped weights were fitted on all 11 fixtures,
// so these figures are in-sample; the leave-one-sample-out measurement is
// matcher/calibrate's TestLeaveOneOut. Floors guard the measured figures.
func TestOfflineAgreement(t *testing.T) {
	floors := map[string]float64{"coverage_kappa": 0.40, "validity_kappa": 0.34} // in-sample, shipped weights: 0.645 / 0.535
	var covA, covB, valA, valB []bool
	for _, name := range fixtureNames {
		f := loadFixture(t, name)
		j, err := Offline{}.Judge(t.Context(), &f.task, &f.pred)
		if err != nil {
			t.Fatal(err)
		}
		it, err := Score(&f.task, &f.pred, j, ProtocolPaper)
		if err != nil {
			t.Fatal(err)
		}
		var ca, cb, va, vb []bool
		kinds := map[kg.CoverageKind]int{}
		for i, r := range f.eval.Coverage.PerGTTriple {
			ca = append(ca, r.Covered)
			cb = append(cb, j.Coverage[i].State == kg.Covered)
			if j.Coverage[i].State == kg.Covered {
				kinds[j.Coverage[i].Kind]++
			}
		}
		for i, r := range f.eval.Validity.PerPredTriple {
			va = append(va, r.Valid)
			vb = append(vb, j.Validity[i].State == kg.Covered)
		}
		c1, k1 := agreement(ca, cb)
		c2, k2 := agreement(va, vb)
		t.Logf("%s: coverage acc %.3f kappa %.3f | validity acc %.3f kappa %.3f | offline P/R/F1 %.4f/%.4f/%.4f, published %.4f/%.4f/%.4f | kinds %v",
			name, c1, k1, c2, k2, it.TripletPrecision, it.TripletRecall, it.TripletF1,
			f.eval.TripletPrecision, f.eval.TripletRecall, f.eval.TripletF1, kinds)
		covA, covB = append(covA, ca...), append(covB, cb...)
		valA, valB = append(valA, va...), append(valB, vb...)
	}
	c1, k1 := agreement(covA, covB)
	c2, k2 := agreement(valA, valB)
	t.Logf("overall: coverage acc %.3f kappa %.3f | validity acc %.3f kappa %.3f", c1, k1, c2, k2)
	if k1 < floors["coverage_kappa"] || k2 < floors["validity_kappa"] {
		t.Errorf("kappa coverage %.3f validity %.3f below floors %v", k1, k2, floors)
	}
}
