package calibrate

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kgjudge/kgjudge/alias"
	"github.com/kgjudge/kgjudge/kg"
)

// str is everything a feature reads about one string, computed once per
// sample: the pair features compare these, never the raw text.
type str struct {
	raw   string
	canon string // alias.Canon
	// flat is canon without any space: "GitHub 仓库" / "GitHub仓库" and
	// "35 万吨" / "35万吨" differ only by spaces at a script boundary.
	flat string
	// toks are Latin words and CJK bigrams of kg.Normalize, distinct.
	toks map[string]struct{}
	// num is the leading number of canon ("828" of "828 m"), unit what
	// follows it; ok reports that canon starts with a number.
	num, unit string
	hasNum    bool
	yes, no   bool // a yes/no value ("是", "yes", "true", "否", "none")
	han       bool // has CJK
	initials  string
	runes     int
	words     []string // Latin words in order, stop words dropped
	// core is flat without bracketed parts and inner the bracketed part
	// ("NFU Mutual(全国农民联合互助保险)": "nfumutual" / "全国农民联合互助保险"),
	// both "" when there is no bracket: names carry a gloss in brackets.
	core, inner string
}

var (
	yesWords = map[string]bool{"是": true, "有": true, "yes": true, "true": true, "y": true, "支持": true, "提供": true, "可以": true, "能": true, "允许": true, "包含": true, "含": true, "available": true, "included": true, "supported": true, "offered": true, "provided": true, "allowed": true}
	noWords  = map[string]bool{"否": true, "无": true, "没有": true, "不": true, "不是": true, "no": true, "false": true, "none": true, "n": true, "不支持": true, "不提供": true, "不可以": true, "不能": true, "不允许": true, "not available": true, "not included": true, "not supported": true, "not offered": true, "not allowed": true}
)

type strCache map[string]*str

func (c strCache) get(s string) *str {
	if x, ok := c[s]; ok {
		return x
	}
	x := newStr(s)
	c[s] = x
	return x
}

func newStr(s string) *str {
	x := &str{raw: s, canon: alias.Canon(s), toks: map[string]struct{}{}}
	x.flat = strings.ReplaceAll(x.canon, " ", "")
	x.core, x.inner = splitGloss(s)
	x.runes = utf8.RuneCountInString(x.flat)
	x.yes, x.no = yesWords[x.canon], noWords[x.canon]
	// Leading number and the unit after it.
	i := 0
	for i < len(x.canon) && (x.canon[i] >= '0' && x.canon[i] <= '9' || x.canon[i] == '.' && i > 0) {
		i++
	}
	if i > 0 {
		x.hasNum, x.num = true, strings.TrimRight(x.canon[:i], ".")
		x.unit = strings.TrimSpace(x.canon[i:])
	}
	var word, han []rune
	var initials []rune
	flushWord := func() {
		if len(word) > 0 {
			w := string(word)
			if !stopWords[w] {
				x.toks[w] = struct{}{}
				initials = append(initials, word[0])
				x.words = append(x.words, w)
			}
			word = word[:0]
		}
	}
	flushHan := func() {
		switch {
		case len(han) == 1:
			x.toks[string(han)] = struct{}{}
		case len(han) > 1:
			for j := 0; j+1 < len(han); j++ {
				x.toks[string(han[j:j+2])] = struct{}{}
			}
		}
		han = han[:0]
	}
	for _, r := range kg.Normalize(s) {
		switch {
		case isHan(r):
			x.han = true
			flushWord()
			han = append(han, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flushHan()
			word = append(word, r)
		default:
			flushWord()
			flushHan()
		}
	}
	flushWord()
	flushHan()
	if len(initials) >= 2 {
		x.initials = string(initials)
	}
	return x
}

var stopWords = map[string]bool{"the": true, "of": true, "a": true, "an": true, "and": true, "for": true, "in": true, "on": true, "at": true, "to": true, "by": true, "de": true, "la": true}

func isHan(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// jaccard of two token sets.
func jaccard(a, b map[string]struct{}) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	n := 0
	for t := range a {
		if _, ok := b[t]; ok {
			n++
		}
	}
	return float64(n) / float64(len(a)+len(b)-n)
}

func shareToken(a, b map[string]struct{}) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	for t := range a {
		if _, ok := b[t]; ok {
			return true
		}
	}
	return false
}

