package rules

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/kgjudge/kgjudge/alias"
	"github.com/kgjudge/kgjudge/kg"
)

// Equate records that two names denote one thing: a pairing found outside
// the names themselves, such as the prefilter's structural alignment of a
// translated name ("London Gold Pool" / "伦敦黄金总库" share their
// neighbours' values) or a standalone acronym. SameEntity and SameValue
// honour it.
func (r *Rules) Equate(a, b string) {
	ka, kb := r.canon(a), r.canon(b)
	if ka == "" || kb == "" || ka == kb {
		return
	}
	if r.equiv == nil {
		r.equiv = map[string]map[string]bool{}
	}
	for _, p := range [2][2]string{{ka, kb}, {kb, ka}} {
		if r.equiv[p[0]] == nil {
			r.equiv[p[0]] = map[string]bool{}
		}
		r.equiv[p[0]][p[1]] = true
	}
}

func (r *Rules) equated(ka, kb string) bool { return r.equiv[ka][kb] }

// stopWords carry no identity in an English name ("Team of the Australian
// Government" and "Team of Australian Government" are one name).
var stopWords = map[string]bool{"the": true, "of": true, "a": true, "an": true, "and": true, "for": true, "de": true, "la": true}

// segments splits a Canon key into Latin words, numbers and Han runs,
// dropping stop words: the units whose order a name may change
// ("4.0卡姿兰小奶猫粉底液" / "卡姿兰小奶猫粉底液4.0").
func segments(key string) []string {
	var out []string
	var cur []rune
	kind := 0 // 1 Han, 2 other
	flush := func() {
		if len(cur) > 0 {
			if w := string(cur); !stopWords[w] {
				out = append(out, w)
			}
			cur = cur[:0]
		}
	}
	for _, c := range key {
		switch {
		case unicode.Is(unicode.Han, c):
			if kind != 1 {
				flush()
			}
			kind = 1
			cur = append(cur, c)
		case unicode.IsLetter(c) || unicode.IsDigit(c) || c == '.' && kind == 2:
			if kind != 2 {
				flush()
			}
			kind = 2
			cur = append(cur, c)
		default:
			flush()
			kind = 0
		}
	}
	flush()
	return out
}

// sameSegments: the same multiset of segments, in any order.
func (r *Rules) sameSegments(a, b string) bool {
	sa, sb := r.sortedSegments(a), r.sortedSegments(b)
	if len(sa) == 0 || len(sa) != len(sb) {
		return false
	}
	for i := range sa {
		if sa[i] != sb[i] {
			return false
		}
	}
	return true
}

// wordsSubset: every segment of a (two or more, not all numbers) is a
// segment of b: a person or organisation named inside a richer value
// ("Michael Hiscox" in "Prof. Michael J. Hiscox (Harvard University)").
func (r *Rules) wordsSubset(a, b string) bool {
	sa, sb := r.sortedSegments(a), r.sortedSegments(b)
	if len(sa) < 2 {
		return false
	}
	words := 0
	for _, w := range sa {
		if !has(sb, w) {
			return false
		}
		if !isNumber(w) {
			words++
		}
	}
	return words >= 2
}

func isNumber(s string) bool {
	for _, c := range s {
		if !unicode.IsDigit(c) && c != '.' {
			return false
		}
	}
	return true
}

// agentWords name the doer of an act: a relation ending in one is the
// inverse of the act's relation ("提出者" of "提出方案", "signed by" of
// "signed").
var agentSuffixes = []string{"者", "人", " by"}

// authorship acts and their agent nouns, both languages: "X author Y" is
// "Y wrote / published X".
var (
	authorAgent = []string{"author", "writer", "co author", "first author", "作者", "著者", "编者"}
	authorAct   = []string{"wrote", "written", "authored", "published", "publish", "write", "撰写", "著有", "出版", "发表", "编著", "著"}
)

func hasWord(rel string, words []string) bool {
	k := " " + alias.Canon(rel) + " "
	for _, w := range words {
		if hasHan(w) {
			if strings.Contains(k, w) {
				return true
			}
		} else if strings.Contains(k, " "+w+" ") || strings.Contains(k, " "+w) && len(w) > 5 {
			return true
		}
	}
	return false
}

func isAgent(rel string) bool {
	k := alias.Canon(rel)
	for _, s := range agentSuffixes {
		if strings.HasSuffix(k, s) {
			return true
		}
	}
	return hasWord(rel, authorAgent)
}

// Inverse reports whether relation a read backwards is relation b: one
// names the agent of the act the other names ("提出者" / "提出方案",
// "signed by" / "signed executive order", "author" / "published").
// A Rules value keeps each pair's answer (see SameRelation).
func (r *Rules) Inverse(a, b string) bool {
	k := relPair{a, b}
	if v, ok := r.m.inv[k]; ok {
		return v
	}
	if r.m.inv == nil {
		r.m.inv = map[relPair]bool{}
	}
	v := r.inverse(a, b)
	r.m.inv[k] = v
	return v
}

