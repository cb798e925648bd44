package matcher

import (
	"testing"

	"github.com/kgjudge/kgjudge/internal/fixtures"
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

func TestAgreementDirections(t *testing.T) {
	var a Agreement
	for _, p := range [][2]kg.State{{kg.Covered, kg.Covered}, {kg.Covered, kg.Covered}, {kg.Covered, kg.Uncovered}, {kg.Uncovered, kg.Covered}, {kg.Uncovered, kg.Covered}, {kg.Uncovered, kg.Uncovered}} {
		a.Add(p[0], p[1])
	}
	a.Finish()
	// B said yes 4 times, 2 confirmed by A; A said yes 3 times, B found 2.
	if a.BvsA != (PR{Precision: 0.5, Recall: 0.6667}) || a.AvsB != (PR{Precision: 0.6667, Recall: 0.5}) {
		t.Errorf("b vs a %+v, a vs b %+v", a.BvsA, a.AvsB)
	}
}

func TestSelfConsistency(t *testing.T) {
	cov := []kg.Verdict{
		{GTIndex: 0, State: kg.Covered, Support: []int{0, 1}},
		{GTIndex: 1, State: kg.Covered, Support: []int{1, 2, 9}}, // 9: out of range, not counted
		{GTIndex: 2, State: kg.Uncovered, Support: []int{3}},     // not covered: its support is not cited
	}
	val := []kg.Validity{{PredIndex: 0, State: kg.Covered}, {PredIndex: 1, State: kg.Uncovered}, {PredIndex: 2, State: kg.Uncovered}, {PredIndex: 3, State: kg.Uncovered}}
	var c SelfConsistency
	c.AddSample(cov, val)
	if c != (SelfConsistency{Cited: 3, CitedInvalid: 2, Share: 0.6667}) {
		t.Errorf("%+v", c)
	}
	c.AddSample(cov, nil)
	if c.Cited != 3 {
		t.Errorf("a sample without validity changed it: %+v", c)
	}
}

// TestRecordedSelfConsistency measures the benchmark judge's own
// consistency on the 11 recorded fixtures (a finding, not a fit).
func TestRecordedSelfConsistency(t *testing.T) {
	var all SelfConsistency
	for _, name := range fixtures.All() {
		f := fixtures.Load(t, name)
		cov, val := f.Recorded()
		var s SelfConsistency
		s.AddSample(cov, val)
		all.AddSample(cov, val)
		t.Logf("%s: %d cited supports, %d invalid (%.1f%%)", name, s.Cited, s.CitedInvalid, 100*s.Share)
	}
	t.Logf("all 11: %d cited supports, %d marked invalid by the validity pass (%.1f%%)", all.Cited, all.CitedInvalid, 100*all.Share)
	if all.Cited == 0 || all.CitedInvalid == 0 {
		t.Errorf("%+v: the recorded judge cites supports and marks some invalid", all)
	}
}
