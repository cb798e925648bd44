package prefilter

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	porterstemmer "github.com/blevesearch/go-porterstemmer"

	"github.com/kgjudge/kgjudge/alias"
)

// The Bleve stage. Per sample, the predicted graph's entities and relations
// are indexed on Bleve (alias.Build, in memory, batched) with the GT node
// alias sets and Options.Aliases as its synonym sets, and every GT head and
// tail is also looked up there (Index.Entities). A hit is scored by the same
// ranker as the token index's (matchEntity); a hit the ranker cannot score
// (no shared word, no contained name) is scored here by what found it: an
// alias set member the predicted name contains or shares words with
// ("Kiyomizudera temple" for "Kiyomizu-dera" with the set {Kiyomizu-dera,
// Kiyomizudera}), or words equal up to a typo ("Daniel Kahnemann" for
// "Daniel Kahneman"). A match only the Bleve stage found is tagged "bleve:" +
// how (Candidate.Why "head:bleve:fuzzy"). Validity candidates are the
// coverage ranking read backwards, so they see these matches too.
const (
	// bleveK is how many entities are retrieved per GT entity.
	bleveK = 8
	// bleveAliasDecay discounts a match through an alias member's name
	// (the member is another name of the GT entity, not the entity's own).
	bleveAliasDecay = 0.95
	// bleveFuzzyDecay discounts words shared only up to a typo.
	bleveFuzzyDecay = 0.9
)

// maxFuzzyRunes is the longest word compared up to a typo.
const maxFuzzyRunes = 32

// indexPrefix tags the matches only the Bleve stage found.
const indexPrefix = "bleve:"

// buildIndex indexes the predicted entities and relations with the alias sets.
func (s *sample) buildIndex(ctx context.Context, rels []string, sets [][]string, concepts *alias.Concepts) error {
	ix, err := alias.Build(ctx, "", s.predEnts, rels, sets, alias.WithConcepts(concepts), alias.WithKnown(s.known))
	if err != nil {
		return fmt.Errorf("prefilter: %w", err)
	}
	s.ix = ix
	return nil
}

// known gives the index the key and concepts newText computed for a
// graph string (the same functions of kg.MatchText(str), the same table).
func (s *sample) known(str string) (string, []string, bool) {
	t := s.texts[str]
	if t == nil {
		return "", nil, false
	}
	return t.key, t.concepts, true
}

// close releases the Bleve index, if any.
func (s *sample) close() {
	if s.ix != nil {
		s.ix.Close()
		s.ix = nil
	}
}

// indexed adds the Bleve stage's matches of GT entity e to out: a hit
// already matched keeps the better score (and its own why); a new one is
// tagged indexPrefix.
func (s *sample) indexed(ctx context.Context, e *text, out map[string]match) error {
	if s.ix == nil {
		return nil
	}
	hits, err := s.ix.Entities(ctx, e.s, bleveK)
	if err != nil {
		return fmt.Errorf("prefilter: %w", err)
	}
	for _, h := range hits {
		x := s.texts[h.Text]
		if x == nil {
			continue
		}
		if _, ok := out[x.s]; ok {
			continue // the token index found it; the ranker has scored it
		}
		m := s.matchEntity(e, x)
		why := m.why
		switch h.How {
		case alias.HowAlias:
			if a := s.viaAlias(e, x); a.score > m.score {
				m, why = a, string(alias.HowAlias)
			}
		case alias.HowFuzzy, alias.HowPartial:
			if f := s.fuzzyMatch(e, x); f.score > m.score {
				m, why = f, string(alias.HowFuzzy)
			}
		}
		if m.score < entityFloor {
			continue
		}
		s.indexOnly++
		out[x.s] = match{m.score, indexPrefix + why}
	}
	return nil
}

// viaAlias scores x through the other members of e's alias sets, discounted.
func (s *sample) viaAlias(e, x *text) match {
	best := match{}
	for _, si := range s.aliasOf[e.key] {
		for _, name := range s.aliasSets[si] {
			a := s.aliasText(name)
			if a.key == e.key || a.key == "" {
				continue
			}
			if m := s.matchEntity(a, x); m.score*bleveAliasDecay > best.score {
				best = match{round3(m.score * bleveAliasDecay), m.why}
			}
		}
	}
	return best
}

// aliasText returns the features of an alias member (cached).
func (s *sample) aliasText(name string) *text {
	if t := s.texts[name]; t != nil {
		return t
	}
	if t := s.extra[name]; t != nil {
		return t
	}
	t := newText(name, s.concepts)
	s.extra[name] = t
	return t
}

// fuzzyMatch is the partial-name score of matchEntity with words equal up
// to a typo counted as shared, discounted. Words are compared as written
// (lower case, not stemmed: "France" is no typo of "Francis"), one edit
// allowed from six letters, two from ten.
func (s *sample) fuzzyMatch(e, x *text) match {
	se, sx := s.tokSum(e), s.tokSum(x)
	if se == 0 || sx == 0 {
		return match{}
	}
	xw := latinWords(x.norm)
	sh, typo := 0.0, false
	for _, a := range latinWords(e.norm) {
		for _, b := range xw {
			if a == b {
				sh += s.idf.weight(stem(a))
				break
			}
			if d := fuzziness(a); d > 0 && stem(a) != stem(b) && withinEdits(a, b, d) {
				sh += s.idf.weight(stem(a))
				typo = true
				break
			}
		}
	}
	if !typo {
		return match{}
	}
	sh = math.Min(sh, math.Min(se, sx))
	dice := 2 * sh / (se + sx)
	rec := sh / se
	return match{round3(bleveFuzzyDecay * 0.8 * (dice + rec) / 2), "fuzzy"}
}

// latinWords returns the lower-cased words of Latin letters of n (a string
// in kg.Normalize form; two letters or more, stopwords dropped), in order.
func latinWords(n string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(n, func(r rune) bool { return !unicode.IsLetter(r) || isHan(r) }) {
		if utf8.RuneCountInString(w) >= 2 && !stopwords[w] {
			out = append(out, w)
		}
	}
	return out
}

// stem is the token tokens gives a Latin word.
func stem(w string) string { return string(porterstemmer.StemWithoutLowerCasing([]rune(w))) }

// fuzziness is the edit distance allowed for a word: none under six
// letters.
func fuzziness(w string) int {
	switch n := utf8.RuneCountInString(w); {
	case n > maxFuzzyRunes:
		// withinEdits is quadratic in the word; no real word is this
		// long (alias.Index applies the same bound to Bleve's fuzzy terms).
		return 0
	case n >= 10:
		return 2
	case n >= 6:
		return 1
	}
	return 0
}

// withinEdits reports whether the Levenshtein distance of a and b is at
// most d.
func withinEdits(a, b string, d int) bool {
	ra, rb := []rune(a), []rune(b)
	if abs(len(ra)-len(rb)) > d {
		return false
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(rb); j++ {
			c := prev[j-1]
			if ra[i-1] != rb[j-1] {
				c = 1 + min(prev[j-1], prev[j], cur[j-1])
			}
			cur[j] = c
			low = min(low, c)
		}
		if low > d {
			return false
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)] <= d
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
