package prefilter

import (
	"testing"

	"github.com/kgjudge/kgjudge/plan"
)

func TestPlanResolvedCarriesTheDeterministicTier(t *testing.T) {
	f := loadFixture(t, "p012")
	p := Planner{}
	pl, err := p.Sample(t.Context(), &f.task, &f.pred)
	if err != nil {
		t.Fatal(err)
	}
	batches, res, err := p.PlanResolved(t.Context(), &f.task, &f.pred)
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.CheckResolved(batches, res, len(f.task.Triples), len(f.pred.Triples)); err != nil {
		t.Fatal(err)
	}
	cov := 0
	for i, r := range res {
		if r.Pass == plan.Coverage {
			cov++
			if got := pl.Result.GT[r.Claim].Resolved; got == nil || got.Kind != r.Kind || len(r.Support) == 0 {
				t.Errorf("resolution %d %+v does not match the planner's %+v", i, r, got)
			}
		}
		if i > 0 && res[i-1].Pass == r.Pass && res[i-1].Claim >= r.Claim {
			t.Errorf("resolutions not sorted at %d", i)
		}
	}
	if cov != pl.Item.ResolvedGT || cov == 0 {
		t.Errorf("%d coverage resolutions, plan item says %d resolved", cov, pl.Item.ResolvedGT)
	}
	// Every GT claim is either resolved or in exactly one batch.
	missing, err := plan.Check(batches, len(f.task.Triples), len(f.pred.Triples))
	if err != nil {
		t.Fatal(err)
	}
	if len(missing[plan.Coverage]) != cov {
		t.Errorf("%d GT claims in no batch, %d resolved", len(missing[plan.Coverage]), cov)
	}
}
