package alias

import (
	_ "embed"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/kgjudge/kgjudge/kg"
)

//go:embed data/units.tsv
var unitsTSV string

// valueVocab is data/units.tsv, parsed once: alias -> canonical symbol.
type valueVocab struct {
	currency   map[string]string
	multiplier map[string]int
	unit       map[string]string
	// Prefixes and suffixes sorted longest first, for greedy matching.
	curPrefixes []string
	approx      []string
}

var vocab = mustParseVocab(unitsTSV)

func mustParseVocab(src string) *valueVocab {
	v := &valueVocab{currency: map[string]string{}, multiplier: map[string]int{}, unit: map[string]string{}}
	for i, line := range strings.Split(src, "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			panic(fmt.Sprintf("alias: data/units.tsv:%d: want 3 tab-separated fields, got %d", i+1, len(f)))
		}
		for _, a := range strings.Split(f[2], "|") {
			a = lightFold(a)
			if a == "" {
				continue
			}
			switch f[0] {
			case "currency":
				v.currency[a] = f[1]
				v.curPrefixes = append(v.curPrefixes, a)
			case "multiplier":
				n, err := strconv.Atoi(f[1])
				if err != nil {
					panic(fmt.Sprintf("alias: data/units.tsv:%d: multiplier %q is not an integer", i+1, f[1]))
				}
				v.multiplier[a] = n
			case "unit":
				v.unit[a] = f[1]
			case "approx":
				v.approx = append(v.approx, a)
			default:
				panic(fmt.Sprintf("alias: data/units.tsv:%d: unknown kind %q", i+1, f[0]))
			}
		}
	}
	longestFirst := func(s []string) {
		sort.Slice(s, func(i, j int) bool {
			if len(s[i]) != len(s[j]) {
				return len(s[i]) > len(s[j])
			}
			return s[i] < s[j]
		})
	}
	longestFirst(v.curPrefixes)
	longestFirst(v.approx)
	return v
}

// dashes are folded to '-' before value parsing.
var dashFolder = strings.NewReplacer("–", "-", "—", "-", "―", "-", "‒", "-", "−", "-", "‐", "-", "‑", "-", "〜", "~", "～", "~")

// lightFold is NFKC (which folds full-width forms), lower case, dashes
// folded, whitespace collapsed. Unlike kg.Normalize it keeps punctuation,
// which dates and ranges need.
func lightFold(s string) string {
	s = strings.ToLower(norm.NFKC.String(s))
	s = dashFolder.Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// maxValueLen bounds the text Canon tries to read as a value (after
// folding); maxRawValueLen bounds the input read with punctuation kept (only
// runs of whitespace can make a longer input fold into a value; kg.Normalize
// still reads those). maxRangeDashes bounds the dashes of a range: "-" is
// tried as a separator at each of them, so the cap keeps Canon linear.
const (
	maxValueLen    = 80
	maxRawValueLen = 1024
	maxRangeDashes = 6
	// maxDigits bounds the digits of a rendered number.
	maxDigits = 48
)

// Canon returns the canonical form of s used as its exact key: a value
// (number, price, percentage, quantity with unit, date, rank or range of
// these) in a fixed form, anything else as kg.Normalize(s).
//
//	"$19.99", "19.99 USD", "USD 19.99", "19.99美元"  -> "19.99 usd"
//	"11.16亿元"                                     -> "1116000000 cny"
//	"24小时", "24 hours", "24h"                       -> "24 h"
//	"2016年3月5日", "March 5, 2016", "2016/03/05"     -> "2016-03-05"
//	"2016-2017", "2016–2017", "2016年至2017年"        -> "2016..2017"
//	"$10–$20", "10-20 USD"                          -> "10..20 usd"
//	"第1名", "No. 1", "#1"                           -> "#1"
//
// Approximation words ("约", "about", "~") are dropped: Canon finds
// candidates, it does not decide that "about $20" is "$20". Units and
// currencies are listed in data/units.tsv. Canon is pure, idempotent and
// linear in len(s) (FuzzCanon checks the first two).
func Canon(s string) string {
	// Matching reads a bounded prefix (kg.MaxMatchBytes): every step below
	// is linear or worse in the length.
	s = kg.MatchText(s)
	// Invalid bytes become U+FFFD first, for both readings: kg.Normalize
	// leaves text after an invalid byte unnormalised ("\xf1¾" would stay
	// "¾" while Canon("¾") is "3 4"), which broke idempotence.
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	n := kg.Normalize(s)
	if v, ok := canonValue(s, n); ok {
		return v
	}
	return n
}

// CanonNormalize returns Canon(s) and kg.Normalize(kg.MatchText(s)),
// normalising once where Canon would normalise again.
func CanonNormalize(s string) (canon, norm string) {
	s = kg.MatchText(s)
	if !utf8.ValidString(s) {
		return Canon(s), kg.Normalize(s)
	}
	n := kg.Normalize(s)
	if v, ok := canonValue(s, n); ok {
		return v, n
	}
	return n, n
}

// canonValue reads s as a value, first with punctuation kept, then as its
// kg.Normalize form n (so "($19.99)" still reads as a price). Every value
// has an ASCII digit (after NFKC), so text without one is not parsed.
func canonValue(s, n string) (string, bool) {
	if !hasDigit(n) {
		return "", false
	}
	if len(s) <= maxRawValueLen {
		if t := lightFold(s); len(t) <= maxValueLen {
			if v, ok := parseValue(t); ok {
				return v, true
			}
		}
	}
	if len(n) <= maxValueLen {
		if v, ok := parseValue(n); ok {
			return v, true
		}
	}
	return "", false
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			return true
		}
	}
	return false
}

