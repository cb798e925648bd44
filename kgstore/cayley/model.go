package cayley

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
)

// builder collects the quads of one graph (one label) for a single batch.
type builder struct {
	label quad.Value
	root  quad.IRI // the graph's root, which scopes its entity IRIs
	quads []quad.Quad
}

func (b *builder) add(s, p, o quad.Value) {
	b.quads = append(b.quads, quad.Quad{Subject: s, Predicate: p, Object: o, Label: b.label})
}

// str, num and float write nothing for the zero value; the reader maps a
// missing quad back to the zero value.
func (b *builder) str(s quad.Value, p quad.IRI, v string) {
	if v != "" {
		b.add(s, p, quad.String(v))
	}
}

func (b *builder) num(s quad.Value, p quad.IRI, v int) {
	if v != 0 {
		b.add(s, p, quad.Int(v))
	}
}

// list writes the length of a non-nil list on owner and one item node per
// element, linked from owner by pred and carrying its kg:index.
func (b *builder) list(owner quad.IRI, pred quad.IRI, name string, n int, isNil bool, each func(i int, it quad.IRI)) {
	if isNil {
		return
	}
	b.add(owner, countPred(pred), quad.Int(n))
	for i := 0; i < n; i++ {
		it := item(owner, name, i)
		b.add(owner, pred, it)
		b.add(it, pIndex, quad.Int(i))
		each(i, it)
	}
}

func (b *builder) strings(owner quad.IRI, pred quad.IRI, name string, vs []string) {
	b.list(owner, pred, name, len(vs), vs == nil, func(i int, it quad.IRI) { b.str(it, pValue, vs[i]) })
}

func (b *builder) ints(owner quad.IRI, pred quad.IRI, name string, vs []int) {
	b.list(owner, pred, name, len(vs), vs == nil, func(i int, it quad.IRI) { b.num(it, pValue, vs[i]) })
}

// triple writes a triple node and the direct entity-to-entity edge.
func (b *builder) triple(it quad.IRI, t kg.Triple) {
	h, tl := entityIRI(b.root, t.Head), entityIRI(b.root, t.Tail)
	b.add(it, pHead, h)
	b.str(it, pRelation, t.Relation)
	b.add(it, pTail, tl)
	b.add(h, quad.String(t.Relation), tl)
}

func encodeTask(t kg.Task) ([]quad.Quad, error) {
	return encodeTaskForm(t, gtTriplesUTF8(t.Triples))
}

// encodeTaskForm writes a task with its triples as a record, or (records
// false) with a triple node per triple, the model before the record.
func encodeTaskForm(t kg.Task, records bool) ([]quad.Quad, error) {
	root := gtLabel(t.ID)
	b := &builder{label: root, root: root}
	b.add(root, pType, tTask)
	b.add(root, pTaskID, quad.String(t.ID))
	b.str(root, pLanguage, t.Language)
	b.str(root, pSubset, t.Subset)
	b.str(root, pFinalQuery, t.FinalQuery)
	b.list(root, pNode, "node", len(t.Nodes), t.Nodes == nil, func(i int, it quad.IRI) {
		n := t.Nodes[i]
		b.str(it, pNodeID, n.ID)
		b.add(it, pEntity, entityIRI(root, n.Name))
		b.strings(it, pAlias, "alias", n.Aliases)
	})
	for i, tr := range t.Triples {
		if math.IsNaN(tr.Weight) {
			return nil, fmt.Errorf("triple %d: weight is NaN", i)
		}
	}
	// The GT triples as one record plus their direct edges, as a
	// prediction's (see encodePrediction), unless a string is not UTF-8.
	if records {
		if t.Triples != nil {
			b.add(root, pGTTripleRecords, quad.String(gtTripleRecords(t.Triples)))
		}
		for _, tr := range t.Triples {
			b.add(entityIRI(root, tr.Head), quad.String(tr.Relation), entityIRI(root, tr.Tail))
		}
		b.strings(root, pWarning, "warning", t.Warnings)
		return b.quads, nil
	}
	b.list(root, pTriple, "triple", len(t.Triples), t.Triples == nil, func(i int, it quad.IRI) {
		tr := t.Triples[i]
		b.triple(it, tr.Triple)
		b.str(it, pHeadID, tr.HeadID)
		b.str(it, pTailID, tr.TailID)
		if tr.Weight != 0 || math.Signbit(tr.Weight) {
			b.add(it, pWeight, quad.Float(tr.Weight))
		}
		b.num(it, pStage, tr.Stage)
		b.str(it, pKind, tr.Kind)
	})
	b.strings(root, pWarning, "warning", t.Warnings)
	return b.quads, nil
}

