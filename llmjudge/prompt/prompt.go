// Package prompt owns the judge's prompts and its verdict contract: the
// versioned templates (coverage and validity, English and Chinese, and a
// restatement of the reference evaluator's coverage prompt), their JSON
// schemas, their hashes, and the strict parser that turns a model's answer
// into per-claim answers or per-claim problems. It must not call a model,
// retry, or decide what happens to a claim that has no valid answer.
package prompt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/plan"
)

// Version names the prompt generation. Bump it for changes in meaning that
// the template text alone would not show (e.g. how answers are parsed); the
// hash of each variant covers Version, its templates and its schema.
const Version = "kgjudge-prompt-v2"

// Style selects a prompt family.
type Style string

const (
	// Default is kgjudge's prompt: per claim covered, kind, support, reason.
	Default Style = "kgjudge"
	// Reference restates the reference evaluator's coverage prompt and
	// output shape. Its validity pass uses the Default validity prompt.
	Reference Style = "reference"
)

// ParseStyle validates a style name.
func ParseStyle(s string) (Style, error) {
	switch Style(s) {
	case Default, Reference:
		return Style(s), nil
	}
	return "", fmt.Errorf("unknown prompt style %q (want %q or %q)", s, Default, Reference)
}

// Claim is one claim shown to the judge under the number Label.
type Claim struct {
	Label  int
	Triple kg.Triple
}

// Batch is what one prompt shows: claims, and candidates numbered 0..n-1.
type Batch struct {
	Pass       plan.Pass
	Lang       string // "zh" selects Chinese templates; anything else English
	Claims     []Claim
	Candidates []kg.Triple
}

type variant struct {
	name   string
	system string
	user   string
	schema string
	shape  shape
}

type shape struct {
	list    string // top-level array key
	id      string // claim id key
	verdict string // boolean key
	support string // support ids key
	kind    bool   // has "kind"
	reason  bool   // has "reason"
	// reference keeps supports of uncovered claims, as the reference does.
	reference bool
}

const coverageSchema = `{"type":"object","properties":{"verdicts":{"type":"array","items":{"type":"object","properties":{"claim":{"type":"integer"},"covered":{"type":"boolean"},"kind":{"type":"string","enum":["direct","subsumption","collective","compositional","none"]},"support":{"type":"array","items":{"type":"integer"}},"reason":{"type":"string"}},"required":["claim","covered","kind","support","reason"],"additionalProperties":false}}},"required":["verdicts"],"additionalProperties":false}`

const validitySchema = `{"type":"object","properties":{"verdicts":{"type":"array","items":{"type":"object","properties":{"claim":{"type":"integer"},"valid":{"type":"boolean"},"support":{"type":"array","items":{"type":"integer"}},"reason":{"type":"string"}},"required":["claim","valid","support","reason"],"additionalProperties":false}}},"required":["verdicts"],"additionalProperties":false}`

const referenceSchema = `{"type":"object","properties":{"results":{"type":"array","items":{"type":"object","properties":{"index":{"type":"integer"},"covered":{"type":"boolean"},"supporting_pred_indices":{"type":"array","items":{"type":"integer"}}},"required":["index","covered","supporting_pred_indices"],"additionalProperties":false}}},"required":["results"],"additionalProperties":false}`

func coverageShape() shape {
	return shape{list: "verdicts", id: "claim", verdict: "covered", support: "support", kind: true, reason: true}
}

func validityShape() shape {
	return shape{list: "verdicts", id: "claim", verdict: "valid", support: "support", reason: true}
}

func referenceShape() shape {
	return shape{list: "results", id: "index", verdict: "covered", support: "supporting_pred_indices", reference: true}
}

func lang(l string) string {
	if strings.HasPrefix(strings.ToLower(l), "zh") {
		return "zh"
	}
	return "en"
}

