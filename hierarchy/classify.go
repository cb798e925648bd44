package hierarchy

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/kgjudge/kgjudge/kg"
)

// Class is the kind of a triple (see the package doc for the definitions).
type Class string

const (
	// Factual triples state a fact about the world (founded, country, price),
	// including yes/no and count values.
	Factual Class = "factual"
	// Organizational triples are the graph's scaffolding or a classification:
	// topic -> dimension -> subtopic -> entity, list and tier membership, a
	// type/class/category/tier/priority/level/group assignment.
	Organizational Class = "organizational"
	// Bibliographic triples describe a published work as a record or point at
	// one: paper, report, venue, publisher, year, pages, DOI, arXiv, URL.
	Bibliographic Class = "bibliographic"
	// Subjective triples carry a judgement: significance, impact, strengths,
	// evaluations, advice, ratings.
	Subjective Class = "subjective"
	// Meta triples are about the answer itself: sources, notes, caveats,
	// filtering and criteria, the search, the final recommendation.
	Meta Class = "meta"
)

// Classes lists every class in report order.
var Classes = []Class{Factual, Organizational, Bibliographic, Subjective, Meta}

// Evidence says what decided a classification.
type Evidence string

const (
	EvidenceLexicon   Evidence = "lexicon"
	EvidenceValue     Evidence = "value"
	EvidenceStructure Evidence = "structure"
	EvidenceDefault   Evidence = "default"
	// EvidenceLLM is a class a chat model gave to a triple the rules
	// decided weakly (package llmclass).
	EvidenceLLM Evidence = "llm"
)

// ValueKind is what a head or tail value is.
type ValueKind string

const (
	KindEntity     ValueKind = "entity"     // a node that is the head of some triple
	KindYesNo      ValueKind = "yes/no"     // 是, 否, Yes (since 2010), No — ...
	KindNumber     ValueKind = "number"     // 42所, 3 people, $5.5M, 96.2%, ~4.5/5
	KindDate       ValueKind = "date"       // 2017, 2025年6月, August 2017, 2019-01-19
	KindURL        ValueKind = "url"        // https://..., www..., edit.wti.org
	KindIdentifier ValueKind = "identifier" // DOI, arXiv id, ISBN, owner/repo, long digit codes
	KindLiteral    ValueKind = "literal"    // anything else
)

// Classification is the class of one triple (or, for Classify, of a bare
// relation string) and why.
type Classification struct {
	Relation string   `json:"relation"`
	Class    Class    `json:"class"`
	Evidence Evidence `json:"evidence"`
	// Concept is the lexicon concept matched (e.g. "pages", "venue"); empty
	// when the class came from structure or default.
	Concept string `json:"concept,omitempty"`
	// AskedFor is set for bibliographic, subjective and meta triples of a
	// predicted graph: true when the reference (GT) graph holds triples of
	// the same class and concept. In a GT graph it is always true.
	AskedFor *bool     `json:"asked_for,omitempty"`
	HeadKind ValueKind `json:"head_kind,omitempty"`
	TailKind ValueKind `json:"tail_kind,omitempty"`
	Reason   string    `json:"reason"`
}

// GraphContext is the structural evidence of one graph (and, for a predicted
// graph, the concepts its reference GT graph asks for).
type GraphContext struct {
	g        *graph
	category map[string]string // category node -> why
	asked    map[string]bool   // class+"\x1f"+concept of the reference graph
	// askedClass holds the classes the reference graph has any triple of.
	askedClass map[Class]bool
	isGT       bool
	lex        *Lexicon
	// rels and heads are the lexicon's readings of every distinct relation
	// and head of the graph, filled when the context is built (relations
	// repeat: a 500-triple graph has a few dozen) and read-only after, so
	// a context may be shared; a string not in them is read directly.
	rels  map[string]relReading
	heads map[string]relReading
	// works are the published works found by the graph's triples
	// (workNodes): their bare dates are publication dates.
	works map[string]bool
}

