package prefilter

import (
	"sort"

	"github.com/kgjudge/kgjudge/plan"
)

// Batching constants: a batch shows at most maxBatchCandidates(n)
// candidates (n: size of the candidate graph) and MaxBatchClaims claims.
const (
	MaxBatchClaims = 40
	// batchCandidateShare of the candidate graph, between the bounds.
	batchCandidateShare = 0.12
	minBatchCandidates  = 12
	maxBatchCandidates  = 60
)

func batchCap(n int) int {
	c := int(batchCandidateShare * float64(n))
	return max(minBatchCandidates, min(c, maxBatchCandidates))
}

// Batches groups a pass's claims that need a judge into entity-coherent
// batches whose candidate lists overlap. groupKey gives each claim's entity
// group (claims of one GT head, say); n is the size of the candidate graph.
//
// Claims resolved by the deterministic tier are left out. Claims without
// candidates go to one batch with no candidates, which a judge decides
// without a call (not covered / not valid). The others are taken in order
// of their best candidate (then group, then index) and each joins the open
// batch whose candidates it overlaps most (a shared group counts as one
// more shared candidate), provided the union stays within the cap and the
// batch has room; with no overlap it opens a new batch. Then batches are
// merged pairwise while the merged candidate list stays within the cap and
// the claims within MaxBatchClaims, most shared candidates first: every
// call repeats the fixed instructions (a few thousand characters), so fewer,
// fuller batches cost less, and a merged list never shows a candidate
// twice. Batches come out in order of their first claim; claims and
// candidates ascending.
func Batches(pass plan.Pass, claims []Claim, groupKey func(i int) string, n int) []plan.Batch {
	capCand := batchCap(n)
	type open struct {
		claims []int
		union  map[int]bool
		groups map[string]bool
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
		var best *open
		bestGain := 0.0
		for _, b := range bs {
			if len(b.claims) >= MaxBatchClaims {
				continue
			}
			shared, added := 0, 0
			for _, x := range c.Candidates {
				if b.union[x.Index] {
					shared++
				} else {
					added++
				}
			}
			if len(b.union)+added > capCand {
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
		for _, x := range c.Candidates {
			best.union[x.Index] = true
		}
	}
	bs = mergeSmall(bs, capCand, func(b *open) (map[int]bool, int) { return b.union, len(b.claims) }, func(a, b *open) {
		a.claims = append(a.claims, b.claims...)
		for x := range b.union {
			a.union[x] = true
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
// the smaller merged list, then the earlier pair) first, while the merged
// candidate list has at most capCand entries and claims at most
// MaxBatchClaims. view returns a batch's candidate set and claim count;
// merge folds the second batch into the first.
func mergeSmall[B any](bs []B, capCand int, view func(B) (map[int]bool, int), merge func(a, b B)) []B {
	for {
		bi, bj, bestShared, bestSize := -1, -1, -1, 0
		for i := range bs {
			ui, ci := view(bs[i])
			for j := i + 1; j < len(bs); j++ {
				uj, cj := view(bs[j])
				if ci+cj > MaxBatchClaims {
					continue
				}
				shared := 0
				for x := range uj {
					if ui[x] {
						shared++
					}
				}
				size := len(ui) + len(uj) - shared
				if size > capCand {
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
		bs = append(bs[:bj], bs[bj+1:]...)
	}
}