func pick(style Style, pass plan.Pass, l string) (variant, error) {
	l = lang(l)
	switch {
	case style == Reference && pass == plan.Coverage:
		return variant{"reference/coverage/zh", systemZH, referenceCoverage, referenceSchema, referenceShape()}, nil
	case (style == Default || style == Reference) && pass == plan.Coverage && l == "zh":
		return variant{"kgjudge/coverage/zh", systemZH + "\n\n" + coverageZHInstr, coverageZH, coverageSchema, coverageShape()}, nil
	case (style == Default || style == Reference) && pass == plan.Coverage:
		return variant{"kgjudge/coverage/en", systemEN + "\n\n" + coverageENInstr, coverageEN, coverageSchema, coverageShape()}, nil
	case (style == Default || style == Reference) && pass == plan.Validity && l == "zh":
		return variant{"kgjudge/validity/zh", systemZH + "\n\n" + validityZHInstr, validityZH, validitySchema, validityShape()}, nil
	case (style == Default || style == Reference) && pass == plan.Validity:
		return variant{"kgjudge/validity/en", systemEN + "\n\n" + validityENInstr, validityEN, validitySchema, validityShape()}, nil
	}
	return variant{}, fmt.Errorf("no prompt for style %q pass %q", style, pass)
}

func (v variant) hash() string {
	h := sha256.New()
	for _, s := range []string{Version, v.name, v.system, v.user, v.schema} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// VariantHash identifies the prompt a (style, pass, language) uses:
// "<variant>@<16 hex of sha256(Version, templates, schema)>".
func VariantHash(style Style, pass plan.Pass, l string) (string, error) {
	v, err := pick(style, pass, l)
	if err != nil {
		return "", err
	}
	return v.name + "@" + v.hash(), nil
}

// Variants lists every variant a style can use, sorted, as VariantHash gives them.
func Variants(style Style) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range []plan.Pass{plan.Coverage, plan.Validity} {
		for _, l := range []string{"en", "zh"} {
			if s, err := VariantHash(style, p, l); err == nil && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return out
}

// SetHash is the hash of all of a style's variants: 12 hex characters that
// go into the judge's name ("openai:<model>@<SetHash>").
func SetHash(style Style) string {
	h := sha256.Sum256([]byte(strings.Join(Variants(style), "\n")))
	return hex.EncodeToString(h[:])[:12]
}

// Rendered is a prompt ready to send. System is the fixed part (the
// cacheable prefix: byte-identical for every call of one variant in the
// kgjudge style); User the variable part, sent last.
type Rendered struct {
	System, User string
	SchemaName   string
	Schema       json.RawMessage
	// Variant is VariantHash of the prompt.
	Variant string
}

func claimPrefix(p plan.Pass) (claim, cand string) {
	if p == plan.Validity {
		return "P-", "GT-"
	}
	return "GT-", "P-"
}

func ids(prefix string, labels []int) string {
	contiguous := true
	for i := 1; i < len(labels); i++ {
		if labels[i] != labels[i-1]+1 {
			contiguous = false
		}
	}
	if len(labels) > 2 && contiguous {
		return fmt.Sprintf("%s%d~%s%d", prefix, labels[0], prefix, labels[len(labels)-1])
	}
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = prefix + strconv.Itoa(l)
	}
	return strings.Join(parts, ", ")
}

// promptTriple renders t as the reference prompt does, each part cut to
// the prefix matching reads (kg.MaxMatchBytes): no real name is that long,
// and a pathological one (megabytes) would only make the request fail.
func promptTriple(t kg.Triple) string {
	return kg.Triple{Head: kg.MatchText(t.Head), Relation: kg.MatchText(t.Relation), Tail: kg.MatchText(t.Tail)}.String()
}

// Render builds the prompt for b. feedback, when not empty, tells the model
// why its previous answer for these claims was rejected.
func Render(style Style, b Batch, feedback string) (Rendered, error) {
	v, err := pick(style, b.Pass, b.Lang)
	if err != nil {
		return Rendered{}, err
	}
	if len(b.Claims) == 0 {
		return Rendered{}, fmt.Errorf("render %s: no claims", v.name)
	}
	cp, pp := claimPrefix(b.Pass)
	var cands, claims strings.Builder
	for i, t := range b.Candidates {
		fmt.Fprintf(&cands, "%s%d: %s\n", pp, i, promptTriple(t))
	}
	labels := make([]int, len(b.Claims))
	for i, c := range b.Claims {
		labels[i] = c.Label
		fmt.Fprintf(&claims, "%s%d: %s\n", cp, c.Label, promptTriple(c.Triple))
	}
	user := strings.NewReplacer(
		"{{CANDIDATES}}", strings.TrimRight(cands.String(), "\n"),
		"{{CLAIMS}}", strings.TrimRight(claims.String(), "\n"),
		"{{N}}", strconv.Itoa(len(b.Claims)),
		"{{IDS}}", ids(cp, labels),
		"{{FIRST}}", strconv.Itoa(labels[0]),
	).Replace(v.user)
	if feedback != "" {
		if lang(b.Lang) == "zh" || style == Reference && b.Pass == plan.Coverage {
			user += "\n\n## 注意\n上一次对这些条目的回答未通过校验：" + feedback + "\n请只针对上面列出的条目重新回答。"
		} else {
			user += "\n\n## Note\nA previous answer for these claims was rejected: " + feedback + "\nAnswer again, for exactly the claims listed above."
		}
	}
	return Rendered{
		System: v.system, User: user,
		SchemaName: strings.ReplaceAll(v.name, "/", "_"), Schema: json.RawMessage(v.schema),
		Variant: v.name + "@" + v.hash(),
	}, nil
}

// Answer is one claim's valid answer. Support holds candidate numbers
// (0..len(Candidates)-1), sorted and distinct.
type Answer struct {
	Label   int
	Covered bool // covered (coverage) or valid (validity)
	Kind    kg.CoverageKind
	Support []int
	Reason  string
}

// Result is a parsed answer: the valid answers (sorted by label) and, per
// claim label without a valid answer, why. Notes are findings that did not
// invalidate any claim (e.g. an answer for a claim that was not asked).
type Result struct {
	Answers  []Answer
	Problems map[int]string
	Notes    []string
}

// ProblemSummary renders the problems in label order, for feedback and reasons.
func (r Result) ProblemSummary(prefix string, maxItems int) string {
	labels := make([]int, 0, len(r.Problems))
	for l := range r.Problems {
		labels = append(labels, l)
	}
	sort.Ints(labels)
	var parts []string
	for i, l := range labels {
		if i == maxItems {
			parts = append(parts, fmt.Sprintf("and %d more", len(labels)-maxItems))
			break
		}
		parts = append(parts, fmt.Sprintf("%s%d: %s", prefix, l, r.Problems[l]))
	}
	return strings.Join(parts, "; ")
}

var thinkRE = regexp.MustCompile(`(?s)<think>.*?</think>`)

// ExtractJSON finds the JSON object in a model's text: it drops reasoning
// blocks (<think>...</think>), then tries the whole text, each fenced code
// block, and the span from the first '{' to its matching '}'.
func ExtractJSON(text string) ([]byte, error) {
	text = strings.TrimSpace(thinkRE.ReplaceAllString(text, ""))
	if json.Valid([]byte(text)) {
		return []byte(text), nil
	}
	if strings.Contains(text, "```") {
		parts := strings.Split(text, "```")
		for i := 1; i < len(parts); i += 2 {
			b := strings.TrimSpace(parts[i])
			b = strings.TrimSpace(strings.TrimPrefix(b, "json"))
			if json.Valid([]byte(b)) {
				return []byte(b), nil
			}
		}
	}
	for start := strings.IndexByte(text, '{'); start >= 0; {
		if end := matchBrace(text, start); end > 0 && json.Valid([]byte(text[start:end+1])) {
			return []byte(text[start : end+1]), nil
		}
		next := strings.IndexByte(text[start+1:], '{')
		if next < 0 {
			break
		}
		start += 1 + next
	}
	return nil, fmt.Errorf("no JSON object found in %d characters of text", len(text))
}

func matchBrace(s string, start int) int {
	depth, inStr, esc := 0, false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func asInt(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	if i, err := n.Int64(); err == nil {
		return int(i), true
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1e9 {
		return 0, false
	}
	return int(f), true
}

func kindOf(s string) (kg.CoverageKind, bool) {
	switch s {
	case "direct":
		return kg.KindDirect, true
	case "subsumption":
		return kg.KindSubsumption, true
	case "collective":
		return kg.KindCollective, true
	case "compositional":
		return kg.KindCompositional, true
	case "none", "":
		return kg.KindNone, true
	}
	return kg.KindNone, false
}

// Parse checks a model's answer for b against the contract of style's
// prompt: a JSON object with one entry per claim shown, claim ids among the
// labels shown, support ids among the candidates shown, the verdict a
// boolean, a covered coverage verdict with a kind and at least one support,
// a valid validity verdict with at least one support. Every claim that
// breaks it gets a problem (to be re-asked); nothing is guessed.
func Parse(style Style, b Batch, content string) Result {
	v, err := pick(style, b.Pass, b.Lang)
	res := Result{Problems: map[int]string{}}
	fail := func(why string) Result {
		for _, c := range b.Claims {
			res.Problems[c.Label] = why
		}
		return res
	}
	if err != nil {
		return fail(err.Error())
	}
	raw, err := ExtractJSON(content)
	if err != nil {
		return fail("malformed JSON: " + err.Error())
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil || top == nil {
		return fail("malformed JSON: not an object")
	}
	list, ok := top[v.shape.list].([]any)
	if !ok {
		return fail(fmt.Sprintf("no %q array", v.shape.list))
	}
	asked := map[int]bool{}
	for _, c := range b.Claims {
		asked[c.Label] = true
	}
	got := map[int]Answer{}
	bad := map[int]string{}
	for i, item := range list {
		obj, ok := item.(map[string]any)
		if !ok {
			res.Notes = append(res.Notes, fmt.Sprintf("entry %d is not an object", i))
			continue
		}
		label, ok := asInt(obj[v.shape.id])
		if !ok {
			res.Notes = append(res.Notes, fmt.Sprintf("entry %d has no integer %q", i, v.shape.id))
			continue
		}
		if !asked[label] {
			res.Notes = append(res.Notes, fmt.Sprintf("entry %d answers %d, which was not asked", i, label))
			continue
		}
		a, why := parseEntry(v.shape, obj, label, len(b.Candidates))
		if why != "" {
			if _, dup := got[label]; !dup {
				bad[label] = why
			}
			continue
		}
		if prev, dup := got[label]; dup {
			if !sameAnswer(prev, a) {
				bad[label] = "conflicting answers for the same claim"
				delete(got, label)
			}
			continue
		}
		if _, wasBad := bad[label]; wasBad {
			continue
		}
		got[label] = a
	}
	for _, c := range b.Claims {
		if why, ok := bad[c.Label]; ok {
			res.Problems[c.Label] = why
		} else if a, ok := got[c.Label]; ok {
			res.Answers = append(res.Answers, a)
		} else {
			res.Problems[c.Label] = fmt.Sprintf("missing (got %d entries for %d claims)", len(list), len(b.Claims))
		}
	}
	sort.Slice(res.Answers, func(i, j int) bool { return res.Answers[i].Label < res.Answers[j].Label })
	return res
}

func sameAnswer(a, b Answer) bool {
	if a.Covered != b.Covered || a.Kind != b.Kind || len(a.Support) != len(b.Support) {
		return false
	}
	for i := range a.Support {
		if a.Support[i] != b.Support[i] {
			return false
		}
	}
	return true
}

func parseEntry(s shape, obj map[string]any, label, nCand int) (Answer, string) {
	a := Answer{Label: label, Support: []int{}}
	verdict, ok := obj[s.verdict].(bool)
	if !ok {
		return a, fmt.Sprintf("%q is not a boolean", s.verdict)
	}
	a.Covered = verdict
	rawSup, present := obj[s.support]
	sup, isList := rawSup.([]any)
	if present && rawSup != nil && !isList {
		return a, fmt.Sprintf("%q is not a list", s.support)
	}
	if !present && s.reference {
		return a, fmt.Sprintf("no %q", s.support)
	}
	seen := map[int]bool{}
	for _, x := range sup {
		id, ok := asInt(x)
		if !ok {
			return a, fmt.Sprintf("support id %v is not an integer", x)
		}
		if id < 0 || id >= nCand {
			return a, fmt.Sprintf("support id %d is not among the %d candidates shown", id, nCand)
		}
		if !seen[id] {
			seen[id] = true
			a.Support = append(a.Support, id)
		}
	}
	sort.Ints(a.Support)
	if s.reason {
		if r, ok := obj["reason"].(string); ok {
			a.Reason = strings.Join(strings.Fields(r), " ")
		}
	}
	if s.kind {
		ks, _ := obj["kind"].(string)
		k, ok := kindOf(strings.ToLower(strings.TrimSpace(ks)))
		if !ok {
			return a, fmt.Sprintf("unknown kind %q", ks)
		}
		if a.Covered && k == kg.KindNone {
			return a, "covered without a kind"
		}
		a.Kind = k
	}
	switch {
	case s.reference:
		// The reference keeps whatever supports the judge gives, covered or not.
	case a.Covered && len(a.Support) == 0:
		return a, "covered without supporting ids"
	case !a.Covered:
		a.Kind, a.Support = kg.KindNone, []int{}
	}
	return a, ""
}
