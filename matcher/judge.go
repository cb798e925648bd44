package matcher

import (
	"context"
	"strings"
	"unicode"

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
	// One concept table for both stages (the built-in one is parsed per
	// call: nothing is kept between samples).
	concepts := o.Concepts
	if concepts == nil {
		concepts = alias.BuiltinConcepts()
	}
	res, err := prefilter.Build(ctx, task, pred, prefilter.Options{Concepts: concepts, Aliases: o.Aliases})
	if err != nil {
		return Judgement{}, err
	}
	rs := rules.New(concepts, append(alias.GTAliasSets(task.Nodes), o.Aliases...))
	equateAligned(rs, task, pred, res)
	// Triple keys from each distinct string normalised once (a sample's
	// strings repeat across its triples).
	norm := map[string]string{}
	key := func(t kg.Triple) string {
		n := func(s string) string {
			v, ok := norm[s]
			if !ok {
				v = kg.Normalize(s)
				norm[s] = v
			}
			return v
		}
		return n(t.Head) + "\x1f" + n(t.Relation) + "\x1f" + n(t.Tail) // kg.Triple.Key
	}
	predByKey := map[string][]int{}
	predKeys := make([]string, len(pred.Triples))
	for i, t := range pred.Triples {
		k := key(t)
		predKeys[i] = k
		predByKey[k] = append(predByKey[k], i)
	}
	gtByKey := map[string][]int{}
	supportedBy := map[int][]int{} // predicted index -> GT triples it covers directly
	j := Judgement{Judge: "offline", Coverage: make([]kg.Verdict, len(task.Triples)), Validity: make([]kg.Validity, len(pred.Triples))}
	for gi, gt := range task.Triples {
		k := key(gt.Triple)
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
		// A predicted triple stating a covered GT fact as it is (direct)
		// is valid; one that covers it with a richer value (subsumption)
		// says more than the GT graph supports, and is left to Valid.
		if v.State == kg.Covered && v.Kind == kg.KindDirect {
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
		case len(gtByKey[predKeys[pi]]) > 0:
			v.State, v.Support, v.Reason = kg.Covered, gtByKey[predKeys[pi]], "same triple after normalisation"
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

// equateAligned tells the rules which GT and predicted names the prefilter
// paired by something other than the names' text: structural alignment
// (translations and transliterations that share their neighbours' values:
// "London Gold Pool" / "伦敦黄金总库") and standalone acronyms ("Special
// Drawing Rights" / "SDR"). A candidate's Why names the GT end it matched
// ("head:structure"); the predicted end is the one that is not the other GT
// end's name.
func equateAligned(rs *rules.Rules, task *kg.Task, pred *kg.Prediction, res *prefilter.Result) {
	for gi, c := range res.GT {
		gt := task.Triples[gi].Triple
		for _, x := range c.Candidates {
			end, how, ok := strings.Cut(x.Why, ":")
			if !ok || how != "structure" && how != "acronym" {
				continue
			}
			name, other := gt.Head, gt.Tail
			if end == "tail" {
				name, other = gt.Tail, gt.Head
			}
			p := pred.Triples[x.Index]
			// Alignment by structure is for names that do not cross
			// languages; within one script two siblings sharing a value
			// (two papers in one journal) are not one thing.
			if how == "structure" && hanName(name) == hanName(p.Head) && hanName(name) == hanName(p.Tail) {
				continue
			}
			switch {
			case !rs.SameEntity(other, p.Head) && !rs.SameEntity(name, p.Tail):
				rs.Equate(name, p.Head)
			case !rs.SameEntity(other, p.Tail):
				rs.Equate(name, p.Tail)
			}
		}
	}
}

func hanName(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}