func (r *Rules) inverse(a, b string) bool {
	for _, p := range [2][2]string{{a, b}, {b, a}} {
		ag, act := p[0], p[1]
		if !r.isAgent(ag) || r.isAgent(act) {
			continue
		}
		if r.authorAgent(ag) && r.authorAct(act) {
			return true
		}
		stem := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(r.canon(ag), "者"), "人"), " by")
		if stem != "" && (r.SameRelation(stem, act) || contains(r.canon(act), stem)) {
			return true
		}
	}
	return false
}

// universal values say a property holds for every value of its kind ("通用"
// skin type covers oily skin); they entail each specific GT value.
var universal = map[string]bool{"通用": true, "全部": true, "所有": true, "任何": true, "所有肤质": true, "全肤质": true, "各种肤质": true,
	"all": true, "any": true, "universal": true, "all skin types": true, "everyone": true}

func (r *Rules) isUniversal(v string) bool { return universal[r.canon(v)] }

// timeFacets end a relation that asks when its stem happened: "崩溃年份"
// and "崩溃时间", "founding year" and "founding date" ask the same
// question at different precision (the values decide whether they agree).
var timeFacets = []string{"年份", "时间", "日期", "年代", "年", "日", " date", " year", " time", " on"}

func timeStem(rel string) string {
	k := alias.Canon(rel)
	for _, f := range timeFacets {
		if s := strings.TrimSuffix(k, f); s != k {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// sameTimeQuestion: both relations end in a time facet over one stem of
// two characters or more ("崩溃年份" / "崩溃时间").
func (r *Rules) sameTimeQuestion(a, b string) bool {
	sa, sb := r.timeStem(a), r.timeStem(b)
	return sa != "" && sa == sb && len([]rune(sa)) >= 2
}

// List membership. "X | 上榜 | 抖音销量TOP20品牌" (X is on a named list)
// and "粉底液挑选 | 候选品牌 | X" (X is a candidate of a named selection)
// are entailed by a predicted ranking of X on a list that shares a
// distinctive word with the list's name ("2025年抖音粉底液销售额排名"),
// within the list's bound when it has one (rank 4 <= TOP20).
var (
	listRel      = []string{"上榜", "入选", "入围", "候选", "榜单", "listed", "shortlisted", "candidate", "ranked", "included in"}
	rankRel      = []string{"排名", "排行", "名次", "榜", "rank", "ranking", "position"}
	genericWords = map[string]bool{"排名": true, "排行": true, "品牌": true, "榜单": true, "top": true, "brand": true, "brands": true, "list": true, "ranking": true, "the": true}
	topN         = regexp.MustCompile(`(?i)(?:top\s*|前)(\d+)`)
	rankNum      = regexp.MustCompile(`^(?:#|no\s*)?(\d+)$`)
)

func hasAny(s string, words []string) bool {
	low := strings.ToLower(s)
	for _, w := range words {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// distinctive returns the Han bigrams and Latin words (three letters or
// more) of s that are not generic list words.
func distinctive(s string) map[string]bool {
	out := map[string]bool{}
	for _, seg := range segments(alias.Canon(topN.ReplaceAllString(kg.MatchText(s), " "))) {
		rs := []rune(seg)
		if unicode.Is(unicode.Han, rs[0]) {
			for i := 0; i+1 < len(rs); i++ {
				if b := string(rs[i : i+2]); !genericWords[b] {
					out[b] = true
				}
			}
		} else if len(rs) >= 3 && !isNumber(seg) && !genericWords[seg] {
			out[seg] = true
		}
	}
	return out
}

func sharesWord(a, b string) bool {
	db := distinctive(b)
	for w := range distinctive(a) {
		if db[w] {
			return true
		}
	}
	return false
}

// onList reports whether predicted triple p ranks entity x on the list
// named list.
func (r *Rules) onList(x, list string, p Indexed) bool {
	if !r.SameSubject(x, p.Head) || !hasAny(p.Relation, rankRel) || !sharesWord(list, p.Relation+" "+p.Tail) {
		return false
	}
	if m := topN.FindStringSubmatch(list); m != nil {
		n, _ := strconv.Atoi(m[1])
		v := rankNum.FindStringSubmatch(alias.Canon(p.Tail))
		if v == nil {
			return false
		}
		k, _ := strconv.Atoi(v[1])
		return k >= 1 && k <= n
	}
	return true
}

// listMember decides the two membership shapes (see above).
func (r *Rules) listMember(gt Indexed, cands []Indexed) []int {
	if !hasAny(gt.Relation, listRel) {
		return nil
	}
	var out []int
	for _, p := range cands {
		if r.onList(gt.Head, gt.Tail, p) || r.onList(gt.Tail, gt.Head+" "+gt.Relation, p) {
			out = append(out, p.Index)
		}
	}
	return out
}
