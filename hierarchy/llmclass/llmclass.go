// Package llmclass asks a chat model for the class of the triples the
// hierarchy rules decide weakly (any OpenAI-compatible endpoint, through the
// judge's transport). Package hierarchy stays a pure library: the model is
// called here, and hierarchy takes the classes back (AnalyzeClassified).
package llmclass

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kgjudge/kgjudge/hierarchy"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/llmjudge/cost"
	"github.com/kgjudge/kgjudge/llmjudge/transport"
)

// Shorter names for the hierarchy types the pass works on.
type (
	Classification = hierarchy.Classification
	Class          = hierarchy.Class
)

// Pass asks a chat model (any OpenAI-compatible endpoint, through the
// judge's transport) for the class of the triples the rules decide weakly:
// by default the ones no class term, value or structure decided
// (hierarchy.Weak). Independent readers who see a triple in its graph
// agree with the team's labels on 0.94 to 0.95 of the uniform held-out
// draws, where the rules reach 0.887: what the rules miss is context a
// reader uses (is the head an abstract list or stage node? does the value
// describe or classify?), so the model is shown the triple with its
// neighbours. With "contestable" and replies written by strong language
// models, the pass reaches 0.919 on those draws (hierarchy's
// TestClassPassRecorded).
//
// A triple the model does not answer (a failed call, malformed JSON, a
// missing or invalid class) keeps the rules' class and is counted in
// Stats.Unjudged, never silently decided.
type Pass struct {
	// Completer makes the calls; nil with a Cache replays it (a request it
	// lacks is unjudged).
	Completer transport.Completer
	// Model names the model in the cache's keys.
	Model string
	// Cache keeps complete replies (nil: none).
	Cache *Cache
	// Batch is the number of triples per request (default 30).
	Batch int
	// Neighbours is how many other triples of the head (and into it) are
	// shown with each triple (default 4 each).
	Neighbours int
	// Seed is sent with every request (nil: none).
	Seed *int
	// Select picks the triples to ask about (nil: hierarchy.Weak).
	Select func(Classification) bool
}

// Stats says what the pass did (the report's type: hierarchy keeps it in
// RunReport.LLMClasses).
type Stats = hierarchy.ClassPassStats

// Classify classifies every triple of graph (reference: the GT graph of a
// predicted graph, nil for a GT graph) with the rules, then asks the model
// about the selected ones. The error is only the context's: a model failure
// is counted in the stats.
func (p *Pass) Classify(ctx context.Context, graph, reference []kg.Triple) ([]Classification, Stats, error) {
	gc := hierarchy.NewGraphContext(graph, reference)
	out := make([]Classification, len(graph))
	for i, t := range graph {
		out[i] = hierarchy.ClassifyTriple(t, gc)
	}
	st := Stats{Triples: len(graph)}
	sel := p.Select
	if sel == nil {
		sel = hierarchy.Weak
	}
	var idx []int
	for i, c := range out {
		if sel(c) {
			idx = append(idx, i)
		}
	}
	st.Selected = len(idx)
	batch := p.Batch
	if batch <= 0 {
		batch = 30
	}
	nb := newNeighbours(graph)
	for start := 0; start < len(idx); start += batch {
		part := idx[start:min(start+batch, len(idx))]
		st.Requests++
		got, usage, cached, problems, err := p.ask(ctx, graph, nb, part)
		if cached {
			st.Cached++
		}
		st.PromptTokens += usage.Prompt
		st.CompletionTokens += usage.Completion
		if ctx.Err() != nil {
			return nil, st, ctx.Err()
		}
		if err != nil {
			problems = append(problems, err.Error())
		}
		for _, pr := range problems {
			st.Problems = append(st.Problems, fmt.Sprintf("request %d: %s", st.Requests, pr))
		}
		for _, i := range part {
			a, ok := got[i]
			if !ok {
				st.Unjudged++
				continue
			}
			if a.class != out[i].Class {
				st.Changed++
			}
			reason := "llm: " + a.why
			if a.why == "" {
				reason = "llm"
			}
			out[i] = gc.Relabel(out[i], a.class, hierarchy.EvidenceLLM, fmt.Sprintf("%s (rules: %s, %s)", reason, out[i].Class, out[i].Reason))
		}
	}
	return out, st, nil
}

