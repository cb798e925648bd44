package neo4j

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/storetest"
)

// shape summarises a namespace: nodes per label set, relationships per
// type, and the derived verdict facts, for comparing two writes.
func shape(t *testing.T, s *Store) map[string]any {
	t.Helper()
	ctx := context.Background()
	out := map[string]any{}
	for name, q := range map[string]string{
		"nodes": `MATCH (n) WHERE n.ns = $ns
			RETURN reduce(s = '', l IN labels(n) | s + ':' + l) AS k, count(*) AS n ORDER BY k`,
		"rels": `MATCH (n)-[r]->() WHERE n.ns = $ns RETURN type(r) AS k, count(*) AS n ORDER BY k`,
		"judged": `MATCH (s:Sample {ns: $ns})-[j:JUDGED]->(g:GT)
			RETURN s.run + '/' + s.task + '/' + toString(s.sample) + ' ' + toString(j.pos) + ' ' + toString(g.index) + ' ' + j.state AS k, count(*) AS n ORDER BY k`,
		"covered_by": `MATCH (g:GT)-[c:COVERED_BY]->(p:Pred) WHERE p.ns = $ns
			RETURN c.run + ' ' + toString(g.index) + '->' + toString(p.index) + ' ' + c.state AS k, count(*) AS n ORDER BY k`,
		"supported_by": `MATCH (p:Pred)-[c:SUPPORTED_BY]->(g:GT) WHERE p.ns = $ns
			RETURN c.run + ' ' + toString(p.index) + '->' + toString(g.index) AS k, count(*) AS n ORDER BY k`,
		"valid": `MATCH (p:Pred) WHERE p.ns = $ns AND p.valid IS NOT NULL
			RETURN p.run + ' ' + toString(p.index) + ' ' + p.valid AS k, count(*) AS n ORDER BY k`,
		"entities": `MATCH (e:Entity {ns: $ns}) RETURN e.task + '/' + e.name AS k, count{ (e)--() } AS n ORDER BY k`,
		"rel_edges": `MATCH (a:Entity {ns: $ns})-[r:REL]->(b)
			RETURN r.source + ' ' + r.task + ' ' + coalesce(r.run, '') + ' ' + toString(coalesce(r.sample, -9)) + ' ' + toString(r.index) + ' ' + a.name + ' -' + r.relation + '-> ' + b.name AS k, count(*) AS n ORDER BY k`,
	} {
		res, err := s.Query(ctx, q, nil, false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = res.Rows
	}
	return out
}

func diffShape(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	for k := range want {
		if !reflect.DeepEqual(got[k], want[k]) {
			t.Errorf("%s: %s differ:\n got %v\nwant %v", what, k, brief(got[k]), brief(want[k]))
		}
	}
}

func writeAll(t *testing.T, s kgstore.Store, order string) {
	t.Helper()
	ctx := context.Background()
	tasks, preds, verdicts := storetest.Tasks(), storetest.Predictions(), storetest.VerdictSets()
	steps := map[byte]func(){
		't': func() {
			for _, x := range tasks {
				if err := s.PutTask(ctx, x); err != nil {
					t.Fatal(err)
				}
			}
		},
		'p': func() {
			for _, x := range preds {
				if err := s.PutPrediction(ctx, x.Key, x.Prediction); err != nil {
					t.Fatal(err)
				}
			}
		},
		'v': func() {
			for _, x := range verdicts {
				if err := s.PutVerdicts(ctx, x); err != nil {
					t.Fatal(err)
				}
			}
		},
	}
	for i := 0; i < len(order); i++ {
		steps[order[i]]()
	}
}

// TestWriteOrder: whatever order tasks, predictions and verdicts arrive in
// (one by one or batched), the graph ends up the same, and writing it all
// again changes nothing.
func TestWriteOrder(t *testing.T) {
	base := openTest(t, testConfig(t))
	defer base.Close()
	writeAll(t, base, "tpv")
	want := shape(t, base)
	if n := want["covered_by"].([][]any); len(n) == 0 {
		t.Fatal("no COVERED_BY edges: the fixtures test nothing")
	}
	for _, order := range []string{"vpt", "pvt", "tvp", "tpvtpv"} {
		s := openTest(t, testConfig(t))
		writeAll(t, s, order)
		diffShape(t, "order "+order, shape(t, s), want)
		s.Close()
	}
	// Batched, verdicts first, in small transactions.
	cfg := testConfig(t)
	cfg.BatchRows, cfg.Parallel = 7, 3
	s := openTest(t, cfg)
	defer s.Close()
	w := s.NewWriter()
	writeAll(t, writerStore{w}, "vpt")
	if err := w.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Transactions < 3 {
		t.Errorf("BatchRows 7 gave %d transactions", st.Transactions)
	}
	diffShape(t, "batched", shape(t, s), want)
	// A second sync is skipped graph by graph.
	w2 := s.NewWriter()
	writeAll(t, writerStore{w2}, "tpv")
	if err := w2.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := w2.Stats()
	if n := len(storetest.Tasks()) + len(storetest.Predictions()) + len(storetest.VerdictSets()); st.Unchanged != n || st.Triples != 0 {
		t.Errorf("second sync: %+v, want %d unchanged, nothing written", st, n)
	}
	diffShape(t, "resync", shape(t, s), want)
}

// writerStore lets writeAll drive a Writer.
type writerStore struct{ w *Writer }

func (s writerStore) PutTask(ctx context.Context, t kg.Task) error { return s.w.PutTask(ctx, t) }
func (s writerStore) PutPrediction(ctx context.Context, k kgstore.SampleKey, p kg.Prediction) error {
	return s.w.PutPrediction(ctx, k, p)
}
func (s writerStore) PutVerdicts(ctx context.Context, v kgstore.Verdicts) error {
	return s.w.PutVerdicts(ctx, v)
}
func (writerStore) Task(context.Context, string) (kg.Task, error) { panic("unused") }
func (writerStore) TaskIDs(context.Context) ([]string, error)     { panic("unused") }
func (writerStore) Prediction(context.Context, kgstore.SampleKey) (kg.Prediction, error) {
	panic("unused")
}
func (writerStore) Samples(context.Context, string) ([]kgstore.SampleKey, error) { panic("unused") }
func (writerStore) Runs(context.Context) ([]string, error)                       { panic("unused") }
func (writerStore) Verdicts(context.Context, kgstore.SampleKey) (kgstore.Verdicts, error) {
	panic("unused")
}
func (writerStore) Neighbors(context.Context, kgstore.SampleKey, string) ([]kgstore.Edge, error) {
	panic("unused")
}
func (writerStore) PutRun(context.Context, kgstore.RunInfo) error         { panic("unused") }
func (writerStore) Run(context.Context, string) (kgstore.RunInfo, error)  { panic("unused") }
func (writerStore) DeleteRun(context.Context, string) error               { panic("unused") }
func (writerStore) DeleteSample(context.Context, kgstore.SampleKey) error { panic("unused") }
func (writerStore) Close() error                                          { return nil }

// TestReplaceCleansUp: a smaller graph leaves no stale triples, direct
// edges, verdict edges or orphaned entities behind.
func TestReplaceCleansUp(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testConfig(t))
	defer s.Close()
	key := kgstore.SampleKey{Run: "r", TaskID: "t"}
	task := kg.Task{ID: "t", Triples: []kg.GTTriple{{Triple: kg.Triple{Head: "a", Relation: "r", Tail: "b"}}}}
	big := kg.Prediction{Triples: []kg.Triple{{Head: "a", Relation: "r", Tail: "b"}, {Head: "x", Relation: "r", Tail: "y"}}}
	v := kgstore.Verdicts{Key: key,
		Coverage: []kg.Verdict{{GTIndex: 0, State: kg.Covered, Kind: kg.KindCollective, Support: []int{0, 1}}},
		Validity: []kg.Validity{{PredIndex: 1, State: kg.Uncovered}}}
	for _, err := range []error{s.PutTask(ctx, task), s.PutPrediction(ctx, key, big), s.PutVerdicts(ctx, v)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	small := kg.Prediction{Triples: []kg.Triple{{Head: "a", Relation: "r2", Tail: "b"}}}
	if err := s.PutPrediction(ctx, key, small); err != nil {
		t.Fatal(err)
	}
	got := shape(t, s)
	// Reference: the same end state written into an empty namespace.
	ref := openTest(t, testConfig(t))
	defer ref.Close()
	for _, err := range []error{ref.PutTask(ctx, task), ref.PutPrediction(ctx, key, small), ref.PutVerdicts(ctx, v)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	diffShape(t, "after replacing", got, shape(t, ref))
	if fmt.Sprint(got["entities"]) != "[[t/a 4] [t/b 4]]" {
		t.Errorf("entities = %v, want a and b only (x and y orphaned and removed)", got["entities"])
	}
	if fmt.Sprint(got["covered_by"]) != "[[r 0->0 covered 1]]" {
		t.Errorf("COVERED_BY = %v, want only the edge to the surviving triple 0", got["covered_by"])
	}
}

func TestKeysRejectSeparator(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testConfig(t))
	defer s.Close()
	for _, err := range []error{
		s.PutTask(ctx, kg.Task{ID: "a\x1fb"}),
		s.PutPrediction(ctx, kgstore.SampleKey{Run: "r\x1f", TaskID: "t"}, kg.Prediction{}),
		s.PutVerdicts(ctx, kgstore.Verdicts{Key: kgstore.SampleKey{Run: "r", TaskID: "\x1f"}}),
		s.NewWriter().SetRunProps(ctx, "r", map[string]any{"key": "x"}),
	} {
		if err == nil || !strings.Contains(err.Error(), "U+001F") && !strings.Contains(err.Error(), "managed") {
			t.Errorf("err = %v, want a refusal", err)
		}
	}
	if _, err := Open(ctx, Config{}); err == nil {
		t.Errorf("Open without a URI succeeded")
	}
}

// TestNamespaces: two namespaces in one database do not see each other.
func TestNamespaces(t *testing.T) {
	ctx := context.Background()
	a := openTest(t, testConfig(t))
	defer a.Close()
	b := openTest(t, testConfig(t))
	defer b.Close()
	task := storetest.Tasks()[0]
	if err := a.PutTask(ctx, task); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Task(ctx, task.ID); !errors.Is(err, kgstore.ErrNotFound) {
		t.Errorf("namespace b sees a's task: %v", err)
	}
	if ids, _ := b.TaskIDs(ctx); len(ids) != 0 {
		t.Errorf("namespace b lists %v", ids)
	}
	res, err := a.Query(ctx, "MATCH (t:Task {ns: $ns}) RETURN t.id, t.class", nil, false)
	if err != nil || len(res.Rows) != 1 {
		t.Errorf("Query in a: %v %v", res, err)
	}
}

// TestClasses: every triple node carries its relation class.
func TestClasses(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testConfig(t))
	defer s.Close()
	task := kg.Task{ID: "t", Triples: []kg.GTTriple{
		{Triple: kg.Triple{Head: "Paper X", Relation: "published in", Tail: "Science"}},
		{Triple: kg.Triple{Head: "Marie Curie", Relation: "born in", Tail: "Warsaw"}},
	}}
	if err := s.PutTask(ctx, task); err != nil {
		t.Fatal(err)
	}
	res, err := s.Query(ctx, "MATCH (:Task {ns: $ns})-[:HAS_TRIPLE]->(g:GT) RETURN g.relation, g.class ORDER BY g.index", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.Rows) != "[[published in bibliographic] [born in factual]]" {
		t.Errorf("classes = %v", res.Rows)
	}
}

