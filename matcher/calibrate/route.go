package calibrate

import (
	"fmt"
	"math"
	"sort"
)

// RouteTarget is the agreement with the recorded judge that routing must
// keep on the claims it decides without a call, measured on held-out
// samples (issue 14: >= 0.97).
const RouteTarget = 0.97

// RouteInnerTarget is the agreement the thresholds are chosen to reach on
// each training sample's held-out probabilities: RouteTarget itself, the
// margin for an unseen sample coming from asking it of every sample.
const RouteInnerTarget = RouteTarget

// Routes are the routing thresholds of each pass.
type Routes struct {
	Coverage Route `json:"coverage"`
	Validity Route `json:"validity"`
}

// Route is the thresholds that send a claim of one pass to the LLM judge
// only when the model is unsure: p >= High is decided covered (valid),
// p <= Low not, without a call. They are chosen on held-out probabilities
// of the training samples (each from a model fitted without it) over the
// claims the deterministic tier leaves open: the widest routing whose
// agreement with the labels on the routed claims reaches RouteInnerTarget.
// Low 0 routes no negative claim, High 1 no positive one (the tier's
// claims are always sure).
type Route struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Target is the agreement the thresholds were chosen to reach;
	// CVAgreement and CVShare are what they reached on those held-out
	// probabilities (the routed share of the open claims).
	Target      float64 `json:"target"`
	CVAgreement float64 `json:"cv_agreement"`
	CVShare     float64 `json:"cv_share"`
}

// scored is one open (not tier-decided) claim: held-out probability and
// label.
type scored struct {
	p float64
	y bool
}

// chooseRoute picks Low and High on a 0.01 grid: the most claims routed
// such that on every training sample the routed claims agree with the
// labels at least target of the time (a sample with none routed agrees);
// of thresholds routing as many, the highest High, then the lowest Low
// (the most cautious on an unseen sample). When nothing qualifies,
// nothing is routed (Low 0, High 1). Every sample rather than the pool,
// because the recorded judge's leniency varies between samples and a
// threshold must hold on an unseen one.
func chooseRoute(samples [][]scored, target float64) Route {
	r := Route{Low: 0, High: 1, Target: target}
	type side struct {
		cs  []scored
		pre []int
	}
	sides := make([]side, len(samples))
	total := 0
	for k, cs := range samples {
		cs = append([]scored(nil), cs...)
		sort.SliceStable(cs, func(a, b int) bool { return cs[a].p < cs[b].p })
		pre := make([]int, len(cs)+1)
		for i, c := range cs {
			pre[i+1] = pre[i]
			if c.y {
				pre[i+1]++
			}
		}
		sides[k] = side{cs, pre}
		total += len(cs)
	}
	if total == 0 {
		return r
	}
	best := 0
	for hi := 100; hi >= 51; hi-- {
		h := float64(hi) / 100
		for lo := 0; lo <= 49; lo++ {
			l := float64(lo) / 100
			routed, agree, ok := 0, 0, true
			for _, sd := range sides {
				n := len(sd.cs)
				nh := n - sort.Search(n, func(i int) bool { return sd.cs[i].p >= h })
				nl := 0
				if lo > 0 {
					nl = sort.Search(n, func(i int) bool { return sd.cs[i].p > l })
				}
				a := (sd.pre[n] - sd.pre[n-nh]) + (nl - sd.pre[nl])
				if nh+nl > 0 && float64(a)+1e-9 < target*float64(nh+nl) {
					ok = false
					break
				}
				routed, agree = routed+nh+nl, agree+a
			}
			if !ok || routed == 0 {
				continue
			}
			if routed > best { // the grid runs from cautious to bold
				best = routed
				r.Low, r.High, r.CVAgreement, r.CVShare = l, h, float64(agree)/float64(routed), float64(routed)/float64(total)
			}
		}
	}
	r.CVAgreement, r.CVShare = round6(r.CVAgreement), round6(r.CVShare)
	return r
}

