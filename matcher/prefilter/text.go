package prefilter

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	porterstemmer "github.com/blevesearch/go-porterstemmer"

	"github.com/kgjudge/kgjudge/alias"
	"github.com/kgjudge/kgjudge/kg"
)

// stopwords are English function words that carry no identity.
var stopwords = map[string]bool{
	"the": true, "of": true, "and": true, "in": true, "for": true, "a": true, "an": true, "to": true,
	"with": true, "on": true, "by": true, "is": true, "at": true, "as": true, "or": true, "from": true,
	"its": true, "it": true, "be": true, "are": true, "was": true, "that": true, "thi": true, "this": true,
}

// isHan reports CJK ideographs and kana/hangul (written without spaces).
// firstHan is the first rune of the scripts isHan accepts (Hangul Jamo,
// U+1100; TestFirstHan).
const firstHan = 0x1100

func isHan(r rune) bool {
	if r < firstHan { // most text is Latin: skip the four table look-ups
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// normTokens splits text into matching tokens: Latin words (lower case, Porter
// stemmed, stopwords dropped), digit runs, and CJK bigrams (a lone CJK
// character is kept as a unigram). The result is sorted and distinct.
//
// normTokens takes the string in kg.Normalize form (text.norm).
func normTokens(n string) []string {
	var out []string
	var word []rune
	var han []rune
	flushWord := func() {
		if len(word) == 0 {
			return
		}
		w := string(word)
		word = word[:0]
		if isDigits(w) {
			out = append(out, w)
			return
		}
		if len([]rune(w)) < 2 || stopwords[w] {
			return
		}
		st := string(porterstemmer.StemWithoutLowerCasing([]rune(w)))
		if stopwords[st] {
			return
		}
		out = append(out, st)
	}
	flushHan := func() {
		switch len(han) {
		case 0:
			return
		case 1:
			out = append(out, string(han))
		default:
			for i := 0; i+1 < len(han); i++ {
				out = append(out, string(han[i:i+2]))
			}
		}
		han = han[:0]
	}
	prevDigit := false
	for _, r := range n {
		switch {
		case isHan(r):
			flushWord()
			han = append(han, r)
		case r == ' ':
			flushWord()
			flushHan()
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == ',':
			flushHan()
			d := unicode.IsDigit(r) || r == '.' || r == ','
			if len(word) > 0 && d != prevDigit {
				flushWord() // "gpt4" -> "gpt", "4"; "2016年" is split by the Han rule
			}
			if (r == '.' || r == ',') && len(word) == 0 {
				continue
			}
			word = append(word, r)
			prevDigit = d
		default:
			flushWord()
			flushHan()
		}
	}
	flushWord()
	flushHan()
	for i, t := range out {
		out[i] = strings.TrimRight(t, ".,")
	}
	sort.Strings(out)
	return dedup(out)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r == '.' || r == ',') {
			return false
		}
	}
	return true
}

func dedup(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if x != "" && (i == 0 || x != s[i-1]) {
			out = append(out, x)
		}
	}
	return out
}

// variantSeps split a name into the parts that may each name the entity:
// "MAC / 魅可", "东加勒比货币联盟（ECCU）", "油皮/混油皮".
var variantSplitter = strings.NewReplacer("（", "\x00", "）", "\x00", "(", "\x00", ")", "\x00", "/", "\x00", "／", "\x00",
	"|", "\x00", "、", "\x00", "，", "\x00", ",", "\x00", "；", "\x00", ";", "\x00", "：", "\x00", ":", "\x00", "【", "\x00", "】", "\x00", "[", "\x00", "]", "\x00", "《", "\x00", "》", "\x00", " or ", "\x00", "或", "\x00")