// fixedClasses classifies every triple as one class, under a version.
type fixedClasses struct{ class, version string }

func (f fixedClasses) Classify(g []kg.Triple) []string {
	out := make([]string, len(g))
	for i := range out {
		out[i] = f.class
	}
	return out
}
func (f fixedClasses) Version() string { return f.version }

// TestClassVersionRewrites: the classifier's version is part of a graph's
// content hash, so the same task written under a new lexicon gets the new
// classes, and under the same lexicon is skipped.
func TestClassVersionRewrites(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t)
	task := kg.Task{ID: "t", Triples: []kg.GTTriple{{Triple: kg.Triple{Head: "a", Relation: "r", Tail: "b"}}}}
	for _, step := range []struct {
		cls  fixedClasses
		want string
	}{
		{fixedClasses{"factual", "v1"}, "factual"},
		{fixedClasses{"meta", "v1"}, "factual"}, // same version: unchanged, skipped
		{fixedClasses{"meta", "v2"}, "meta"},
	} {
		cfg.Classes = step.cls
		s := openTest(t, cfg)
		if err := s.PutTask(ctx, task); err != nil {
			t.Fatal(err)
		}
		res, err := s.Query(ctx, "MATCH (:Task {ns: $ns})-[:HAS_TRIPLE]->(g:GT) RETURN g.class", nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(res.Rows) != "[["+step.want+"]]" {
			t.Errorf("classifier %+v: classes = %v, want %s", step.cls, res.Rows, step.want)
		}
		s.Close()
	}
}
