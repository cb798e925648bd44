package prefilter

import (
	"context"
	"sort"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/plan"
)

var _ plan.Resolver = Planner{}

// PlanResolved implements plan.Resolver: the deterministic tier's decisions
// travel with the batches, so an LLM judge records them without a call.
func (p Planner) PlanResolved(ctx context.Context, task *kg.Task, pred *kg.Prediction) ([]plan.Batch, []plan.Resolution, error) {
	pl, err := p.Sample(ctx, task, pred)
	if err != nil {
		return nil, nil, err
	}
	return pl.Batches, pl.Resolutions(), nil
}

// Resolutions are the claims of the plan that the deterministic tier
// decided, as PlanResolved returns them.
func (pl *Planned) Resolutions() []plan.Resolution {
	var res []plan.Resolution
	for pass, claims := range map[plan.Pass][]Claim{plan.Coverage: pl.Result.GT, plan.Validity: pl.Result.Pred} {
		for _, c := range claims {
			if r := c.Resolved; r != nil {
				res = append(res, plan.Resolution{Pass: pass, Claim: c.Index, Kind: r.Kind, Support: append([]int{}, r.Support...), Reason: r.Reason})
			}
		}
	}
	sortResolutions(res)
	return res
}

// sortResolutions orders coverage before validity, then by claim, so the
// output does not depend on map iteration.
func sortResolutions(res []plan.Resolution) {
	sort.Slice(res, func(i, j int) bool {
		if res[i].Pass != res[j].Pass {
			return res[i].Pass == plan.Coverage
		}
		return res[i].Claim < res[j].Claim
	})
}
