package prefilter

import "testing"

// TestDeterministicValidityAgreesWithRecorded: predicted triples the
// deterministic tier marks valid (they state a GT triple) were also judged
// valid by the benchmark's recorded validity pass.
func TestDeterministicValidityAgreesWithRecorded(t *testing.T) {
	resolved, agree := 0, 0
	for _, name := range fixtureNames {
		f := loadFixture(t, name)
		res, err := Build(t.Context(), &f.task, &f.pred, Options{})
		if err != nil {
			t.Fatal(err)
		}
		valid := map[int]bool{}
		for _, r := range f.eval.Validity.PerPredTriple {
			valid[r.PredIndex] = r.Valid
		}
		n, a := 0, 0
		for _, c := range res.Pred {
			if c.Resolved == nil {
				continue
			}
			n++
			if valid[c.Index] {
				a++
			}
			for _, gi := range c.Resolved.Support {
				if res.GT[gi].Resolved == nil {
					t.Errorf("%s: predicted %d resolved by GT %d, which is not resolved", name, c.Index, gi)
				}
			}
		}
		t.Logf("%s: %d predicted triples resolved valid, %d recorded valid", name, n, a)
		resolved += n
		agree += a
	}
	if resolved == 0 || float64(agree) < 0.95*float64(resolved) {
		t.Errorf("deterministic validity: %d of %d recorded valid, want >= 95%%", agree, resolved)
	}
}
