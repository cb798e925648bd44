package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/kgjudge/kgjudge/kg"
)

// ParseResponse extracts predicted triples from an agent's free-text answer.
//
// It first runs the reference evaluator's parse_triples step by step, so that
// whenever the reference recovers triples kgjudge recovers the very same list
// (same order and count, hence the same pred indices in recorded verdicts):
//
//  1. each ```-separated block (a leading "json" stripped) that is a JSON list;
//  2. the whole text; 3. the text from the first '[' to the last ']';
//  4. blocks, then that substring, after replacing curly quotes and control
//     characters; 5. every {"head": "...", "relation": "...", "tail": "..."}
//     object matched by the reference's regular expression (values keep
//     their JSON escapes, as in the reference).
//
// Items that are not objects are dropped as the reference drops them
// (counted in Skipped). Objects keyed subject/predicate/object fill the
// triple instead of the reference's empty strings; non-string values are
// stringified as Python's str() does (see pystr.go).
//
// Only where the reference recovers nothing does ParseResponse go further:
// lists of [h, r, t] arrays, {"triplets": [...]} objects, a stronger repair
// (raw newlines and tabs inside strings, curly quotes used as delimiters),
// and an object-by-object decode that keeps every complete triple object.
//
// A response whose JSON array is never closed (it was cut off) is reported
// as ParseTruncated with the number of complete triples recovered.
func ParseResponse(text string) ([]kg.Triple, kg.ParseReport) {
	var rep kg.ParseReport
	text = pyStrip(text)
	if text == "" {
		rep.Status = kg.ParseEmpty
		rep.Notes = append(rep.Notes, "no output")
		return nil, rep
	}
	ref := referenceParse(text)
	var triples []kg.Triple
	switch {
	case ref.items != nil:
		var c conv
		triples = c.items(ref.items, false)
		c.fill(&rep)
		rep.Method = ref.method
		rep.Status = kg.ParseClean
		if ref.repaired {
			rep.Status = kg.ParseRepaired
			rep.Notes = append(rep.Notes, "parsed after replacing curly quotes and control characters")
		}
		if c.nonObjects > 0 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%d list items that are not objects dropped (as the reference does)", c.nonObjects))
		}
		if len(ref.items) == 0 {
			rep.Status = kg.ParseEmpty
			rep.Notes = append(rep.Notes, "empty list")
		}
	case ref.salvaged != nil:
		triples = ref.salvaged
		rep.Method = "salvage"
		rep.Status = kg.ParseSalvaged
		rep.Salvaged = len(triples)
		rep.Notes = append(rep.Notes, fmt.Sprintf("salvaged %d triple objects one by one (values keep their JSON escapes, as in the reference)", len(triples)))
	}
	if len(triples) == 0 && rep.Status != kg.ParseEmpty {
		var ext kg.ParseReport
		triples, ext = extendedParse(text)
		if len(triples) > 0 {
			ext.Notes = append(ext.Notes, "the reference parser recovers no triple from this response")
		}
		rep = ext
	}
	rep.Triples = len(triples)
	if rep.Status == kg.ParseSalvaged || rep.Status == kg.ParseMalformed {
		if looksTruncated(text) {
			if len(triples) > 0 {
				rep.Status = kg.ParseTruncated
				rep.Notes = append(rep.Notes, fmt.Sprintf("response cut off mid-array: kept the %d complete triples", len(triples)))
			} else {
				rep.Notes = append(rep.Notes, "response looks cut off mid-array")
			}
		}
	}
	if len(triples) == 0 && rep.Status != kg.ParseEmpty {
		rep.Status = kg.ParseMalformed
		rep.Method = ""
		rep.Salvaged = 0
	}
	return triples, rep
}

// refResult is what the reference parse_triples ends with: a JSON list
// (items non-nil, possibly empty), regex-salvaged triples, or nothing.
type refResult struct {
	items    []json.RawMessage
	salvaged []kg.Triple
	method   string
	repaired bool
}