// relReading is the lexicon's reading of one relation or head.
type relReading struct {
	m  lexMatch
	ok bool
	// rt is the relation's factual "relation" term, if any (relationTermOf).
	rt string
	// cat is the relation's "category:" entry, if any (catOK): it counts
	// only from a category node.
	cat   LexiconEntry
	catOK bool
	// date: the relation asks for a date (reDateRelation).
	date bool
	// work: the head names a published work (heads only).
	work bool
	// source: the whole relation names a source (来源, source).
	source bool
}

func (c *GraphContext) readRelation(rel string) relReading {
	if r, ok := c.rels[rel]; ok {
		return r
	}
	// One lexicon scan gives both readings (a scan is most of the cost of
	// classifying a sample).
	ms := c.lex.Match(rel)
	m, ok := c.lex.pick(ms)
	cat, catOK := c.lex.categoryTerm(rel)
	return relReading{m: m, ok: ok, rt: relationTermOf(ms), cat: cat, catOK: catOK, date: reDateRelation.MatchString(kg.Normalize(rel)), source: sourceRelations[foldTerm(rel)]}
}

func (c *GraphContext) readHead(head string) relReading {
	if r, ok := c.heads[head]; ok {
		return r
	}
	m, ok, work := c.lex.classifyHead(head)
	return relReading{m: m, ok: ok, work: work}
}

// fillReadings reads every distinct relation and head of graph once.
func (c *GraphContext) fillReadings(graph []kg.Triple) {
	c.rels, c.heads = map[string]relReading{}, map[string]relReading{}
	for _, t := range graph {
		if _, ok := c.rels[t.Relation]; !ok {
			c.rels[t.Relation] = c.readRelation(t.Relation)
		}
		if _, ok := c.heads[t.Head]; !ok {
			c.heads[t.Head] = c.readHead(t.Head)
		}
	}
}

// yesNo holds the tails that make a triple a yes/no answer.
var yesNo = map[string]bool{"是": true, "否": true, "不是": true, "yes": true, "no": true, "true": true, "false": true, "对": true, "错": true, "有": true, "无": true, "没有": true}

func isYesNo(tail string) bool {
	t := kg.Normalize(tail)
	if yesNo[t] {
		return true
	}
	// "否（全部为男明星）", "Yes, since 2010", "No — Graham is an engineer":
	// an answer with a gloss.
	for _, p := range []string{"是 ", "否 ", "yes ", "no ", "是", "否"} {
		if strings.HasPrefix(t, p) && (strings.HasSuffix(p, " ") || len([]rune(t)) <= 12) {
			if p == "是" || p == "否" {
				// A bare CJK prefix only when a gloss in brackets follows:
				// "是否..." and "否定" are not answers.
				r := []rune(strings.TrimSpace(tail))
				if len(r) < 2 || !strings.ContainsRune("（(，,：:;；—-", r[1]) {
					continue
				}
			}
			return true
		}
	}
	return false
}

var (
	reURL   = regexp.MustCompile(`(?i)^(https?://|www\.)\S+$|^[a-z0-9-]+(\.[a-z0-9-]+)*\.(org|com|net|edu|gov|int|uk|de|cn)(/\S*)?$`)
	reDOI   = regexp.MustCompile(`(?i)\b10\.\d{4,9}/\S+`)
	reArXiv = regexp.MustCompile(`(?i)\barxiv[: ]?\s*\d{4}\.\d{4,5}|^\d{4}\.\d{4,5}(v\d+)?$`)
	reISBN  = regexp.MustCompile(`(?i)\bisbn[: ]`)
	reRepo  = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)
	reCode  = regexp.MustCompile(`^[0-9]{6,}$`)
	reYear  = regexp.MustCompile(`^[~约≈]?(1[0-9]|20)\d\d(年)?$`)
	reDate  = regexp.MustCompile(`(?i)^[~约≈]?((1[0-9]|20)\d\d[-/.年]\s*\d{1,2}([-/.月]\s*\d{1,2}日?)?月?|(\d{1,2}\s+)?(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2},?\s+)?(1[0-9]|20)\d\d|(1[0-9]|20)\d\d\s*[-–]\s*(1[0-9]|20)?\d\d)$`)
	// reRating is a score on a rating scale: "4.5/5", "8.7 / 10", "4.6 out
	// of 5", "4.5 stars", "4.8分（满分5分）". A decimal is required, so that a
	// share ("1/5") or a hotel's official grade ("5 stars") is not a rating.
	reRating = regexp.MustCompile(`(?i)^[~约≈]?\s*\d\.\d+\s*(/\s*(5|10)(\.0)?|out of (5|10)|stars?|分\s*[（(]满分\s*(5|10)\s*分?[）)])\s*(stars?|分)?$`)
	// reCitation is a journal citation's year;volume(issue):pages
	// ("Journal of Bacteriology, 1986; 167:975–980").
	reCitation = regexp.MustCompile(`\b(1[89]|20)\d\d\s*;\s*\d+\s*(\(\d+\))?\s*:\s*\d+\s*[–-]\s*\d+`)
	reNum      = regexp.MustCompile(`^[~约≈<>=+$€£¥#]*\s*\d[\d,.]*\s*[%kmb]?\+?(\s*/\s*\d+(\.\d+)?)?(\s*\S{1,12})?$`)
)

