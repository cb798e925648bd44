// Package rules holds the offline judge's coverage and validity rules
// (FORMATS.md §4): direct (same head and tail by Canon, alias or name
// variant, relation of the same concept), subsumption (the GT value inside a
// richer predicted value), collective (the parts of the GT value spread over
// several predicted triples of one head and relation concept) and
// compositional (a two-edge path through an explicit relation of the
// predicted graph), plus inverse relations read backwards ("author" /
// "published", "提出者" / "提出方案"), universal values ("通用"), list
// membership (a rank within a named list's bound) and names paired by
// Equate (the prefilter's cross-script alignments). Validity accepts a
// predicted value equal to or inside the GT value, never a richer one.
// It decides from the triples it is given; it does not
// search for candidates (matcher/prefilter does) or compute metrics.
package rules

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/kgjudge/kgjudge/alias"
	"github.com/kgjudge/kgjudge/kg"
)

// Rules carries the tables the rules read and what they derived from the
// strings they were asked about (memo.go). Use one per sample: it is not
// safe for concurrent use, and what it keeps grows with the strings of the
// graphs it is given. The zero value has no concept table and no alias sets.
type Rules struct {
	concepts *alias.Concepts
	aliasOf  map[string][]int
	equiv    map[string]map[string]bool // see Equate
	m        memo                       // what was derived per string (memo.go)
}

// New builds rules with a concept table (nil: built-in) and alias sets
// (each a list of names of one thing: GT node aliases, alias files).
func New(concepts *alias.Concepts, aliases [][]string) *Rules {
	if concepts == nil {
		concepts = alias.BuiltinConcepts()
	}
	r := &Rules{concepts: concepts, aliasOf: map[string][]int{}}
	for si, set := range aliases {
		for _, n := range set {
			k := alias.Canon(n)
			r.aliasOf[k] = append(r.aliasOf[k], si)
		}
	}
	return r
}

// Decision is a rule's verdict about one claim.
type Decision struct {
	Covered bool
	Kind    kg.CoverageKind
	Support []int
	Reason  string
}

// Indexed is a triple with its index in its graph.
type Indexed struct {
	Index int
	kg.Triple
}

var splitter = strings.NewReplacer("（", "\x00", "）", "\x00", "(", "\x00", ")", "\x00", "/", "\x00", "／", "\x00",
	"|", "\x00", "、", "\x00", "，", "\x00", ",", "\x00", "；", "\x00", ";", "\x00", "：", "\x00", ":", "\x00",
	" and ", "\x00", "和", "\x00", "及", "\x00", "与", "\x00", "+", "\x00", "＋", "\x00")

