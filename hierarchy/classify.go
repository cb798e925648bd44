package hierarchy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kgjudge/kgjudge/kg"
)

// Class is the kind of a relation.
type Class string

const (
	// Factual relations state a fact about an entity (founded, country, price).
	Factual Class = "factual"
	// Organizational relations are the graph's scaffolding: topic -> dimension
	// -> subtopic -> entity, containment, membership, list and tier membership.
	Organizational Class = "organizational"
	// Bibliographic relations describe a published work as a record: venue,
	// publisher, publication year, volume, issue, pages, DOI, URL, title.
	Bibliographic Class = "bibliographic"
	// Subjective relations carry a judgment: significance, impact, innovation,
	// core contribution, evaluation, strengths.
	Subjective Class = "subjective"
	// Meta relations talk about the task rather than the world: restated user
	// criteria, the search process, yes/no answers.
	Meta Class = "meta"
)

// Classes lists every class in report order.
var Classes = []Class{Factual, Organizational, Bibliographic, Subjective, Meta}

// Evidence says what decided a classification.
type Evidence string

const (
	EvidenceLexicon   Evidence = "lexicon"
	EvidenceStructure Evidence = "structure"
	EvidenceDefault   Evidence = "default"
)

// Classification is the class of one relation and why.
type Classification struct {
	Relation string   `json:"relation"`
	Class    Class    `json:"class"`
	Evidence Evidence `json:"evidence"`
	// Concept is the lexicon concept matched (e.g. "pages", "venue"); empty
	// when the class came from structure or default.
	Concept string `json:"concept,omitempty"`
	// AskedFor is set for bibliographic, subjective and meta relations: true
	// when the reference (GT) graph has a relation of the same class and
	// concept, i.e. the user asked for this kind of metadata.
	AskedFor *bool  `json:"asked_for,omitempty"`
	Reason   string `json:"reason"`
}

// relStat is what the graph says about one relation string.
type relStat struct {
	n, catHead, yesNo, entityTail int
	catExample                    string
}

// GraphContext is the structural evidence of one graph (and, for a predicted
// graph, the concepts its reference GT graph asks for).
type GraphContext struct {
	rels     map[string]*relStat
	category map[string]string // category node -> why
	asked    map[string]bool   // class+"\x1f"+concept of the reference graph
	lex      *Lexicon
}

// yesNo holds the tails that make a triple a yes/no answer.
var yesNo = map[string]bool{"是": true, "否": true, "不是": true, "yes": true, "no": true, "true": true, "false": true, "对": true, "错": true}

func isYesNo(tail string) bool {
	t := kg.Normalize(tail)
	if yesNo[t] {
		return true
	}
	// "否（全部为男明星）", "Yes, since 2010": an answer with a gloss.
	for _, p := range []string{"是", "否", "yes"} {
		if strings.HasPrefix(t, p+" ") {
			return true
		}
	}
	return false
}

// NewGraphContext builds the context of graph. reference is the GT graph the
// graph is judged against; nil means graph is itself the reference (a GT graph
// asks for everything it contains).
func NewGraphContext(graph []kg.Triple, reference []kg.Triple) *GraphContext {
	return newGraphContext(DefaultLexicon(), graph, reference)
}

func newGraphContext(lex *Lexicon, graph []kg.Triple, reference []kg.Triple) *GraphContext {
	c := &GraphContext{rels: map[string]*relStat{}, asked: map[string]bool{}, lex: lex}
	g := buildGraph(graph)
	c.category = categoryNodes(lex, graph, g)
	for _, t := range graph {
		s := c.rels[t.Relation]
		if s == nil {
			s = &relStat{}
			c.rels[t.Relation] = s
		}
		s.n++
		if _, ok := c.category[t.Head]; ok {
			s.catHead++
			if s.catExample == "" {
				s.catExample = t.Head
			}
		}
		if isYesNo(t.Tail) {
			s.yesNo++
		}
		if g.isEntity[t.Tail] {
			s.entityTail++
		}
	}
	if reference == nil {
		reference = graph
	}
	seen := map[string]bool{}
	for _, t := range reference {
		if seen[t.Relation] {
			continue
		}
		seen[t.Relation] = true
		if m, ok := lex.classify(t.Relation); ok && m.Class != Organizational {
			c.asked[string(m.Class)+"\x1f"+m.Concept] = true
		}
	}
	return c
}

