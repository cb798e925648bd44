package hierarchy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/stats"
)

// Verdict is a classifier on issue 15's verdict figure, the uniform draws
// pooled.
type Verdict struct {
	Accuracy float64
	Recall   map[Class]float64
	Met      bool
}

// verdictOf is c's accuracy, recall by class and whether it meets the
// issue-15 targets.
func verdictOf(c confusion) Verdict {
	v := Verdict{Accuracy: c.accuracy(), Recall: map[Class]float64{}, Met: targetsMet(c)}
	for _, cl := range Classes {
		v.Recall[cl], _ = c.recall(cl)
	}
	return v
}

// LabelFigures measures cls on the hand labels as TestLabelledTriples does
// and returns what an external test (the LLM pass's, which package
// hierarchy cannot import) prints: the tuned samples, then every uniform
// held-out draw with its intervals, the independent labelling against cls,
// the draws pooled, and whether the issue-15 targets are met; and the
// pooled draws' figures. cls is told the sample of each graph.
func LabelFigures(t *testing.T, cls func(sample string, graph, reference []kg.Triple) []Class) ([]string, Verdict) {
	t.Helper()
	ev := evaluateBySample(t, cls)
	out := []string{fmt.Sprintf("tuned samples (the rules are in-sample here):\n%s", ev.tuned)}
	for _, u := range ev.uniform {
		name := strings.ToUpper(u.set.name)
		out = append(out, fmt.Sprintf("HELD OUT, %s:\n%s%s", name, u.c, u.interval()))
		if u.set.independent != "" {
			out = append(out, fmt.Sprintf("%s, the independent labelling (rows) against this classifier: kappa %.3f\n%s", name, u.vsIndep.kappa(), u.vsIndep))
		}
		out = append(out, fmt.Sprintf("issue-15 targets on %s met: %v", u.set.name, targetsMet(u.c)))
	}
	pooled := pooledUniform(ev.uniform)
	v := verdictOf(pooled.c)
	out = append(out, fmt.Sprintf("HELD OUT, THE UNIFORM DRAWS POOLED (issue 15's verdict figure):\n%s%s\n%s", pooled.c, pooled.interval(), pooled.recallIntervals()),
		fmt.Sprintf("issue-15 targets on the uniform draws pooled met: %v", v.Met))
	return out, v
}

// HeldOutSamples are the samples nothing was tuned on.
func HeldOutSamples() []string { return strings.Fields(heldOutSamples) }

// ExternalFigures measures cls on the external batch named batch (E1...):
// all its labels and its random draws, as TestExternalLabels prints them,
// and the verdict on all its labels. cls is told the sample of each graph
// (every external graph is classified; only batch's are measured).
func ExternalFigures(t *testing.T, batch string, cls func(sample string, graph, reference []kg.Triple) []Class) ([]string, Verdict) {
	t.Helper()
	for _, r := range evaluateExternalBySample(t, cls) {
		if r.batch.name != batch {
			continue
		}
		v := verdictOf(r.all)
		n, k := r.random.total()
		w := stats.Wilson95(k, n)
		return []string{
			fmt.Sprintf("external batch %s (%s), all its labels:\n%s", batch, r.batch.samples, r.all),
			fmt.Sprintf("external batch %s, its random draws alone:\n%saccuracy %d/%d = %.3f, 95%% Wilson [%.3f, %.3f]", batch, r.random, k, n, ratio(k, n), w.Low, w.High),
		}, v
	}
	t.Fatalf("no external batch %q", batch)
	return nil, Verdict{}
}

// ExternalSamples are the samples of the external batch named batch.
func ExternalSamples(t *testing.T, batch string) []string {
	t.Helper()
	for _, b := range externalBatches {
		if b.name == batch {
			return strings.Fields(b.samples)
		}
	}
	t.Fatalf("no external batch %q", batch)
	return nil
}