// valueKind reads what a head or tail value is. g may be nil.
func valueKind(v string, g *graph) ValueKind {
	s := strings.TrimSpace(v)
	switch {
	case g != nil && g.isEntity[v]:
		return KindEntity
	case isYesNo(s):
		return KindYesNo
	case reURL.MatchString(s):
		return KindURL
	case reDOI.MatchString(s) || reArXiv.MatchString(s) || reISBN.MatchString(s) || reRepo.MatchString(s) || reCode.MatchString(s):
		return KindIdentifier
	case reYear.MatchString(s) || reDate.MatchString(s):
		return KindDate
	case reNum.MatchString(s):
		return KindNumber
	}
	return KindLiteral
}

// bibliographicValue reports whether a tail is itself a bibliographic
// record value: a DOI, an arXiv id, an ISBN or a URL.
func bibliographicValue(tail string, k ValueKind) (concept string, ok bool) {
	s := strings.TrimSpace(tail)
	switch {
	case k == KindURL:
		return "url", true
	case reDOI.MatchString(s):
		return "doi", true
	case reArXiv.MatchString(s), reISBN.MatchString(s):
		return "identifier", true
	case reCitation.MatchString(s):
		return "citation", true
	}
	return "", false
}

// NewGraphContext builds the context of graph. reference is the GT graph the
// graph is judged against; nil means graph is itself the reference (a GT graph
// asks for everything it contains).
func NewGraphContext(graph []kg.Triple, reference []kg.Triple) *GraphContext {
	return newGraphContext(DefaultLexicon(), graph, reference)
}

func newGraphContext(lex *Lexicon, graph []kg.Triple, reference []kg.Triple) *GraphContext {
	c := &GraphContext{g: buildGraph(graph), asked: map[string]bool{}, askedClass: map[Class]bool{}, lex: lex, isGT: reference == nil}
	c.fillReadings(graph)
	c.category = categoryNodes(graph, c.g, c.rels)
	c.works = workNodes(graph, c.g, c.rels)
	if reference != nil {
		ref := &GraphContext{g: buildGraph(reference), lex: lex, isGT: true}
		ref.fillReadings(reference)
		ref.category = categoryNodes(reference, ref.g, ref.rels)
		for _, t := range reference {
			cl := ref.classify(t)
			c.askedClass[cl.Class] = true
			if cl.Class != Factual && cl.Class != Organizational && cl.Concept != "" {
				c.asked[string(cl.Class)+"\x1f"+cl.Concept] = true
			}
		}
	}
	return c
}