// coverFrac is the share of a's tokens found in b.
func coverFrac(a, b map[string]struct{}) float64 {
	if len(a) == 0 {
		return 0
	}
	n := 0
	for t := range a {
		if _, ok := b[t]; ok {
			n++
		}
	}
	return float64(n) / float64(len(a))
}

// flatIn: a's flat form inside b's (two runes or more for CJK, three for
// Latin), spacing ignored.
func flatIn(a, b *str) bool {
	if a.flat == "" || len(a.flat) >= len(b.flat) {
		return false
	}
	if a.han && a.runes < 2 || !a.han && a.runes < 3 {
		return false
	}
	return strings.Contains(b.flat, a.flat)
}

// abbrev: one name is an abbreviation of the other: the initials of a
// Latin name ("NP" / "National Park", "MIT" / "Massachusetts Institute of
// Technology"), or a CJK short name whose characters occur in order in the
// long one ("北大" / "北京大学", "清华" / "清华大学").
func abbrev(a, b *str) bool {
	if a.runes > b.runes {
		a, b = b, a
	}
	if a.runes < 2 || a.runes == b.runes {
		return false
	}
	if !a.han && b.initials != "" && a.flat == b.initials {
		return true
	}
	if !a.han && !b.han && mixedAbbrev(a.words, b.words) {
		return true
	}
	if a.han && b.han && a.runes*3 >= b.runes {
		// CJK short names keep the first character and drop others in
		// order: "上海交大附属瑞金医院" / "上海交通大学医学院附属瑞金医院".
		ra, rb := []rune(a.flat), []rune(b.flat)
		if ra[0] != rb[0] {
			return false
		}
		return subsequence(ra, rb)
	}
	return false
}

// mixedAbbrev: the short name keeps some words and abbreviates runs of the
// others to their initials, in order ("Yosemite NP" / "Yosemite National
// Park", "UC Berkeley" / "University of California Berkeley").
func mixedAbbrev(a, b []string) bool {
	if len(a) == 0 || len(a) >= len(b) {
		return false
	}
	i, j, used := 0, 0, false
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			i++
			j++
		case len(a[i]) >= 2 && j+len(a[i]) <= len(b) && initialsOf(b[j:j+len(a[i])]) == a[i]:
			j += len(a[i])
			i++
			used = true
		default:
			return false
		}
	}
	return used && i == len(a) && j == len(b)
}

func initialsOf(ws []string) string {
	var b strings.Builder
	for _, w := range ws {
		r, _ := utf8.DecodeRuneInString(w)
		b.WriteRune(r)
	}
	return b.String()
}

func subsequence(a, b []rune) bool {
	j := 0
	for _, r := range b {
		if j < len(a) && r == a[j] {
			j++
		}
	}
	return j == len(a)
}

// lcsRatio is the longest common subsequence of two CJK names over the
// shorter one's length ("公立三甲" / "三级甲等医院" share "三甲"); 0 for
// Latin text (token overlap measures it there).
func lcsRatio(a, b *str) float64 {
	if !a.han || !b.han || a.runes < 2 || b.runes < 2 || a.runes > 40 || b.runes > 40 {
		return 0
	}
	ra, rb := []rune(a.flat), []rune(b.flat)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			switch {
			case ra[i-1] == rb[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] > cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(rb)]) / float64(min(len(ra), len(rb)))
}

// partialName: the shorter name's tokens all in the longer one ("Thaler" /
// "Richard H. Thaler", "Yosemite NP" / "Yosemite National Park" once
// abbreviations are expanded by the caller).
func partialName(a, b *str) float64 {
	if len(a.toks) > len(b.toks) {
		a, b = b, a
	}
	return coverFrac(a.toks, b.toks)
}