// llmAnswer is one class the model gave.
type llmAnswer struct {
	class Class
	why   string
}

// llmInstructions are the class definitions the model reads (the labellers'
// short form of the package doc).
const llmInstructions = `You classify triples {head, relation, tail} of a knowledge graph that a search agent wrote as its answer (or that a benchmark wrote as the reference answer). Decide each triple's class from its head, relation and tail AND its context in the graph.

Classes:
- factual: a fact about the world (attribute, relation between entities, measured value, rank value, yes/no or count about the world). The default.
- organizational: scaffolding (topic -> dimension -> subtopic -> entity; any triple FROM an abstract topic/dimension/category/list node), membership in a list/chart/tier/batch/group node, assigning an entity to a type/class/category/tier/priority/level/group, is-a links to a class node.
- bibliographic: a published work as a record (paper, book, report, article, repository that introduced or documents something, or that a person wrote) and its record fields (title, authors, venue, publisher, publication date/year, volume, pages, DOI, arXiv id, URL, citations). What a work says is factual.
- subjective: the value is a judgement, opinion, rating, recommendation, advice, significance, strengths/weaknesses. A judgement-named relation with a checkable value is factual.
- meta: about the answer itself: sources/provenance, notes, caveats, confidence, verification status, data not found / not available / not specified, the search process, filtering (meets the user's criteria, why filtered out), the final recommendation.
Tie-break when two fit: meta > bibliographic > subjective > organizational > factual.

Answer with JSON only: {"labels": [{"id": <triple id>, "class": "<class>", "why": "<a few words>"}]}, one entry per triple asked about, ids as given.`

// ask sends one batch; the answers are keyed by triple index. usage is
// what the endpoint reported; cached says the reply came from the cache.
func (p *Pass) ask(ctx context.Context, graph []kg.Triple, nb neighbours, part []int) (answers map[int]llmAnswer, usage cost.Usage, cached bool, problems []string, err error) {
	req := &transport.Request{
		Messages: []transport.Message{
			{Role: "system", Content: llmInstructions},
			{Role: "user", Content: p.prompt(graph, nb, part)},
		},
		Mode:        transport.ModeObject,
		Temperature: 0,
		Seed:        p.Seed,
	}
	ids := make(map[int]bool, len(part))
	for _, i := range part {
		ids[i] = true
	}
	key := ReplyKey(p.Model, req)
	if p.Cache != nil {
		if content, ok := p.Cache.get(key); ok {
			answers, problems, err = parseLLMLabels(content, ids)
			return answers, usage, true, problems, err
		}
	}
	if p.Completer == nil {
		return nil, usage, false, nil, fmt.Errorf("llm class pass: %w", ErrNotCached)
	}
	resp, err := p.Completer.Complete(ctx, req)
	if err != nil {
		return nil, usage, false, nil, fmt.Errorf("llm class pass: %w", err)
	}
	answers, problems, err = parseLLMLabels(resp.Content, ids)
	if err == nil && len(problems) == 0 && p.Cache != nil {
		if err := p.Cache.put(key, p.Model, resp.Content); err != nil {
			problems = append(problems, err.Error())
		}
	}
	return answers, resp.Usage, false, problems, err
}

// neighbours index a graph's triples by head and by tail, once per graph.
type neighbours struct{ byHead, byTail map[string][]int }

func newNeighbours(graph []kg.Triple) neighbours {
	nb := neighbours{byHead: map[string][]int{}, byTail: map[string][]int{}}
	for i, t := range graph {
		nb.byHead[t.Head] = append(nb.byHead[t.Head], i)
		nb.byTail[t.Tail] = append(nb.byTail[t.Tail], i)
	}
	return nb
}

