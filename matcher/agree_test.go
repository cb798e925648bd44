package matcher

import (
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

func TestAgreementKappa(t *testing.T) {
	var a Agreement
	add := func(n int, x, y kg.State) {
		for i := 0; i < n; i++ {
			a.Add(x, y)
		}
	}
	// Cohen's worked example: 20 yes/yes, 15 no/no, 5 yes/no, 10 no/yes.
	add(20, kg.Covered, kg.Covered)
	add(15, kg.Uncovered, kg.Uncovered)
	add(5, kg.Covered, kg.Uncovered)
	add(10, kg.Uncovered, kg.Covered)
	add(2, kg.Unjudged, kg.Covered)
	add(1, "", kg.Uncovered) // missing verdict
	a.Finish()
	if a.N != 50 || a.Skipped != 3 || a.Acc != 0.7 || a.Kappa != 0.4 {
		t.Errorf("%+v, want n 50, skipped 3, accuracy 0.7, kappa 0.4", a)
	}
	var same Agreement
	same.Add(kg.Covered, kg.Covered)
	same.Finish()
	if same.Kappa != 1 || same.Acc != 1 {
		t.Errorf("identical constant judges: %+v", same)
	}
	var m Agreement
	m.Merge(a)
	m.Merge(same)
	m.Finish()
	if m.N != 51 || m.Agree != 36 {
		t.Errorf("merge %+v", m)
	}
}