func referenceParse(text string) refResult {
	if strings.Contains(text, "```") {
		blocks := strings.Split(text, "```")
		for _, b := range blocks {
			b = stripJSONTag(b)
			if items, ok := tryList(b); ok {
				return refResult{items: items, method: "fence"}
			}
		}
		for _, b := range blocks {
			b = stripJSONTag(b)
			if b == "" {
				continue
			}
			if r, ok := repairAndParse(b); ok {
				r.method = "fence"
				return r
			}
		}
	}
	if items, ok := tryList(text); ok {
		return refResult{items: items, method: "whole"}
	}
	start := strings.IndexByte(text, '[')
	end := strings.LastIndexByte(text, ']')
	if start != -1 && end > start {
		sub := text[start : end+1]
		if items, ok := tryList(sub); ok {
			return refResult{items: items, method: "brackets"}
		}
		if r, ok := repairAndParse(sub); ok {
			r.method = "brackets"
			return r
		}
	}
	return refResult{}
}

func stripJSONTag(b string) string {
	b = pyStrip(b)
	if strings.HasPrefix(b, "json") {
		b = pyStrip(b[4:])
	}
	return b
}

// tryList is the reference's _try_parse: s must be exactly one JSON value,
// and a list.
func tryList(s string) ([]json.RawMessage, bool) {
	t := strings.TrimLeft(s, " \t\r\n")
	if t == "" || t[0] != '[' {
		return nil, false
	}
	var items []json.RawMessage
	if err := json.Unmarshal([]byte(t), &items); err != nil {
		return nil, false
	}
	if items == nil {
		items = []json.RawMessage{}
	}
	return items, true
}

var curlyRepl = strings.NewReplacer("\u201c", `\"`, "\u201d", `\"`, "\u2018", `\'`, "\u2019", `\'`)

// referenceRepair is the reference's repair: curly quotes become escaped
// quotes, control characters other than \n, \r, \t become spaces.
func referenceRepair(s string) string {
	s = curlyRepl.Replace(s)
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\r' && r != '\t' {
			return ' '
		}
		return r
	}, s)
}

// pyWS is Python's \s (and str.isspace) for str patterns.
const pyWS = `[\t\n\v\f\r \x1c-\x1f\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`

var salvageRE = regexp.MustCompile(`\{` + pyWS + `*"head"` + pyWS + `*:` + pyWS + `*"((?:[^"\\]|\\.)*)"` + pyWS + `*,` +
	pyWS + `*"relation"` + pyWS + `*:` + pyWS + `*"((?:[^"\\]|\\.)*)"` + pyWS + `*,` +
	pyWS + `*"tail"` + pyWS + `*:` + pyWS + `*"((?:[^"\\]|\\.)*)"` + pyWS + `*\}`)

// repairAndParse is the reference's _repair_and_parse, truthiness included:
// ok only for a non-empty repaired list or at least one salvaged object.
func repairAndParse(s string) (refResult, bool) {
	if items, ok := tryList(referenceRepair(s)); ok {
		return refResult{items: items, repaired: true}, len(items) > 0
	}
	var out []kg.Triple
	for _, m := range salvageRE.FindAllStringSubmatch(s, -1) {
		out = append(out, kg.Triple{Head: m[1], Relation: m[2], Tail: m[3]})
	}
	return refResult{salvaged: out}, len(out) > 0
}

// pyStrip is Python's str.strip(): Unicode whitespace plus \x1c-\x1f.
func pyStrip(s string) string {
	return strings.TrimFunc(s, isPySpace)
}

func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// conv turns JSON list items into triples and counts what it did.
type conv struct {
	stringified, nonObjects, aliased, missing, arrays, offSchema int
}

func (c *conv) fill(rep *kg.ParseReport) {
	rep.Stringified += c.stringified
	rep.Skipped += c.nonObjects
	rep.Misaligned += c.nonObjects + c.offSchema + c.arrays
	if c.aliased > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d triples keyed subject/predicate/object", c.aliased))
	}
	if c.missing > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d triples lack head, relation or tail (kept with empty text)", c.missing))
	}
}

// items converts list items. Objects always become triples (the reference
// keeps every object, so pred indices stay aligned); with arrays set,
// [h, r, t] arrays do too, and other items are dropped.
func (c *conv) items(items []json.RawMessage, arrays bool) []kg.Triple {
	out := make([]kg.Triple, 0, len(items))
	for _, it := range items {
		it = bytes.TrimSpace(it)
		switch {
		case len(it) > 0 && it[0] == '{':
			var m map[string]json.RawMessage
			if err := json.Unmarshal(it, &m); err != nil {
				c.nonObjects++
				continue
			}
			out = append(out, c.object(m))
		case arrays && len(it) > 0 && it[0] == '[':
			t, ok := c.array(it)
			if !ok {
				c.nonObjects++
				continue
			}
			out = append(out, t)
		default:
			c.nonObjects++
		}
	}
	return out
}

