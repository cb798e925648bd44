package prefilter

import (
	"testing"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/internal/fixtures"
	"github.com/kgjudge/kgjudge/kg"
)

var fixtureNames = fixtures.Names()

type fixture struct {
	task kg.Task
	pred kg.Prediction
	eval ingest.Eval
}

func loadFixture(t testing.TB, name string) fixture {
	t.Helper()
	f := fixtures.Load(t, name)
	return fixture{f.Task, f.Pred, f.Eval}
}

// recordedSupport returns, per GT triple the recorded judge marked covered,
// its supporting predicted indices (in range).
func recordedSupport(t testing.TB, f fixture) map[int][]int {
	out := map[int][]int{}
	for _, r := range f.eval.Coverage.PerGTTriple {
		if !r.Covered {
			continue
		}
		var idx []int
		for _, i := range r.SupportingPredIndices {
			if i >= 0 && i < len(f.pred.Triples) {
				idx = append(idx, i)
			}
		}
		out[r.GTIndex] = idx
	}
	return out
}

// figures are the acceptance measurements for one or more samples.
type figures struct {
	covered, anyKept, allKept int
	// Validity: predicted triples recorded valid with supporting GT
	// indices, and how many kept any / all of them among their candidates.
	valid, vAnyKept, vAllKept int
	resolved, resolvedRight   int
	vol                       Volume
	focusNum, focusDen        float64
	// claimFocus*: over GT claims sent to a judge, the claim's own
	// candidates / predicted triples (the prefilter's focus, before batches
	// are merged up to a token budget).
	claimFocusNum, claimFocusDen float64
}

func (f *figures) add(o figures) {
	f.covered += o.covered
	f.anyKept += o.anyKept
	f.allKept += o.allKept
	f.valid += o.valid
	f.vAnyKept += o.vAnyKept
	f.vAllKept += o.vAllKept
	f.resolved += o.resolved
	f.resolvedRight += o.resolvedRight
	f.vol.Add(o.vol)
	f.focusNum += o.focusNum
	f.focusDen += o.focusDen
	f.claimFocusNum += o.claimFocusNum
	f.claimFocusDen += o.claimFocusDen
}

func (f figures) anyRate() float64  { return float64(f.anyKept) / float64(f.covered) }
func (f figures) allRate() float64  { return float64(f.allKept) / float64(f.covered) }
func (f figures) vAnyRate() float64 { return float64(f.vAnyKept) / float64(max(1, f.valid)) }
func (f figures) vAllRate() float64 { return float64(f.vAllKept) / float64(max(1, f.valid)) }
func (f figures) volume() float64 {
	return float64(f.vol.PromptChars) / float64(f.vol.ReferencePromptChars)
}

// focus: mean_batch_candidates / pred_triples, claim-weighted.
func (f figures) focus() float64 { return f.focusNum / f.focusDen }

// claimFocus: a judged GT claim's own candidates / pred_triples, mean over
// the claims.
func (f figures) claimFocus() float64 { return f.claimFocusNum / max(1, f.claimFocusDen) }

func measure(t testing.TB, f fixture) figures { return measureWith(t, f, Options{}) }

func measureWith(t testing.TB, f fixture, o Options) figures { return measureDrop(t, f, o, nil) }

