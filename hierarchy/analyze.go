package hierarchy

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/kgjudge/kgjudge/kg"
)

// RelationInfo is one distinct relation of a graph with its class.
type RelationInfo struct {
	Classification
	Triples int `json:"triples"`
}

// ClassCount is how much of a graph one class makes up.
type ClassCount struct {
	Class     Class   `json:"class"`
	Relations int     `json:"relations"`
	Triples   int     `json:"triples"`
	Share     float64 `json:"share"` // of the graph's triples
}

// GraphAnalysis is the class and structure view of one graph.
type GraphAnalysis struct {
	Structure     Structure      `json:"structure"`
	CategoryNodes []string       `json:"category_nodes"`
	Classes       []ClassCount   `json:"classes"`
	Relations     []RelationInfo `json:"relations"` // by triples desc, then relation
}

// StructureRow puts one structure metric of GT and prediction side by side.
type StructureRow struct {
	Metric string  `json:"metric"`
	GT     float64 `json:"gt"`
	Pred   float64 `json:"pred"`
}

// ClassCoverage is GT recall for one class.
type ClassCoverage struct {
	Class     Class   `json:"class"`
	Triples   int     `json:"triples"`
	Covered   int     `json:"covered"`
	Unjudged  int     `json:"unjudged"`
	Recall    float64 `json:"recall"`
	Relations int     `json:"relations"`
}

// LevelCoverage is GT recall for the triples whose head sits at one depth
// level (shortest distance from a root; -1: no root reaches it).
type LevelCoverage struct {
	Level   int     `json:"level"`
	Triples int     `json:"triples"`
	Covered int     `json:"covered"`
	Recall  float64 `json:"recall"`
}

// ClassValidity is the validity of the predicted triples of one class.
type ClassValidity struct {
	Class    Class `json:"class"`
	Triples  int   `json:"triples"`
	Valid    int   `json:"valid"`
	Invalid  int   `json:"invalid"` // judged invalid or unjudged
	Unjudged int   `json:"unjudged"`
	// Unsupporting counts triples no covered GT triple cites as support.
	Unsupporting int     `json:"unsupporting"`
	ValidRate    float64 `json:"valid_rate"`
}

// InvalidCategory counts the invalid predicted triples of one category.
type InvalidCategory struct {
	Category string  `json:"category"`
	Class    Class   `json:"class"`
	Invalid  int     `json:"invalid"`
	Share    float64 `json:"share"` // of all invalid predicted triples
	// Unsupporting counts those of the category's triples (valid or not) that
	// support no GT triple.
	Unsupporting int `json:"unsupporting"`
}

// AskedRow is the validity of one class's predicted triples that the GT
// asks for (Asked) or does not.
type AskedRow struct {
	Class   Class `json:"class"`
	Asked   bool  `json:"asked"`
	Triples int   `json:"triples"`
	Invalid int   `json:"invalid"` // judged invalid or unjudged
	// InvalidRate is Invalid/Triples (0 when there are no triples).
	InvalidRate float64 `json:"invalid_rate"`
}

// askedClasses are the classes whose predictions are split by asked-for.
var askedClasses = []Class{Bibliographic, Subjective, Meta}

// TypeRow is one relation type in the invalidity table (the paper's Table
// 18): the lexicon concept where there is one ("pages", "venue"), else the
// normalized relation.
type TypeRow struct {
	Type         string   `json:"type"`
	Class        Class    `json:"class"`
	AskedFor     *bool    `json:"asked_for,omitempty"`
	Count        int      `json:"count"`
	Invalid      int      `json:"invalid"`
	Rate         float64  `json:"rate"`
	Unsupporting int      `json:"unsupporting"`
	Relations    []string `json:"relations"` // distinct relation strings, sorted
}

// Report is the full analysis of one sample.
type Report struct {
	TaskID          string            `json:"task_id"`
	QID             string            `json:"qid,omitempty"`
	SampleIdx       int               `json:"sample_idx"`
	GT              GraphAnalysis     `json:"gt"`
	Pred            GraphAnalysis     `json:"pred"`
	Structure       []StructureRow    `json:"structure"`
	CoverageByClass []ClassCoverage   `json:"coverage_by_class"`
	CoverageByLevel []LevelCoverage   `json:"coverage_by_level"`
	ValidityByClass []ClassValidity   `json:"validity_by_class"`
	InvalidTotal    int               `json:"invalid_total"`
	Invalid         []InvalidCategory `json:"invalid_categories"`
	InvalidTypes    []TypeRow         `json:"invalid_types"`
	// AskedSplit is the validity of the predicted bibliographic, subjective
	// and meta triples split by whether the GT asks for their kind.
	AskedSplit []AskedRow `json:"asked_split"`
	// Notes lists what the analysis had to skip (out-of-range indices, ...).
	Notes []string `json:"notes,omitempty"`
	// GTTriples and PredTriples are the class of every triple, by index
	// (GTTriples[i] is task.Triples[i]): what a store keeps per triple. They
	// are left out of JSON (the item files carry the per-relation view).
	GTTriples   []Classification `json:"-"`
	PredTriples []Classification `json:"-"`
}

