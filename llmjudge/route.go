package llmjudge

import (
	"context"
	"fmt"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/plan"
)

// CalibratedJudge names the verdicts a Router decided without a call, so
// that they can be told apart from the model's in every output.
const CalibratedJudge = "calibrated"

// RouteScore is a router's belief about one claim: P is the probability
// that the claim is covered (coverage pass) or valid (validity pass);
// Support, for a claim it is sure is covered, lists the supporting indices
// (predicted indices for coverage, GT indices for validity; may be empty).
type RouteScore struct {
	P       float64
	Support []int
}

// Router scores claims before any call so that the ones it is sure about
// are decided without one. Score returns one RouteScore per claim, in the
// order of claims (indices into task.Triples for plan.Coverage, into
// pred.Triples for plan.Validity). It must be deterministic and safe for
// concurrent use. Name (with a version) goes into the manifest.
//
// The calibrated offline judge plugs in here: wrap its per-claim
// probability in a type with these two methods and pass it as
// Config.Route.Router, with thresholds chosen by cross-validation.
type Router interface {
	Name() string
	Score(ctx context.Context, task *kg.Task, pred *kg.Prediction, pass plan.Pass, claims []int) ([]RouteScore, error)
}

// Routing says which claims a Router decides: P >= High is covered
// (valid), P <= Low is not covered (not valid), anything strictly between
// goes to the LLM. Low < High, both in [0,1]; Low = 0 routes no negative
// claim, High = 1 no positive one unless P is exactly 1.
type Routing struct {
	Router    Router
	Low, High float64
}

// Validate reports thresholds that cannot work.
func (r *Routing) Validate() error {
	if r == nil {
		return nil
	}
	if r.Router == nil {
		return fmt.Errorf("llmjudge: routing needs a Router")
	}
	if r.Low < 0 || r.High > 1 || r.Low >= r.High {
		return fmt.Errorf("llmjudge: routing thresholds must satisfy 0 <= low < high <= 1 (got low %g, high %g)", r.Low, r.High)
	}
	return nil
}

// RouteInfo is the router's part of the manifest.
type RouteInfo struct {
	Router string  `json:"router"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	// Claims the router saw, decided positive / negative, and the share
	// it decided (claims that were planned for a call, before routing).
	Scored   int64   `json:"scored"`
	Positive int64   `json:"routed_positive"`
	Negative int64   `json:"routed_negative"`
	Share    float64 `json:"routed_share"`
}

// route asks the router about every claim planned for a call and takes the
// sure ones out of their batches. A batch keeps its candidate list (the
// planner chose it for all its claims); a batch left without claims is
// dropped. The decisions come back as resolutions judged CalibratedJudge.
func (j *Judge) route(ctx context.Context, task *kg.Task, pred *kg.Prediction, batches []plan.Batch) ([]plan.Batch, []routed, error) {
	rt := j.cfg.Route
	if rt == nil {
		return batches, nil, nil
	}
	var out []plan.Batch
	var decided []routed
	for _, p := range []plan.Pass{plan.Coverage, plan.Validity} {
		if p == plan.Validity && j.cfg.NoValidity {
			continue
		}
		var claims []int
		for _, b := range batches {
			if b.Pass == p && len(b.Candidates) > 0 {
				claims = append(claims, b.Claims...)
			}
		}
		if len(claims) == 0 {
			continue
		}
		scores, err := rt.Router.Score(ctx, task, pred, p, claims)
		if err != nil {
			return nil, nil, fmt.Errorf("router %s: %w", rt.Router.Name(), err)
		}
		if len(scores) != len(claims) {
			return nil, nil, fmt.Errorf("router %s: %d scores for %d %s claims", rt.Router.Name(), len(scores), len(claims), p)
		}
		j.routeScored.Add(int64(len(claims)))
		for i, c := range claims {
			s := scores[i]
			switch {
			case s.P >= rt.High:
				decided = append(decided, routed{pass: p, claim: c, covered: true, p: s.P, support: append([]int{}, s.Support...)})
				j.routePos.Add(1)
			case s.P <= rt.Low:
				decided = append(decided, routed{pass: p, claim: c, p: s.P, support: []int{}})
				j.routeNeg.Add(1)
			}
		}
	}
	gone := map[plan.Pass]map[int]bool{plan.Coverage: {}, plan.Validity: {}}
	for _, d := range decided {
		gone[d.pass][d.claim] = true
	}
	for _, b := range batches {
		if len(b.Candidates) == 0 {
			out = append(out, b)
			continue
		}
		var keep []int
		for _, c := range b.Claims {
			if !gone[b.Pass][c] {
				keep = append(keep, c)
			}
		}
		if len(keep) > 0 {
			b.Claims = keep
			out = append(out, b)
		}
	}
	return out, decided, nil
}

// routed is one claim a router decided.
type routed struct {
	pass    plan.Pass
	claim   int
	covered bool
	p       float64
	support []int
}

func (r routed) reason() string {
	return fmt.Sprintf("calibrated p=%.4f", r.p)
}

func (j *Judge) routeInfo() *RouteInfo {
	rt := j.cfg.Route
	if rt == nil {
		return nil
	}
	ri := &RouteInfo{Router: rt.Router.Name(), Low: rt.Low, High: rt.High,
		Scored: j.routeScored.Load(), Positive: j.routePos.Load(), Negative: j.routeNeg.Load()}
	if ri.Scored > 0 {
		ri.Share = float64(int(10000*float64(ri.Positive+ri.Negative)/float64(ri.Scored)+0.5)) / 10000
	}
	return ri
}