// Decides says whether routing decides an open claim of probability p
// without a call, and which way.
func (r *Route) Decides(p float64) (decided, covered bool) {
	switch {
	case p >= r.High:
		return true, true
	case r.Low > 0 && p <= r.Low:
		return true, false
	}
	return false, false
}

// RouteFold is one held-out sample's routing: the open claims (both
// passes), how many were routed, and how many of those agree with the
// recorded verdicts.
type RouteFold struct {
	Sample    string     `json:"sample"`
	Open      int        `json:"open"`
	Routed    int        `json:"routed"`
	Agree     int        `json:"agree"`
	Threshold [4]float64 `json:"thresholds"` // coverage low, high; validity low, high
}

// Agreement on the routed claims (1 when none was routed).
func (f RouteFold) Agreement() float64 {
	if f.Routed == 0 {
		return 1
	}
	return float64(f.Agree) / float64(f.Routed)
}

// routeFold measures routing on one held-out sample's decisions.
func routeFold(name string, rs *Routes, cov, val []Decision, ycov, yval []bool) RouteFold {
	f := RouteFold{Sample: name, Threshold: [4]float64{rs.Coverage.Low, rs.Coverage.High, rs.Validity.Low, rs.Validity.High}}
	for _, pass := range []struct {
		r  *Route
		ds []Decision
		ys []bool
	}{{&rs.Coverage, cov, ycov}, {&rs.Validity, val, yval}} {
		for i, d := range pass.ds {
			if d.Tier {
				continue
			}
			f.Open++
			if ok, c := pass.r.Decides(d.Prob); ok {
				f.Routed++
				if c == pass.ys[i] {
					f.Agree++
				}
			}
		}
	}
	return f
}

// RouteReport is the leave-one-sample-out measurement of routing: each
// sample routed with thresholds chosen on the other ten.
type RouteReport struct {
	Folds     []RouteFold `json:"folds"`
	Open      int         `json:"open"`
	Routed    int         `json:"routed"`
	Agreement float64     `json:"agreement"`
	Share     float64     `json:"routed_share"`
	// MinAgreement is the lowest per-sample agreement.
	MinAgreement float64 `json:"min_sample_agreement"`
}

func (rr *RouteReport) add(f RouteFold) {
	rr.Folds = append(rr.Folds, f)
	rr.Open += f.Open
	rr.Routed += f.Routed
	agree := 0
	for _, g := range rr.Folds {
		agree += g.Agree
	}
	rr.Agreement, rr.Share = 1, 0
	if rr.Routed > 0 {
		rr.Agreement = round4(float64(agree) / float64(rr.Routed))
	}
	if rr.Open > 0 {
		rr.Share = round4(float64(rr.Routed) / float64(rr.Open))
	}
	rr.MinAgreement = 1
	for _, g := range rr.Folds {
		rr.MinAgreement = math.Min(rr.MinAgreement, round4(g.Agreement()))
	}
}

func (rr *RouteReport) write(w interface{ Write([]byte) (int, error) }) {
	fmt.Fprintf(w, "routing (thresholds chosen on the training samples' held-out probabilities, inner target %.2f):\n", RouteInnerTarget)
	for _, f := range rr.Folds {
		fmt.Fprintf(w, "  %-8s coverage low %.2f high %.2f, validity low %.2f high %.2f: routed %d/%d open claims, agreement %.4f\n",
			f.Sample, f.Threshold[0], f.Threshold[1], f.Threshold[2], f.Threshold[3], f.Routed, f.Open, f.Agreement())
	}
	fmt.Fprintf(w, "  pooled: routed %d/%d (share %.4f), agreement with the recorded judge on routed claims %.4f (lowest sample %.4f; target %.2f)\n",
		rr.Routed, rr.Open, rr.Share, rr.Agreement, rr.MinAgreement, RouteTarget)
}