// variants returns the Canon keys of s and of its parts (at least two
// characters), sorted and distinct.
func variants(s, key string) []string {
	out := []string{key}
	parts := strings.Split(variantSplitter.Replace(s), "\x00")
	if len(parts) > 1 {
		for _, p := range parts {
			k := alias.Canon(p)
			if utf8.RuneCountInString(k) >= 2 {
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return dedup(out)
}

// text is one distinct string of a graph (entity or relation) with its
// matching features.
type text struct {
	s        string
	norm     string   // kg.Normalize
	key      string   // alias.Canon
	variants []string // keys of the name's parts
	toks     []string
	concepts []string
	// ctoks are the concepts as matching tokens ("@" + id).
	ctoks []string
	han   bool
	// bridge: whether the string, as a relation, is a bridge (isBridge);
	// 0 not yet known, 1 no, 2 yes.
	bridge int8
	// wsum is the IDF mass of toks (see sample.tokSum), once hasSum.
	wsum   float64
	hasSum bool
	// acro: the initials of a Latin name of two or more content words
	// ("Special Drawing Rights" -> "sdr"); caps: the all-capital Latin
	// words of the string, lower-cased ("人民币纳入SDR" -> "sdr"). An
	// acronym is how a name most often crosses languages unchanged.
	acro string
	caps []string
	// hanRunes: the CJK characters of the key, in order (for abbreviations
	// by deletion, see hanAbbrev).
	hanRunes []rune
	// loose, num, relCore: the loose forms of the key (loose.go).
	loose   []string
	num     string
	relCore string
}

func newText(s string, concepts *alias.Concepts) *text {
	// s stays whole (it is the text's identity); its features are those of
	// the prefix matching reads (kg.MaxMatchBytes).
	m := kg.MatchText(s)
	key, norm := alias.CanonNormalize(m)
	t := &text{s: s, norm: norm, key: key, variants: variants(m, key), toks: normTokens(norm), han: hasHan(m),
		acro: initials(m), caps: capsWords(m)}
	for _, r := range key {
		if isHan(r) {
			t.hanRunes = append(t.hanRunes, r)
		}
	}
	if concepts != nil {
		t.concepts = concepts.Of(m)
	}
	t.loose, t.num, t.relCore = looseKeys(key), numberCore(key), relationCore(key)
	for _, c := range t.concepts {
		t.ctoks = append(t.ctoks, "@"+c)
	}
	return t
}

func hasHan(s string) bool {
	for _, r := range s {
		if isHan(r) {
			return true
		}
	}
	return false
}

// idf is inverse document frequency over a set of documents (token lists).
type idf struct {
	df map[string]int
	n  int
	w  map[string]float64 // weights asked for since the last add
}

func newIDF() *idf { return &idf{df: map[string]int{}} }

func (d *idf) add(toks []string) {
	d.w = nil
	d.n++
	for _, t := range toks {
		d.df[t]++
	}
}

func (d *idf) weight(t string) float64 {
	if w, ok := d.w[t]; ok {
		return w
	}
	if d.w == nil {
		d.w = map[string]float64{}
	}
	w := math.Log(1 + float64(d.n+1)/float64(d.df[t]+1))
	d.w[t] = w
	return w
}

// tokSum is s.idf.sum(t.toks), kept on the text: the IDF is complete once
// the sample is built, and the ranker asks for the same texts' mass for
// every pair it scores.
func (s *sample) tokSum(t *text) float64 {
	if !t.hasSum {
		t.wsum, t.hasSum = s.idf.sum(t.toks), true
	}
	return t.wsum
}

func (d *idf) sum(toks []string) float64 {
	s := 0.0
	for _, t := range toks {
		s += d.weight(t)
	}
	return s
}

// shared returns the IDF mass of the tokens a and b share (both sorted).
func (d *idf) shared(a, b []string) float64 {
	s := 0.0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			s += d.weight(a[i])
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return s
}

func intersects(a, b []string) bool {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			return true
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return false
}

// containsName reports whether key contains part as a name: a CJK part of
// at least two characters anywhere, a Latin part of at least three
// characters on word boundaries.
func containsName(key, part string) bool {
	if part == "" || len(part) >= len(key) {
		return false
	}
	n := utf8.RuneCountInString(part)
	if hasHan(part) {
		return n >= 2 && strings.Contains(key, part)
	}
	if n < 3 {
		return false
	}
	for from := 0; ; {
		i := strings.Index(key[from:], part)
		if i < 0 {
			return false
		}
		i += from
		before, after := i == 0, i+len(part) == len(key)
		if !before {
			r, _ := utf8.DecodeLastRuneInString(key[:i])
			before = !unicode.IsLetter(r) && !unicode.IsDigit(r) || isHan(r)
		}
		if !after {
			r, _ := utf8.DecodeRuneInString(key[i+len(part):])
			after = !unicode.IsLetter(r) && !unicode.IsDigit(r) || isHan(r)
		}
		if before && after {
			return true
		}
		from = i + 1
	}
}

// initials returns the lower-cased initials of s when s is a Latin name of
// three to eight content words (two-letter acronyms such as "WP" are too
// ambiguous to match on) (stopwords skipped: "Bank for International
// Settlements" -> "bis"), else "". Names with digits or CJK characters are
// not spelled out as acronyms.
func initials(s string) string {
	var out []rune
	n := 0
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		for _, r := range w {
			if isHan(r) {
				return ""
			}
		}
		lw := strings.ToLower(w)
		if stopwords[lw] {
			continue
		}
		r, _ := utf8.DecodeRuneInString(w)
		if r > unicode.MaxASCII {
			return ""
		}
		out = append(out, unicode.ToLower(r))
		n++
	}
	for _, r := range s {
		if unicode.IsDigit(r) {
			return ""
		}
	}
	if n < 3 || n > 8 {
		return ""
	}
	return string(out)
}

// capsWords returns the distinct lower-cased runs of three to eight capital
// ASCII letters that stand as words (not inside a longer Latin word), sorted.
func capsWords(s string) []string {
	var out []string
	rs := []rune(s)
	for i := 0; i < len(rs); {
		if !(rs[i] >= 'A' && rs[i] <= 'Z') {
			i++
			continue
		}
		j := i
		for j < len(rs) && rs[j] >= 'A' && rs[j] <= 'Z' {
			j++
		}
		latin := func(k int) bool { return k >= 0 && k < len(rs) && rs[k] < unicode.MaxASCII && unicode.IsLetter(rs[k]) }
		if n := j - i; n >= 3 && n <= 8 && !latin(i-1) && !latin(j) {
			out = append(out, strings.ToLower(string(rs[i:j])))
		}
		i = j
	}
	sort.Strings(out)
	return dedup(out)
}

// hanAbbrev reports how well short abbreviates long by deletion, the usual
// way Chinese product and organisation names are shortened ("方里防晒粉底液"
// for "方里柔雾持妆防晒粉底液油皮防晒款"): the length of their longest common
// subsequence when it starts at the first character of both and leaves at
// most one character of short (of six or more) unmatched, else 0.
func hanAbbrev(short, long []rune) int {
	if len(short) < 4 || len(long) <= len(short) || short[0] != long[0] || len(long) > 64 {
		return 0
	}
	prev := make([]int, len(long)+1)
	cur := make([]int, len(long)+1)
	for i := 1; i <= len(short); i++ {
		for j := 1; j <= len(long); j++ {
			switch {
			case short[i-1] == long[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	l := prev[len(long)]
	miss := len(short) - l
	if miss == 0 || miss == 1 && len(short) >= 6 {
		return l
	}
	return 0
}
