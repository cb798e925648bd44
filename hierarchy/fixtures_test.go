package hierarchy

import (
	"testing"

	"github.com/kgjudge/kgjudge/internal/fixtures"
	"github.com/kgjudge/kgjudge/kg"
)

// fixture is one sample of testdata/fixtures with its recorded verdicts.
type fixture struct {
	name string
	task kg.Task
	pred kg.Prediction
	cov  []kg.Verdict
	val  []kg.Validity
	// published counts from eval.json
	covered, valid int
}

func loadFixture(t *testing.T, name string) *fixture {
	t.Helper()
	fx := fixtures.Load(t, name)
	f := &fixture{name: name, task: fx.Task, pred: fx.Pred}
	f.cov, f.val = fx.Recorded()
	f.covered, f.valid = fx.Eval.Coverage.CoveredCount, fx.Eval.Validity.ValidCount
	return f
}

var fixtureNames = fixtures.Names()
