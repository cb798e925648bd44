package alias

import (
	"context"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// fuzzyQuery is Bleve's FuzzyQuery (no prefix, on a field without a
// synonym source) with the expensive part done once per index: finding
// the dictionary terms within the edit distance builds a Levenshtein
// automaton and walks the term dictionary, and one sample's queries ask
// for the same words again and again. The index is immutable once built,
// so a word's terms never change; the searcher built from them is the one
// searcher.NewFuzzySearcher builds, so scores and hits are unchanged.
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
// field's dictionary (read once) by length in runes, each term's runes
// sorted, for the bag-distance test of get.
type fuzzyCache struct {
	mu    sync.Mutex
	m     map[fuzzyKey]*fuzzyHits
	byLen map[int][]dictTerm
}

type dictTerm struct {
	s     string
	runes []rune // sorted
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
	ir, ok := i.(index.IndexReaderFuzzy)
	if !ok || q.Prefix != 0 || q.Fuzziness <= 0 || q.Fuzziness > searcher.MaxFuzziness || q.FieldVal == "" {
		return q.FuzzyQuery.Searcher(ctx, i, m, options)
	}
	c, err := q.cache.get(i, ir, q.FieldVal, q.Term, q.Fuzziness)
	if err != nil {
		return nil, err
	}
	boost := q.BoostVal.Value()
	if len(c.terms) == 0 || (len(c.terms) == 1 && c.terms[0] == q.Term) {
		return searcher.NewTermSearcher(ctx, i, q.Term, q.FieldVal, boost, options)
	}
	return searcher.NewMultiTermSearcherBoosted(ctx, i, c.terms, q.FieldVal, boost, c.dists, options, true)
}

func (c *fuzzyCache) get(r index.IndexReader, ir index.IndexReaderFuzzy, field, term string, fuzziness int) (*fuzzyHits, error) {
	k := fuzzyKey{term, fuzziness}
	c.mu.Lock()
	t := c.m[k]
	c.mu.Unlock()
	if t != nil {
		return t, nil
	}
	near, err := c.mayHaveNeighbour(r, field, term, fuzziness)
	if err != nil {
		return nil, err
	}
	if !near {
		// No other term within the distance: Bleve's candidates would be
		// none or the term itself, and both make a term searcher.
		t = &fuzzyHits{}
		c.mu.Lock()
		c.m[k] = t
		c.mu.Unlock()
		return t, nil
	}
	fd, _, err := ir.FieldDictFuzzyAutomaton(field, term, fuzziness, "")
	if err != nil {
		return nil, err
	}
	t = &fuzzyHits{terms: []string{}, dists: []uint8{}}
	e, err := fd.Next()
	for err == nil && e != nil {
		t.terms = append(t.terms, e.Term)
		t.dists = append(t.dists, e.EditDistance)
		e, err = fd.Next()
	}
	if cerr := fd.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.m[k] = t
	c.mu.Unlock()
	return t, nil
}

// mayHaveNeighbour reports whether a dictionary term other than term
// could be within fuzziness edits of it (Levenshtein with adjacent
// transpositions, as Bleve's automaton counts them). An edit changes the
// multiset of runes by at most one on each side (a transposition not at
// all), so the bag distance (the larger of the two multiset differences)
// is a lower bound of the edit distance, and a term whose bag distance or
// length difference exceeds fuzziness cannot be a candidate. When false,
// the automaton is not needed.
func (c *fuzzyCache) mayHaveNeighbour(ir index.IndexReader, field, term string, fuzziness int) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byLen == nil {
		fd, err := ir.FieldDict(field)
		if err != nil {
			return false, err
		}
		byLen := map[int][]dictTerm{}
		e, err := fd.Next()
		for err == nil && e != nil {
			r := []rune(e.Term)
			slices.Sort(r)
			byLen[len(r)] = append(byLen[len(r)], dictTerm{s: e.Term, runes: r})
			e, err = fd.Next()
		}
		if cerr := fd.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return false, err
		}
		c.byLen = byLen
	}
	q := []rune(term)
	slices.Sort(q)
	n := utf8.RuneCountInString(term)
	for l := max(0, n-fuzziness); l <= n+fuzziness; l++ {
		for _, d := range c.byLen[l] {
			if d.s != term && bagDistance(q, d.runes) <= fuzziness {
				return true, nil
			}
		}
	}
	return false, nil
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