type valueKind int

const (
	kindNum valueKind = iota + 1
	kindDate
	kindRank
)

type value struct {
	kind valueKind
	text string // number, date or rank text
	unit string // canonical unit or currency; "%" for percent
}

func (v value) String() string {
	switch {
	case v.unit == "":
		return v.text
	case v.unit == "%":
		return v.text + "%"
	default:
		return v.text + " " + v.unit
	}
}

// rangeSeps split a range, tried in this order; "-" is tried at every
// position, the others at their first.
var rangeSeps = []string{"..", " to ", " until ", " through ", "至", "到", "~", "-"}

func parseValue(t string) (string, bool) {
	t = dropApprox(t)
	if t == "" {
		return "", false
	}
	if v, ok := parseSingle(t); ok {
		return v.String(), true
	}
	if strings.Count(t, "-") > maxRangeDashes {
		return "", false
	}
	for _, sep := range rangeSeps {
		for from := 0; ; {
			i := strings.Index(t[from:], sep)
			if i < 0 {
				break
			}
			i += from
			from = i + len(sep)
			if i == 0 {
				continue
			}
			if r, ok := parseRange(t[:i], t[i+len(sep):]); ok {
				return r, true
			}
			if sep != "-" {
				break
			}
		}
	}
	return "", false
}

func dropApprox(t string) string {
	for _, a := range vocab.approx {
		if strings.HasPrefix(t, a) {
			return strings.TrimSpace(t[len(a):])
		}
	}
	return t
}

func parseRange(l, r string) (string, bool) {
	l, r = strings.TrimSpace(dropApprox(strings.TrimSpace(l))), strings.TrimSpace(r)
	lv, ok := parseSingle(l)
	if !ok {
		return "", false
	}
	rv, ok := parseSingle(r)
	if !ok {
		return "", false
	}
	// A bare four-digit number next to a date is a year.
	if lv.kind == kindDate && rv.kind == kindNum && rv.unit == "" && isYear(rv.text) {
		rv.kind = kindDate
	}
	if rv.kind == kindDate && lv.kind == kindNum && lv.unit == "" && isYear(lv.text) {
		lv.kind = kindDate
	}
	if lv.kind != rv.kind {
		return "", false
	}
	// A "+" survives only on a lone percentage ("+17.1%", a change); in a
	// range it is dropped on both sides, so that "+0%..0" and "+0..0%" agree
	// whichever side carried the unit.
	lv.text, rv.text = strings.TrimPrefix(lv.text, "+"), strings.TrimPrefix(rv.text, "+")
	switch {
	case lv.unit == "":
		lv.unit = rv.unit
	case rv.unit == "":
		rv.unit = lv.unit
	}
	if lv.unit != rv.unit {
		return "", false
	}
	return value{kind: lv.kind, text: lv.text + ".." + rv.text, unit: lv.unit}.String(), true
}