var fieldKeys = [3][2]string{{"head", "subject"}, {"relation", "predicate"}, {"tail", "object"}}

func (c *conv) object(m map[string]json.RawMessage) kg.Triple {
	var vals [3]string
	aliased, missing := false, false
	for i, keys := range fieldKeys {
		raw, ok := m[keys[0]]
		if !ok {
			raw, ok = m[keys[1]]
			if ok {
				aliased = true
			}
		}
		if !ok {
			missing = true
			continue
		}
		vals[i] = c.str(raw)
	}
	if aliased {
		c.aliased++
	}
	if missing {
		c.missing++
	}
	if aliased || missing {
		c.offSchema++
	}
	return kg.Triple{Head: vals[0], Relation: vals[1], Tail: vals[2]}
}

func (c *conv) array(raw json.RawMessage) (kg.Triple, bool) {
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil || len(parts) != 3 {
		return kg.Triple{}, false
	}
	c.arrays++
	return kg.Triple{Head: c.str(parts[0]), Relation: c.str(parts[1]), Tail: c.str(parts[2])}, true
}

func (c *conv) str(raw json.RawMessage) string {
	s, isStr, err := pyStr(raw)
	if err != nil {
		c.stringified++
		return string(raw)
	}
	if !isStr {
		c.stringified++
	}
	return s
}

// hasTripleKeys reports whether an object carries the three triple fields
// (under either name), which the object-by-object salvage requires.
func hasTripleKeys(m map[string]json.RawMessage) bool {
	for _, keys := range fieldKeys {
		_, a := m[keys[0]]
		_, b := m[keys[1]]
		if !a && !b {
			return false
		}
	}
	return true
}

// extendedParse runs where the reference recovers nothing.
func extendedParse(text string) ([]kg.Triple, kg.ParseReport) {
	var rep kg.ParseReport
	type cand struct{ s, method string }
	var cands []cand
	if strings.Contains(text, "```") {
		for _, b := range strings.Split(text, "```") {
			if b = stripJSONTag(b); b != "" {
				cands = append(cands, cand{b, "fence"})
			}
		}
	}
	cands = append(cands, cand{text, "whole"})
	if start, end := strings.IndexByte(text, '['), strings.LastIndexByte(text, ']'); start != -1 && end > start {
		cands = append(cands, cand{text[start : end+1], "brackets"})
	}
	sawEmpty, skipped := false, 0
	for pass := 0; pass < 3; pass++ {
		for _, cd := range cands {
			s := cd.s
			switch pass {
			case 1:
				s = strongRepair(s, false)
			case 2:
				s = strongRepair(s, true)
			}
			items, ok := anyTripleList(s)
			if !ok {
				continue
			}
			if len(items) == 0 {
				sawEmpty = true
				continue
			}
			var c conv
			triples := c.items(items, true)
			if len(triples) == 0 {
				skipped = max(skipped, c.nonObjects)
				continue
			}
			c.fill(&rep)
			rep.Method = cd.method
			rep.Status = kg.ParseClean
			if pass > 0 {
				rep.Status = kg.ParseRepaired
				rep.Method = "repair"
				rep.Notes = append(rep.Notes, "parsed after repairing quotes and raw control characters inside strings")
			}
			return triples, rep
		}
	}
	// Object by object, over the repaired text.
	var c conv
	var out []kg.Triple
	s := strongRepair(text, false)
	for _, span := range flatObjects(s) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s[span[0]:span[1]]), &m); err != nil || !hasTripleKeys(m) {
			continue
		}
		out = append(out, c.object(m))
	}
	if len(out) > 0 {
		c.fill(&rep)
		rep.Method = "salvage"
		rep.Status = kg.ParseSalvaged
		rep.Salvaged = len(out)
		rep.Notes = append(rep.Notes, fmt.Sprintf("salvaged %d triple objects one by one", len(out)))
		return out, rep
	}
	rep.Skipped = skipped
	if sawEmpty {
		rep.Status = kg.ParseEmpty
		rep.Notes = append(rep.Notes, "empty list")
	} else {
		rep.Status = kg.ParseMalformed
		rep.Notes = append(rep.Notes, "no triple found")
	}
	return nil, rep
}

