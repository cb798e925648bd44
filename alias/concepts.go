package alias

import (
	_ "embed"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	porterstemmer "github.com/blevesearch/go-porterstemmer"

	"github.com/kgjudge/kgjudge/kg"
)

//go:embed data/relation_concepts.tsv
var relationConceptsTSV string

// Concepts is a table of relation (and dimension) concepts, each a set of
// English and Chinese terms that name the same kind of fact: price / 价格 /
// 售价, developer / 开发商 / 开发者, ... It is read-only once built and safe
// for concurrent use.
type Concepts struct {
	terms map[string][]string // concept id -> terms as given
	match []conceptTerm       // longest key first
	// Where a term can start, so that Of tries only the terms that can
	// occur in a text (its cost was the whole table per call): a
	// whole-word term by its first word, a substring term by its first
	// rune. Values are indices into match, ascending.
	byWord map[string][]int32
	byRune map[rune][]int32
}

type conceptTerm struct {
	key    string // matchForm of the term
	han    bool   // matched as a substring; otherwise as whole words
	needle string // what is searched for: key, or " key " for whole words
	ids    []string
}

// BuiltinConcepts returns the table shipped in data/relation_concepts.tsv.
// The table is read-only, so every caller shares one, parsed on first use
// (parsing it was a few percent of every sample's CPU, several times over).
func BuiltinConcepts() *Concepts { return builtinConcepts() }

var builtinConcepts = sync.OnceValue(func() *Concepts {
	c, err := ParseConcepts(strings.NewReader(relationConceptsTSV), "data/relation_concepts.tsv")
	if err != nil {
		panic(err) // the embedded table is tested
	}
	return c
})

// NewConcepts builds a table from concept id -> terms.
func NewConcepts(table map[string][]string) *Concepts {
	c := &Concepts{terms: map[string][]string{}}
	for id, ts := range table {
		c.terms[id] = append([]string(nil), ts...)
	}
	c.compile()
	return c
}

// With returns a copy of c with extra terms added (new ids are created).
func (c *Concepts) With(extra map[string][]string) *Concepts {
	merged := make(map[string][]string, len(c.terms)+len(extra))
	for id, ts := range c.terms {
		merged[id] = append([]string(nil), ts...)
	}
	for id, ts := range extra {
		merged[id] = append(merged[id], ts...)
	}
	return NewConcepts(merged)
}