// measureDrop is measureWith leaving the GT claims in drop out of the
// evidence figures.
func measureDrop(t testing.TB, f fixture, o Options, drop map[int]bool) figures {
	pl, err := Planner{Options: o}.Sample(t.Context(), &f.task, &f.pred)
	if err != nil {
		t.Fatal(err)
	}
	sup := recordedSupport(t, f)
	for gi := range drop {
		delete(sup, gi)
	}
	var fg figures
	for gi, c := range pl.Result.GT {
		keep := map[int]bool{}
		for _, x := range c.Candidates {
			keep[x.Index] = true
		}
		if c.Resolved != nil {
			fg.resolved++
			if _, ok := sup[gi]; ok {
				fg.resolvedRight++
			}
			for _, x := range c.Resolved.Support {
				keep[x] = true
			}
		}
		s, ok := sup[gi]
		if !ok {
			continue
		}
		fg.covered++
		n := 0
		for _, x := range s {
			if keep[x] {
				n++
			}
		}
		if n > 0 || len(s) == 0 {
			fg.anyKept++
		}
		if n == len(s) {
			fg.allKept++
		}
	}
	for _, r := range f.eval.Validity.PerPredTriple {
		if !r.Valid || r.PredIndex < 0 || r.PredIndex >= len(pl.Result.Pred) {
			continue
		}
		var s []int
		for _, i := range r.SupportingGTIndices {
			if i >= 0 && i < len(f.task.Triples) {
				s = append(s, i)
			}
		}
		if len(s) == 0 {
			continue
		}
		c := pl.Result.Pred[r.PredIndex]
		keep := map[int]bool{}
		for _, x := range c.Candidates {
			keep[x.Index] = true
		}
		if c.Resolved != nil {
			for _, x := range c.Resolved.Support {
				keep[x] = true
			}
		}
		n := 0
		for _, x := range s {
			if keep[x] {
				n++
			}
		}
		fg.valid++
		if n > 0 {
			fg.vAnyKept++
		}
		if n == len(s) {
			fg.vAllKept++
		}
	}
	fg.vol = pl.Item.Volume
	fg.focusNum = float64(pl.Item.JudgeGTTriples) * pl.Item.MeanBatchCandidates / float64(len(f.pred.Triples))
	fg.focusDen = float64(pl.Item.JudgeGTTriples)
	for _, g := range pl.Item.GT {
		if g.Resolved == nil && g.Batch != nil && len(g.Candidates) > 0 {
			fg.claimFocusNum += float64(len(g.Candidates)) / float64(len(f.pred.Triples))
			fg.claimFocusDen++
		}
	}
	return fg
}

// The targets, asserted over the three fixtures together.
const (
	targetAny       = 0.95
	targetAll       = 0.90
	targetVolume    = 0.5
	targetFocus     = 0.15
	targetPrecision = 0.95
)

// TestFixtureTargets asserts the targets on the fixtures: evidence
// kept (any >= 0.95, all >= 0.90 over GT triples the recorded judge marked
// covered), prompt volume <= 0.5 x the reference's, focus (mean batch
// candidates / predicted triples) <= 0.15, and deterministic-tier precision
// >= 0.95 against the recorded verdicts.
func TestFixtureTargets(t *testing.T) {
	var total figures
	for _, name := range fixtureNames {
		f := loadFixture(t, name)
		fg := measure(t, f)
		t.Logf("%s: evidence any %.3f all %.3f (%d covered) | volume %.3f (%d / %d chars) | focus %.3f (mean batch cands %.1f of %d) | judge GT %d, no-cand GT %d, batches %d (cov %d, val %d) | resolved %d, recorded covered %d",
			name, fg.anyRate(), fg.allRate(), fg.covered, fg.volume(), fg.vol.PromptChars, fg.vol.ReferencePromptChars,
			fg.focus(), fg.vol.MeanBatchCandidates, len(f.pred.Triples), fg.vol.JudgeGTTriples, fg.vol.NoCandidateGT,
			fg.vol.Batches, fg.vol.CoverageBatches, fg.vol.ValidityBatches, fg.resolved, fg.resolvedRight)
		total.add(fg)
	}
	t.Logf("overall: evidence any %.3f all %.3f | volume %.3f | focus %.3f | resolved %d, precision %.3f",
		total.anyRate(), total.allRate(), total.volume(), total.focus(), total.resolved, float64(total.resolvedRight)/float64(max(1, total.resolved)))
	if total.anyRate() < targetAny || total.allRate() < targetAll {
		t.Errorf("evidence kept any %.3f / all %.3f, want >= %.2f / %.2f", total.anyRate(), total.allRate(), targetAny, targetAll)
	}
	if v := total.volume(); v > targetVolume {
		t.Errorf("prompt volume %.3f x reference, want <= %.2f", v, targetVolume)
	}
	// Focus (targetFocus) is logged, no longer asserted: since issue 14
	// batches are merged up to a token budget per call, so a batch shows
	// the union of many claims' candidates on purpose (fewer calls, fewer
	// tokens in all); the token target lives in runs (TestPlanOracleFixtures).
	_ = targetFocus
	if total.resolved > 0 && float64(total.resolvedRight) < targetPrecision*float64(total.resolved) {
		t.Errorf("deterministic tier: %d of %d resolved were recorded covered, want >= %.2f", total.resolvedRight, total.resolved, targetPrecision)
	}
}
