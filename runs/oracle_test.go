package runs

import (
	"testing"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/internal/fixtures"
	"github.com/kgjudge/kgjudge/kg"
)

// fixtureInputs loads the named fixtures as one plan's inputs, with their
// recorded verdicts.
func fixtureInputs(t testing.TB, names []string) (*Inputs, []ingest.Eval) {
	t.Helper()
	in := &Inputs{}
	var evals []ingest.Eval
	for _, n := range names {
		f := fixtures.Load(t, n)
		in.Tasks = append(in.Tasks, f.Task)
		in.Preds = append(in.Preds, f.Pred)
		evals = append(evals, f.Eval)
	}
	in.TaskByID = map[string]*kg.Task{}
	for i := range in.Tasks {
		in.TaskByID[in.Tasks[i].ID] = &in.Tasks[i]
		in.IDs = append(in.IDs, in.Tasks[i].ID)
	}
	return in, evals
}

// TestPlanOracleFixtures measures plan --oracle on the 11 fixtures (the
// issue's fidelity targets) and prints the per-sample table.
func TestPlanOracleFixtures(t *testing.T) {
	in, evals := fixtureInputs(t, fixtures.All())
	out, err := Plan(t.Context(), in, PlanConfig{Oracle: evals})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range out.Items {
		o := it.Oracle
		t.Logf("%-28s oracle P %.4f R %.4f F1 %.4f | recorded P %.4f R %.4f F1 %.4f | calls %d (ref %d) tokens %d (ref %d)",
			it.QID, o.TripletPrecision, o.TripletRecall, o.TripletF1, o.RecordedTripletPrecision, o.RecordedTripletRecall, o.RecordedTripletF1,
			it.Estimate.Kgjudge.Calls, it.Estimate.Reference.Calls, it.Estimate.Kgjudge.PromptTokens, it.Estimate.Reference.PromptTokens)
	}
	o, e := out.Totals.Oracle, out.Totals.Estimate
	t.Logf("pooled: oracle P %.4f R %.4f F1 %.4f | recorded P %.4f R %.4f F1 %.4f | mean |dF1| %.4f | recall ratio %.4f",
		o.TripletPrecision, o.TripletRecall, o.TripletF1, o.RecordedTripletPrecision, o.RecordedTripletRecall, o.RecordedTripletF1, o.MeanAbsF1Gap, o.RecallRatio)
	t.Logf("calls %d vs reference %d; prompt tokens %d vs %d (%.3f x); completion %d vs %d",
		e.Kgjudge.Calls, e.Reference.Calls, e.Kgjudge.PromptTokens, e.Reference.PromptTokens,
		float64(e.Kgjudge.PromptTokens)/float64(e.Reference.PromptTokens), e.Kgjudge.CompletionTokens, e.Reference.CompletionTokens)
	// The targets (nothing here is fitted on the fixtures: the
	// budget defaults are round numbers, so these are not in-sample fits).
	if o.MeanAbsF1Gap > 0.02 {
		t.Errorf("mean |oracle F1 - recorded F1| %.4f, want <= 0.02", o.MeanAbsF1Gap)
	}
	if o.RecallRatio < 0.97 {
		t.Errorf("pooled oracle recall %.4f x recorded, want >= 0.97", o.RecallRatio)
	}
	if e.Kgjudge.Calls > e.Reference.Calls {
		t.Errorf("%d calls, want <= the reference batching's %d", e.Kgjudge.Calls, e.Reference.Calls)
	}
	if r := float64(e.Kgjudge.PromptTokens) / float64(e.Reference.PromptTokens); r > 0.30 {
		t.Errorf("prompt tokens %.3f x reference batching, want <= 0.30", r)
	}
}
