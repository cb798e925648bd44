// Package oracle answers judge calls as a recorded judge would, given only
// what each call shows: a claim is covered (valid) only if the recorded
// judge marked it so AND one of its recorded supports is among the
// candidates shown. It lets `kgjudge plan --oracle` price the fidelity a
// plan loses before any call is paid for, and it is the answer source of
// the test server's oracle mode, so a real run against that server and the
// plan agree by construction. It must not read files or call a model.
//
// The oracle works on triple text (kg.Triple.String), the only thing a
// call carries: a call is attributed to the first sample (in the order
// given) whose claim and candidate texts contain all of the call's; claims
// with the same text in one sample are merged (covered if any is).
package oracle

import (
	"context"
	"fmt"
	"sort"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/llmjudge/decide"
	"github.com/kgjudge/kgjudge/plan"
)

// Sample is one recorded sample: its task, prediction and the recorded
// judgement (e.g. from matcher.Replay).
type Sample struct {
	Task     *kg.Task
	Pred     *kg.Prediction
	Recorded kg.Judgement
}

type pass struct {
	claims map[string]*claim // claim text -> recorded verdict
	cands  map[string]bool   // candidate texts of this pass
}

type claim struct {
	positive bool
	support  map[string]bool // texts of recorded supports
}

type sample struct {
	passes map[plan.Pass]*pass
}

// Oracle is the recorded judge as an answer source. It is safe for
// concurrent use (read-only after New).
type Oracle struct {
	samples []sample
}

// New indexes the samples' recorded verdicts by text.
func New(samples []Sample) *Oracle {
	o := &Oracle{}
	for _, s := range samples {
		gt := func(i int) (string, bool) {
			if i < 0 || i >= len(s.Task.Triples) {
				return "", false
			}
			return s.Task.Triples[i].Triple.String(), true
		}
		pr := func(i int) (string, bool) {
			if i < 0 || i >= len(s.Pred.Triples) {
				return "", false
			}
			return s.Pred.Triples[i].String(), true
		}
		cov := &pass{claims: map[string]*claim{}, cands: map[string]bool{}}
		val := &pass{claims: map[string]*claim{}, cands: map[string]bool{}}
		for i := range s.Task.Triples {
			t, _ := gt(i)
			cov.claims[t] = mergeClaim(cov.claims[t])
			val.cands[t] = true
		}
		for i := range s.Pred.Triples {
			t, _ := pr(i)
			val.claims[t] = mergeClaim(val.claims[t])
			cov.cands[t] = true
		}
		for _, v := range s.Recorded.Coverage {
			t, ok := gt(v.GTIndex)
			if !ok || v.State != kg.Covered {
				continue
			}
			c := cov.claims[t]
			c.positive = true
			for _, x := range v.Support {
				if st, ok := pr(x); ok {
					c.support[st] = true
				}
			}
		}
		for _, v := range s.Recorded.Validity {
			t, ok := pr(v.PredIndex)
			if !ok || v.State != kg.Covered {
				continue
			}
			c := val.claims[t]
			c.positive = true
			for _, x := range v.Support {
				if st, ok := gt(x); ok {
					c.support[st] = true
				}
			}
		}
		o.samples = append(o.samples, sample{passes: map[plan.Pass]*pass{plan.Coverage: cov, plan.Validity: val}})
	}
	return o
}

func mergeClaim(c *claim) *claim {
	if c != nil {
		return c
	}
	return &claim{support: map[string]bool{}}
}

// Verdict is the oracle's answer for one claim of a call. Support holds
// positions in the call's candidate list.
type Verdict struct {
	Covered bool
	Support []int
	Reason  string
}

// ErrUnknown is returned when no sample holds every claim and candidate of a call.
var ErrUnknown = fmt.Errorf("oracle: the call's claims and candidates belong to no recorded sample")

// Answer answers one call: the claims and candidates as shown, in order.
func (o *Oracle) Answer(p plan.Pass, claims, cands []string) ([]Verdict, error) {
	var ps *pass
	for _, s := range o.samples {
		cand := s.passes[p]
		if cand == nil || !holds(cand, claims, cands) {
			continue
		}
		ps = cand
		break
	}
	if ps == nil {
		return nil, fmt.Errorf("%w (%s)", ErrUnknown, o.missing(p, claims, cands))
	}
	out := make([]Verdict, len(claims))
	for i, t := range claims {
		c := ps.claims[t]
		v := Verdict{Support: []int{}}
		switch {
		case !c.positive:
			v.Reason = "recorded judge: not covered"
		case len(c.support) == 0 && len(cands) > 0:
			// Recorded positive without supports: nothing to check them
			// against, so the call's first candidate stands in (the
			// verdict stays the recorded one).
			v.Covered, v.Support, v.Reason = true, []int{0}, "recorded judge: covered, no supports recorded"
		default:
			for j, ct := range cands {
				if c.support[ct] {
					v.Support = append(v.Support, j)
				}
			}
			if len(v.Support) > 0 {
				v.Covered, v.Reason = true, "recorded judge: covered by a recorded support shown"
			} else {
				v.Reason = "recorded judge: covered, but no recorded support was shown"
			}
		}
		out[i] = v
	}
	return out, nil
}

// missing names a text of the call that no sample holds, for the error.
func (o *Oracle) missing(p plan.Pass, claims, cands []string) string {
	for _, t := range claims {
		found := false
		for _, s := range o.samples {
			found = found || s.passes[p].claims[t] != nil
		}
		if !found {
			return fmt.Sprintf("claim %.200q is in no sample", t)
		}
	}
	for _, t := range cands {
		found := false
		for _, s := range o.samples {
			found = found || s.passes[p].cands[t]
		}
		if !found {
			return fmt.Sprintf("candidate %.200q is in no sample", t)
		}
	}
	return "no single sample holds all of them"
}

func holds(ps *pass, claims, cands []string) bool {
	for _, t := range claims {
		if ps.claims[t] == nil {
			return false
		}
	}
	for _, t := range cands {
		if !ps.cands[t] {
			return false
		}
	}
	return true
}

// Decider is the oracle as a decide.Decider: it answers each batch without
// any call (no tokens, no cache).
type Decider struct{ O *Oracle }

var _ decide.Decider = Decider{}

// Decide implements decide.Decider.
func (d Decider) Decide(ctx context.Context, ask *decide.Ask) (*decide.Answer, error) {
	ans := &decide.Answer{}
	if err := ctx.Err(); err != nil {
		return ans, err
	}
	claims := make([]string, len(ask.Batch.Claims))
	for i, c := range ask.Batch.Claims {
		claims[i] = c.Triple.String()
	}
	cands := make([]string, len(ask.Batch.Candidates))
	for i, c := range ask.Batch.Candidates {
		cands[i] = c.String()
	}
	vs, err := d.O.Answer(ask.Batch.Pass, claims, cands)
	if err != nil {
		return ans, fmt.Errorf("%s: %w", ask.Name, err)
	}
	for i, v := range vs {
		dec := decide.Decision{Claim: i, State: kg.Uncovered, Support: v.Support, Reason: v.Reason, Source: decide.FromLLM}
		if v.Covered {
			dec.State, dec.Kind = kg.Covered, kg.KindDirect
		}
		ans.Decisions = append(ans.Decisions, dec)
	}
	sort.Slice(ans.Decisions, func(a, b int) bool { return ans.Decisions[a].Claim < ans.Decisions[b].Claim })
	return ans, nil
}