func gtTriplesUTF8(ts []kg.GTTriple) bool {
	for _, t := range ts {
		if !utf8.ValidString(t.Head) || !utf8.ValidString(t.Relation) || !utf8.ValidString(t.Tail) ||
			!utf8.ValidString(t.HeadID) || !utf8.ValidString(t.TailID) || !utf8.ValidString(t.Kind) {
			return false
		}
	}
	return true
}

// gtRow is one GT triple in kg:gtTripleRecords. The weight is text so that
// -0 survives (JSON's omitempty would drop it, and a float field would not
// tell 0 from absent).
type gtRow struct {
	H  string `json:"h"`
	R  string `json:"r"`
	T  string `json:"t"`
	HI string `json:"hi,omitempty"`
	TI string `json:"ti,omitempty"`
	W  string `json:"w,omitempty"`
	S  int    `json:"s,omitempty"`
	K  string `json:"k,omitempty"`
}

func gtTripleRecords(ts []kg.GTTriple) string {
	rows := make([]gtRow, len(ts))
	for i, t := range ts {
		rows[i] = gtRow{H: t.Head, R: t.Relation, T: t.Tail, HI: t.HeadID, TI: t.TailID, S: t.Stage, K: t.Kind}
		if t.Weight != 0 || math.Signbit(t.Weight) {
			rows[i].W = strconv.FormatFloat(t.Weight, 'g', -1, 64)
		}
	}
	js, err := json.Marshal(rows)
	if err != nil {
		panic(err) // strings and ints always encode
	}
	return string(js)
}

func decodeGTTripleRecords(root quad.Value, rec quad.Value) ([]kg.GTTriple, error) {
	s, ok := rec.(quad.String)
	if !ok {
		return nil, fmt.Errorf("%v %v: want a string, got %T", root, pGTTripleRecords, rec)
	}
	var rows []gtRow
	if err := json.Unmarshal([]byte(s), &rows); err != nil {
		return nil, fmt.Errorf("%v %v: %w", root, pGTTripleRecords, err)
	}
	out := make([]kg.GTTriple, len(rows))
	for i, r := range rows {
		out[i] = kg.GTTriple{Triple: kg.Triple{Head: r.H, Relation: r.R, Tail: r.T}, HeadID: r.HI, TailID: r.TI, Stage: r.S, Kind: r.K}
		if r.W != "" {
			w, err := strconv.ParseFloat(r.W, 64)
			if err != nil {
				return nil, fmt.Errorf("%v %v: triple %d: weight %q: %w", root, pGTTripleRecords, i, r.W, err)
			}
			out[i].Weight = w
		}
	}
	return out, nil
}

func (b *builder) key(root quad.IRI, k kgstore.SampleKey) {
	b.add(root, pRun, quad.String(k.Run))
	b.add(root, pKeyTask, quad.String(k.TaskID))
	b.add(root, pKeySample, quad.Int(k.Sample))
}

// encodePrediction writes a predicted graph: its metadata on the root, its
// triples in order as one record (kg:tripleRecords, a JSON array of
// [head, relation, tail]; absent for nil triples), and every triple as a
// direct entity-to-entity edge, so that the graph is still walked entity
// to entity. A triple node per triple (index, head, relation, tail and the
// list link: five quads more per triple) made a sample's writes and its
// memstore footprint five times larger, and was only read back whole or
// by Neighbors, which the record serves. A prediction with a string that
// is not valid UTF-8 keeps the node form (JSON would alter it); reads
// take both forms, so stores written before the record still read.
func encodePrediction(k kgstore.SampleKey, p kg.Prediction) []quad.Quad {
	if !triplesUTF8(p.Triples) {
		return encodePredictionNodes(k, p)
	}
	root := predLabel(k)
	b := &builder{label: root, root: root}
	b.predictionMeta(root, k, p)
	if p.Triples != nil {
		b.add(root, pTripleRecords, quad.String(tripleRecords(p.Triples)))
	}
	for _, t := range p.Triples {
		b.add(entityIRI(root, t.Head), quad.String(t.Relation), entityIRI(root, t.Tail))
	}
	return b.quads
}

