package prefilter

import (
	"sort"

	"github.com/kgjudge/kgjudge/plan"
)

// Batches groups a pass's claims that need a judge into entity-coherent
// batches whose candidate lists overlap, each within one call's budget.
// groupKey gives each claim's entity group (claims of one GT head, say);
// claimTok and candTok the tokens of a claim's and of a candidate's line
// (plan.EstimateTokens of the line).
//
// Claims resolved by the deterministic tier are left out. Claims without
// candidates go to one batch with no candidates, which a judge decides
// without a call (not covered / not valid). The others are taken in order
// of their best candidate (then group, then index) and each joins the open
// batch whose candidates it overlaps most (a shared group counts as one
// more shared candidate), provided the batch stays within the budget; with
// no overlap it opens a new batch. Then batches are merged pairwise while
// the merged batch stays within the budget, most shared candidates first
// (coherent batches before unrelated ones): every call repeats the fixed
// instructions, so fewer, fuller batches cost less, and a merged list never
// shows a candidate twice. Batches come out in order of their first claim;
// claims and candidates ascending.
func Batches(pass plan.Pass, claims []Claim, groupKey func(i int) string, claimTok, candTok func(i int) int, budget plan.Budget) []plan.Batch {
	budget = budget.WithDefaults()
	type open struct {
		claims   []int
		union    map[int]bool
		groups   map[string]bool
		claimTok int
		unionTok int
	}
	var none []int
	var todo []Claim
	for _, c := range claims {
		switch {
		case c.Resolved != nil:
		case len(c.Candidates) == 0:
			none = append(none, c.Index)
		default:
			todo = append(todo, c)
		}
	}
	top := func(c Claim) int { return c.Candidates[0].Index }
	sort.SliceStable(todo, func(i, j int) bool {
		a, b := todo[i], todo[j]
		if top(a) != top(b) {
			return top(a) < top(b)
		}
		if ga, gb := groupKey(a.Index), groupKey(b.Index); ga != gb {
			return ga < gb
		}
		return a.Index < b.Index
	})
	var bs []*open
	for _, c := range todo {
		g := groupKey(c.Index)
		ct := claimTok(c.Index)
		var best *open
		bestGain := 0.0
		for _, b := range bs {
			if len(b.claims) >= budget.Claims {
				continue
			}
			shared, addedTok := 0, 0
			for _, x := range c.Candidates {
				if b.union[x.Index] {
					shared++
				} else {
					addedTok += candTok(x.Index)
				}
			}
			if b.claimTok+b.unionTok+ct+addedTok > budget.Tokens {
				continue
			}
			gain := float64(shared)
			if b.groups[g] {
				gain++
			}
			gain /= float64(len(c.Candidates) + 1)
			if gain > bestGain {
				best, bestGain = b, gain
			}
		}
		if best == nil {
			best = &open{union: map[int]bool{}, groups: map[string]bool{}}
			bs = append(bs, best)
		}
		best.claims = append(best.claims, c.Index)
		best.groups[g] = true
		best.claimTok += ct
		for _, x := range c.Candidates {
			if !best.union[x.Index] {
				best.union[x.Index] = true
				best.unionTok += candTok(x.Index)
			}
		}
	}
	bs = mergeSmall(bs, budget, candTok, func(b *open) (map[int]bool, int, int) { return b.union, len(b.claims), b.claimTok }, func(a, b *open) {
		a.claims = append(a.claims, b.claims...)
		a.claimTok += b.claimTok
		for x := range b.union {
			if !a.union[x] {
				a.union[x] = true
				a.unionTok += candTok(x)
			}
		}
		for g := range b.groups {
			a.groups[g] = true
		}
	})
	out := make([]plan.Batch, 0, len(bs)+1)
	for _, b := range bs {
		cands := make([]int, 0, len(b.union))
		for x := range b.union {
			cands = append(cands, x)
		}
		sort.Ints(cands)
		sort.Ints(b.claims)
		out = append(out, plan.Batch{Pass: pass, Claims: b.claims, Candidates: cands})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Claims[0] < out[j].Claims[0] })
	if len(none) > 0 {
		out = append(out, plan.Batch{Pass: pass, Claims: none, Candidates: []int{}})
	}
	return out
}

// mergeSmall merges batches pairwise, the pair sharing most candidates (then
// the smaller merged batch, then the earlier pair) first, while the merged
// batch fits the budget: its claim lines plus its candidate union within
// budget.Tokens (candTok per candidate) and its claims within
// budget.Claims. view returns a batch's candidate set, claim count and
// claim tokens; merge folds the second batch into the first.
func mergeSmall[B any](bs []B, budget plan.Budget, candTok func(int) int, view func(B) (map[int]bool, int, int), merge func(a, b B)) []B {
	budget = budget.WithDefaults()
	unionTok := func(u map[int]bool) int {
		n := 0
		for x := range u {
			n += candTok(x)
		}
		return n
	}
	tok := make([]int, len(bs))
	for i, b := range bs {
		u, _, _ := view(b)
		tok[i] = unionTok(u)
	}
	for {
		bi, bj, bestShared, bestSize := -1, -1, -1, 0
		for i := range bs {
			ui, ci, cti := view(bs[i])
			for j := i + 1; j < len(bs); j++ {
				uj, cj, ctj := view(bs[j])
				if ci+cj > budget.Claims {
					continue
				}
				shared, sharedTok := 0, 0
				a, b := ui, uj
				if len(b) < len(a) {
					a, b = b, a
				}
				for x := range a {
					if b[x] {
						shared++
						sharedTok += candTok(x)
					}
				}
				size := cti + ctj + tok[i] + tok[j] - sharedTok
				if size > budget.Tokens {
					continue
				}
				if shared > bestShared || (shared == bestShared && size < bestSize) {
					bi, bj, bestShared, bestSize = i, j, shared, size
				}
			}
		}
		if bi < 0 {
			return bs
		}
		merge(bs[bi], bs[bj])
		u, _, _ := view(bs[bi])
		tok[bi] = unionTok(u)
		bs = append(bs[:bj], bs[bj+1:]...)
		tok = append(tok[:bj], tok[bj+1:]...)
	}
}
