package hierarchy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

// LabelFigures measures cls on the hand labels as TestLabelledTriples does
// and returns what an external test (the LLM pass's, which package
// hierarchy cannot import) prints: the tuned samples, then every uniform
// held-out draw with its intervals, the independent labelling against cls,
// and whether the issue-15 targets are met.
func LabelFigures(t *testing.T, cls func(graph, reference []kg.Triple) []Class) []string {
	t.Helper()
	ev := evaluate(t, cls)
	out := []string{fmt.Sprintf("tuned samples (the rules are in-sample here):\n%s", ev.tuned)}
	for _, u := range ev.uniform {
		name := strings.ToUpper(u.set.name)
		out = append(out, fmt.Sprintf("HELD OUT, %s:\n%s%s", name, u.c, u.interval()))
		if u.set.independent != "" {
			out = append(out, fmt.Sprintf("%s, the independent labelling (rows) against this classifier: kappa %.3f\n%s", name, u.vsIndep.kappa(), u.vsIndep))
		}
		out = append(out, fmt.Sprintf("issue-15 targets on %s met: %v", u.set.name, targetsMet(u.c)))
	}
	return out
}