// TripleClasses returns the class of every GT and predicted triple by index
// (gt[i] is task.Triples[i], pred[j] is the prediction's triple j) and, for
// predictions, whether the GT asks for their kind (nil for factual and
// organizational triples). It is what a store keeps per triple; the store
// gets it from its caller and need not import this package.
func (r Report) TripleClasses() (gt, pred []Class, predAsked []*bool) {
	gt = make([]Class, len(r.GTTriples))
	for i, c := range r.GTTriples {
		gt[i] = c.Class
	}
	pred = make([]Class, len(r.PredTriples))
	predAsked = make([]*bool, len(r.PredTriples))
	for i, c := range r.PredTriples {
		pred[i], predAsked[i] = c.Class, c.AskedFor
	}
	return gt, pred, predAsked
}

func gtTriples(task kg.Task) []kg.Triple {
	out := make([]kg.Triple, len(task.Triples))
	for i, t := range task.Triples {
		out[i] = t.Triple
	}
	return out
}

func analyzeGraph(ts []kg.Triple, ctx *GraphContext, given []Classification) (GraphAnalysis, []Classification) {
	ga := GraphAnalysis{Structure: Measure(ts), CategoryNodes: ctx.CategoryNodes()}
	cls := make([]Classification, len(ts))
	// A relation string may be factual in one triple and meta in another:
	// Relations has one row per (relation, class), with the first triple's
	// classification as its reason.
	type key struct {
		rel string
		cl  Class
	}
	rows := map[key]int{}
	for i, t := range ts {
		if given != nil {
			cls[i] = given[i]
		} else {
			cls[i] = ctx.classify(t)
		}
		k := key{t.Relation, cls[i].Class}
		if j, ok := rows[k]; ok {
			ga.Relations[j].Triples++
			continue
		}
		rows[k] = len(ga.Relations)
		ga.Relations = append(ga.Relations, RelationInfo{Classification: cls[i], Triples: 1})
	}
	byClass := map[Class]*ClassCount{}
	for _, c := range Classes {
		byClass[c] = &ClassCount{Class: c}
	}
	for _, r := range ga.Relations {
		c := byClass[r.Class]
		c.Relations++
		c.Triples += r.Triples
	}
	sort.SliceStable(ga.Relations, func(i, j int) bool {
		a, b := ga.Relations[i], ga.Relations[j]
		if a.Triples != b.Triples {
			return a.Triples > b.Triples
		}
		if a.Relation != b.Relation {
			return a.Relation < b.Relation
		}
		return a.Class < b.Class
	})
	for _, c := range Classes {
		byClass[c].Share = ratio(byClass[c].Triples, len(ts))
		ga.Classes = append(ga.Classes, *byClass[c])
	}
	return ga, cls
}

// Analyze explains one sample: the classes and structure of the GT and
// predicted graphs, GT coverage by class and depth level, validity by class
// and the taxonomy of invalid predictions. cov and val are the recorded or
// judged verdicts; either may be nil (then that part is empty). Indices out
// of range are skipped and noted.
func Analyze(task kg.Task, pred kg.Prediction, cov []kg.Verdict, val []kg.Validity) Report {
	return AnalyzeClassified(task, pred, cov, val, nil, nil)
}

// GTTriples returns the triples of a task's GT graph, in order: the graph
// the GT classes of AnalyzeClassified are of.
func GTTriples(task kg.Task) []kg.Triple { return gtTriples(task) }

