package hierarchy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/internal/fixtures"
	"github.com/kgjudge/kgjudge/kg"
)

// allFixtureRun is the run report over the 11 recorded fixtures, with the
// benchmark judge's recorded verdicts (the replay judge's input).
func allFixtureRun(t *testing.T) RunReport {
	t.Helper()
	var samples []SampleResult
	for _, name := range fixtures.All() {
		f := loadFixture(t, name)
		samples = append(samples, SampleResult{
			Report: Analyze(f.task, f.pred, f.cov, f.val),
			Parse:  kg.ParseReport{Status: kg.ParseClean, Triples: len(f.pred.Triples)},
		})
	}
	return Aggregate(samples)
}

func (rr RunReport) summaryOf(c Class) ClassSummary {
	for _, s := range rr.ClassSummary {
		if s.Class == c {
			return s
		}
	}
	return ClassSummary{}
}

func (rr RunReport) askedOf(c Class, asked bool) AskedSummary {
	for _, a := range rr.AskedSplit {
		if a.Class == c && a.Asked == asked {
			return a
		}
	}
	return AskedSummary{}
}

// TestFixtureRunSeparation checks the report on the 11 fixtures shows what it
// exists to show: unasked bibliographic predictions invalid at a visibly
// higher rate than factual ones (their 95% intervals apart), and
// organizational GT recall next to factual recall, both with intervals.
func TestFixtureRunSeparation(t *testing.T) {
	rr := allFixtureRun(t)
	var b strings.Builder
	fmt.Fprintf(&b, "%d samples (recorded verdicts)\n%-15s %8s %6s %-28s %-28s %8s %6s %-28s %-28s\n", rr.Samples,
		"class", "GT", "share", "GT recall (pooled Wilson)", "GT recall (per-sample t)", "pred", "share", "invalid (pooled Wilson)", "invalid (per-sample t)")
	for _, s := range rr.ClassSummary {
		fmt.Fprintf(&b, "%-15s %8d %6.3f %-28s %-28s %8d %6.3f %-28s %-28s\n", s.Class, s.GTTriples, s.GTShare, s.GTRecallPooled, s.GTRecallBySample,
			s.PredTriples, s.PredShare, s.InvalidRatePooled, s.InvalidRateBySample)
	}
	b.WriteString("asked/unasked predictions:\n")
	for _, a := range rr.AskedSplit {
		fmt.Fprintf(&b, "%-15s asked=%-5v %5d triples, %5d invalid: %s (per-sample %s)\n", a.Class, a.Asked, a.Triples, a.Invalid, a.InvalidRatePooled, a.InvalidRateBySample)
	}
	b.WriteString("depth and flatness per sample (GT / pred):\n")
	for _, s := range rr.SampleShapes {
		fmt.Fprintf(&b, "%-40s #%d depth %d / %d, flatness %.3f / %.3f\n", s.TaskID, s.SampleIdx, s.GTDepth, s.PredDepth, s.GTFlatness, s.PredFlatness)
	}
	t.Log("\n" + b.String())

	if rr.Samples != 11 || len(rr.SampleShapes) != 11 {
		t.Fatalf("%d samples, %d shapes", rr.Samples, len(rr.SampleShapes))
	}
	fact, org := rr.summaryOf(Factual), rr.summaryOf(Organizational)
	unasked := rr.askedOf(Bibliographic, false)
	if unasked.Triples < 30 || !unasked.InvalidRatePooled.Defined || !fact.InvalidRatePooled.Defined {
		t.Fatalf("unasked bibliographic %+v, factual %+v: too few to compare", unasked, fact)
	}
	if unasked.InvalidRatePooled.Low <= fact.InvalidRatePooled.High {
		t.Errorf("unasked bibliographic invalid %s does not stand above factual %s", unasked.InvalidRatePooled, fact.InvalidRatePooled)
	}
	for _, s := range []ClassSummary{fact, org} {
		if !s.GTRecallPooled.Defined || !s.GTRecallBySample.Defined || s.GTTriples < 100 {
			t.Errorf("%s GT recall without intervals: %+v", s.Class, s)
		}
	}
	// Every class row's counts agree with the summed sections.
	for i, s := range rr.ClassSummary {
		if s.GTTriples != rr.CoverageByClass[i].Triples || s.PredInvalid != rr.ValidityByClass[i].Invalid {
			t.Errorf("%s summary %+v disagrees with the sections", s.Class, s)
		}
	}
}

// TestTripleClassesMatchClassifyTriples: the per-triple classes a store gets
// from a report are ClassifyTriples' (GT alone, prediction against its GT),
// index for index, and deterministic.
func TestTripleClassesMatchClassifyTriples(t *testing.T) {
	for _, name := range []string{"d012", "p020"} {
		f := loadFixture(t, name)
		rep := Analyze(f.task, f.pred, f.cov, f.val)
		gt, pred, asked := rep.TripleClasses()
		wantGT := ClassifyTriples(gtTriples(f.task), nil)
		wantPred := ClassifyTriples(f.pred.Triples, gtTriples(f.task))
		if len(gt) != len(wantGT) || len(pred) != len(wantPred) || len(asked) != len(pred) {
			t.Fatalf("%s: %d/%d gt, %d/%d pred", name, len(gt), len(wantGT), len(pred), len(wantPred))
		}
		for i := range gt {
			if gt[i] != wantGT[i].Class {
				t.Errorf("%s gt[%d] %s, ClassifyTriples %s", name, i, gt[i], wantGT[i].Class)
			}
		}
		mixed := 0
		byRel := map[string]map[Class]bool{}
		for i, tr := range f.pred.Triples {
			if pred[i] != wantPred[i].Class || (asked[i] == nil) != (wantPred[i].AskedFor == nil) {
				t.Errorf("%s pred[%d] %s, ClassifyTriples %s", name, i, pred[i], wantPred[i].Class)
			}
			if byRel[tr.Relation] == nil {
				byRel[tr.Relation] = map[Class]bool{}
			}
			byRel[tr.Relation][pred[i]] = true
		}
		for _, cs := range byRel {
			if len(cs) > 1 {
				mixed++
			}
		}
		t.Logf("%s: %d predicted relation strings whose triples fall in more than one class", name, mixed)
	}
}
