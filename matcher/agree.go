package matcher

import "github.com/kgjudge/kgjudge/kg"

// Agreement compares two judges' binary decisions on the same claims
// (covered / not covered, or valid / invalid). Claims that either judge left
// unjudged are not compared; they are counted in Skipped.
type Agreement struct {
	N       int     `json:"n"`
	Agree   int     `json:"agree"`
	BothYes int     `json:"both_yes"`
	BothNo  int     `json:"both_no"`
	OnlyA   int     `json:"only_a"` // A yes, B no
	OnlyB   int     `json:"only_b"` // A no, B yes
	Skipped int     `json:"skipped_unjudged"`
	Acc     float64 `json:"accuracy"`
	// Kappa is Cohen's kappa: agreement beyond what the two judges' rates of
	// "yes" would give by chance. 1 when both judges agree on every claim.
	Kappa float64 `json:"kappa"`
	// BvsA reads A as the reference: the precision of B's yes and the
	// recall of A's yes by B; AvsB the other way round.
	BvsA PR `json:"b_against_a"`
	AvsB PR `json:"a_against_b"`
}

// PR is one judge's precision and recall against another taken as the
// reference (0 where undefined).
type PR struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
}

// Add records one claim. Anything but covered or uncovered (unjudged, or a
// missing verdict) is skipped.
func (a *Agreement) Add(x, y kg.State) {
	if !Decided(x) || !Decided(y) {
		a.Skipped++
		return
	}
	a.N++
	xa, ya := x == kg.Covered, y == kg.Covered
	switch {
	case xa && ya:
		a.BothYes++
	case !xa && !ya:
		a.BothNo++
	case xa:
		a.OnlyA++
	default:
		a.OnlyB++
	}
	a.Agree = a.BothYes + a.BothNo
}

// Merge adds another agreement's counts.
func (a *Agreement) Merge(o Agreement) {
	a.N += o.N
	a.BothYes += o.BothYes
	a.BothNo += o.BothNo
	a.OnlyA += o.OnlyA
	a.OnlyB += o.OnlyB
	a.Skipped += o.Skipped
	a.Agree = a.BothYes + a.BothNo
}

// Finish computes accuracy and kappa (rounded to 4 decimals).
func (a *Agreement) Finish() {
	if a.N == 0 {
		a.Acc, a.Kappa = 0, 0
		return
	}
	n := float64(a.N)
	po := float64(a.Agree) / n
	pa := float64(a.BothYes+a.OnlyA) / n // A says yes
	pb := float64(a.BothYes+a.OnlyB) / n // B says yes
	pe := pa*pb + (1-pa)*(1-pb)
	a.Acc = Round4(po)
	ratio := func(x, y int) float64 {
		if y == 0 {
			return 0
		}
		return Round4(float64(x) / float64(y))
	}
	a.BvsA = PR{Precision: ratio(a.BothYes, a.BothYes+a.OnlyB), Recall: ratio(a.BothYes, a.BothYes+a.OnlyA)}
	a.AvsB = PR{Precision: ratio(a.BothYes, a.BothYes+a.OnlyA), Recall: ratio(a.BothYes, a.BothYes+a.OnlyB)}
	if pe == 1 {
		// Both judges said the same single answer to everything.
		a.Kappa = 1
		return
	}
	a.Kappa = Round4((po - pe) / (1 - pe))
}

// Decided reports whether a state is a decision: covered or uncovered. An
// unjudged claim, or a missing verdict (the zero State), is not.
func Decided(s kg.State) bool { return s == kg.Covered || s == kg.Uncovered }

// SelfConsistency measures one judge's two passes against each other: of
// the predicted triples its coverage pass cites as support of a covered GT
// triple (distinct, in range), how many its own validity pass marks
// invalid. The benchmark's recorded judge is not self-consistent (the
// issue measured 42% on unseen samples), so no judge can agree fully with
// both of its passes.
type SelfConsistency struct {
	Cited        int     `json:"cited"`
	CitedInvalid int     `json:"cited_invalid"`
	Share        float64 `json:"share_invalid"`
}

// AddSample adds one sample's verdicts (validity nil: nothing to compare).
func (c *SelfConsistency) AddSample(cov []kg.Verdict, val []kg.Validity) {
	if val == nil {
		return
	}
	state := make(map[int]kg.State, len(val))
	for _, v := range val {
		state[v.PredIndex] = v.State
	}
	cited := map[int]bool{}
	for _, v := range cov {
		if v.State != kg.Covered {
			continue
		}
		for _, i := range v.Support {
			if st, ok := state[i]; ok && Decided(st) {
				cited[i] = true
			}
		}
	}
	for i := range cited {
		c.Cited++
		if state[i] == kg.Uncovered {
			c.CitedInvalid++
		}
	}
	c.Share = 0
	if c.Cited > 0 {
		c.Share = Round4(float64(c.CitedInvalid) / float64(c.Cited))
	}
}