// flatObjects returns, in order, the spans of the balanced {...} in s that
// hold no other object (string-aware). The spans are disjoint, so decoding
// them all costs O(len(s)).
func flatObjects(s string) [][2]int {
	type open struct {
		at    int
		child bool
	}
	var stack []open
	var out [][2]int
	inStr, esc := false, false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case ch == '\\':
				esc = true
			case ch == '"':
				inStr = false
			}
			continue
		}
		switch ch {
		case '"':
			inStr = true
		case '{':
			if len(stack) > 0 {
				stack[len(stack)-1].child = true
			}
			stack = append(stack, open{at: i})
		case '}':
			if len(stack) == 0 {
				continue
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !top.child {
				out = append(out, [2]int{top.at, i + 1})
			}
		}
	}
	return out
}

// anyTripleList parses s as a JSON list, or as an object holding the list
// under "triplets" or "triples".
func anyTripleList(s string) ([]json.RawMessage, bool) {
	if items, ok := tryList(s); ok {
		return items, true
	}
	t := strings.TrimLeft(s, " \t\r\n")
	if t == "" || t[0] != '{' {
		return nil, false
	}
	var obj struct {
		Triplets []json.RawMessage `json:"triplets"`
		Triples  []json.RawMessage `json:"triples"`
	}
	if err := json.Unmarshal([]byte(t), &obj); err != nil {
		return nil, false
	}
	if obj.Triplets != nil {
		return obj.Triplets, true
	}
	if obj.Triples != nil {
		return obj.Triples, true
	}
	return nil, false
}

// strongRepair fixes what the reference repair misses: raw newlines, tabs
// and other control characters inside strings are escaped, curly single
// quotes become plain apostrophes, and curly double quotes become escaped
// quotes (or, with delimiters set, plain quotes, for curly-quoted keys).
func strongRepair(s string, delimiters bool) string {
	var b strings.Builder
	b.Grow(len(s))
	inStr, esc := false, false
	for _, r := range s {
		switch r {
		case '\u2018', '\u2019':
			b.WriteByte('\'')
			continue
		case '\u201c', '\u201d':
			if delimiters {
				r = '"'
			} else {
				if inStr {
					b.WriteString(`\"`)
				} else {
					b.WriteString(`"`)
					inStr = true
				}
				continue
			}
		}
		if inStr {
			switch {
			case esc:
				esc = false
			case r == '\\':
				esc = true
			case r == '"':
				inStr = false
			case r == '\n':
				b.WriteString(`\n`)
				continue
			case r == '\r':
				b.WriteString(`\r`)
				continue
			case r == '\t':
				b.WriteString(`\t`)
				continue
			case r < 0x20:
				r = ' '
			}
		} else {
			if r == '"' {
				inStr = true
			} else if r < 0x20 && r != '\n' && r != '\r' && r != '\t' {
				r = ' '
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// looksTruncated reports whether the JSON array the response starts is
// never closed: from the first '[' that opens a list of objects, arrays or
// strings, a string-aware bracket count stays open to the end of the text
// (or of its fenced block).
func looksTruncated(text string) bool {
	region := text
	if strings.Contains(text, "```") {
		blocks := strings.Split(text, "```")
		region = ""
		for _, b := range blocks {
			if arrayStart(b) >= 0 {
				region = b
				break
			}
		}
		// A fence opened and never closed ends the text in its last block.
		if region == "" {
			return false
		}
	}
	i := arrayStart(region)
	if i < 0 {
		return false
	}
	depth, inStr, esc := 0, false, false
	for _, r := range region[i:] {
		if inStr {
			switch {
			case esc:
				esc = false
			case r == '\\':
				esc = true
			case r == '"' || r == '\u201d':
				inStr = false
			}
			continue
		}
		switch r {
		case '"', '\u201c':
			inStr = true
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth <= 0 {
				return false
			}
		}
	}
	return true
}

// arrayStart is the index of the first '[' followed (after whitespace) by
// '{', '[' or a quote, or -1.
func arrayStart(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] != '[' {
			continue
		}
		rest := strings.TrimLeftFunc(s[i+1:], unicode.IsSpace)
		if rest == "" {
			return -1
		}
		if rest[0] == '{' || rest[0] == '[' || rest[0] == '"' {
			return i
		}
	}
	return -1
}