func triplesUTF8(ts []kg.Triple) bool {
	for _, t := range ts {
		if !utf8.ValidString(t.Head) || !utf8.ValidString(t.Relation) || !utf8.ValidString(t.Tail) {
			return false
		}
	}
	return true
}

func tripleRecords(ts []kg.Triple) string {
	rows := make([][3]string, len(ts))
	for i, t := range ts {
		rows[i] = [3]string{t.Head, t.Relation, t.Tail}
	}
	js, err := json.Marshal(rows)
	if err != nil {
		panic(err) // strings always encode
	}
	return string(js)
}

// decodeTripleRecords reads kg:tripleRecords back.
func decodeTripleRecords(root quad.Value, rec quad.Value) ([]kg.Triple, error) {
	s, ok := rec.(quad.String)
	if !ok {
		return nil, fmt.Errorf("%v %v: want a string, got %T", root, pTripleRecords, rec)
	}
	var rows [][3]string
	if err := json.Unmarshal([]byte(s), &rows); err != nil {
		return nil, fmt.Errorf("%v %v: %w", root, pTripleRecords, err)
	}
	out := make([]kg.Triple, len(rows))
	for i, r := range rows {
		out[i] = kg.Triple{Head: r[0], Relation: r[1], Tail: r[2]}
	}
	return out, nil
}

// recordEdges are the direct edges encodePrediction writes for triples.
func recordEdges(label quad.IRI, ts []kg.Triple) []quad.Quad {
	out := make([]quad.Quad, len(ts))
	for i, t := range ts {
		out[i] = quad.Quad{Subject: entityIRI(label, t.Head), Predicate: quad.String(t.Relation), Object: entityIRI(label, t.Tail), Label: label}
	}
	return out
}

// encodePredictionNodes writes a predicted graph with a triple node per
// triple (the model before the record).
func encodePredictionNodes(k kgstore.SampleKey, p kg.Prediction) []quad.Quad {
	root := predLabel(k)
	b := &builder{label: root, root: root}
	b.predictionMeta(root, k, p)
	b.list(root, pTriple, "triple", len(p.Triples), p.Triples == nil, func(i int, it quad.IRI) {
		b.triple(it, p.Triples[i])
	})
	return b.quads
}

func (b *builder) predictionMeta(root quad.IRI, k kgstore.SampleKey, p kg.Prediction) {
	b.add(root, pType, tPrediction)
	b.key(root, k)
	b.str(root, pQID, p.QID)
	b.str(root, pPredTaskID, p.TaskID)
	b.num(root, pSampleIdx, p.SampleIdx)
	r := p.Report
	b.str(root, pParseStatus, string(r.Status))
	b.str(root, pParseMethod, r.Method)
	b.num(root, pParseTriples, r.Triples)
	b.num(root, pParseSalvaged, r.Salvaged)
	b.num(root, pParseStringified, r.Stringified)
	b.num(root, pParseSkipped, r.Skipped)
	b.num(root, pParseMisaligned, r.Misaligned)
	b.strings(root, pNote, "note", r.Notes)
}

// encodeVerdicts writes a verdict set as records: each pass (coverage,
// validity) is one JSON array on the set's root, kg:coverageRecords and
// kg:validityRecords (absent for a nil list). A sample's verdicts as
// graph structure (an item node per verdict with its fields and supports)
// were about 5,000 quads, two thirds of a sample's writes and of its store
// space, and nothing walks them as a graph: they are read back whole, by
// key (the Neo4j export holds the queryable verdict graph). Strings that
// are not valid UTF-8 would not survive JSON, so such a set is written as
// graph structure (encodeVerdictNodes), which decodeVerdicts also reads,
// as it reads stores written before the records.
func encodeVerdicts(v kgstore.Verdicts) []quad.Quad {
	if !verdictsUTF8(v) {
		return encodeVerdictNodes(v)
	}
	root := verdictRoot(v.Key)
	b := &builder{label: verdictLabel(v.Key.Run), root: root}
	b.add(root, pType, tVerdictSet)
	b.key(root, v.Key)
	records := func(p quad.IRI, list any, isNil bool) {
		if isNil {
			return
		}
		js, err := json.Marshal(list)
		if err != nil {
			panic(err) // plain structs of strings and ints always encode
		}
		b.add(root, p, quad.String(js))
	}
	records(pCoverageRecords, v.Coverage, v.Coverage == nil)
	records(pValidityRecords, v.Validity, v.Validity == nil)
	return b.quads
}