// IDs lists the concept ids, sorted.
func (c *Concepts) IDs() []string {
	ids := make([]string, 0, len(c.terms))
	for id := range c.terms {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Terms returns the terms of one concept as given, or nil.
func (c *Concepts) Terms(id string) []string {
	return append([]string(nil), c.terms[id]...)
}

func (c *Concepts) compile() {
	byKey := map[string]*conceptTerm{}
	for id, ts := range c.terms {
		for _, t := range ts {
			k := matchForm(t)
			if strings.TrimSpace(k) == "" {
				continue
			}
			ct := byKey[k]
			if ct == nil {
				ct = &conceptTerm{key: k, han: hasHan(k)}
				byKey[k] = ct
			}
			ct.ids = append(ct.ids, id)
		}
	}
	c.match = c.match[:0]
	for _, ct := range byKey {
		sort.Strings(ct.ids)
		ct.ids = dedupSorted(ct.ids)
		c.match = append(c.match, *ct)
	}
	sort.Slice(c.match, func(i, j int) bool {
		a, b := c.match[i], c.match[j]
		if la, lb := len([]rune(a.key)), len([]rune(b.key)); la != lb {
			return la > lb
		}
		return a.key < b.key
	})
	c.byWord, c.byRune = map[string][]int32{}, map[rune][]int32{}
	for i := range c.match {
		ct := &c.match[i]
		if ct.han {
			ct.needle = ct.key
			r, _ := utf8.DecodeRuneInString(ct.key)
			c.byRune[r] = append(c.byRune[r], int32(i))
			continue
		}
		ct.needle = " " + ct.key + " "
		w, _, _ := strings.Cut(ct.key, " ")
		c.byWord[w] = append(c.byWord[w], int32(i))
	}
}

// candidates returns the indices (ascending) of the terms that can occur in
// s (a padded match form, see Of): whole-word terms whose first word is a
// word of s, substring terms whose first rune is in s. Every other term
// has no occurrence, so trying only these finds what trying all finds.
func (c *Concepts) candidates(s string) []int32 {
	var out []int32
	for _, w := range strings.Split(s, " ") {
		out = append(out, c.byWord[w]...)
	}
	for _, r := range s {
		out = append(out, c.byRune[r]...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	n := 0
	for i, x := range out {
		if i == 0 || x != out[i-1] {
			out[n] = x
			n++
		}
	}
	return out[:n]
}

// Of returns the sorted concept ids that text names. Text and terms are
// compared in match form: kg.Normalize (snake_case and punctuation become
// spaces), English words Porter-stemmed, a space between Han and other
// characters. A term containing Han characters matches as a substring
// ("价格" in "参考价格"); any other term matches whole words ("price" in
// "list price", not in "priceless"). Terms are tried longest first and a
// matched span is consumed, so "成立时间" yields founded, not duration too.
func (c *Concepts) Of(text string) []string {
	if c == nil {
		return nil
	}
	s := " " + matchForm(text) + " "
	used := make([]bool, len(s))
	var ids []string
	for _, ci := range c.candidates(s) {
		ct := &c.match[ci]
		needle := ct.needle
		for from := 0; from < len(s); {
			i := strings.Index(s[from:], needle)
			if i < 0 {
				break
			}
			i += from
			lo, hi := i, i+len(needle)
			if !ct.han { // the padding spaces may be shared with neighbours
				lo, hi = lo+1, hi-1
			}
			free := true
			for p := lo; p < hi; p++ {
				if used[p] {
					free = false
					break
				}
			}
			if free {
				for p := lo; p < hi; p++ {
					used[p] = true
				}
				ids = append(ids, ct.ids...)
			}
			from = i + 1
		}
	}
	sort.Strings(ids)
	return dedupSorted(ids)
}

// matchForm is kg.Normalize with English words stemmed and Han runs set
// apart by spaces.
func matchForm(s string) string {
	n := kg.Normalize(s)
	var b strings.Builder
	var word []rune
	prevHan := false
	flush := func() {
		if len(word) == 0 {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(string(porterstemmer.StemWithoutLowerCasing(word)))
		word = word[:0]
	}
	for _, r := range n {
		switch {
		case r == ' ':
			flush()
			prevHan = false
		case isHan(r):
			flush()
			if !prevHan && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			prevHan = true
		default:
			if prevHan {
				prevHan = false
			}
			word = append(word, r)
		}
	}
	flush()
	return b.String()
}

// firstHan is the first rune of the scripts isHan accepts (Hangul Jamo,
// U+1100; TestFirstHan).
const firstHan = 0x1100

func isHan(r rune) bool {
	if r < firstHan { // most text is Latin: skip the four table look-ups
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

func hasHan(s string) bool {
	for _, r := range s {
		if isHan(r) {
			return true
		}
	}
	return false
}

func dedupSorted(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// ParseConcepts reads a concept table: one concept per line,
// "id<TAB>English terms<TAB>Chinese terms", terms separated by "|"; any
// number of term columns is accepted. Blank lines and lines starting with
// "#" are skipped. name is used in errors ("name:line: ...").
func ParseConcepts(r io.Reader, name string) (*Concepts, error) {
	table := map[string][]string{}
	err := eachLine(r, name, func(line int, text string) error {
		f := strings.Split(text, "\t")
		if len(f) < 2 {
			return fmt.Errorf("%s:%d: want concept id and terms separated by tabs", name, line)
		}
		id := strings.TrimSpace(f[0])
		if id == "" {
			return fmt.Errorf("%s:%d: empty concept id", name, line)
		}
		n := 0
		for _, col := range f[1:] {
			for _, t := range strings.Split(col, "|") {
				if t = strings.TrimSpace(t); t != "" {
					table[id] = append(table[id], t)
					n++
				}
			}
		}
		if n == 0 {
			return fmt.Errorf("%s:%d: concept %q has no terms", name, line, id)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return NewConcepts(table), nil
}