// categoryNodes finds abstract category nodes: a topic root (the one node of
// the graph that is only a head with at least three children, all of them
// entities: where several such roots exist, as in a predicted graph of
// stations each listing nearby banks, they are entities, not a topic), and the
// tails of dimension relations (dimension, subtopic, 维度...) from a category
// node, transitively.
// rels holds the lexicon's reading of every relation of graph.
func categoryNodes(graph []kg.Triple, g *graph, rels map[string]relReading) map[string]string {
	cat := map[string]string{}
	topics := 0
	for _, r := range g.roots {
		if len(g.out[r]) >= 3 {
			topics++
		}
	}
	for _, r := range g.roots {
		tails := g.out[r]
		if len(tails) < 3 || topics > 1 {
			continue
		}
		all := true
		for _, t := range tails {
			if !g.isEntity[t] {
				all = false
				break
			}
		}
		if all {
			cat[r] = "topic root"
		}
	}
	dim := map[string]bool{}
	for _, t := range graph {
		if _, ok := dim[t.Relation]; ok {
			continue
		}
		r := rels[t.Relation]
		dim[t.Relation] = r.ok && r.m.Kind == kindDimension
	}
	for changed := true; changed; {
		changed = false
		for _, t := range graph {
			if _, ok := cat[t.Head]; !ok || !dim[t.Relation] {
				continue
			}
			if _, ok := cat[t.Tail]; !ok && g.isEntity[t.Tail] {
				cat[t.Tail] = fmt.Sprintf("tail of dimension relation %q", t.Relation)
				changed = true
			}
		}
	}
	return cat
}

// workNodes finds the published works of a graph by their triples: a node
// that a bibliographic "paper" term points at ("发表论文 -> Three-dimensional
// manifolds ...") and has triples of its own, or a node with record fields of
// two kinds ("Code Motion of Control Structures ... -> venue -> POPL '86",
// "-> authors -> Ron Cytron, ..."). One field is not enough: a game has a
// publisher, a product a release platform.
func workNodes(graph []kg.Triple, g *graph, rels map[string]relReading) map[string]bool {
	works := map[string]bool{}
	fields := map[string]map[string]bool{}
	for _, t := range graph {
		r := rels[t.Relation]
		if !r.ok || r.m.Class != Bibliographic {
			continue
		}
		if r.m.Concept == "paper" && g.isEntity[t.Tail] {
			works[t.Tail] = true
		}
		if recordFields[r.m.Concept] {
			if fields[t.Head] == nil {
				fields[t.Head] = map[string]bool{}
			}
			fields[t.Head][r.m.Concept] = true
		}
	}
	for n, f := range fields {
		if len(f) >= 2 {
			works[n] = true
		}
	}
	return works
}

// bareDates are the date relations that, from a work known by its record
// fields, can only be its publication date; a qualified one ("证明年份", the
// year a theorem was proved) dates an event.
var bareDates = map[string]bool{"year": true, "date": true, "年份": true, "日期": true, "时间": true, "年": true}

// recordFields are the bibliographic concepts that only a published work
// has (not "publisher" or "url": games and products have them too).
var recordFields = map[string]bool{"venue": true, "author": true, "doi": true, "pages": true, "volume": true, "issue": true, "identifier": true}