func verdictsUTF8(v kgstore.Verdicts) bool {
	for _, c := range v.Coverage {
		if !utf8.ValidString(string(c.State)) || !utf8.ValidString(string(c.Kind)) || !utf8.ValidString(c.Judge) || !utf8.ValidString(c.Reason) {
			return false
		}
	}
	for _, c := range v.Validity {
		if !utf8.ValidString(string(c.State)) || !utf8.ValidString(c.Judge) || !utf8.ValidString(c.Reason) {
			return false
		}
	}
	return true
}

// encodeVerdictNodes writes a verdict set as graph structure: an item node
// per verdict with its fields and supports (the model before records).
func encodeVerdictNodes(v kgstore.Verdicts) []quad.Quad {
	root := verdictRoot(v.Key)
	b := &builder{label: verdictLabel(v.Key.Run), root: root}
	b.add(root, pType, tVerdictSet)
	b.key(root, v.Key)
	b.list(root, pCoverage, "coverage", len(v.Coverage), v.Coverage == nil, func(i int, it quad.IRI) {
		c := v.Coverage[i]
		b.num(it, pGTIndex, c.GTIndex)
		b.str(it, pState, string(c.State))
		b.str(it, pKind, string(c.Kind))
		b.ints(it, pSupport, "support", c.Support)
		b.str(it, pJudge, c.Judge)
		b.str(it, pReason, c.Reason)
	})
	b.list(root, pValidity, "validity", len(v.Validity), v.Validity == nil, func(i int, it quad.IRI) {
		c := v.Validity[i]
		b.num(it, pPredIndex, c.PredIndex)
		b.str(it, pState, string(c.State))
		b.ints(it, pSupport, "support", c.Support)
		b.str(it, pJudge, c.Judge)
		b.str(it, pReason, c.Reason)
	})
	return b.quads
}

// view is a read-back set of quads, indexed by subject.
type view struct {
	props map[quad.Value][]quad.Quad
}

func newGraph(qs []quad.Quad) *view {
	g := &view{props: make(map[quad.Value][]quad.Quad)}
	for _, q := range qs {
		g.props[q.Subject] = append(g.props[q.Subject], q)
	}
	return g
}

func (g *view) one(s quad.Value, p quad.IRI) quad.Value {
	for _, q := range g.props[s] {
		if q.Predicate == p {
			return q.Object
		}
	}
	return nil
}

func (g *view) str(s quad.Value, p quad.IRI) (string, error) {
	switch v := g.one(s, p).(type) {
	case nil:
		return "", nil
	case quad.String:
		return string(v), nil
	default:
		return "", fmt.Errorf("%v %v: want a string, got %T", s, p, v)
	}
}

func (g *view) num(s quad.Value, p quad.IRI) (int, error) {
	switch v := g.one(s, p).(type) {
	case nil:
		return 0, nil
	case quad.Int:
		return int(v), nil
	default:
		return 0, fmt.Errorf("%v %v: want an int, got %T", s, p, v)
	}
}

func (g *view) float(s quad.Value, p quad.IRI) (float64, error) {
	switch v := g.one(s, p).(type) {
	case nil:
		return 0, nil
	case quad.Float:
		return float64(v), nil
	default:
		return 0, fmt.Errorf("%v %v: want a float, got %T", s, p, v)
	}
}

func (g *view) entity(s quad.Value, p quad.IRI) (string, error) {
	v := g.one(s, p)
	if v == nil {
		return "", fmt.Errorf("%v: no %v", s, p)
	}
	return entityName(v)
}

// list returns the item nodes of owner's list pred in index order, or nil
// when the list was nil.
func (g *view) list(owner quad.Value, pred quad.IRI) ([]quad.Value, error) {
	cv := g.one(owner, countPred(pred))
	if cv == nil {
		return nil, nil
	}
	n, ok := cv.(quad.Int)
	if !ok || n < 0 {
		return nil, fmt.Errorf("%v %v: bad list length %v", owner, pred, cv)
	}
	out := make([]quad.Value, n)
	seen := 0
	for _, q := range g.props[owner] {
		if q.Predicate != pred {
			continue
		}
		i, err := g.num(q.Object, pIndex)
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= int(n) || out[i] != nil {
			return nil, fmt.Errorf("%v %v: bad or repeated item index %d", owner, pred, i)
		}
		out[i] = q.Object
		seen++
	}
	if seen != int(n) {
		return nil, fmt.Errorf("%v %v: %d of %d items", owner, pred, seen, n)
	}
	return out, nil
}

