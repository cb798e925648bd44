package runs

import (
	"fmt"
	"testing"

	"github.com/kgjudge/kgjudge/internal/fixtures"
)

// TestPlanEstimateReusesPlan: plan estimates kgjudge's calls from the
// sample's own plan (EstimatePlanned) instead of planning it again; the
// estimate must be the one the estimator makes by planning the sample
// itself, on every fixture.
func TestPlanEstimateReusesPlan(t *testing.T) {
	in, _ := fixtureInputs(t, fixtures.All())
	out, err := Plan(t.Context(), in, PlanConfig{})
	if err != nil {
		t.Fatal(err)
	}
	est, err := planEstimators(t.Context(), PlanConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, e := range est {
			e.Close()
		}
	}()
	if len(out.Items) != len(in.Preds) {
		t.Fatalf("%d plan items for %d samples", len(out.Items), len(in.Preds))
	}
	byKey := map[string]PlanItem{}
	for _, it := range out.Items {
		byKey[fmt.Sprint(it.QID, "/", it.SampleIdx)] = it
	}
	for i := range in.Preds {
		p := &in.Preds[i]
		it, ok := byKey[fmt.Sprint(p.QID, "/", p.SampleIdx)]
		if !ok {
			t.Fatalf("no plan item for %s sample %d", p.QID, p.SampleIdx)
		}
		want, err := est[0].Estimate(t.Context(), in.TaskByID[p.TaskID], p)
		if err != nil {
			t.Fatal(err)
		}
		if want.Calls == 0 {
			t.Fatalf("%s: the estimator plans no call: nothing compared", p.TaskID)
		}
		if it.Estimate.Kgjudge != want {
			t.Errorf("%s sample %d: estimate from the plan %+v, planned again %+v", p.TaskID, p.SampleIdx, it.Estimate.Kgjudge, want)
		}
	}
}
