package prefilter

import (
	"context"
	"math"
	"sort"
	"strings"
)

// Structural alignment. A GT entity and a predicted entity are taken to
// name the same thing when their neighbourhoods agree, whatever their
// names: "White Plan" and "怀特方案" share no token, but both have a
// gold-anchor value of "$35/盎司"; "Plaza Accord" / "广场协议" were both
// signed in 1985 with G5 as the parties. This is how names that do not
// cross languages (translations, transliterations) are found at all; the
// cost of a wrong alignment is a few extra candidates, never a verdict.
const (
	// alignMin is the least agreement (sum over the GT entity's triples
	// of 1 per neighbour value the predicted entity shares under an
	// agreeing relation, 0.5 under another relation) to align.
	alignMin = 1.0
	// alignKeep keeps predicted entities within this share of the best
	// agreement, at most alignMax of them.
	alignKeep = 0.75
	alignMax  = 3
	// alignRareDF: a shared value must carry a token found in at most
	// this many predicted triples ("1985", "浮动汇率合法化"), so that
	// generic values ("是", "美元") align nothing.
	alignRareDF = 8
	// alignPostings bounds the predicted triples looked at per token.
	alignPostings = 40
	// alignValueDeg: a shared value must be specific, an end of at most
	// this many triples in either graph; values every sibling shares (a
	// brand, "是", a country) tell siblings apart from nothing.
	alignValueDeg = 2
)

// alignScore maps an agreement to a match score: 1 shared value under an
// agreeing relation is worth a partial name (0.8, enough alone to show a
// judge the entity's triples), two or more a near alias (0.9).
func alignScore(agree float64) float64 { return math.Round(700+100*min(agree, 2)) / 1000 }

// align returns the predicted entities whose neighbourhood agrees with GT
// entity e's (see the constants), matched "structure".
func (s *sample) align(ctx context.Context, e *text) (map[string]match, error) {
	agree := map[string]float64{}
	out := map[string]match{}
	if hasDigit(e.key) {
		return out, nil // a value (year, price), not a named thing
	}
	for _, gi := range s.gtNb[e.s] {
		g := s.task.Triples[gi]
		other := g.Tail
		if other == e.s {
			other = g.Head
		}
		o, r := s.text(other), s.text(g.Relation)
		if o == nil || o.key == "" || other == e.s || len(s.gtNb[other]) > alignValueDeg {
			continue
		}
		// Predicted triples sharing a rare token with the value.
		seen := map[int]bool{}
		var look []int
		for _, tok := range o.toks {
			l := s.triByToken[tok]
			if len(l) > alignPostings {
				continue
			}
			for _, i := range l {
				if !seen[i] {
					seen[i] = true
					look = append(look, i)
				}
			}
		}
		sort.Ints(look)
		got := map[string]float64{} // pred entity -> best weight for this GT triple
		for _, i := range look {
			p := s.pred.Triples[i]
			for _, end := range [2][2]string{{p.Tail, p.Head}, {p.Head, p.Tail}} {
				v, x := s.texts[end[0]], end[1]
				if x == "" || x == end[0] || !s.sameValue(o, v) {
					continue
				}
				if nb, err := s.nb.get(ctx, end[0]); err != nil {
					return nil, err
				} else if len(nb) > alignValueDeg {
					continue
				}
				w := 0.5
				if s.relAgrees(r, i) {
					w = 1
				}
				if w > got[x] {
					got[x] = w
				}
			}
		}
		for x, w := range got {
			agree[x] += w
		}
	}
	best := 0.0
	for _, a := range agree {
		best = max(best, a)
	}
	if best < alignMin {
		return out, nil
	}
	xs := make([]string, 0, len(agree))
	for x, a := range agree {
		if a >= alignMin && a >= alignKeep*best {
			xs = append(xs, x)
		}
	}
	sort.Slice(xs, func(i, j int) bool {
		if agree[xs[i]] != agree[xs[j]] {
			return agree[xs[i]] > agree[xs[j]]
		}
		return xs[i] < xs[j]
	})
	if len(xs) > alignMax {
		xs = xs[:alignMax]
	}
	for _, x := range xs {
		out[x] = match{alignScore(agree[x]), "structure"}
	}
	return out, nil
}

func hasDigit(s string) bool {
	for _, r := range s {
		if r >= '0' && r <= '9' {
			return true
		}
	}
	return false
}

// sameValue reports whether predicted value v states GT value o: the same
// key or name part, or v carries (nearly) all of o's token weight,
// including a token rare in the prediction ("1971年8月15日" in
// "1971年8月13–15日", "$35/盎司" in "美元-黄金锚定（$35/盎司），...").
func (s *sample) sameValue(o, v *text) bool {
	if v == nil || v.key == "" {
		return false
	}
	if o.key == v.key || intersects(o.variants, v.variants) || len(o.key) >= 4 && strings.Contains(v.key, o.key) {
		return s.hasRare(o.toks)
	}
	so := s.tokSum(o)
	if so == 0 {
		return false
	}
	sh := s.idf.shared(o.toks, v.toks)
	if sh < 0.8*so {
		return false
	}
	var common []string
	for i, j := 0, 0; i < len(o.toks) && j < len(v.toks); {
		switch {
		case o.toks[i] == v.toks[j]:
			common = append(common, o.toks[i])
			i++
			j++
		case o.toks[i] < v.toks[j]:
			i++
		default:
			j++
		}
	}
	return s.hasRare(common)
}

func (s *sample) hasRare(toks []string) bool {
	for _, t := range toks {
		if n := len(s.triByToken[t]); n > 0 && n <= alignRareDF && (len(t) >= 3 || !isDigits(t)) {
			return true
		}
	}
	return false
}

// relAgrees reports whether predicted triple i states its value under a
// relation agreeing with GT relation r: the same relation concept or
// words, or r's words found in the triple ("黄金锚定价格" in "美元-黄金锚定
// （$35/盎司）").
func (s *sample) relAgrees(r *text, i int) bool {
	if r == nil {
		return false
	}
	if s.relMatch(r, s.texts[s.pred.Triples[i].Relation]) > 0 {
		return true
	}
	sr := s.tokSum(r)
	return sr > 0 && s.idf.shared(r.toks, s.predTriTok[i]) >= 0.3*sr
}
