package prefilter

import (
	"sort"
	"strings"
)

// Loose name forms: surface variants that alias.Canon keeps apart but a
// judge reads as one name. They only propose and score candidates
// (matchEntity, relMatch); the deterministic tier does not use them.
//
//   - spacing at Latin/CJK and digit/CJK boundaries ("GitHub 仓库" /
//     "GitHub仓库", "35 万吨" / "35万吨");
//   - abbreviations written out (abbreviations: "Yosemite NP" / "Yosemite
//     National Park", "Melbourne Uni" / "University of Melbourne" word
//     order aside);
//   - a value's number without its unit ("828 m" / "828", for a unit the
//     other triple carries in its relation: "height_m: 828");
//   - a relation without a trailing unit ("height_m" / "height").

// abbreviations are written-out forms of abbreviated words in names,
// lower case, as the Canon key spells them (dots dropped).
var abbreviations = map[string]string{
	"np": "national park", "natl": "national", "nat'l": "national", "univ": "university", "uni": "university",
	"mt": "mount", "mtn": "mountain", "intl": "international", "int'l": "international", "dept": "department",
	"inst": "institute", "assn": "association", "assoc": "association", "corp": "corporation", "co": "company",
	"ltd": "limited", "govt": "government", "hosp": "hospital", "ctr": "center", "sch": "school", "coll": "college",
	"acad": "academy", "lab": "laboratory", "labs": "laboratories", "tech": "technology", "sci": "science",
	"mgmt": "management", "dist": "district", "prov": "province", "fed": "federal", "bros": "brothers",
	"ave": "avenue", "blvd": "boulevard", "hwy": "highway", "intl.": "international", "&": "and",
}

// units are value units a relation may carry instead of its value
// ("height_m", "price_usd", "面积(平方公里)").
var units = map[string]bool{
	"m": true, "km": true, "cm": true, "mm": true, "ft": true, "mi": true, "kg": true, "g": true, "t": true, "lb": true,
	"s": true, "min": true, "h": true, "hr": true, "hrs": true, "hours": true, "days": true, "years": true, "yr": true,
	"usd": true, "eur": true, "gbp": true, "cny": true, "rmb": true, "jpy": true, "%": true, "percent": true,
	"km2": true, "m2": true, "sqkm": true, "mb": true, "gb": true, "tb": true, "mph": true, "kmh": true, "w": true, "kw": true, "mw": true,
	"米": true, "千米": true, "公里": true, "厘米": true, "毫米": true, "公斤": true, "千克": true, "克": true, "吨": true, "万吨": true,
	"元": true, "万元": true, "亿元": true, "美元": true, "欧元": true, "年": true, "天": true, "小时": true, "分钟": true,
	"平方公里": true, "平方米": true, "人": true, "万人": true, "个": true, "家": true, "所": true,
}

// looseKeys returns the loose forms of a Canon key that differ from it,
// sorted and distinct.
func looseKeys(key string) []string {
	var out []string
	add := func(k string) {
		if k != "" && k != key {
			out = append(out, k)
		}
	}
	sp := joinCJK(key)
	add(sp)
	if ex := expandAbbrev(key); ex != key {
		add(ex)
		add(joinCJK(ex))
	}
	sort.Strings(out)
	return dedup(out)
}

// joinCJK drops the spaces next to a CJK character.
func joinCJK(key string) string {
	if !strings.Contains(key, " ") || !hasHan(key) {
		return key
	}
	rs := []rune(key)
	var b strings.Builder
	for i, r := range rs {
		if r == ' ' && ((i > 0 && isHan(rs[i-1])) || (i+1 < len(rs) && isHan(rs[i+1]))) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// expandAbbrev writes out the abbreviated words of a Latin key.
func expandAbbrev(key string) string {
	words := strings.Fields(key)
	changed := false
	for i, w := range words {
		if ex, ok := abbreviations[strings.TrimSuffix(w, ".")]; ok && len(words) > 1 {
			words[i], changed = ex, true
		}
	}
	if !changed {
		return key
	}
	return strings.Join(words, " ")
}

// numberCore returns the number of a value key made of a number and at
// most a unit ("828 m" -> "828", "35万吨" -> "35", "828" -> "828"), else "".
func numberCore(key string) string {
	i := 0
	for i < len(key) && (key[i] >= '0' && key[i] <= '9' || key[i] == '.' || key[i] == ',') {
		i++
	}
	if i == 0 || !(key[0] >= '0' && key[0] <= '9') {
		return ""
	}
	num := strings.TrimRight(key[:i], ".,")
	rest := strings.TrimSpace(key[i:])
	if rest == "" || units[rest] {
		return num
	}
	return ""
}

// relationCore returns a relation key without a trailing unit word
// ("height m" -> "height"), or "" when it has none.
func relationCore(key string) string {
	if i := strings.LastIndexByte(key, ' '); i > 0 && units[key[i+1:]] {
		return strings.TrimSpace(key[:i])
	}
	return ""
}

// looseMatch scores x against e by their loose forms: the same name up to
// spacing or abbreviations, or the same number with a unit on one side.
func looseMatch(e, x *text) match {
	if len(e.loose) > 0 || len(x.loose) > 0 {
		if contains(x.loose, e.key) || contains(e.loose, x.key) || intersects(e.loose, x.loose) {
			return match{0.9, "loose"}
		}
	}
	if e.num != "" && e.num == x.num {
		return match{0.8, "unit"}
	}
	return match{}
}

// numKey is the index key of a value's number.
func numKey(num string) string { return "\x00#" + num }

// indexLoose makes predicted entity id findable by its loose forms.
func (s *sample) indexLoose(e *text, id int) {
	for _, v := range e.loose {
		s.byVariant[v] = append(s.byVariant[v], id)
	}
	if e.num != "" {
		s.byVariant[numKey(e.num)] = append(s.byVariant[numKey(e.num)], id)
	}
}

// lookupLoose adds the predicted entities sharing a loose form with e.
func (s *sample) lookupLoose(e *text, cand *candPool) {
	for _, v := range append(append([]string{}, e.loose...), e.key) {
		for _, id := range s.byVariant[v] {
			cand.add(id)
		}
	}
	if e.num != "" {
		for _, id := range s.byVariant[numKey(e.num)] {
			cand.add(id)
		}
	}
}