func (g *view) strings(owner quad.Value, pred quad.IRI) ([]string, error) {
	items, err := g.list(owner, pred)
	if items == nil || err != nil {
		return nil, err
	}
	out := make([]string, len(items))
	for i, it := range items {
		if out[i], err = g.str(it, pValue); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (g *view) ints(owner quad.Value, pred quad.IRI) ([]int, error) {
	items, err := g.list(owner, pred)
	if items == nil || err != nil {
		return nil, err
	}
	out := make([]int, len(items))
	for i, it := range items {
		if out[i], err = g.num(it, pValue); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (g *view) triple(it quad.Value) (kg.Triple, error) {
	var t kg.Triple
	var err error
	if t.Head, err = g.entity(it, pHead); err != nil {
		return t, err
	}
	if t.Relation, err = g.str(it, pRelation); err != nil {
		return t, err
	}
	t.Tail, err = g.entity(it, pTail)
	return t, err
}

// errs keeps the first error of a sequence of reads.
type errs struct{ err error }

func (e *errs) s(v string, err error) string {
	if e.err == nil {
		e.err = err
	}
	return v
}

func (e *errs) i(v int, err error) int {
	if e.err == nil {
		e.err = err
	}
	return v
}

func decodeTask(g *view, root quad.IRI) (kg.Task, error) {
	var t kg.Task
	if g.one(root, pType) != tTask {
		return t, kgstore.ErrNotFound
	}
	var e errs
	t.ID = e.s(g.str(root, pTaskID))
	t.Language = e.s(g.str(root, pLanguage))
	t.Subset = e.s(g.str(root, pSubset))
	t.FinalQuery = e.s(g.str(root, pFinalQuery))
	if e.err != nil {
		return t, e.err
	}
	nodes, err := g.list(root, pNode)
	if err != nil {
		return t, err
	}
	if nodes != nil {
		t.Nodes = make([]kg.Node, len(nodes))
	}
	for i, it := range nodes {
		n := &t.Nodes[i]
		n.ID = e.s(g.str(it, pNodeID))
		n.Name = e.s(g.entity(it, pEntity))
		if e.err != nil {
			return t, e.err
		}
		if n.Aliases, err = g.strings(it, pAlias); err != nil {
			return t, err
		}
	}
	if rec := g.one(root, pGTTripleRecords); rec != nil {
		if t.Triples, err = decodeGTTripleRecords(root, rec); err != nil {
			return t, err
		}
		t.Warnings, err = g.strings(root, pWarning)
		return t, err
	}
	triples, err := g.list(root, pTriple)
	if err != nil {
		return t, err
	}
	if triples != nil {
		t.Triples = make([]kg.GTTriple, len(triples))
	}
	for i, it := range triples {
		tr := &t.Triples[i]
		if tr.Triple, err = g.triple(it); err != nil {
			return t, err
		}
		tr.HeadID = e.s(g.str(it, pHeadID))
		tr.TailID = e.s(g.str(it, pTailID))
		tr.Stage = e.i(g.num(it, pStage))
		tr.Kind = e.s(g.str(it, pKind))
		w, err := g.float(it, pWeight)
		if e.err == nil {
			e.err = err
		}
		tr.Weight = w
		if e.err != nil {
			return t, e.err
		}
	}
	t.Warnings, err = g.strings(root, pWarning)
	return t, err
}

func decodeKey(g *view, root quad.Value) (kgstore.SampleKey, error) {
	var e errs
	k := kgstore.SampleKey{
		Run:    e.s(g.str(root, pRun)),
		TaskID: e.s(g.str(root, pKeyTask)),
		Sample: e.i(g.num(root, pKeySample)),
	}
	return k, e.err
}

func decodePrediction(g *view, root quad.IRI) (kg.Prediction, error) {
	var p kg.Prediction
	if g.one(root, pType) != tPrediction {
		return p, kgstore.ErrNotFound
	}
	var e errs
	p.QID = e.s(g.str(root, pQID))
	p.TaskID = e.s(g.str(root, pPredTaskID))
	p.SampleIdx = e.i(g.num(root, pSampleIdx))
	r := &p.Report
	r.Status = kg.ParseStatus(e.s(g.str(root, pParseStatus)))
	r.Method = e.s(g.str(root, pParseMethod))
	r.Triples = e.i(g.num(root, pParseTriples))
	r.Salvaged = e.i(g.num(root, pParseSalvaged))
	r.Stringified = e.i(g.num(root, pParseStringified))
	r.Skipped = e.i(g.num(root, pParseSkipped))
	r.Misaligned = e.i(g.num(root, pParseMisaligned))
	if e.err != nil {
		return p, e.err
	}
	var err error
	if r.Notes, err = g.strings(root, pNote); err != nil {
		return p, err
	}
	if rec := g.one(root, pTripleRecords); rec != nil {
		p.Triples, err = decodeTripleRecords(root, rec)
		return p, err
	}
	items, err := g.list(root, pTriple)
	if err != nil {
		return p, err
	}
	if items != nil {
		p.Triples = make([]kg.Triple, len(items))
	}
	for i, it := range items {
		if p.Triples[i], err = g.triple(it); err != nil {
			return p, err
		}
	}
	return p, nil
}

func decodeVerdicts(g *view, root quad.IRI) (kgstore.Verdicts, error) {
	var v kgstore.Verdicts
	if g.one(root, pType) != tVerdictSet {
		return v, kgstore.ErrNotFound
	}
	var err error
	if v.Key, err = decodeKey(g, root); err != nil {
		return v, err
	}
	cr, vr := g.one(root, pCoverageRecords), g.one(root, pValidityRecords)
	if cr != nil || vr != nil {
		if err := decodeRecords(root, pCoverageRecords, cr, &v.Coverage); err != nil {
			return v, err
		}
		return v, decodeRecords(root, pValidityRecords, vr, &v.Validity)
	}
	cov, err := g.list(root, pCoverage)
	if err != nil {
		return v, err
	}
	if cov != nil {
		v.Coverage = make([]kg.Verdict, len(cov))
	}
	var e errs
	for i, it := range cov {
		c := &v.Coverage[i]
		c.GTIndex = e.i(g.num(it, pGTIndex))
		c.State = kg.State(e.s(g.str(it, pState)))
		c.Kind = kg.CoverageKind(e.s(g.str(it, pKind)))
		c.Judge = e.s(g.str(it, pJudge))
		c.Reason = e.s(g.str(it, pReason))
		if e.err != nil {
			return v, e.err
		}
		if c.Support, err = g.ints(it, pSupport); err != nil {
			return v, err
		}
	}
	val, err := g.list(root, pValidity)
	if err != nil {
		return v, err
	}
	if val != nil {
		v.Validity = make([]kg.Validity, len(val))
	}
	for i, it := range val {
		c := &v.Validity[i]
		c.PredIndex = e.i(g.num(it, pPredIndex))
		c.State = kg.State(e.s(g.str(it, pState)))
		c.Judge = e.s(g.str(it, pJudge))
		c.Reason = e.s(g.str(it, pReason))
		if e.err != nil {
			return v, e.err
		}
		if c.Support, err = g.ints(it, pSupport); err != nil {
			return v, err
		}
	}
	return v, nil
}

// decodeRecords reads one pass written by encodeVerdicts (nil: absent).
func decodeRecords(root quad.Value, p quad.IRI, rec quad.Value, out any) error {
	if rec == nil {
		return nil
	}
	s, ok := rec.(quad.String)
	if !ok {
		return fmt.Errorf("%v %v: want a string, got %T", root, p, rec)
	}
	if err := json.Unmarshal([]byte(s), out); err != nil {
		return fmt.Errorf("%v %v: %w", root, p, err)
	}
	return nil
}

// directEdges derives the direct entity-to-entity edges that the triple
// nodes among quads imply (as builder.triple writes them).
func directEdges(label quad.Value, quads []quad.Quad) []quad.Quad {
	type parts struct{ h, r, t quad.Value }
	nodes := map[quad.Value]*parts{}
	for _, q := range quads {
		if q.Predicate != pHead && q.Predicate != pRelation && q.Predicate != pTail {
			continue
		}
		p := nodes[q.Subject]
		if p == nil {
			p = &parts{r: quad.String("")}
			nodes[q.Subject] = p
		}
		switch q.Predicate {
		case pHead:
			p.h = q.Object
		case pRelation:
			p.r = q.Object
		case pTail:
			p.t = q.Object
		}
	}
	var out []quad.Quad
	for _, p := range nodes {
		if p.h != nil && p.t != nil {
			out = append(out, quad.Quad{Subject: p.h, Predicate: p.r, Object: p.t, Label: label})
		}
	}
	return out
}