func isYear(s string) bool {
	if len(s) != 4 {
		return false
	}
	n, err := strconv.Atoi(s)
	return err == nil && n >= 1000 && n <= 2999
}

var (
	reNum      = regexp.MustCompile(`^([+-]?)(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?`)
	reYMD      = regexp.MustCompile(`^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$`)
	reYM       = regexp.MustCompile(`^(\d{4})[-/](\d{1,2})$`)
	reZhDate   = regexp.MustCompile(`^(\d{4}) ?年(?: ?(\d{1,2}) ?月(?: ?(\d{1,2}) ?[日号])?)?$`)
	reEnMDY    = regexp.MustCompile(`^([a-z]+)\.? (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})$`)
	reEnDMY    = regexp.MustCompile(`^(\d{1,2})(?:st|nd|rd|th)? ([a-z]+)\.?,? (\d{4})$`)
	reEnMY     = regexp.MustCompile(`^([a-z]+)\.?,? (\d{4})$`)
	reRankZh   = regexp.MustCompile(`^第 ?(\d{1,6}) ?[名位]?$`)
	reRankEn   = regexp.MustCompile(`^(?:#|no\. ?|no |rank |ranked |number )(\d{1,6})$`)
	monthNames = map[string]int{
		"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
		"may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
		"september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
		"december": 12, "dec": 12,
	}
)

func date(y, m, d string) (value, bool) {
	if !isYear(y) {
		return value{}, false
	}
	out := y
	if m != "" {
		mi, _ := strconv.Atoi(m)
		if mi < 1 || mi > 12 {
			return value{}, false
		}
		out += fmt.Sprintf("-%02d", mi)
		if d != "" {
			di, _ := strconv.Atoi(d)
			if di < 1 || di > 31 {
				return value{}, false
			}
			out += fmt.Sprintf("-%02d", di)
		}
	}
	return value{kind: kindDate, text: out}, true
}

func monthNum(name string) string {
	if m, ok := monthNames[name]; ok {
		return strconv.Itoa(m)
	}
	return ""
}

func parseDate(t string) (value, bool) {
	if m := reYMD.FindStringSubmatch(t); m != nil {
		return date(m[1], m[2], m[3])
	}
	if m := reYM.FindStringSubmatch(t); m != nil {
		return date(m[1], m[2], "")
	}
	if m := reZhDate.FindStringSubmatch(t); m != nil {
		return date(m[1], m[2], m[3])
	}
	if m := reEnMDY.FindStringSubmatch(t); m != nil {
		if mo := monthNum(m[1]); mo != "" {
			return date(m[3], mo, m[2])
		}
	}
	if m := reEnDMY.FindStringSubmatch(t); m != nil {
		if mo := monthNum(m[2]); mo != "" {
			return date(m[3], mo, m[1])
		}
	}
	if m := reEnMY.FindStringSubmatch(t); m != nil {
		if mo := monthNum(m[1]); mo != "" {
			return date(m[2], mo, "")
		}
	}
	return value{}, false
}

func parseSingle(t string) (value, bool) {
	t = strings.TrimSpace(t)
	if t == "" {
		return value{}, false
	}
	if v, ok := parseDate(t); ok {
		return v, true
	}
	if m := reRankZh.FindStringSubmatch(t); m != nil {
		return value{kind: kindRank, text: "#" + trimInt(m[1])}, true
	}
	if m := reRankEn.FindStringSubmatch(t); m != nil {
		return value{kind: kindRank, text: "#" + trimInt(m[1])}, true
	}
	return parseQuantity(t)
}

func trimInt(s string) string {
	s = strings.TrimLeft(s, "0")
	if s == "" {
		return "0"
	}
	return s
}