// AnalyzeClassified is Analyze with the classes of the GT and predicted
// triples decided by the caller (llmclass.Pass.Classify); a nil slice, or one of
// the wrong length, means the rules decide.
func AnalyzeClassified(task kg.Task, pred kg.Prediction, cov []kg.Verdict, val []kg.Validity, gtClasses, predClasses []Classification) Report {
	gt := gtTriples(task)
	rep := Report{TaskID: task.ID, QID: pred.QID, SampleIdx: pred.SampleIdx}
	gtCtx := NewGraphContext(gt, nil)
	predCtx := NewGraphContext(pred.Triples, gt)
	if gtClasses != nil && len(gtClasses) != len(gt) {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d GT classes for %d GT triples: the rules decide", len(gtClasses), len(gt)))
		gtClasses = nil
	}
	if predClasses != nil && len(predClasses) != len(pred.Triples) {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d predicted classes for %d predicted triples: the rules decide", len(predClasses), len(pred.Triples)))
		predClasses = nil
	}
	var gtCls, predCls []Classification
	rep.GT, gtCls = analyzeGraph(gt, gtCtx, gtClasses)
	rep.Pred, predCls = analyzeGraph(pred.Triples, predCtx, predClasses)
	rep.GTTriples, rep.PredTriples = gtCls, predCls
	rep.Structure = compareStructure(rep.GT.Structure, rep.Pred.Structure)

	// Coverage by class and by level.
	state := make([]kg.State, len(gt))
	for i := range state {
		state[i] = kg.Unjudged
	}
	supporting := make([]bool, len(pred.Triples))
	badSupport := 0
	for _, v := range cov {
		if v.GTIndex < 0 || v.GTIndex >= len(gt) {
			rep.Notes = append(rep.Notes, "coverage verdict with out-of-range gt_index skipped")
			continue
		}
		state[v.GTIndex] = v.State
		if v.State != kg.Covered {
			continue
		}
		for _, p := range v.Support {
			if p >= 0 && p < len(pred.Triples) {
				supporting[p] = true
			} else {
				badSupport++
			}
		}
	}
	if badSupport > 0 {
		rep.Notes = append(rep.Notes, strconv.Itoa(badSupport)+" out-of-range supporting_pred_indices ignored")
	}
	if cov != nil {
		byClass := map[Class]*ClassCoverage{}
		rels := map[Class]map[string]bool{}
		for _, c := range Classes {
			byClass[c] = &ClassCoverage{Class: c}
			rels[c] = map[string]bool{}
		}
		lvl := buildGraph(gt).levels()
		byLevel := map[int]*LevelCoverage{}
		for i, t := range gt {
			c := byClass[gtCls[i].Class]
			rels[c.Class][t.Relation] = true
			c.Triples++
			l, ok := lvl[t.Head]
			if !ok {
				l = -1
			}
			if byLevel[l] == nil {
				byLevel[l] = &LevelCoverage{Level: l}
			}
			byLevel[l].Triples++
			switch state[i] {
			case kg.Covered:
				c.Covered++
				byLevel[l].Covered++
			case kg.Unjudged:
				c.Unjudged++
			}
		}
		for _, c := range Classes {
			byClass[c].Recall = ratio(byClass[c].Covered, byClass[c].Triples)
			byClass[c].Relations = len(rels[c])
			rep.CoverageByClass = append(rep.CoverageByClass, *byClass[c])
		}
		for _, l := range byLevel {
			l.Recall = ratio(l.Covered, l.Triples)
			rep.CoverageByLevel = append(rep.CoverageByLevel, *l)
		}
		sort.Slice(rep.CoverageByLevel, func(i, j int) bool { return rep.CoverageByLevel[i].Level < rep.CoverageByLevel[j].Level })
	}

	if val == nil {
		return rep
	}
	valid := make([]kg.State, len(pred.Triples))
	for i := range valid {
		valid[i] = kg.Unjudged
	}
	for _, v := range val {
		if v.PredIndex < 0 || v.PredIndex >= len(pred.Triples) {
			rep.Notes = append(rep.Notes, "validity verdict with out-of-range pred_index skipped")
			continue
		}
		valid[v.PredIndex] = v.State
	}
	byClass := map[Class]*ClassValidity{}
	for _, c := range Classes {
		byClass[c] = &ClassValidity{Class: c}
	}
	cats := map[string]*InvalidCategory{}
	asked := map[[2]string]*AskedRow{}
	for _, c := range askedClasses {
		for _, a := range []bool{true, false} {
			asked[[2]string{string(c), strconv.FormatBool(a)}] = &AskedRow{Class: c, Asked: a}
		}
	}
	types := map[string]*TypeRow{}
	typeRels := map[string]map[string]bool{}
	for i, t := range pred.Triples {
		cl := predCls[i]
		c := byClass[cl.Class]
		c.Triples++
		cat := invalidCategory(cl)
		if cats[cat] == nil {
			cats[cat] = &InvalidCategory{Category: cat, Class: cl.Class}
		}
		typ := cl.Concept
		if typ == "" || cl.Class == Factual || cl.Class == Organizational {
			typ = kg.Normalize(t.Relation)
		}
		key := string(cl.Class) + "\x1f" + typ
		row := types[key]
		if row == nil {
			row = &TypeRow{Type: typ, Class: cl.Class, AskedFor: cl.AskedFor}
			types[key] = row
			typeRels[key] = map[string]bool{}
		}
		typeRels[key][t.Relation] = true
		row.Count++
		if !supporting[i] {
			c.Unsupporting++
			cats[cat].Unsupporting++
			row.Unsupporting++
		}
		ar := asked[[2]string{string(cl.Class), strconv.FormatBool(cl.AskedFor != nil && *cl.AskedFor)}]
		if ar != nil {
			ar.Triples++
		}
		if valid[i] == kg.Covered {
			c.Valid++
			continue
		}
		if ar != nil {
			ar.Invalid++
		}
		c.Invalid++
		if valid[i] == kg.Unjudged {
			c.Unjudged++
		}
		rep.InvalidTotal++
		cats[cat].Invalid++
		row.Invalid++
	}
	for _, c := range Classes {
		byClass[c].ValidRate = ratio(byClass[c].Valid, byClass[c].Triples)
		rep.ValidityByClass = append(rep.ValidityByClass, *byClass[c])
	}
	for _, c := range cats {
		c.Share = ratio(c.Invalid, rep.InvalidTotal)
		rep.Invalid = append(rep.Invalid, *c)
	}
	sort.Slice(rep.Invalid, func(i, j int) bool {
		a, b := rep.Invalid[i], rep.Invalid[j]
		if a.Invalid != b.Invalid {
			return a.Invalid > b.Invalid
		}
		return a.Category < b.Category
	})
	rep.InvalidTypes = typeRows(types, typeRels)
	for _, c := range askedClasses {
		for _, a := range []bool{true, false} {
			r := asked[[2]string{string(c), strconv.FormatBool(a)}]
			r.InvalidRate = ratio(r.Invalid, r.Triples)
			rep.AskedSplit = append(rep.AskedSplit, *r)
		}
	}
	return rep
}

