package alias

import (
	"context"
	"math/bits"
	"slices"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// fuzzyQuery is Bleve's FuzzyQuery (no prefix, on a field without a
// synonym source) without its expensive part: to find the dictionary
// terms within the edit distance Bleve builds a Levenshtein automaton per
// query word (most of a sample's search time, and of its garbage) and
// walks the term dictionary with it. Here the dictionary is read once per
// index (it is immutable once built), a word's terms are computed
// directly (within) and kept, since one sample's queries ask for the same
// words again and again, and the searcher built from them is the one
// searcher.NewFuzzySearcher builds: scores and hits are unchanged.
type fuzzyQuery struct {
	*query.FuzzyQuery
	cache *fuzzyCache
}

type fuzzyKey struct {
	term      string
	fuzziness int
}

type fuzzyHits struct {
	terms []string
	dists []uint8
}

// fuzzyCache maps (term, fuzziness) to the field's terms within that
// distance, in dictionary order, with their distances. byLen holds the
// field's dictionary (read once) by length in runes, with each term's
// runes sorted for the bag-distance bound.
type fuzzyCache struct {
	mu    sync.Mutex
	m     map[fuzzyKey]*fuzzyHits
	byLen map[int][]dictTerm
}

type dictTerm struct {
	s      string
	runes  []rune
	sorted []rune
	mask   uint64 // runeMask
}

// runeMask sets bit r%64 for every rune r: a rune of a that is not in b
// sets a bit of a's mask not in b's unless another rune shares the bit,
// so popcount(ma &^ mb) is a lower bound of the bag distance.
func runeMask(rs []rune) uint64 {
	var m uint64
	for _, r := range rs {
		m |= 1 << (uint32(r) % 64)
	}
	return m
}

func newFuzzyQuery(c *fuzzyCache, term string, fuzziness int, field string, boost float64) *fuzzyQuery {
	fq := query.NewFuzzyQuery(term)
	fq.SetField(field)
	fq.SetFuzziness(fuzziness)
	fq.SetBoost(boost)
	return &fuzzyQuery{FuzzyQuery: fq, cache: c}
}

// Searcher implements query.Query: searcher.NewFuzzySearcher with the
// candidate terms cached (prefix 0; the field has no synonym source, so
// no synonym terms join the candidates).
func (q *fuzzyQuery) Searcher(ctx context.Context, i index.IndexReader, m mapping.IndexMapping, options search.SearcherOptions) (search.Searcher, error) {
	if q.Prefix != 0 || q.Fuzziness <= 0 || q.Fuzziness > searcher.MaxFuzziness || q.FieldVal == "" {
		return q.FuzzyQuery.Searcher(ctx, i, m, options)
	}
	c, err := q.cache.get(i, q.FieldVal, q.Term, q.Fuzziness)
	if err != nil {
		return nil, err
	}
	boost := q.BoostVal.Value()
	if len(c.terms) == 0 || (len(c.terms) == 1 && c.terms[0] == q.Term) {
		return searcher.NewTermSearcher(ctx, i, q.Term, q.FieldVal, boost, options)
	}
	return searcher.NewMultiTermSearcherBoosted(ctx, i, c.terms, q.FieldVal, boost, c.dists, options, true)
}

func (c *fuzzyCache) get(r index.IndexReader, field, term string, fuzziness int) (*fuzzyHits, error) {
	k := fuzzyKey{term, fuzziness}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.m[k]; t != nil {
		return t, nil
	}
	if c.byLen == nil {
		if err := c.readDict(r, field); err != nil {
			return nil, err
		}
	}
	t := c.within(term, fuzziness)
	c.m[k] = t
	return t, nil
}

// readDict reads the field's term dictionary once.
func (c *fuzzyCache) readDict(r index.IndexReader, field string) (err error) {
	fd, err := r.FieldDict(field)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := fd.Close(); err == nil {
			err = cerr
		}
	}()
	byLen := map[int][]dictTerm{}
	e, err := fd.Next()
	for err == nil && e != nil {
		rs := []rune(e.Term)
		sorted := slices.Clone(rs)
		slices.Sort(sorted)
		byLen[len(rs)] = append(byLen[len(rs)], dictTerm{s: e.Term, runes: rs, sorted: sorted, mask: runeMask(rs)})
		e, err = fd.Next()
	}
	if err != nil {
		return err
	}
	c.byLen = byLen
	return nil
}

// within returns the dictionary terms within fuzziness edits of term, in
// dictionary (byte) order, with their distances: what Bleve's Levenshtein
// automaton (built with transpositions) finds walking the dictionary,
// which is the optimal-string-alignment distance (insertions, deletions,
// substitutions and swaps of adjacent runes, each 1; TestOSAIsBleves).
// The length difference and the bag distance (the larger of the two
// multiset differences of runes; an edit changes each side by at most
// one) are lower bounds of it and rule out most terms cheaply. When no
// term but term itself is within the distance the result is empty: the
// searcher is then a term searcher either way.
func (c *fuzzyCache) within(term string, fuzziness int) *fuzzyHits {
	q := []rune(term)
	qs := slices.Clone(q)
	slices.Sort(qs)
	type hit struct {
		term string
		dist uint8
	}
	var hits []hit
	other := false
	qm := runeMask(q)
	var rows osaRows
	for l := max(0, len(q)-fuzziness); l <= len(q)+fuzziness; l++ {
		for _, d := range c.byLen[l] {
			if bits.OnesCount64(qm&^d.mask) > fuzziness || bits.OnesCount64(d.mask&^qm) > fuzziness || bagDistance(qs, d.sorted) > fuzziness {
				continue
			}
			if e := rows.distance(q, d.runes, fuzziness); e <= fuzziness {
				hits = append(hits, hit{d.s, uint8(e)})
				other = other || d.s != term
			}
		}
	}
	t := &fuzzyHits{}
	if !other {
		return t
	}
	slices.SortFunc(hits, func(a, b hit) int { return strings.Compare(a.term, b.term) })
	t.terms, t.dists = make([]string, len(hits)), make([]uint8, len(hits))
	for i, h := range hits {
		t.terms[i], t.dists[i] = h.term, h.dist
	}
	return t
}

// osaRows are the three rows (i-2, i-1, i) of the distance table, kept
// between calls.
type osaRows struct{ pp, p, cur []int }

// distance is the optimal-string-alignment distance of a and b, or a
// value above limit once every alignment exceeds it.
func (r *osaRows) distance(a, b []rune, limit int) int {
	n, m := len(a), len(b)
	if cap(r.p) < m+1 {
		r.pp, r.p, r.cur = make([]int, m+1), make([]int, m+1), make([]int, m+1)
	}
	pp, p, cur := r.pp[:m+1], r.p[:m+1], r.cur[:m+1]
	for j := range p {
		p[j] = j
	}
	for i := 1; i <= n; i++ {
		cur[0] = i
		low := i
		for j := 1; j <= m; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(p[j]+1, cur[j-1]+1, p[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, pp[j-2]+1)
			}
			cur[j] = v
			low = min(low, v)
		}
		// a swap reaches back two rows, so stop only when both exceed
		if low > limit && minSlice(p) > limit {
			return limit + 1
		}
		pp, p, cur = p, cur, pp
	}
	return p[m]
}

func minSlice(s []int) int {
	v := s[0]
	for _, x := range s[1:] {
		v = min(v, x)
	}
	return v
}

// bagDistance is max(|a-b|, |b-a|) of two sorted rune multisets.
func bagDistance(a, b []rune) int {
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			common++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return max(len(a), len(b)) - common
}