// parts returns the Canon keys of a name and of its parts.
func parts(s string) []string {
	// A bounded prefix (kg.MaxMatchBytes): a value of a million
	// comma-separated items made distinctRest quadratic in them.
	s = kg.MatchText(s)
	out := []string{alias.Canon(s)}
	ps := strings.Split(splitter.Replace(s), "\x00")
	if len(ps) > 1 {
		for _, p := range ps {
			if k := alias.Canon(p); utf8.RuneCountInString(k) >= 2 {
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

func has(list []string, x string) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

// SameEntity: the same Canon key, one alias set, or a shared name part
// ("MAC / 魅可" and "魅可").
func (r *Rules) SameEntity(a, b string) bool {
	ka, kb := r.canon(a), r.canon(b)
	if ka == "" || kb == "" {
		return false
	}
	if ka == kb || r.equated(ka, kb) {
		return true
	}
	for _, x := range r.aliasOf[ka] {
		for _, y := range r.aliasOf[kb] {
			if x == y {
				return true
			}
		}
	}
	pa, pb := r.parts(a), r.parts(b)
	if r.sameSegments(ka, kb) {
		return true
	}
	for _, p := range pa {
		for _, q := range pb {
			if (p == q || r.equated(p, q) || r.sameSegments(p, q)) && !distinctRest(pa, pb, ka, kb) {
				return true
			}
		}
	}
	return false
}

// distinctRest: both names have parts beyond the shared one and none of
// them agree ("Nudge: The Final Edition" / "Nudge: Improving Decisions":
// one title, two books), so a shared part does not make them one thing.
func distinctRest(pa, pb []string, ka, kb string) bool {
	if len(pa) < 2 || len(pb) < 2 {
		return false
	}
	extra := func(ps []string, full, other string, ops []string) []string {
		var out []string
		for _, p := range ps {
			if p != full && p != other && !has(ops, p) {
				out = append(out, p)
			}
		}
		return out
	}
	ea, eb := extra(pa, ka, kb, pb), extra(pb, kb, ka, pa)
	return len(ea) > 0 && len(eb) > 0
}

// SameRelation: the same Canon key, a shared concept, or one relation
// contained in the other ("加入年份" in "加入欧元区年份" is not; "持妆时长"
// in "官方持妆时长" is).
// It is symmetric; a Rules value keeps each pair's answer, since one
// sample's relations are few and every claim-candidate pair asks.
func (r *Rules) SameRelation(a, b string) bool {
	if a > b {
		a, b = b, a
	}
	k := relPair{a, b}
	if v, ok := r.m.same[k]; ok {
		return v
	}
	if r.m.same == nil {
		r.m.same = map[relPair]bool{}
	}
	v := r.sameRelation(a, b)
	r.m.same[k] = v
	return v
}

func (r *Rules) sameRelation(a, b string) bool {
	ka, kb := r.canon(a), r.canon(b)
	if ka == "" || kb == "" {
		return false
	}
	if ka == kb || contains(ka, kb) || contains(kb, ka) || r.sameTimeQuestion(a, b) {
		return true
	}
	ca, cb := r.conceptsOf(a), r.conceptsOf(b)
	for _, x := range ca {
		if has(cb, x) {
			return true
		}
	}
	return false
}

// contains reports a name inside another: CJK of two characters or more,
// Latin of three or more on word boundaries.
func contains(hay, needle string) bool {
	n := utf8.RuneCountInString(needle)
	if needle == "" || len(needle) >= len(hay) {
		return false
	}
	if hasHan(needle) {
		return n >= 2 && strings.Contains(hay, needle)
	}
	if n < 3 {
		return false
	}
	// Bounded by spaces (or the ends) is one case of bounded by non-letters.
	return wordsIn(hay, needle)
}

// wordsIn: needle occurs in hay bounded by non-letters (CJK counts as a
// boundary).
func wordsIn(hay, needle string) bool {
	for from := 0; ; {
		i := strings.Index(hay[from:], needle)
		if i < 0 {
			return false
		}
		i += from
		okL := i == 0 || !isWordByte(hay[i-1])
		j := i + len(needle)
		okR := j == len(hay) || !isWordByte(hay[j])
		if okL && okR {
			return true
		}
		from = i + 1
	}
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b >= 'A' && b <= 'Z'
}

func hasHan(s string) bool {
	for _, r := range s {
		if r >= 0x2E80 {
			return true
		}
	}
	return false
}

// SameSubject is SameEntity or one name inside the other (a shortened or
// extended name of the same subject: "彩棠" for "彩棠TIMAGE").
func (r *Rules) SameSubject(a, b string) bool {
	if r.SameEntity(a, b) {
		return true
	}
	ka, kb := r.canon(a), r.canon(b)
	return contains(ka, kb) && utf8.RuneCountInString(kb) >= 3 || contains(kb, ka) && utf8.RuneCountInString(ka) >= 3
}

// ValueIn reports whether value v is stated by the (richer) value x: the
// same value, one of x's parts, or v's key inside x's key.
func (r *Rules) ValueIn(v, x string) bool {
	kv, kx := r.canon(v), r.canon(x)
	if kv == "" || kx == "" {
		return false
	}
	return r.SameValue(v, x) || has(r.parts(x), kv) || contains(kx, kv) || contains(r.norm(x), r.norm(v)) || r.wordsSubset(kv, kx)
}

// SameValue: the same Canon key or one alias set (no name parts: a part of a
// list is subsumption, not the same value).
func (r *Rules) SameValue(a, b string) bool {
	ka, kb := r.canon(a), r.canon(b)
	if ka == "" || kb == "" {
		return false
	}
	if ka == kb || r.equated(ka, kb) {
		return true
	}
	for _, x := range r.aliasOf[ka] {
		for _, y := range r.aliasOf[kb] {
			if x == y {
				return true
			}
		}
	}
	return false
}

// bridge relations join an entity to its alias, part, container, place or period.
var bridgeWords = []string{"alias", "also known as", "abbreviation", "short name", "full name", "english name", "name", "title",
	"part of", "belongs to", "member of", "includes", "contains", "located in", "period", "brand", "parent",
	"别名", "简称", "全称", "英文名", "中文名", "英文标题", "名称", "又称", "原名", "属于", "隶属", "所属", "旗下", "包含", "包括", "组成", "成员", "位于", "品牌", "时期", "期间"}

func isBridge(rel string) bool {
	low := strings.ToLower(rel)
	for _, w := range bridgeWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// Cover decides whether the candidates (predicted triples) entail gt.
// graph is the whole predicted graph, for compositional paths. Rules are
// tried in order direct, subsumption, collective, compositional.
func (r *Rules) Cover(gt kg.Triple, cands []Indexed, graph []kg.Triple) Decision {
	var direct, subsumed, sameHeadRel []int
	for _, p := range cands {
		// The same fact read backwards: "Nudge | author | Richard
		// Thaler" is "Richard H. Thaler & Cass R. Sunstein | published |
		// Nudge"; "提出方案" / "提出者".
		// SameEntity, not SameSubject: a product's name contains its
		// brand's, and the brand's spokesperson is not the product's.
		if r.Inverse(gt.Relation, p.Relation) && r.SameEntity(gt.Head, p.Tail) && r.ValueIn(gt.Tail, p.Head) {
			direct = append(direct, p.Index)
			continue
		}
		if !r.SameRelation(gt.Relation, p.Relation) {
			continue
		}
		switch {
		case r.SameSubject(gt.Head, p.Head) && r.SameValue(gt.Tail, p.Tail):
			direct = append(direct, p.Index)
		case r.SameSubject(gt.Head, p.Head) && r.ValueIn(gt.Tail, p.Tail):
			subsumed = append(subsumed, p.Index)
		case r.SameSubject(gt.Head, p.Head) && r.isUniversal(p.Tail) && !r.isUniversal(gt.Tail):
			// A universal value ("通用", "all skin types") entails each
			// specific value of its kind.
			subsumed = append(subsumed, p.Index)
		case r.SameSubject(gt.Head, p.Head):
			sameHeadRel = append(sameHeadRel, p.Index)
		}
	}
	if len(direct) > 0 {
		return Decision{true, kg.KindDirect, direct, "same head and tail (Canon, alias or name part), same relation concept"}
	}
	if len(subsumed) > 0 {
		return Decision{true, kg.KindSubsumption, subsumed, "GT value contained in a richer predicted value of the same head and relation"}
	}
	// Collective: every part of a composite GT value in some predicted
	// value of the same head and relation concept.
	full := r.canon(gt.Tail)
	var gp []string
	for _, p := range r.parts(gt.Tail) {
		if p != full {
			gp = append(gp, p)
		}
	}
	if len(gp) > 1 && len(sameHeadRel) > 1 {
		var support []int
		all := true
		for _, part := range gp {
			found := false
			for _, i := range sameHeadRel {
				if r.ValueIn(part, graph[i].Tail) {
					found = true
					support = append(support, i)
				}
			}
			all = all && found
		}
		if all {
			return Decision{true, kg.KindCollective, dedupInts(support), "the GT value's parts are spread over predicted values of the same head and relation"}
		}
	}
	if m := r.listMember(Indexed{Triple: gt}, cands); len(m) > 0 {
		return Decision{true, kg.KindSubsumption, dedupInts(m), "a ranking of the entity on a list of the same name (within its bound) states its membership"}
	}
	// Compositional: head -[bridge]- y, y -[same relation]-> tail.
	for _, p := range cands {
		if !r.SameRelation(gt.Relation, p.Relation) || !r.ValueIn(gt.Tail, p.Tail) {
			continue
		}
		for i, q := range graph {
			if i == p.Index || !r.isBridge(q.Relation) {
				continue
			}
			if (q.Head == p.Head && r.SameEntity(gt.Head, q.Tail)) || (q.Tail == p.Head && r.SameEntity(gt.Head, q.Head)) {
				return Decision{true, kg.KindCompositional, dedupInts([]int{p.Index, i}), "a path through an explicit " + q.Relation + " edge of the predicted graph"}
			}
		}
	}
	return Decision{Reason: "no rule matched"}
}

// Valid decides whether a predicted triple is supported by the GT triples
// it is given (its candidates): the same fact, or one value inside the other.
func (r *Rules) Valid(p kg.Triple, cands []Indexed) Decision {
	var support []int
	for _, g := range cands {
		if r.Inverse(g.Relation, p.Relation) && r.SameEntity(g.Head, p.Tail) && r.SameValue(g.Tail, p.Head) {
			support = append(support, g.Index)
			continue
		}
		if !r.SameRelation(g.Relation, p.Relation) || !r.SameSubject(g.Head, p.Head) {
			continue
		}
		// The predicted value may be the GT value or a part of it; a
		// richer predicted value ("2006年5月24日" for "2006年", "美国纽约"
		// for "美国") says more than the GT graph supports.
		if r.SameEntity(g.Tail, p.Tail) || r.ValueIn(p.Tail, g.Tail) {
			support = append(support, g.Index)
		}
	}
	if len(support) > 0 {
		return Decision{true, kg.KindDirect, support, "a GT triple with the same head and relation concept states this value"}
	}
	return Decision{Reason: "no rule matched"}
}

func dedupInts(x []int) []int {
	sort.Ints(x)
	out := x[:0]
	for i, v := range x {
		if i == 0 || v != x[i-1] {
			out = append(out, v)
		}
	}
	return out
}