// parseQuantity reads [currency] number [multiplier] [currency|unit|%].
func parseQuantity(t string) (value, bool) {
	cur := ""
	for _, p := range vocab.curPrefixes {
		if strings.HasPrefix(t, p) {
			rest := strings.TrimSpace(t[len(p):])
			if rest != "" && (rest[0] >= '0' && rest[0] <= '9' || rest[0] == '+' || rest[0] == '-') {
				cur, t = vocab.currency[p], rest
				break
			}
		}
	}
	m := reNum.FindStringSubmatch(t)
	if m == nil {
		return value{}, false
	}
	sign, intPart, frac := m[1], strings.ReplaceAll(m[2], ",", ""), m[3]
	rest := strings.TrimSpace(t[len(m[0]):])
	if strings.HasPrefix(rest, "%") {
		if strings.TrimSpace(rest[1:]) != "" || cur != "" {
			return value{}, false
		}
		n, ok := decimal("", intPart, frac, 0)
		if !ok {
			return value{}, false
		}
		if sign == "-" && n != "0" || sign == "+" {
			n = sign + n
		}
		return value{kind: kindNum, text: n, unit: "%"}, true
	}
	// Try the rest as a suffix alone, then as multiplier + suffix.
	type reading struct {
		exp        int
		cur, unit  string
		singleMult bool
	}
	var tries []reading
	if r, ok := suffix(rest, cur); ok {
		tries = append(tries, reading{cur: r.cur, unit: r.unit})
	}
	for alias, exp := range vocab.multiplier {
		if !strings.HasPrefix(rest, alias) {
			continue
		}
		r, ok := suffix(strings.TrimSpace(rest[len(alias):]), cur)
		if !ok {
			continue
		}
		single := len(alias) == 1 && alias != "k"
		tries = append(tries, reading{exp: exp, cur: r.cur, unit: r.unit, singleMult: single})
	}
	sort.SliceStable(tries, func(i, j int) bool { return tries[i].exp < tries[j].exp })
	for _, r := range tries {
		if r.singleMult && r.cur == "" {
			continue // "5m" is five metres, "$5m" five million dollars
		}
		if r.cur != "" && r.unit != "" {
			continue
		}
		if r.unit == "s" && r.exp == 0 && frac == "" && isYear(intPart) && strings.HasSuffix(intPart, "0") && strings.HasPrefix(t[len(m[0]):], "s") {
			return value{}, false // "1990s" is a decade, not seconds
		}
		if r.unit == "yr" && r.exp == 0 && frac == "" && sign == "" && isYear(intPart) && rest == "年" {
			return value{kind: kindDate, text: intPart}, true // "2016年" is a year
		}
		n, ok := decimal(sign, intPart, frac, r.exp)
		if !ok {
			return value{}, false
		}
		u := r.unit
		if r.cur != "" {
			u = r.cur
		}
		return value{kind: kindNum, text: n, unit: u}, true
	}
	return value{}, false
}

type suffixReading struct{ cur, unit string }

// suffix reads what follows a number: nothing, a currency or a unit. cur is
// a currency already given as prefix; a different suffix currency fails.
func suffix(rest, cur string) (suffixReading, bool) {
	if rest == "" {
		return suffixReading{cur: cur}, true
	}
	if c, ok := vocab.currency[rest]; ok {
		if cur != "" && cur != c {
			return suffixReading{}, false
		}
		return suffixReading{cur: c}, true
	}
	if u, ok := vocab.unit[rest]; ok {
		return suffixReading{cur: cur, unit: u}, true
	}
	return suffixReading{}, false
}

// decimal renders sign intPart.frac × 10^exp without floating point: no
// leading or trailing zeros, "-" only when not zero, "+" never.
func decimal(sign, intPart, frac string, exp int) (string, bool) {
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= len(frac)
	// Bound the rendered size, not the input's: the bound must hold the
	// same for the output read again ("1e28万亿" renders 41 digits).
	if len(digits)+max(exp, 0) > maxDigits || -exp > maxDigits {
		return "", false
	}
	if digits == "" {
		return "0", true
	}
	var s string
	if exp >= 0 {
		s = digits + strings.Repeat("0", exp)
	} else {
		p := len(digits) + exp
		if p <= 0 {
			s = "0." + strings.Repeat("0", -p) + digits
		} else {
			s = digits[:p] + "." + digits[p:]
		}
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if sign == "-" {
		s = "-" + s
	}
	return s, true
}
