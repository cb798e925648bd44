package matcher

import (
	"context"

	"github.com/kgjudge/kgjudge/alias"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/matcher/prefilter"
	"github.com/kgjudge/kgjudge/matcher/rules"
)

// Judge decides coverage (and, for the paper protocol, validity) for one
// sample. Implementations: Offline, Replay; the LLM judge and its wrappers
// (retry, cache, budget) come later and satisfy the same interface.
type Judge interface {
	Name() string
	Judge(ctx context.Context, task *kg.Task, pred *kg.Prediction) (Judgement, error)
}

// Offline decides without any network, in two tiers: matcher/prefilter's
// candidates and deterministic tier (normalised exact triple, or
// alias-equivalent head and tail with a same-concept relation), then the
// rules of matcher/rules on each remaining claim's candidates (direct,
// subsumption, collective, compositional; validity: a GT candidate stating
// the same fact). It never leaves a claim unjudged; it is the zero-setup
// default and a floor for real judges. The zero value uses the built-in
// concept table and the GT node aliases.
type Offline struct {
	// Concepts replaces the built-in concept table (nil: built-in).
	Concepts *alias.Concepts
	// Aliases are extra alias sets (an alias file's).
	Aliases [][]string
}

var _ Judge = Offline{}

// Name implements Judge.
func (Offline) Name() string { return "offline" }

// Judge implements Judge.
func (o Offline) Judge(ctx context.Context, task *kg.Task, pred *kg.Prediction) (Judgement, error) {
	if err := ctx.Err(); err != nil {
		return Judgement{}, err
	}
	res, err := prefilter.Build(ctx, task, pred, prefilter.Options{Concepts: o.Concepts, Aliases: o.Aliases})
	if err != nil {
		return Judgement{}, err
	}
	rs := rules.New(o.Concepts, append(alias.GTAliasSets(task.Nodes), o.Aliases...))
	predByKey := map[string][]int{}
	for i, t := range pred.Triples {
		k := t.Key()
		predByKey[k] = append(predByKey[k], i)
	}
	gtByKey := map[string][]int{}
	supportedBy := map[int][]int{} // predicted index -> GT triples it covers directly
	j := Judgement{Judge: "offline", Coverage: make([]kg.Verdict, len(task.Triples)), Validity: make([]kg.Validity, len(pred.Triples))}
	for gi, gt := range task.Triples {
		k := gt.Triple.Key()
		gtByKey[k] = append(gtByKey[k], gi)
		v := kg.Verdict{GTIndex: gi, State: kg.Uncovered, Judge: "offline", Support: []int{}, Reason: "no rule matched"}
		c := res.GT[gi]
		switch {
		case len(predByKey[k]) > 0:
			v.State, v.Kind, v.Support, v.Reason = kg.Covered, kg.KindDirect, predByKey[k], "same triple after normalisation"
		case c.Resolved != nil:
			v.State, v.Kind, v.Support, v.Reason = kg.Covered, c.Resolved.Kind, c.Resolved.Support, c.Resolved.Reason
		default:
			cands := make([]rules.Indexed, len(c.Candidates))
			for i, x := range c.Candidates {
				cands[i] = rules.Indexed{Index: x.Index, Triple: pred.Triples[x.Index]}
			}
			if d := rs.Cover(gt.Triple, cands, pred.Triples); d.Covered {
				v.State, v.Kind, v.Support, v.Reason = kg.Covered, d.Kind, d.Support, d.Reason
			}
		}
		if v.State == kg.Covered && (v.Kind == kg.KindDirect || v.Kind == kg.KindSubsumption) {
			for _, pi := range v.Support {
				supportedBy[pi] = append(supportedBy[pi], gi)
			}
		}
		j.Coverage[gi] = v
	}
	for pi, t := range pred.Triples {
		v := kg.Validity{PredIndex: pi, State: kg.Uncovered, Judge: "offline", Support: []int{}, Reason: "no rule matched"}
		c := res.Pred[pi]
		cands := make([]rules.Indexed, len(c.Candidates))
		for i, x := range c.Candidates {
			cands[i] = rules.Indexed{Index: x.Index, Triple: task.Triples[x.Index].Triple}
		}
		switch {
		case len(gtByKey[t.Key()]) > 0:
			v.State, v.Support, v.Reason = kg.Covered, gtByKey[t.Key()], "same triple after normalisation"
		case len(supportedBy[pi]) > 0:
			v.State, v.Support, v.Reason = kg.Covered, supportedBy[pi], "it states a GT triple the coverage pass found covered"
		default:
			if d := rs.Valid(t, cands); d.Covered {
				v.State, v.Support, v.Reason = kg.Covered, d.Support, d.Reason
			}
		}
		j.Validity[pi] = v
	}
	return j, nil
}
