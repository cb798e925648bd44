package alias

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	index "github.com/blevesearch/bleve_index_api"
)

// TestFuzzyCacheMatchesBleve: the cached fuzzy query gives the hits of
// Bleve's own FuzzyQuery for every GT name of the fixtures, and its
// candidate terms (or its "no neighbour" shortcut) are Bleve's for the
// dictionary's words and their one- and two-edit variants.
func TestFuzzyCacheMatchesBleve(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an index per fixture")
	}
	for _, name := range []string{"d001", "p012"} {
		t.Run(name, func(t *testing.T) {
			f := loadFixture(t, name)
			ents, rels := f.entities()
			ix, err := Build(t.Context(), "", ents, rels, GTAliasSets(f.gt.Nodes))
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			var queries []string
			for _, n := range f.gt.Nodes {
				queries = append(queries, n.Name)
			}
			for _, g := range f.eval.Coverage.PerGT {
				queries = append(queries, g.GT.Head, g.GT.Tail)
			}
			slices.Sort(queries)
			queries = slices.Compact(queries)
			if len(queries) > 120 {
				queries = queries[:120]
			}
			cached := ix.fuzzy
			for _, q := range queries {
				ix.fuzzy = cached
				got, err := ix.Entities(t.Context(), q, 8)
				if err != nil {
					t.Fatal(err)
				}
				ix.fuzzy = nil
				want, err := ix.Entities(t.Context(), q, 8)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%q: cached fuzzy %v, Bleve's %v", q, got, want)
				}
			}
			ix.fuzzy = cached
			// Words no dictionary word is near, and accented ones.
			compareFuzzyTerms(t, ix, 40, "kahnemann", "restaurantt", "zzzzzz", "qwertyuiop", "niño", "naïve", "straße")
		})
	}
}

// TestOSAIsBleves compares the fuzzy terms with Bleve's automaton on an
// index of random words over four letters (one of them not ASCII), dense
// in the cases where edit distances differ: swaps, repeated letters,
// insertions next to them.
func TestOSAIsBleves(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	alpha := []rune("abcé")
	word := func() string {
		w := make([]rune, 1+r.IntN(8))
		for i := range w {
			w[i] = alpha[r.IntN(len(alpha))]
		}
		return string(w)
	}
	var ents []string
	for range 150 {
		ents = append(ents, word()+" "+word())
	}
	ix, err := Build(t.Context(), "", ents, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var extra []string
	for range 150 {
		extra = append(extra, word())
	}
	compareFuzzyTerms(t, ix, 4, extra...)
}

func compareFuzzyTerms(t *testing.T, ix *Index, every int, extra ...string) {
	t.Helper()
	r, err := ix.idx.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	rd, err := r.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	fr, ok := rd.(index.IndexReaderFuzzy)
	if !ok {
		t.Fatal("the reader has no fuzzy automaton")
	}
	fd, err := rd.FieldDict(fieldText)
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for e, err := fd.Next(); err == nil && e != nil; e, err = fd.Next() {
		words = append(words, e.Term)
	}
	fd.Close()
	if len(words) < 100 {
		t.Fatalf("%d dictionary words", len(words))
	}
	var terms []string
	for i, w := range words {
		if i%every != 0 {
			continue
		}
		rs := []rune(w)
		terms = append(terms, w, w+"s", "x"+w)
		if len(rs) >= 2 {
			terms = append(terms, string(rs[1:]), string(rs[:len(rs)-1]))
			sw := slices.Clone(rs)
			sw[0], sw[1] = sw[1], sw[0]
			terms = append(terms, string(sw))
			sub := slices.Clone(rs)
			sub[len(rs)/2] = 'q'
			terms = append(terms, string(sub))
		}
		if len(rs) >= 4 {
			two := slices.Clone(rs)
			two[0], two[len(rs)-1] = two[len(rs)-1], 'z'
			terms = append(terms, string(two), string(rs[2:]))
		}
	}
	terms = append(terms, extra...)
	shortcuts := 0
	for _, term := range terms {
		for fz := 1; fz <= 2; fz++ {
			c := &fuzzyCache{m: map[fuzzyKey]*fuzzyHits{}}
			got, err := c.get(rd, fieldText, term, fz)
			if err != nil {
				t.Fatal(err)
			}
			d, _, err := fr.FieldDictFuzzyAutomaton(fieldText, term, fz, "")
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			var dists []uint8
			for e, err := d.Next(); err == nil && e != nil; e, err = d.Next() {
				want, dists = append(want, e.Term), append(dists, e.EditDistance)
			}
			d.Close()
			if len(got.terms) == 0 {
				shortcuts++
				// the shortcut: no term but term itself
				if len(want) > 1 || len(want) == 1 && want[0] != term {
					t.Fatalf("%q~%d: shortcut taken, Bleve finds %v", term, fz, want)
				}
				continue
			}
			if !slices.Equal(got.terms, want) || !slices.Equal(got.dists, dists) {
				t.Fatalf("%q~%d: cached %v %v, Bleve %v %v", term, fz, got.terms, got.dists, want, dists)
			}
		}
	}
	if shortcuts == 0 || shortcuts == 2*len(terms) && len(terms) > 20 {
		t.Fatalf("%d shortcuts of %d look-ups: the test exercises one path only", shortcuts, 2*len(terms))
	}
	t.Logf("%d look-ups, %d with no other term near", 2*len(terms), shortcuts)
}