// typeRows finishes the invalidity table (the paper's Table 18), for a
// sample and for a run alike: each row's distinct relations and rate, rows
// by invalid count, then rate, count, class and type.
func typeRows[K comparable](types map[K]*TypeRow, rels map[K]map[string]bool) []TypeRow {
	out := make([]TypeRow, 0, len(types))
	for k, r := range types {
		r.Relations = r.Relations[:0]
		for rel := range rels[k] {
			r.Relations = append(r.Relations, rel)
		}
		sort.Strings(r.Relations)
		r.Rate = ratio(r.Invalid, r.Count)
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.Invalid != b.Invalid:
			return a.Invalid > b.Invalid
		case a.Rate != b.Rate:
			return a.Rate > b.Rate
		case a.Count != b.Count:
			return a.Count > b.Count
		case a.Class != b.Class:
			return a.Class < b.Class
		}
		return a.Type < b.Type
	})
	return out
}

// invalidCategory names the taxonomy bucket of a predicted relation.
func invalidCategory(c Classification) string {
	switch c.Class {
	case Bibliographic, Subjective, Meta:
		if c.AskedFor != nil && *c.AskedFor {
			return string(c.Class) + " (asked for)"
		}
		return string(c.Class) + " (not asked for)"
	case Organizational:
		return "organizational"
	}
	return "factual"
}

func compareStructure(g, p Structure) []StructureRow {
	row := func(m string, a, b float64) StructureRow { return StructureRow{Metric: m, GT: a, Pred: b} }
	f := func(i int) float64 { return float64(i) }
	return []StructureRow{
		row("triples", f(g.Triples), f(p.Triples)),
		row("nodes", f(g.Nodes), f(p.Nodes)),
		row("entities", f(g.Entities), f(p.Entities)),
		row("relation_types", f(g.Relations), f(p.Relations)),
		row("roots", f(g.Roots), f(p.Roots)),
		row("depth", f(g.Depth), f(p.Depth)),
		row("max_level", f(g.MaxLevel), f(p.MaxLevel)),
		row("branching", g.Branching, p.Branching),
		row("max_branching", f(g.MaxBranching), f(p.MaxBranching)),
		row("entity_branching", g.EntityBranching, p.EntityBranching),
		row("entity_share", g.EntityShare, p.EntityShare),
		row("components", f(g.Components), f(p.Components)),
		row("flatness", g.Flatness, p.Flatness),
	}
}