// categoryNodes finds abstract category nodes: a topic root (a node that is
// only a head, with at least three children that are all entities), and the
// tails of dimension relations (dimension, subtopic, 维度...) from a category
// node, transitively.
func categoryNodes(lex *Lexicon, graph []kg.Triple, g *graph) map[string]string {
	cat := map[string]string{}
	for _, r := range g.roots {
		tails := g.out[r]
		if len(tails) < 3 {
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
		m, ok := lex.classify(t.Relation)
		dim[t.Relation] = ok && m.Kind == kindDimension
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

// CategoryNodes returns the abstract category nodes of the context's graph, sorted.
func (c *GraphContext) CategoryNodes() []string {
	out := make([]string, 0, len(c.category))
	for n := range c.category {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (c *GraphContext) isAsked(class Class, concept string) bool {
	return c.asked[string(class)+"\x1f"+concept]
}

// Classify classifies one relation string. ctx may be nil: then only the
// lexicon decides (no structural evidence, AskedFor unset).
//
// Order: lexical meta, bibliographic, subjective (a factual phrase such as
// "average" or "贡献者" vetoes a subjective or organizational term); then
// yes/no tails (meta); then lexical organizational; then structure (most of
// the relation's triples start at an abstract category node: organizational);
// otherwise factual.
func Classify(rel string, ctx *GraphContext) Classification {
	lex := DefaultLexicon()
	if ctx != nil && ctx.lex != nil {
		lex = ctx.lex
	}
	out := Classification{Relation: rel}
	var st *relStat
	if ctx != nil {
		st = ctx.rels[rel]
	}
	m, ok := lex.classify(rel)
	asked := func() {
		if ctx == nil {
			return
		}
		a := ctx.isAsked(out.Class, out.Concept)
		out.AskedFor = &a
		if a {
			out.Reason += "; asked for: the GT graph has a " + string(out.Class) + " relation about " + out.Concept
		} else {
			out.Reason += "; not asked for: no GT relation about " + out.Concept
		}
	}
	if ok && m.Class != Organizational {
		out.Class, out.Evidence, out.Concept = m.Class, EvidenceLexicon, m.Concept
		out.Reason = fmt.Sprintf("lexicon: %q is a %s term (%s)", m.Term, m.Class, m.Concept)
		asked()
		return out
	}
	if st != nil && st.yesNo*2 > st.n {
		out.Class, out.Evidence, out.Concept = Meta, EvidenceStructure, "yes/no"
		out.Reason = fmt.Sprintf("structure: %d of %d tails are yes/no answers (a restated criterion)", st.yesNo, st.n)
		asked()
		return out
	}
	if ok {
		out.Class, out.Evidence, out.Concept = Organizational, EvidenceLexicon, m.Concept
		out.Reason = fmt.Sprintf("lexicon: %q is an organizational term (%s)", m.Term, m.Concept)
		return out
	}
	if st != nil && st.catHead*2 > st.n {
		out.Class, out.Evidence = Organizational, EvidenceStructure
		out.Reason = fmt.Sprintf("structure: %d of %d triples start at an abstract category node (e.g. %q, %s)",
			st.catHead, st.n, st.catExample, ctx.category[st.catExample])
		return out
	}
	out.Class, out.Evidence = Factual, EvidenceDefault
	switch {
	case m.Veto != "":
		out.Reason = fmt.Sprintf("factual phrase %q overrides a look-alike term", m.Veto)
	case st == nil:
		out.Reason = "no class term and no structural evidence"
	default:
		out.Reason = fmt.Sprintf("no class term; %d of %d triples start at a category node", st.catHead, st.n)
	}
	return out
}

// ClassifyGraph classifies every distinct relation of graph, sorted by
// relation. reference is as for NewGraphContext.
func ClassifyGraph(graph []kg.Triple, reference []kg.Triple) []Classification {
	ctx := NewGraphContext(graph, reference)
	seen := map[string]bool{}
	var out []Classification
	for _, t := range graph {
		if !seen[t.Relation] {
			seen[t.Relation] = true
			out = append(out, Classify(t.Relation, ctx))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Relation < out[j].Relation })
	return out
}
