package matcher

import (
	"context"

	"github.com/kgjudge/kgjudge/kg"
)

// Judge decides coverage (and, for the paper protocol, validity) for one
// sample. Implementations: Offline, Replay; the LLM judge and its wrappers
// (retry, cache, budget) come later and satisfy the same interface.
type Judge interface {
	Name() string
	Judge(ctx context.Context, task *kg.Task, pred *kg.Prediction) (Judgement, error)
}

// Offline decides by exact match after kg.Normalize (NFKC, case, width,
// whitespace, punctuation). It needs no network and never leaves a claim
// unjudged; it is the zero-setup default and a floor for real judges.
type Offline struct{}

var _ Judge = Offline{}

// Name implements Judge.
func (Offline) Name() string { return "offline" }

// Judge implements Judge: a GT triple is covered (direct) by every predicted
// triple with the same normalised key; a predicted triple is valid when some
// GT triple has its key.
func (Offline) Judge(ctx context.Context, task *kg.Task, pred *kg.Prediction) (Judgement, error) {
	if err := ctx.Err(); err != nil {
		return Judgement{}, err
	}
	predByKey := map[string][]int{}
	for i, t := range pred.Triples {
		k := t.Key()
		predByKey[k] = append(predByKey[k], i)
	}
	gtByKey := map[string][]int{}
	j := Judgement{Judge: "offline", Coverage: make([]kg.Verdict, len(task.Triples)), Validity: make([]kg.Validity, len(pred.Triples))}
	for gi, gt := range task.Triples {
		k := gt.Triple.Key()
		gtByKey[k] = append(gtByKey[k], gi)
		v := kg.Verdict{GTIndex: gi, State: kg.Uncovered, Judge: "offline", Support: []int{}}
		if idx := predByKey[k]; len(idx) > 0 {
			v.State, v.Kind, v.Support, v.Reason = kg.Covered, kg.KindDirect, idx, "same triple after normalisation"
		}
		j.Coverage[gi] = v
	}
	for pi, t := range pred.Triples {
		v := kg.Validity{PredIndex: pi, State: kg.Uncovered, Judge: "offline", Support: []int{}}
		if idx := gtByKey[t.Key()]; len(idx) > 0 {
			v.State, v.Support, v.Reason = kg.Covered, idx, "same triple after normalisation"
		}
		j.Validity[pi] = v
	}
	return j, nil
}
