package prefilter

import (
	"github.com/kgjudge/kgjudge/kg"
)

// resolve is the deterministic tier: a GT triple is covered (direct),
// without a judge, when a predicted triple is the same triple after
// kg.Normalize, or names the same head and tail (same Canon key, one alias
// set, or a shared name variant such as "MAC / 魅可" for "魅可") with a
// relation of the same concept (or the same key). Everything else is left
// for a judge. Support lists every such predicted triple.
func (s *sample) resolve(gt kg.Triple, ranked []Candidate) *Resolution {
	h, r, t := s.text(gt.Head), s.text(gt.Relation), s.text(gt.Tail)
	key := tripleKey(h, r, t)
	var exact, equiv []int
	for _, c := range ranked {
		p := s.pred.Triples[c.Index]
		if s.predKey[c.Index] == key {
			exact = append(exact, c.Index)
			continue
		}
		ph, pr, pt := s.texts[p.Head], s.texts[p.Relation], s.texts[p.Tail]
		if s.sameName(h, ph) && s.sameName(t, pt) && (r.key == pr.key || intersects(r.concepts, pr.concepts)) {
			equiv = append(equiv, c.Index)
		}
	}
	switch {
	case len(exact) > 0:
		return &Resolution{Kind: kg.KindDirect, Support: sortedInts(append(exact, equiv...)), Reason: "same triple after normalisation"}
	case len(equiv) > 0:
		return &Resolution{Kind: kg.KindDirect, Support: sortedInts(equiv), Reason: "alias-equivalent head and tail, same relation concept"}
	}
	return nil
}

// sameName: the same Canon key, one alias set, or a shared name variant.
func (s *sample) sameName(a, b *text) bool {
	if a.key == "" || b.key == "" {
		return false
	}
	return a.key == b.key || s.sameAlias(a.key, b.key) || intersects(a.variants, b.variants)
}

// tripleKey is kg.Triple.Key from the texts' normalised forms.
func tripleKey(h, r, t *text) string { return h.norm + "\x1f" + r.norm + "\x1f" + t.norm }

func sortedInts(x []int) []int {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
	out := x[:0]
	for i, v := range x {
		if i == 0 || v != x[i-1] {
			out = append(out, v)
		}
	}
	return out
}