// prompt shows each triple with its id (its index in the graph) and its
// neighbours: the head's other triples and the triples into the head.
func (p *Pass) prompt(graph []kg.Triple, nb neighbours, part []int) string {
	n := p.Neighbours
	if n <= 0 {
		n = 4
	}
	byHead, byTail := nb.byHead, nb.byTail
	line := func(t kg.Triple) string {
		return fmt.Sprintf("%s | %s | %s", clip(t.Head), clip(t.Relation), clip(t.Tail))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The graph has %d triples. Classify the triples marked with an id.\n", len(graph))
	for _, i := range part {
		t := graph[i]
		fmt.Fprintf(&b, "\n[%d] %s\n", i, line(t))
		shown := 0
		for _, j := range byHead[t.Head] {
			if shown == n {
				break
			}
			if j == i {
				continue
			}
			shown++
			fmt.Fprintf(&b, "  same head: %s\n", line(graph[j]))
		}
		shown = 0
		for _, j := range byTail[t.Head] {
			if shown == n {
				break
			}
			shown++
			fmt.Fprintf(&b, "  into head: %s\n", line(graph[j]))
		}
		if k := len(byTail[t.Tail]); k > 1 {
			fmt.Fprintf(&b, "  the tail is the tail of %d triples\n", k)
		}
		if m := len(byHead[t.Tail]); m > 0 {
			fmt.Fprintf(&b, "  the tail is the head of %d triples\n", m)
		}
	}
	return b.String()
}

// clip bounds a value shown to the model: the opening says what it is.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 160 {
		return string(r[:160]) + "…"
	}
	return s
}

// errNoLabels is a reply with no usable labels array.
var errNoLabels = errors.New(`reply has no "labels" array`)

// parseLLMLabels reads the model's reply. ids are the triples asked about;
// an answer for another id, a second answer for one id, or an unknown class
// is a problem and the triple stays unanswered (a duplicate drops both:
// the model contradicted itself).
func parseLLMLabels(content string, ids map[int]bool) (map[int]llmAnswer, []string, error) {
	s := strings.TrimSpace(content)
	// Some servers wrap JSON in a code fence even in JSON mode.
	s = strings.TrimPrefix(strings.TrimPrefix(s, "```json"), "```")
	s = strings.TrimSpace(strings.TrimSuffix(s, "```"))
	var reply struct {
		Labels []struct {
			ID    json.RawMessage `json:"id"`
			Class string          `json:"class"`
			Why   string          `json:"why"`
		} `json:"labels"`
	}
	if err := json.Unmarshal([]byte(s), &reply); err != nil {
		return nil, nil, fmt.Errorf("llm class pass: malformed reply: %w", err)
	}
	if reply.Labels == nil {
		return nil, nil, errNoLabels
	}
	valid := map[Class]bool{}
	for _, c := range hierarchy.Classes {
		valid[c] = true
	}
	out := map[int]llmAnswer{}
	dup := map[int]bool{}
	var problems []string
	for _, l := range reply.Labels {
		id, err := strconv.Atoi(strings.Trim(string(l.ID), `"`))
		if err != nil || !ids[id] {
			problems = append(problems, fmt.Sprintf("label for id %s, which was not asked about", l.ID))
			continue
		}
		cl := Class(strings.ToLower(strings.TrimSpace(l.Class)))
		if !valid[cl] {
			problems = append(problems, fmt.Sprintf("id %d: unknown class %q", id, l.Class))
			continue
		}
		if _, seen := out[id]; seen || dup[id] {
			dup[id] = true
			delete(out, id)
			problems = append(problems, fmt.Sprintf("id %d labelled twice", id))
			continue
		}
		out[id] = llmAnswer{class: cl, why: clip(l.Why)}
	}
	var missing []int
	for id := range ids {
		if _, ok := out[id]; !ok && !dup[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		sort.Ints(missing)
		problems = append(problems, fmt.Sprintf("%d of %d ids unanswered (first %d)", len(missing), len(ids), missing[0]))
	}
	return out, problems, nil
}