// CategoryNodes returns the abstract category nodes of the context's graph, sorted.
func (c *GraphContext) CategoryNodes() []string {
	out := make([]string, 0, len(c.category))
	for n := range c.category {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Classify classifies a bare relation string (no head or tail): the lexicon
// alone decides. ctx may be nil; with a context, AskedFor is set.
func Classify(rel string, ctx *GraphContext) Classification {
	if ctx == nil {
		ctx = &GraphContext{g: buildGraph(nil), lex: DefaultLexicon(), isGT: true}
	}
	return ctx.classify(kg.Triple{Relation: rel})
}

// ClassifyTriple classifies one triple of the context's graph.
func ClassifyTriple(t kg.Triple, ctx *GraphContext) Classification {
	return ctx.classify(t)
}

// ClassifyTriples classifies every triple of graph; out[i] is the class of
// graph[i]. reference is the GT graph a predicted graph is judged against,
// nil for a GT graph. This is the class a store keeps per triple.
func ClassifyTriples(graph []kg.Triple, reference []kg.Triple) []Classification {
	ctx := NewGraphContext(graph, reference)
	out := make([]Classification, len(graph))
	for i, t := range graph {
		out[i] = ctx.classify(t)
	}
	return out
}

// classify decides one triple. Order (the doc's tie-break): meta, then
// bibliographic, subjective, organizational, factual; within each, the
// lexicon reads the relation (and for meta and organizational the head);
// the values' kinds and the graph's structure add or veto evidence.
func (c *GraphContext) classify(t kg.Triple) Classification {
	out := Classification{Relation: t.Relation}
	if t.Head != "" || t.Tail != "" {
		out.HeadKind, out.TailKind = valueKind(t.Head, c.g), valueKind(t.Tail, c.g)
	}
	set := func(cl Class, ev Evidence, concept, reason string) Classification {
		return c.decide(out, cl, ev, concept, reason)
	}
	rr, hr := c.readRelation(t.Relation), c.readHead(t.Head)
	m, ok := rr.m, rr.ok
	hm, hok := hr.m, hr.ok
	switch {
	case ok && m.Class == Meta:
		return set(Meta, EvidenceLexicon, m.Concept, fmt.Sprintf("lexicon: %q is a meta term (%s)", m.Term, m.Concept))
	case hok && hm.Class == Meta:
		return set(Meta, EvidenceLexicon, hm.Concept, fmt.Sprintf("lexicon: the head %q names %s, so the triple is about the answer", t.Head, hm.Concept))
	}
	if e, st := c.lex.verificationStatus(t.Tail); st {
		return set(Meta, EvidenceValue, e.Concept, fmt.Sprintf("value: %q is a verification status of the answer's own claim", e.Term))
	}
	if sourceSite(rr, t.Tail) {
		return set(Meta, EvidenceValue, "source", fmt.Sprintf("value: a source given as a website or web page (%q) is where the answer got it: provenance", t.Tail))
	}
	if userCriteria(t.Tail) {
		return set(Meta, EvidenceValue, "criteria", fmt.Sprintf("value: %q names the user's requirements: a filtering verdict of the answer", t.Tail))
	}
	if notFound(t.Tail) {
		return set(Meta, EvidenceValue, "verification", fmt.Sprintf("value: %q says the search found nothing, a note about the answer", t.Tail))
	}
	if _, cat := c.category[t.Head]; cat && rr.catOK {
		return set(Meta, EvidenceStructure, rr.cat.Concept, fmt.Sprintf("structure: %q from the category node %q names where the answer got it", rr.cat.Term, t.Head))
	}
	if ok && m.Class == Bibliographic {
		return set(Bibliographic, EvidenceLexicon, m.Concept, fmt.Sprintf("lexicon: %q is a bibliographic term (%s)", m.Term, m.Concept))
	}
	if concept, bib := bibliographicValue(t.Tail, out.TailKind); bib {
		return set(Bibliographic, EvidenceValue, concept, fmt.Sprintf("value: the tail is a %s", concept))
	}
	if out.TailKind == KindDate && rr.date && (hr.work || (c.works[t.Head] && bareDates[foldTerm(t.Relation)])) {
		return set(Bibliographic, EvidenceValue, "year", fmt.Sprintf("value: a date of the published work %q is its publication date, a record field", t.Head))
	}
	if !ok && hr.work && t.Tail != t.Head && c.readHead(t.Tail).work {
		return set(Bibliographic, EvidenceValue, "citation", fmt.Sprintf("value: %q and %q both name published works: a link between two works is a citation", t.Head, t.Tail))
	}
	if ok && m.Class == Subjective {
		// A judgement-named relation with a checkable value is a fact
		// ("impact: 250,000 servers compromised").
		if judgementNamed[m.Concept] && t.Tail != "" {
			if marker, ok := c.lex.evaluative(t.Tail); ok {
				return set(Subjective, EvidenceValue, m.Concept, fmt.Sprintf("lexicon: %q is a subjective term (%s) and the value judges (%q)", m.Term, m.Concept, marker))
			}
			return set(Factual, EvidenceValue, "", fmt.Sprintf("value: %q names a judgement, but the value has no evaluative word: a checkable statement", m.Term))
		}
		return set(Subjective, EvidenceLexicon, m.Concept, fmt.Sprintf("lexicon: %q is a subjective term (%s)", m.Term, m.Concept))
	}
	if !(ok && m.Class != Subjective) && verdict(t.Tail) {
		return set(Subjective, EvidenceValue, "recommendation", fmt.Sprintf("value: %q is a recommendation verdict", t.Tail))
	}
	if isRating(t.Tail) && !(ok && m.Class == Organizational) && m.Veto == "" {
		return set(Subjective, EvidenceValue, "rating", fmt.Sprintf("value: %q is a score on a rating scale, an opinion", t.Tail))
	}
	if ok && m.Class == Organizational && membership[m.Concept] && out.TailKind == KindNumber {
		return set(Factual, EvidenceValue, "", fmt.Sprintf("value: %q with a number as its value is a count, not membership", m.Term))
	}
	if ok && m.Class == Organizational && membership[m.Concept] && out.TailKind == KindDate && rr.date {
		return set(Factual, EvidenceValue, "", fmt.Sprintf("value: %q with a date as its value is when the head joined: an event, not membership", m.Term))
	}
	if ok && m.Class == Organizational && m.Concept == "contains" && out.TailKind == KindLiteral && listed(t.Tail) {
		return set(Factual, EvidenceValue, "", fmt.Sprintf("value: %q with a literal list as its value states what the head includes, a fact", m.Term))
	}
	if ok && m.Class == Organizational && labelConcepts[m.Concept] && !shortLabel(t.Tail) {
		return set(Factual, EvidenceValue, "", fmt.Sprintf("value: %q with a description as its value describes the head, it does not name a class", m.Term))
	}
	if ok && m.Class == Organizational {
		return set(Organizational, EvidenceLexicon, m.Concept, fmt.Sprintf("lexicon: %q is an organizational term (%s)", m.Term, m.Concept))
	}
	if hok && hm.Class == Subjective && !(ok && m.Veto != "") {
		return set(Subjective, EvidenceLexicon, hm.Concept, fmt.Sprintf("lexicon: the head %q is the answer's %s, so its triples recommend", t.Head, hm.Concept))
	}
	if hok && hm.Class == Organizational && (out.TailKind == KindEntity || out.TailKind == KindLiteral) {
		return set(Organizational, EvidenceLexicon, hm.Concept, fmt.Sprintf("lexicon: the head %q is a %s node, so the triple places a member in it", t.Head, hm.Concept))
	}
	if _, cat := c.category[t.Head]; cat && rr.rt != "" {
		return set(Factual, EvidenceLexicon, "", fmt.Sprintf("lexicon: %q names a relation between two things, not membership, though the head %q is a category node", rr.rt, t.Head))
	}
	if why, cat := c.category[t.Head]; cat {
		return set(Organizational, EvidenceStructure, "", fmt.Sprintf("structure: the head %q is an abstract category node (%s)", t.Head, why))
	}
	reason := "no class term and no structural evidence"
	switch {
	case m.Veto != "":
		reason = fmt.Sprintf("factual phrase %q overrides a look-alike term", m.Veto)
	case out.TailKind == KindYesNo || out.TailKind == KindNumber:
		reason = fmt.Sprintf("a %s value about the world: a reified fact", out.TailKind)
	}
	return set(Factual, EvidenceDefault, "", reason)
}

// decide sets out's class, evidence, concept and reason, and for the
// classes a reference graph may ask for (bibliographic, subjective, meta)
// whether it does.
func (c *GraphContext) decide(out Classification, cl Class, ev Evidence, concept, reason string) Classification {
	out.Class, out.Evidence, out.Concept, out.Reason, out.AskedFor = cl, ev, concept, reason, nil
	if cl == Bibliographic || cl == Subjective || cl == Meta {
		a := c.isGT || c.asked[string(cl)+"\x1f"+concept]
		about := "about " + concept
		if concept == "" {
			// A class decided without a lexicon concept (the LLM pass) is
			// asked for when the GT has any triple of the class.
			a, about = c.isGT || c.askedClass[cl], "at all"
		}
		out.AskedFor = &a
		switch {
		case c.isGT:
			out.Reason += "; in the GT graph: asked for"
		case a:
			out.Reason += "; asked for: the GT graph has " + string(cl) + " triples " + about
		default:
			out.Reason += "; not asked for: no GT " + string(cl) + " triple " + about
		}
	}
	return out
}

// Relabel returns c with the class cl decided by other evidence (the LLM
// pass): the value kinds stay, the concept is kept only when the class is
// the same, and AskedFor is decided again against the reference graph.
func (c *GraphContext) Relabel(cl Classification, class Class, ev Evidence, reason string) Classification {
	concept := ""
	if class == cl.Class {
		concept = cl.Concept
	}
	return c.decide(cl, class, ev, concept, reason)
}

// judgementNamed are the subjective concepts whose relation names a
// judgement that the value may or may not make ("significance: first to X"
// is checkable); ratings, strengths, evaluations and advice judge anyway.
var judgementNamed = map[string]bool{"significance": true, "impact": true, "contribution": true, "critique": true, "role": true, "epithet": true}

// reDateRelation is a relation that asks for a date (发布年份, "release
// date", "year"): from a published work, that date is a record field.
var reDateRelation = regexp.MustCompile(`(?i)\b(year|date)\b|年份|日期|时间`)

// membership are the organizational concepts whose tails are members (a
// list, a group, what a thing contains): a number there is a count of them.
var membership = map[string]bool{"list": true, "member": true, "contains": true, "part of": true, "dimension": true}

// shortLabel reports whether a value reads as a class label ("民营", "地方国有",
// "Bilateral Nature", "A类（丝氨酸β-内酰胺酶）") rather than a description: outside
// bracketed glosses, at most four words or twelve CJK characters, and no
// clause punctuation.
func shortLabel(tail string) bool {
	// A gloss in brackets qualifies the label ("A类（丝氨酸β-内酰胺酶）").
	s := strings.TrimSpace(reGloss.ReplaceAllString(tail, " "))
	if s == "" || strings.ContainsAny(s, "，,；;。—–:：") {
		return false
	}
	if isASCII(s) {
		return len(strings.Fields(s)) <= 4
	}
	return utf8.RuneCountInString(s) <= 12
}

// sourceRelations are the relations (folded) that name a source and nothing
// else.
var sourceRelations = map[string]bool{"source": true, "来源": true, "信息源": true, "data from": true}

// reVerdict is a value that is a recommendation verdict and nothing else:
// "推荐", "不推荐", "慎用", "Not recommended" (a gloss in brackets aside).
var reVerdict = regexp.MustCompile(`(?i)^((强烈|极力)?(不)?推荐|慎用|(highly |strongly )?(not )?recommended)$`)

// verdict reports whether a value is a recommendation verdict and nothing
// else (a gloss in brackets aside).
func verdict(tail string) bool {
	if len(tail) > maxVerdictBytes || !(strings.Contains(tail, "推荐") || strings.Contains(tail, "慎用") || strings.Contains(strings.ToLower(tail), "recommended")) {
		return false
	}
	return reVerdict.MatchString(strings.TrimSpace(reGloss.ReplaceAllString(tail, "")))
}

// maxVerdictBytes bounds a value worth reading as a verdict: the longest
// ("strongly not recommended") with a short gloss.
const maxVerdictBytes = 96

// reWeb is a value naming a website or web page: a domain, or the words.
var reWeb = regexp.MustCompile(`(?i)\b[a-z0-9-]+\.(gov|com|org|net|edu|int|info|io|uk|de|fr|jp|cn|nl|sa|es)\b|官网|网站|门户|网页|页面|\bwebsite\b|\bweb ?page\b|\bportal\b`)

// sourceSite reports whether a relation that names a source ("来源",
// "source") has a website as its value: the answer's provenance ("来源:
// spain.info 西班牙官方旅游网站"). A source that is a document or a law stays
// factual ("source: Charter of the United Nations").
func sourceSite(rr relReading, tail string) bool {
	return rr.source && reWeb.MatchString(kg.MatchText(tail))
}

// reUserCriteria is a value that names the user's requirements: whether a
// candidate meets them is the answer's filtering, wherever it is said
// ("国家4A级旅游景区（非5A，不符合用户要求）").
var reUserCriteria = regexp.MustCompile(`(?i)用户(的)?(时间|地点|预算)?(要求|需求|条件|标准)|\buser'?s? (requirement|criteri|condition)`)

// userCriteria reports whether a value names the user's requirements.
func userCriteria(tail string) bool {
	s := kg.MatchText(tail)
	// Most values name neither the user nor a 用户: skip the scan.
	return (strings.Contains(s, "用户") || strings.Contains(strings.ToLower(s), "user")) && reUserCriteria.MatchString(s)
}

// reNotFound is a value saying the answer's search found nothing: "None
// found", "No Trustpilot page found", "No dedicated section or symbols found
// on menu", "Could not find a price". A value that states an absence in the
// world ("None" as a parent company, "No vegetarian labels on menu", "No —
// founded 2012") does not say "found".
var reNotFound = regexp.MustCompile(`(?i)^(none|no|nothing)\b[^—–;,:()（）]{0,60}\b(found|located|identified)\b|^(could not|couldn't|cannot|can't|unable to|did not|didn't)\s+(be\s+)?(find|found|locate|located|identify|identified|verify|verified|confirm|confirmed|determine|determined)\b`)

// notFound reports whether a value says the search found nothing.
func notFound(tail string) bool {
	s := strings.TrimSpace(kg.MatchText(tail))
	// The pattern opens with none/no/nothing, could/couldn't/cannot/can't,
	// unable or did/didn't: skip the others.
	return s != "" && strings.ContainsRune("nNcCuUdD", rune(s[0])) && reNotFound.MatchString(s)
}

// isRating reports whether a value is a score on a rating scale.
func isRating(tail string) bool { return reRating.MatchString(strings.TrimSpace(tail)) }

// listed reports whether a literal value lists several items ("A、B、C",
// "整合酶基因 + 附着位点 + 启动子"; "+" only with a space after, so "C++" is one item).
func listed(tail string) bool {
	return strings.Count(tail, "、")+strings.Count(tail, ", ")+strings.Count(tail, "；")+strings.Count(tail, "; ")+strings.Count(tail, "+ ") >= 2
}

// ClassifyGraph classifies every distinct relation of graph by the class most
// of its triples get (ties: the class order), sorted by relation. It is for
// callers that keep one class per relation string; ClassifyTriples is exact.
func ClassifyGraph(graph []kg.Triple, reference []kg.Triple) []Classification {
	cls := ClassifyTriples(graph, reference)
	votes := map[string]map[Class]int{}
	first := map[string]map[Class]Classification{}
	for i, t := range graph {
		if votes[t.Relation] == nil {
			votes[t.Relation] = map[Class]int{}
			first[t.Relation] = map[Class]Classification{}
		}
		votes[t.Relation][cls[i].Class]++
		if _, ok := first[t.Relation][cls[i].Class]; !ok {
			first[t.Relation][cls[i].Class] = cls[i]
		}
	}
	out := make([]Classification, 0, len(votes))
	for rel, v := range votes {
		best := Classes[0]
		for _, c := range Classes {
			if v[c] > v[best] {
				best = c
			}
		}
		out = append(out, first[rel][best])
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Relation < out[j].Relation })
	return out
}

// reGloss is a bracketed gloss.
var reGloss = regexp.MustCompile(`[（(][^（）()]*[）)]`)

// labelConcepts are the organizational concepts whose value must name a
// class to put the head into it: "分类工具: Bieberbach定理（1911–1912）：无挠三维晶体群"
// describes a tool of a mathematical classification. Not "type": the tuned
// labels take a described type ("蛋白类型: 膜结合型感受器组氨酸激酶...；同源二聚体")
// as the head put into a type.
var labelConcepts = map[string]bool{"nature": true, "classification": true}