// unitWords a relation may carry ("height_m", "price_usd", "面积(平方米)").
var relUnits = map[string]string{"m": "m", "km": "km", "cm": "cm", "kg": "kg", "usd": "usd", "cny": "cny", "eur": "eur",
	"h": "h", "min": "min", "yr": "yr", "years": "yr", "hours": "h", "minutes": "min", "meters": "m", "metres": "m", "percent": "%", "pct": "%",
	"米": "m", "公里": "km", "千米": "km", "厘米": "cm", "公斤": "kg", "千克": "kg", "元": "cny", "美元": "usd", "欧元": "eur", "小时": "h", "分钟": "min", "年": "yr", "吨": "t", "万吨": "万吨"}

// relUnit is the unit a relation names at its end ("height_m" -> "m",
// "面积（平方米）" -> ...), "" if none.
func relUnit(rel *str) string {
	k := rel.canon
	if i := strings.LastIndexAny(k, " _"); i >= 0 {
		if u, ok := relUnits[k[i+1:]]; ok {
			return u
		}
	}
	for w, u := range relUnits {
		if isHanWord(w) && strings.HasSuffix(k, w) {
			return u
		}
	}
	return ""
}

func isHanWord(s string) bool {
	for _, r := range s {
		return isHan(r)
	}
	return false
}

// stripUnit removes a trailing unit word from a relation's canon form
// ("height m" -> "height").
func stripUnit(rel *str) string {
	k := rel.canon
	if i := strings.LastIndexAny(k, " _"); i >= 0 {
		if _, ok := relUnits[k[i+1:]]; ok {
			return k[:i]
		}
	}
	return k
}

// yesNoRel strips the yes/no question words of a reified attribute ("是否提供早餐"
// -> "提供早餐", "has parking" -> "parking", "is free" -> "free").
func yesNoRel(rel *str) (string, bool) {
	k := rel.canon
	for _, p := range []string{"是否", "有无", "能否", "可否", "是否有", "whether ", "is ", "has ", "have ", "does ", "offers ", "provides ", "supports ", "allows ", "can "} {
		if strings.HasPrefix(k, p) && len(k) > len(p) {
			return strings.ReplaceAll(k[len(p):], " ", ""), true
		}
	}
	return "", false
}

// splitGloss splits a name with one bracketed gloss ("X（Y）", "X (Y)")
// into the flat forms of X and Y ("", "" without one, or when either part
// is empty).
func splitGloss(s string) (core, inner string) {
	open := strings.IndexAny(s, "(（[【")
	if open <= 0 {
		return "", ""
	}
	rest := s[open:]
	_, w := utf8.DecodeRuneInString(rest)
	end := strings.IndexAny(rest[w:], ")）]】")
	if end < 0 {
		return "", ""
	}
	in := rest[w : w+end]
	out := s[:open] + rest[w+end:]
	if _, w2 := utf8.DecodeRuneInString(rest[w+end:]); w2 > 0 {
		out = s[:open] + rest[w+end+w2:]
	}
	core = strings.ReplaceAll(alias.Canon(out), " ", "")
	inner = strings.ReplaceAll(alias.Canon(in), " ", "")
	if core == "" || inner == "" {
		return "", ""
	}
	return core, inner
}

// glossEq: the names are equal once one drops its bracketed gloss, or one
// is the other's gloss.
func glossEq(a, b *str) bool {
	if a.flat == "" || b.flat == "" {
		return false
	}
	return a.core != "" && (a.core == b.flat || a.inner == b.flat || a.core == b.core) ||
		b.core != "" && (b.core == a.flat || b.inner == a.flat)
}

// glossInline: b writes a's bracketed gloss inline, before or after the
// name, and adds at most two runes ("类", "of"): "伤寒沙门菌（耐氟喹诺酮）" /
// "耐氟喹诺酮类伤寒沙门菌", "鲍曼不动杆菌（耐碳青霉烯）" / "耐碳青霉烯鲍曼不动杆菌（CRAB）".
func glossInline(a, b *str) bool {
	if a.core == "" || a.inner == "" {
		return false
	}
	name := b.flat
	if b.core != "" {
		name = b.core
	}
	if !strings.Contains(name, a.core) || !strings.Contains(name, a.inner) {
		return false
	}
	return utf8.RuneCountInString(name) <= utf8.RuneCountInString(a.core)+utf8.RuneCountInString(a.inner)+2
}
