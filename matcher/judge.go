package matcher

import (
	"context"
	"fmt"

	"github.com/kgjudge/kgjudge/alias"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/matcher/calibrate"
	"github.com/kgjudge/kgjudge/matcher/prefilter"
)

// Judge is kg.Judge: Offline and Replay here, the LLM judge in llmjudge.
type Judge = kg.Judge

// Offline decides without any network. matcher/prefilter gives each claim
// its candidates and the deterministic tier (normalised exact triple, or
// alias-equivalent head and tail with a same-concept relation) decides the
// unambiguous ones; every other claim gets a probability from a calibrated
// model (matcher/calibrate: features over the candidates, today's rules of
// matcher/rules among them, a logistic regression fitted on recorded
// verdicts) and is covered when it reaches the model's threshold. Kind and
// reason name the deciding features. It never leaves a claim unjudged; it
// is the zero-setup default and a floor for real judges. The zero value
// uses the built-in concept table, the GT node aliases and the shipped
// weights.
type Offline struct {
	// Concepts replaces the built-in concept table (nil: built-in).
	Concepts *alias.Concepts
	// Aliases are extra alias sets (an alias file's).
	Aliases [][]string
	// Model replaces the shipped weights (nil: calibrate.Default()).
	Model *calibrate.Model
	// Similarity adds embedding cosines to the features (nil: off).
	Similarity calibrate.Similarity
	// Embedder turns the prefilter's embedding stage on (nil: off).
	Embedder prefilter.Embedder
}

var _ Judge = Offline{}

// Name implements Judge.
func (Offline) Name() string { return "offline" }

// Judge implements Judge.
func (o Offline) Judge(ctx context.Context, task *kg.Task, pred *kg.Prediction) (Judgement, error) {
	if err := ctx.Err(); err != nil {
		return Judgement{}, err
	}
	s, err := calibrate.Featurize(ctx, task, pred, calibrate.Options{Concepts: o.Concepts, Aliases: o.Aliases, Similarity: o.Similarity, Embedder: o.Embedder})
	if err != nil {
		return Judgement{}, err
	}
	m := o.Model
	if m == nil {
		m = calibrate.Default()
	}
	cov, val := m.Decide(s)
	if len(cov) != len(s.Coverage) || len(val) != len(s.Validity) {
		return Judgement{}, fmt.Errorf("offline: model decided %d/%d claims of %d/%d", len(cov), len(val), len(s.Coverage), len(s.Validity))
	}
	j := Judgement{Judge: "offline", Coverage: make([]kg.Verdict, len(cov)), Validity: make([]kg.Validity, len(val)),
		CoverageProb: make([]float64, len(cov)), ValidityProb: make([]float64, len(val))}
	for gi, d := range cov {
		v := kg.Verdict{GTIndex: gi, State: kg.Uncovered, Judge: "offline", Support: d.Support, Reason: d.Reason, Shown: s.Coverage[gi].Shown}
		if d.Covered {
			v.State, v.Kind = kg.Covered, d.Kind
		}
		j.Coverage[gi], j.CoverageProb[gi] = v, d.Prob
	}
	for pi, d := range val {
		v := kg.Validity{PredIndex: pi, State: kg.Uncovered, Judge: "offline", Support: d.Support, Reason: d.Reason, Shown: s.Validity[pi].Shown}
		if d.Covered {
			v.State = kg.Covered
		}
		j.Validity[pi], j.ValidityProb[pi] = v, d.Prob
	}
	est := calibrate.EstimateSample(j.CoverageProb, j.ValidityProb, m)
	info := m.Info()
	j.Estimate, j.Calibration = &est, &info
	return j, nil
}
