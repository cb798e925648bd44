// Package storetest is the conformance suite every kgstore.Store backend must pass (Cayley, Neo4j, ...).
// It owns the behaviour the interface promises; it must not depend on any one backend's internals.
//
// A backend's test calls Run with a function that opens a fresh, empty
// store; a persistent backend also calls RunReopen:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) kgstore.Store { return openEmpty(t) })
//	}
//
// Reads must give back exactly what was written, compared with
// reflect.DeepEqual: order, duplicates, empty strings, ints out of any
// range (supports of 9999 or -1), and nil versus empty slices (JSON null
// versus []) all count. Only the Source fields are not kept. A prediction's
// own QID, TaskID and SampleIdx are kept as given, independent of its key.
// Samples of an unknown run and Neighbors of an unknown name are empty, not
// errors; Task, Prediction, Verdicts and Neighbors of a missing graph wrap
// kgstore.ErrNotFound.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
)

// Run runs the conformance suite. open must return a new, empty store; the
// suite closes it.
func Run(t *testing.T, open func(t *testing.T) kgstore.Store) {
	t.Helper()
	cases := []struct {
		name string
		fn   func(t *testing.T, s kgstore.Store)
	}{
		{"TaskRoundTrip", testTaskRoundTrip},
		{"TaskIdempotent", testTaskIdempotent},
		{"PredictionRoundTrip", testPredictionRoundTrip},
		{"PredictionIdempotent", testPredictionIdempotent},
		{"VerdictsRoundTrip", testVerdictsRoundTrip},
		{"VerdictsIdempotent", testVerdictsIdempotent},
		{"Listing", testListing},
		{"NotFound", testNotFound},
		{"Neighbors", testNeighbors},
		{"Context", testContext},
		{"Concurrent", testConcurrent},
		{"Large", testLarge},
		{"RunInfoRoundTrip", testRunInfoRoundTrip},
		{"DeleteSample", testDeleteSample},
		{"DeleteRun", testDeleteRun},
		{"PutSamples", testPutSamples},
		{"PutTasks", testPutTasks},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := open(t)
			defer func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			}()
			c.fn(t, s)
		})
	}
}

// RunReopen checks persistence: everything written through a store opened
// by open is read back identical through a second store opened by reopen
// after the first is closed. reopen must open the same storage; the suite
// closes both.
func RunReopen(t *testing.T, open, reopen func(t *testing.T) kgstore.Store) {
	t.Helper()
	t.Run("Reopen", func(t *testing.T) {
		ctx := context.Background()
		s := open(t)
		tasks := Tasks()
		for _, task := range tasks {
			mustPutTask(t, s, task)
		}
		preds := Predictions()
		for _, p := range preds {
			must(t, s.PutPrediction(ctx, p.Key, p.Prediction), "PutPrediction")
		}
		verdicts := VerdictSets()
		for _, v := range verdicts {
			must(t, s.PutVerdicts(ctx, v), "PutVerdicts")
		}
		infos := RunInfos()
		must(t, s.PutRun(ctx, infos[0]), "PutRun")
		must(t, s.Close(), "Close")

		s2 := reopen(t)
		defer func() { must(t, s2.Close(), "Close") }()
		for _, task := range tasks {
			checkTask(t, s2, task)
		}
		for _, p := range preds {
			checkPrediction(t, s2, p.Key, p.Prediction)
		}
		for _, v := range verdicts {
			checkVerdicts(t, s2, v)
		}
		ids, err := s2.TaskIDs(ctx)
		must(t, err, "TaskIDs")
		if want := sortedTaskIDs(tasks); !reflect.DeepEqual(ids, want) {
			t.Errorf("TaskIDs after reopen = %q, want %q", ids, want)
		}
		runs, err := s2.Runs(ctx)
		must(t, err, "Runs")
		if want := []string{"run-a", "run/b", "空 run"}; !reflect.DeepEqual(runs, want) {
			t.Errorf("Runs after reopen = %q, want %q", runs, want)
		}
		edges, err := s2.Neighbors(ctx, preds[0].Key, "Marie Curie")
		must(t, err, "Neighbors")
		if len(edges) == 0 {
			t.Errorf("Neighbors after reopen: no edges")
		}
		checkRun(t, s2, infos[0])
	})
}

func must(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func mustPutTask(t *testing.T, s kgstore.Store, task kg.Task) {
	t.Helper()
	must(t, s.PutTask(context.Background(), task), "PutTask "+task.ID)
}

func checkTask(t *testing.T, s kgstore.Store, want kg.Task) {
	t.Helper()
	got, err := s.Task(context.Background(), want.ID)
	if err != nil {
		t.Fatalf("Task(%q): %v", want.ID, err)
	}
	want.Source = ""
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Task(%q) round trip:\n got %s\nwant %s", want.ID, brief(got), brief(want))
	}
}

func checkPrediction(t *testing.T, s kgstore.Store, key kgstore.SampleKey, want kg.Prediction) {
	t.Helper()
	got, err := s.Prediction(context.Background(), key)
	if err != nil {
		t.Fatalf("Prediction(%+v): %v", key, err)
	}
	want.Source = ""
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Prediction(%+v) round trip:\n got %s\nwant %s", key, brief(got), brief(want))
	}
}

func checkVerdicts(t *testing.T, s kgstore.Store, want kgstore.Verdicts) {
	t.Helper()
	got, err := s.Verdicts(context.Background(), want.Key)
	if err != nil {
		t.Fatalf("Verdicts(%+v): %v", want.Key, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Verdicts(%+v) round trip:\n got %s\nwant %s", want.Key, brief(got), brief(want))
	}
}

// Tasks returns the suite's ground-truth fixtures: id-based with aliases,
// weights, stages and kinds; name-based; CJK and spaces in ids; empty
// strings; duplicate triples; nil and empty lists.
func Tasks() []kg.Task {
	return []kg.Task{
		{
			ID:         "task-001",
			Language:   "en",
			Subset:     "pro",
			FinalQuery: "Who discovered radium, and where was she born?",
			Nodes: []kg.Node{
				{ID: "n1", Name: "Marie Curie", Aliases: []string{"Maria Skłodowska", "Madame Curie", "Madame Curie"}},
				{ID: "n2", Name: "radium"},
				{ID: "n3", Name: "Warsaw", Aliases: []string{}},
				{ID: "n4", Name: "Nobel Prize in Chemistry"}, // used by no triple
			},
			Triples: []kg.GTTriple{
				{Triple: kg.Triple{Head: "Marie Curie", Relation: "discovered", Tail: "radium"}, HeadID: "n1", TailID: "n2", Weight: 2.5, Stage: 1, Kind: "fact"},
				{Triple: kg.Triple{Head: "Marie Curie", Relation: "born in", Tail: "Warsaw"}, HeadID: "n1", TailID: "n3", Weight: 0.1, Stage: 2},
				{Triple: kg.Triple{Head: "Marie Curie", Relation: "born in", Tail: "Warsaw"}, HeadID: "n1", TailID: "n3", Weight: 0.1, Stage: 2},
				{Triple: kg.Triple{Head: "radium", Relation: "weight", Tail: "226"}, HeadID: "n2", TailID: "x9", Weight: -1, Stage: -3, Kind: "numeric"},
			},
			Warnings: []string{"triple 3: tail id \"x9\" has no node; using the id as its name", "", "triple 3: tail id \"x9\" has no node; using the id as its name"},
			Source:   "testdata/task-001.json",
		},
		{
			ID:         "名前 based task / 1",
			Language:   "zh",
			FinalQuery: "居里夫人发现了什么？",
			Nodes:      []kg.Node{{Name: "居里夫人"}, {Name: "镭"}, {Name: ""}},
			Triples: []kg.GTTriple{
				{Triple: kg.Triple{Head: "居里夫人", Relation: "发现", Tail: "镭"}},
				{Triple: kg.Triple{Head: "", Relation: "", Tail: ""}},
				{Triple: kg.Triple{Head: "镭", Relation: "is a", Tail: "element #88 <chem>"}},
			},
		},
		{ID: "empty lists", Nodes: []kg.Node{}, Triples: []kg.GTTriple{}, Warnings: []string{}},
		{ID: "nil lists"},
		{ID: " spaced id \t\n", FinalQuery: "  leading and trailing  ", Nodes: []kg.Node{{ID: " ", Name: " "}}},
	}
}

// Prediction is a fixture: a predicted graph and the key it is stored under.
type Prediction struct {
	Key kgstore.SampleKey
	kg.Prediction
}

// Predictions returns the suite's prediction fixtures: several runs and
// samples, parse reports with every field, duplicates, empty strings.
func Predictions() []Prediction {
	k := func(run, task string, sample int) kgstore.SampleKey {
		return kgstore.SampleKey{Run: run, TaskID: task, Sample: sample}
	}
	return []Prediction{
		{k("run-a", "task-001", 0), kg.Prediction{
			QID: "task-001", TaskID: "task-001", SampleIdx: 0,
			Triples: []kg.Triple{
				{Head: "Marie Curie", Relation: "discovered", Tail: "radium"},
				{Head: "Marie Curie", Relation: "born in", Tail: "Warsaw"},
				{Head: "Pierre Curie", Relation: "married", Tail: "Marie Curie"},
				{Head: "Marie Curie", Relation: "discovered", Tail: "radium"},
				{Head: "radium", Relation: "", Tail: ""},
			},
			Report: kg.ParseReport{Status: kg.ParseRepaired, Method: "repair", Triples: 5, Stringified: 1, Notes: []string{"fixed smart quotes", "fixed smart quotes"}},
			Source: "runs/a.jsonl:1",
		}},
		{k("run-a", "task-001", 1), kg.Prediction{
			QID: "001", TaskID: "task-001", SampleIdx: 1,
			Triples: []kg.Triple{{Head: "Marie Curie", Relation: "won", Tail: "Nobel Prize"}},
			Report:  kg.ParseReport{Status: kg.ParseSalvaged, Method: "salvage", Triples: 1, Salvaged: 1, Skipped: 2, Misaligned: 3, Notes: []string{}},
		}},
		{k("run-a", "名前 based task / 1", 0), kg.Prediction{
			QID: "名前 based task / 1", TaskID: "名前 based task / 1",
			Triples: []kg.Triple{{Head: "居里夫人", Relation: "发现", Tail: "镭"}},
			Report:  kg.ParseReport{Status: kg.ParseClean, Method: "fence", Triples: 1},
		}},
		{k("run/b", "task-001", 0), kg.Prediction{
			QID:     "task-001",
			Triples: []kg.Triple{},
			Report:  kg.ParseReport{Status: kg.ParseEmpty},
		}},
		{k("空 run", "task-001", 7), kg.Prediction{
			QID:    "unmatched-qid",
			Report: kg.ParseReport{Status: kg.ParseMalformed, Notes: []string{"no JSON found"}},
		}},
		{k("run-a", "task-001", -1), kg.Prediction{SampleIdx: -1, Triples: []kg.Triple{{Head: "a", Relation: "b", Tail: "c"}}, Report: kg.ParseReport{Status: kg.ParseTruncated, Triples: 1}}},
	}
}

// VerdictSets returns the suite's verdict fixtures: every state and kind,
// supports with duplicates and out-of-range values, nil and empty lists,
// validity passes.
func VerdictSets() []kgstore.Verdicts {
	return []kgstore.Verdicts{
		{
			Key: kgstore.SampleKey{Run: "run-a", TaskID: "task-001", Sample: 0},
			Coverage: []kg.Verdict{
				{GTIndex: 0, State: kg.Covered, Kind: kg.KindDirect, Support: []int{0, 3, 3}, Judge: "offline", Reason: "same triple"},
				{GTIndex: 1, State: kg.Covered, Kind: kg.KindSubsumption, Support: []int{1}, Judge: "gpt-x", Reason: "“born in” ⊂ birthplace"},
				{GTIndex: 2, State: kg.Covered, Kind: kg.KindCollective, Support: []int{9999, -1, 0}, Judge: "gpt-x"},
				{GTIndex: 3, State: kg.Uncovered, Support: []int{}, Judge: "offline", Reason: ""},
				{GTIndex: 3, State: kg.Unjudged, Judge: "", Reason: "budget exhausted"},
				{GTIndex: -5, State: kg.Covered, Kind: kg.KindCompositional, Support: []int{2, 1}, Judge: "gpt-x"},
				{GTIndex: 70000, State: kg.Covered, Kind: kg.KindRecorded, Support: []int{0}, Judge: "replay"},
			},
			Validity: []kg.Validity{
				{PredIndex: 0, State: kg.Covered, Support: []int{0}, Judge: "offline"},
				{PredIndex: 2, State: kg.Uncovered, Support: nil, Judge: "gpt-x", Reason: "not in GT"},
				{PredIndex: 4, State: kg.Unjudged, Support: []int{}, Judge: ""},
			},
		},
		{
			Key:      kgstore.SampleKey{Run: "run-a", TaskID: "task-001", Sample: 1},
			Coverage: []kg.Verdict{{GTIndex: 0, State: kg.Uncovered, Judge: "offline"}},
		},
		{
			Key:      kgstore.SampleKey{Run: "run/b", TaskID: "名前 based task / 1", Sample: 0},
			Coverage: []kg.Verdict{},
			Validity: []kg.Validity{},
		},
		{Key: kgstore.SampleKey{Run: "空 run", TaskID: "verdicts only", Sample: 3}},
	}
}

func sortedTaskIDs(tasks []kg.Task) []string {
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	sort.Strings(ids)
	return ids
}

func testTaskRoundTrip(t *testing.T, s kgstore.Store) {
	for _, task := range Tasks() {
		mustPutTask(t, s, task)
	}
	for _, task := range Tasks() {
		checkTask(t, s, task)
	}
}

func testTaskIdempotent(t *testing.T, s kgstore.Store) {
	big := Tasks()[0]
	mustPutTask(t, s, big)
	mustPutTask(t, s, big)
	checkTask(t, s, big)

	small := kg.Task{
		ID:      big.ID,
		Nodes:   []kg.Node{{ID: "n9", Name: "radium", Aliases: []string{"Ra"}}},
		Triples: []kg.GTTriple{{Triple: kg.Triple{Head: "radium", Relation: "discovered by", Tail: "Marie Curie"}, Weight: 1}},
	}
	mustPutTask(t, s, small)
	checkTask(t, s, small)
	mustPutTask(t, s, big)
	checkTask(t, s, big)
	mustPutTask(t, s, small)
	checkTask(t, s, small)

	ids, err := s.TaskIDs(context.Background())
	must(t, err, "TaskIDs")
	if !reflect.DeepEqual(ids, []string{big.ID}) {
		t.Errorf("TaskIDs = %q, want [%q]", ids, big.ID)
	}
}

func testPredictionRoundTrip(t *testing.T, s kgstore.Store) {
	ctx := context.Background()
	for _, p := range Predictions() {
		must(t, s.PutPrediction(ctx, p.Key, p.Prediction), "PutPrediction")
	}
	for _, p := range Predictions() {
		checkPrediction(t, s, p.Key, p.Prediction)
	}
}

func testPredictionIdempotent(t *testing.T, s kgstore.Store) {
	ctx := context.Background()
	ps := Predictions()
	big, other := ps[0], ps[1]
	must(t, s.PutPrediction(ctx, big.Key, big.Prediction), "PutPrediction")
	must(t, s.PutPrediction(ctx, other.Key, other.Prediction), "PutPrediction")
	must(t, s.PutPrediction(ctx, big.Key, big.Prediction), "PutPrediction")
	checkPrediction(t, s, big.Key, big.Prediction)

	small := kg.Prediction{QID: "q", Triples: []kg.Triple{{Head: "Marie Curie", Relation: "born in", Tail: "Paris"}}, Report: kg.ParseReport{Status: kg.ParseClean, Triples: 1}}
	must(t, s.PutPrediction(ctx, big.Key, small), "PutPrediction")
	checkPrediction(t, s, big.Key, small)
	checkPrediction(t, s, other.Key, other.Prediction)

	edges, err := s.Neighbors(ctx, big.Key, "Marie Curie")
	must(t, err, "Neighbors")
	want := []kgstore.Edge{{Index: 0, Triple: small.Triples[0]}}
	if !reflect.DeepEqual(edges, want) {
		t.Errorf("Neighbors after a smaller graph = %+v, want %+v (stale triples?)", edges, want)
	}
	edges, err = s.Neighbors(ctx, big.Key, "radium")
	must(t, err, "Neighbors")
	if len(edges) != 0 {
		t.Errorf("Neighbors(radium) after a smaller graph = %+v, want none", edges)
	}
	keys, err := s.Samples(ctx, big.Key.Run)
	must(t, err, "Samples")
	if !reflect.DeepEqual(keys, []kgstore.SampleKey{big.Key, other.Key}) {
		t.Errorf("Samples = %+v, want %+v", keys, []kgstore.SampleKey{big.Key, other.Key})
	}
}

func testVerdictsRoundTrip(t *testing.T, s kgstore.Store) {
	ctx := context.Background()
	for _, v := range VerdictSets() {
		must(t, s.PutVerdicts(ctx, v), "PutVerdicts")
	}
	for _, v := range VerdictSets() {
		checkVerdicts(t, s, v)
	}
}

func testVerdictsIdempotent(t *testing.T, s kgstore.Store) {
	ctx := context.Background()
	vs := VerdictSets()
	big, sibling := vs[0], vs[1] // same run, different samples
	must(t, s.PutVerdicts(ctx, big), "PutVerdicts")
	must(t, s.PutVerdicts(ctx, sibling), "PutVerdicts")
	must(t, s.PutVerdicts(ctx, big), "PutVerdicts")
	checkVerdicts(t, s, big)
	checkVerdicts(t, s, sibling)

	small := kgstore.Verdicts{Key: big.Key, Coverage: []kg.Verdict{{GTIndex: 1, State: kg.Covered, Kind: kg.KindDirect, Support: []int{4}, Judge: "offline"}}}
	must(t, s.PutVerdicts(ctx, small), "PutVerdicts")
	checkVerdicts(t, s, small)
	checkVerdicts(t, s, sibling)
	must(t, s.PutVerdicts(ctx, big), "PutVerdicts")
	checkVerdicts(t, s, big)
	checkVerdicts(t, s, sibling)
}

func testListing(t *testing.T, s kgstore.Store) {
	ctx := context.Background()
	ids, err := s.TaskIDs(ctx)
	must(t, err, "TaskIDs")
	if len(ids) != 0 {
		t.Errorf("TaskIDs of an empty store = %q", ids)
	}
	runs, err := s.Runs(ctx)
	must(t, err, "Runs")
	if len(runs) != 0 {
		t.Errorf("Runs of an empty store = %q", runs)
	}
	// Write in an order that is not the sorted one.
	tasks := Tasks()
	for i := len(tasks) - 1; i >= 0; i-- {
		mustPutTask(t, s, tasks[i])
	}
	preds := Predictions()
	for i := len(preds) - 1; i >= 0; i-- {
		must(t, s.PutPrediction(ctx, preds[i].Key, preds[i].Prediction), "PutPrediction")
	}
	// A run with verdicts only.
	must(t, s.PutVerdicts(ctx, kgstore.Verdicts{Key: kgstore.SampleKey{Run: "judged-only", TaskID: "task-001"}}), "PutVerdicts")

	ids, err = s.TaskIDs(ctx)
	must(t, err, "TaskIDs")
	if want := sortedTaskIDs(tasks); !reflect.DeepEqual(ids, want) {
		t.Errorf("TaskIDs = %q, want %q", ids, want)
	}
	runs, err = s.Runs(ctx)
	must(t, err, "Runs")
	if want := []string{"judged-only", "run-a", "run/b", "空 run"}; !reflect.DeepEqual(runs, want) {
		t.Errorf("Runs = %q, want %q", runs, want)
	}
	keys, err := s.Samples(ctx, "run-a")
	must(t, err, "Samples")
	want := []kgstore.SampleKey{
		{Run: "run-a", TaskID: "task-001", Sample: -1},
		{Run: "run-a", TaskID: "task-001", Sample: 0},
		{Run: "run-a", TaskID: "task-001", Sample: 1},
		{Run: "run-a", TaskID: "名前 based task / 1", Sample: 0},
	}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("Samples(run-a) = %+v, want %+v", keys, want)
	}
	for run, want := range map[string][]kgstore.SampleKey{
		"run/b":       {{Run: "run/b", TaskID: "task-001", Sample: 0}},
		"空 run":       {{Run: "空 run", TaskID: "task-001", Sample: 7}},
		"judged-only": nil,
		"run":         nil, // a prefix of real runs
		"no such run": nil,
	} {
		keys, err := s.Samples(ctx, run)
		must(t, err, "Samples")
		if len(keys) != len(want) || (len(want) > 0 && !reflect.DeepEqual(keys, want)) {
			t.Errorf("Samples(%q) = %+v, want %+v", run, keys, want)
		}
	}
	// Samples are sorted numerically, not as text.
	for _, i := range []int{10, 2, 1} {
		key := kgstore.SampleKey{Run: "numeric", TaskID: "t", Sample: i}
		must(t, s.PutPrediction(ctx, key, kg.Prediction{SampleIdx: i}), "PutPrediction")
	}
	keys, err = s.Samples(ctx, "numeric")
	must(t, err, "Samples")
	if len(keys) != 3 || keys[0].Sample != 1 || keys[1].Sample != 2 || keys[2].Sample != 10 {
		t.Errorf("Samples(numeric) = %+v, want samples 1, 2, 10", keys)
	}
}

func testNotFound(t *testing.T, s kgstore.Store) {
	ctx := context.Background()
	mustPutTask(t, s, Tasks()[0])
	p := Predictions()[0]
	must(t, s.PutPrediction(ctx, p.Key, p.Prediction), "PutPrediction")
	must(t, s.PutVerdicts(ctx, VerdictSets()[0]), "PutVerdicts")

	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, kgstore.ErrNotFound) {
			t.Errorf("%s: err = %v, want ErrNotFound", what, err)
		}
	}
	_, err := s.Task(ctx, "no such task")
	check("Task(no such task)", err)
	_, err = s.Task(ctx, "task-00") // a prefix of a stored id
	check("Task(task-00)", err)
	_, err = s.Task(ctx, "")
	check("Task(\"\")", err)
	for _, key := range []kgstore.SampleKey{
		{Run: p.Key.Run, TaskID: p.Key.TaskID, Sample: 5},
		{Run: "other", TaskID: p.Key.TaskID, Sample: p.Key.Sample},
		{Run: p.Key.Run, TaskID: "no such task", Sample: p.Key.Sample},
	} {
		_, err = s.Prediction(ctx, key)
		check(fmt.Sprintf("Prediction(%+v)", key), err)
		_, err = s.Verdicts(ctx, key)
		check(fmt.Sprintf("Verdicts(%+v)", key), err)
		_, err = s.Neighbors(ctx, key, "Marie Curie")
		check(fmt.Sprintf("Neighbors(%+v)", key), err)
	}
	// A task id is not a prediction and the other way round.
	_, err = s.Verdicts(ctx, kgstore.SampleKey{Run: "run-a", TaskID: "task-001", Sample: 1})
	check("Verdicts of a sample without verdicts", err)
}

func testNeighbors(t *testing.T, s kgstore.Store) {
	ctx := context.Background()
	preds := Predictions()
	for _, p := range preds {
		must(t, s.PutPrediction(ctx, p.Key, p.Prediction), "PutPrediction")
	}
	// The same entity names in the ground truth must not leak in.
	mustPutTask(t, s, Tasks()[0])
	p0 := preds[0]
	tr := p0.Triples
	for _, c := range []struct {
		name string
		want []kgstore.Edge
	}{
		{"Marie Curie", []kgstore.Edge{edge(0, tr[0]), edge(1, tr[1]), edge(2, tr[2]), edge(3, tr[3])}}, // head and tail side, repeats kept
		{"radium", []kgstore.Edge{edge(0, tr[0]), edge(3, tr[3]), edge(4, tr[4])}},
		{"", []kgstore.Edge{edge(4, tr[4])}},
		{"Pierre Curie", []kgstore.Edge{edge(2, tr[2])}},
		{"marie curie", nil}, // exact names only
		{"Nobel Prize", nil}, // only in another sample
		{"nowhere", nil},
	} {
		got, err := s.Neighbors(ctx, p0.Key, c.name)
		must(t, err, "Neighbors")
		if len(got) != len(c.want) || (len(c.want) > 0 && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("Neighbors(%q) = %+v, want %+v", c.name, got, c.want)
		}
	}
	// Isolation between samples and runs.
	got, err := s.Neighbors(ctx, preds[1].Key, "Marie Curie")
	must(t, err, "Neighbors")
	if want := []kgstore.Edge{edge(0, preds[1].Triples[0])}; !reflect.DeepEqual(got, want) {
		t.Errorf("Neighbors in sample 1 = %+v, want %+v", got, want)
	}
	got, err = s.Neighbors(ctx, preds[3].Key, "Marie Curie")
	must(t, err, "Neighbors")
	if len(got) != 0 {
		t.Errorf("Neighbors in run/b (empty graph) = %+v, want none", got)
	}
	got, err = s.Neighbors(ctx, preds[2].Key, "镭")
	must(t, err, "Neighbors")
	if want := []kgstore.Edge{edge(0, preds[2].Triples[0])}; !reflect.DeepEqual(got, want) {
		t.Errorf("Neighbors(镭) = %+v, want %+v", got, want)
	}
	// Sorted by index even when written in a shuffled pattern.
	key := kgstore.SampleKey{Run: "order", TaskID: "t"}
	var triples []kg.Triple
	for i := 0; i < 30; i++ {
		h, tl := fmt.Sprintf("e%d", (i*7)%11), "hub"
		if i%2 == 1 {
			h, tl = tl, h
		}
		triples = append(triples, kg.Triple{Head: h, Relation: "r", Tail: tl})
	}
	must(t, s.PutPrediction(ctx, key, kg.Prediction{Triples: triples}), "PutPrediction")
	got, err = s.Neighbors(ctx, key, "hub")
	must(t, err, "Neighbors")
	if len(got) != 30 {
		t.Fatalf("Neighbors(hub) = %d edges, want 30", len(got))
	}
	for i, e := range got {
		if e.Index != i || e.Triple != triples[i] {
			t.Errorf("Neighbors(hub)[%d] = %+v, want {%d %+v}", i, e, i, triples[i])
		}
	}
}

func testContext(t *testing.T, s kgstore.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	task := Tasks()[0]
	if err := s.PutTask(ctx, task); !errors.Is(err, context.Canceled) {
		t.Errorf("PutTask with a cancelled context: err = %v, want context.Canceled", err)
	}
	if _, err := s.Task(context.Background(), task.ID); !errors.Is(err, kgstore.ErrNotFound) {
		t.Errorf("a cancelled PutTask stored something: Task err = %v", err)
	}
	p := Predictions()[0]
	if err := s.PutPrediction(ctx, p.Key, p.Prediction); !errors.Is(err, context.Canceled) {
		t.Errorf("PutPrediction with a cancelled context: err = %v, want context.Canceled", err)
	}
	if err := s.PutVerdicts(ctx, VerdictSets()[0]); !errors.Is(err, context.Canceled) {
		t.Errorf("PutVerdicts with a cancelled context: err = %v, want context.Canceled", err)
	}
	mustPutTask(t, s, task)
	if _, err := s.Task(ctx, task.ID); !errors.Is(err, context.Canceled) {
		t.Errorf("Task with a cancelled context: err = %v, want context.Canceled", err)
	}
	if _, err := s.TaskIDs(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("TaskIDs with a cancelled context: err = %v, want context.Canceled", err)
	}
}

// testConcurrent: a Store is used from several goroutines at once (a
// judge pool writes verdicts while a reporter reads).
func testConcurrent(t *testing.T, s kgstore.Store) {
	ctx := context.Background()
	mustPutTask(t, s, Tasks()[0])
	errc := make(chan error, 8)
	for w := 0; w < 8; w++ {
		go func() {
			errc <- func() error {
				for i := 0; i < 5; i++ {
					key := kgstore.SampleKey{Run: fmt.Sprintf("run-%d", w%2), TaskID: "task-001", Sample: w*10 + i}
					p := kg.Prediction{QID: "task-001", SampleIdx: key.Sample, Triples: []kg.Triple{{Head: "Marie Curie", Relation: fmt.Sprint(w), Tail: fmt.Sprint(i)}}}
					if err := s.PutPrediction(ctx, key, p); err != nil {
						return err
					}
					v := kgstore.Verdicts{Key: key, Coverage: []kg.Verdict{{GTIndex: i, State: kg.Covered, Support: []int{0}, Judge: "j"}}}
					if err := s.PutVerdicts(ctx, v); err != nil {
						return err
					}
					got, err := s.Prediction(ctx, key)
					if err != nil {
						return err
					}
					if !reflect.DeepEqual(got, p) {
						return fmt.Errorf("Prediction(%+v) = %s, want %s", key, brief(got), brief(p))
					}
					if _, err := s.Task(ctx, "task-001"); err != nil {
						return err
					}
					if _, err := s.Samples(ctx, key.Run); err != nil {
						return err
					}
				}
				return nil
			}()
		}()
	}
	for w := 0; w < 8; w++ {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
	for r := 0; r < 2; r++ {
		keys, err := s.Samples(ctx, fmt.Sprintf("run-%d", r))
		must(t, err, "Samples")
		if len(keys) != 20 {
			t.Errorf("Samples(run-%d) = %d keys, want 20", r, len(keys))
		}
	}
}

// LargeTask and LargePrediction build graphs big enough to expose per-quad
// round trips (400 GT triples, 600 predicted).
func LargeTask(id string, n int) kg.Task {
	task := kg.Task{ID: id, Language: "en", FinalQuery: "large"}
	for i := 0; i < n/2; i++ {
		task.Nodes = append(task.Nodes, kg.Node{ID: fmt.Sprintf("n%d", i), Name: fmt.Sprintf("entity %d", i), Aliases: []string{fmt.Sprintf("e%d", i)}})
	}
	for i := 0; i < n; i++ {
		task.Triples = append(task.Triples, kg.GTTriple{
			Triple: kg.Triple{Head: fmt.Sprintf("entity %d", i%(n/2)), Relation: fmt.Sprintf("rel %d", i%17), Tail: fmt.Sprintf("entity %d", (i*7+1)%(n/2))},
			HeadID: fmt.Sprintf("n%d", i%(n/2)), TailID: fmt.Sprintf("n%d", (i*7+1)%(n/2)), Weight: float64(i%5) / 4, Stage: i % 3,
		})
	}
	return task
}

// LargePrediction builds a predicted graph of n triples.
func LargePrediction(n int) kg.Prediction {
	p := kg.Prediction{QID: "large", Report: kg.ParseReport{Status: kg.ParseClean, Method: "whole", Triples: n}}
	for i := 0; i < n; i++ {
		p.Triples = append(p.Triples, kg.Triple{Head: fmt.Sprintf("entity %d", i%150), Relation: fmt.Sprintf("predicted rel %d", i%23), Tail: fmt.Sprintf("entity %d", (i*13+5)%150)})
	}
	return p
}

func testLarge(t *testing.T, s kgstore.Store) {
	ctx := context.Background()
	start := time.Now()
	task := LargeTask("large task", 400)
	mustPutTask(t, s, task)
	key := kgstore.SampleKey{Run: "large", TaskID: task.ID}
	p := LargePrediction(600)
	must(t, s.PutPrediction(ctx, key, p), "PutPrediction")
	v := kgstore.Verdicts{Key: key}
	for i := range task.Triples {
		v.Coverage = append(v.Coverage, kg.Verdict{GTIndex: i, State: kg.Covered, Kind: kg.KindDirect, Support: []int{i, i + 1}, Judge: "offline"})
	}
	must(t, s.PutVerdicts(ctx, v), "PutVerdicts")
	// Rewriting is a no-op and a smaller graph replaces the big one.
	must(t, s.PutPrediction(ctx, key, p), "PutPrediction")
	checkTask(t, s, task)
	checkPrediction(t, s, key, p)
	checkVerdicts(t, s, v)
	small := LargePrediction(100)
	must(t, s.PutPrediction(ctx, key, small), "PutPrediction")
	checkPrediction(t, s, key, small)
	edges, err := s.Neighbors(ctx, key, "entity 5")
	must(t, err, "Neighbors")
	if len(edges) == 0 {
		t.Errorf("Neighbors(entity 5) in the large graph: none")
	}
	for _, e := range edges {
		if e.Index >= 100 {
			t.Errorf("Neighbors after shrinking: stale edge %+v", e)
		}
	}
	// A generous bound: a store that writes one quad per call takes minutes.
	if d := time.Since(start); d > 60*time.Second {
		t.Errorf("large graphs took %v", d)
	}
}

func edge(i int, t kg.Triple) kgstore.Edge { return kgstore.Edge{Index: i, Triple: t} }

// brief renders v for a failure message, cut short for large graphs.
func brief(v any) string {
	s := fmt.Sprintf("%#v", v)
	if len(s) > 1500 {
		s = s[:1500] + fmt.Sprintf("... (%d more bytes)", len(s)-1500)
	}
	return s
}

// RunInfos returns the suite's run metadata fixtures: every field set, CJK
// and a slash in the name, an empty and a nil task list.
func RunInfos() []kgstore.RunInfo {
	return []kgstore.RunInfo{
		{
			Name: "run-a", Model: "Claude Opus 4.6", Framework: "react", Subset: "pro", Notes: "first try; temperature 0\nsecond line",
			Source: "preds/opus/", Samples: 4, Missing: "zero", Protocol: "paper", Judge: "offline",
			Manifest: json.RawMessage(`{"kgjudge_version":"0.1.0-dev","protocol":"paper","judge":"offline"}`),
			Tasks:    []string{"task-001", "名前 based task / 1", "task-001"},
			Scored:   time.Date(2026, 5, 1, 12, 30, 45, 0, time.UTC),
		},
		{Name: "空 run/b", Model: "模型", Samples: 1, Tasks: []string{}},
		{Name: "bare"},
	}
}

func checkRun(t *testing.T, s kgstore.Store, want kgstore.RunInfo) {
	t.Helper()
	got, err := s.Run(context.Background(), want.Name)
	if err != nil {
		t.Fatalf("Run(%q): %v", want.Name, err)
	}
	if !got.Scored.Equal(want.Scored) {
		t.Errorf("Run(%q).Scored = %v, want %v", want.Name, got.Scored, want.Scored)
	}
	got.Scored, want.Scored = time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Run(%q) round trip:\n got %s\nwant %s", want.Name, brief(got), brief(want))
	}
}

func testRunInfoRoundTrip(t *testing.T, s kgstore.Store) {
	ctx := context.Background()
	infos := RunInfos()
	for _, info := range infos {
		must(t, s.PutRun(ctx, info), "PutRun")
	}
	for _, info := range infos {
		checkRun(t, s, info)
	}
	// A run with metadata only is listed.
	runs, err := s.Runs(ctx)
	must(t, err, "Runs")
	if want := []string{"bare", "run-a", "空 run/b"}; !reflect.DeepEqual(runs, want) {
		t.Errorf("Runs = %q, want %q", runs, want)
	}
	// PutRun replaces the metadata whole, and again is a no-op.
	small := kgstore.RunInfo{Name: "run-a", Model: "other", Samples: 2}
	must(t, s.PutRun(ctx, small), "PutRun")
	checkRun(t, s, small)
	must(t, s.PutRun(ctx, infos[0]), "PutRun")
	must(t, s.PutRun(ctx, infos[0]), "PutRun")
	checkRun(t, s, infos[0])
	// Metadata is not a sample, and samples are not metadata.
	keys, err := s.Samples(ctx, "run-a")
	must(t, err, "Samples")
	if len(keys) != 0 {
		t.Errorf("Samples of a metadata-only run = %+v", keys)
	}
	p := Predictions()[0]
	must(t, s.PutPrediction(ctx, p.Key, p.Prediction), "PutPrediction")
	checkRun(t, s, infos[0])
	for _, name := range []string{"no such run", "run", "run-a/x"} {
		if _, err := s.Run(ctx, name); !errors.Is(err, kgstore.ErrNotFound) {
			t.Errorf("Run(%q): err = %v, want ErrNotFound", name, err)
		}
	}
	// A run with samples but no metadata has none.
	if _, err := s.Run(ctx, "run/b"); !errors.Is(err, kgstore.ErrNotFound) {
		t.Errorf("Run(run/b) before any PutRun: err = %v, want ErrNotFound", err)
	}
}

func putAll(t *testing.T, s kgstore.Store) {
	t.Helper()
	ctx := context.Background()
	for _, task := range Tasks() {
		mustPutTask(t, s, task)
	}
	for _, p := range Predictions() {
		must(t, s.PutPrediction(ctx, p.Key, p.Prediction), "PutPrediction")
	}
	for _, v := range VerdictSets() {
		must(t, s.PutVerdicts(ctx, v), "PutVerdicts")
	}
	for _, info := range RunInfos() {
		must(t, s.PutRun(ctx, info), "PutRun")
	}
}

func testDeleteSample(t *testing.T, s kgstore.Store) {
	ctx := context.Background()
	putAll(t, s)
	preds := Predictions()
	gone := preds[0].Key // run-a task-001 sample 0, with verdicts
	must(t, s.DeleteSample(ctx, gone), "DeleteSample")
	if _, err := s.Prediction(ctx, gone); !errors.Is(err, kgstore.ErrNotFound) {
		t.Errorf("Prediction of a deleted sample: err = %v, want ErrNotFound", err)
	}
	if _, err := s.Verdicts(ctx, gone); !errors.Is(err, kgstore.ErrNotFound) {
		t.Errorf("Verdicts of a deleted sample: err = %v, want ErrNotFound", err)
	}
	if _, err := s.Neighbors(ctx, gone, "Marie Curie"); !errors.Is(err, kgstore.ErrNotFound) {
		t.Errorf("Neighbors of a deleted sample: err = %v, want ErrNotFound", err)
	}
	keys, err := s.Samples(ctx, "run-a")
	must(t, err, "Samples")
	want := []kgstore.SampleKey{
		{Run: "run-a", TaskID: "task-001", Sample: -1},
		{Run: "run-a", TaskID: "task-001", Sample: 1},
		{Run: "run-a", TaskID: "名前 based task / 1", Sample: 0},
	}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("Samples(run-a) after DeleteSample = %+v, want %+v", keys, want)
	}
	// Siblings, the task and the run's metadata are untouched.
	for _, p := range preds[1:] {
		checkPrediction(t, s, p.Key, p.Prediction)
	}
	for _, v := range VerdictSets()[1:] {
		checkVerdicts(t, s, v)
	}
	checkTask(t, s, Tasks()[0])
	checkRun(t, s, RunInfos()[0])
	// Again, and a sample that never was: no error.
	must(t, s.DeleteSample(ctx, gone), "DeleteSample again")
	must(t, s.DeleteSample(ctx, kgstore.SampleKey{Run: "nowhere", TaskID: "x", Sample: 3}), "DeleteSample of nothing")
	// A verdict set without a prediction goes too.
	vonly := VerdictSets()[3].Key
	must(t, s.DeleteSample(ctx, vonly), "DeleteSample")
	if _, err := s.Verdicts(ctx, vonly); !errors.Is(err, kgstore.ErrNotFound) {
		t.Errorf("Verdicts of a deleted verdicts-only sample: err = %v, want ErrNotFound", err)
	}
	// A deleted sample can be written again.
	must(t, s.PutPrediction(ctx, gone, preds[0].Prediction), "PutPrediction")
	checkPrediction(t, s, gone, preds[0].Prediction)
}

func testDeleteRun(t *testing.T, s kgstore.Store) {
	ctx := context.Background()
	putAll(t, s)
	must(t, s.DeleteRun(ctx, "run-a"), "DeleteRun")
	keys, err := s.Samples(ctx, "run-a")
	must(t, err, "Samples")
	if len(keys) != 0 {
		t.Errorf("Samples of a deleted run = %+v", keys)
	}
	for _, p := range Predictions() {
		_, err := s.Prediction(ctx, p.Key)
		if p.Key.Run == "run-a" {
			if !errors.Is(err, kgstore.ErrNotFound) {
				t.Errorf("Prediction(%+v) of a deleted run: err = %v, want ErrNotFound", p.Key, err)
			}
			continue
		}
		checkPrediction(t, s, p.Key, p.Prediction)
	}
	for _, v := range VerdictSets() {
		_, err := s.Verdicts(ctx, v.Key)
		if v.Key.Run == "run-a" {
			if !errors.Is(err, kgstore.ErrNotFound) {
				t.Errorf("Verdicts(%+v) of a deleted run: err = %v, want ErrNotFound", v.Key, err)
			}
			continue
		}
		checkVerdicts(t, s, v)
	}
	if _, err := s.Run(ctx, "run-a"); !errors.Is(err, kgstore.ErrNotFound) {
		t.Errorf("Run of a deleted run: err = %v, want ErrNotFound", err)
	}
	runs, err := s.Runs(ctx)
	must(t, err, "Runs")
	if want := []string{"bare", "run/b", "空 run", "空 run/b"}; !reflect.DeepEqual(runs, want) {
		t.Errorf("Runs after DeleteRun = %q, want %q", runs, want)
	}
	for _, task := range Tasks() {
		checkTask(t, s, task)
	}
	checkRun(t, s, RunInfos()[1])
	// A run with verdicts only, and one with metadata only.
	must(t, s.DeleteRun(ctx, "空 run"), "DeleteRun")
	if _, err := s.Verdicts(ctx, VerdictSets()[3].Key); !errors.Is(err, kgstore.ErrNotFound) {
		t.Errorf("verdicts-only sample of a deleted run: err = %v, want ErrNotFound", err)
	}
	must(t, s.DeleteRun(ctx, "bare"), "DeleteRun")
	must(t, s.DeleteRun(ctx, "no such run"), "DeleteRun of nothing")
	runs, err = s.Runs(ctx)
	must(t, err, "Runs")
	if want := []string{"run/b", "空 run/b"}; !reflect.DeepEqual(runs, want) {
		t.Errorf("Runs after DeleteRun = %q, want %q", runs, want)
	}
	// The name can be used again.
	p := Predictions()[0]
	must(t, s.PutPrediction(ctx, p.Key, p.Prediction), "PutPrediction")
	checkPrediction(t, s, p.Key, p.Prediction)
}

// testPutSamples: kgstore.PutSamples writes a batch that reads back as the
// Puts would have written it, and a second batch replaces what it names
// (a smaller graph leaves nothing stale) and leaves the rest.
func testPutSamples(t *testing.T, s kgstore.Store) {
	ctx := context.Background()
	vs := map[kgstore.SampleKey]kgstore.Verdicts{}
	for _, v := range VerdictSets() {
		vs[v.Key] = v
	}
	var batch []kgstore.Sample
	for _, p := range Predictions() {
		v, ok := vs[p.Key]
		if !ok {
			v = kgstore.Verdicts{Key: p.Key, Coverage: []kg.Verdict{{GTIndex: 0, State: kg.Covered, Support: []int{0}, Judge: "offline"}}}
		}
		batch = append(batch, kgstore.Sample{Key: p.Key, Prediction: p.Prediction, Verdicts: v})
	}
	must(t, kgstore.PutSamples(ctx, s, batch), "PutSamples")
	for _, sm := range batch {
		checkPrediction(t, s, sm.Key, sm.Prediction)
		checkVerdicts(t, s, sm.Verdicts)
	}
	small := batch[0]
	small.Prediction = kg.Prediction{QID: "q", Triples: []kg.Triple{{Head: "Marie Curie", Relation: "born in", Tail: "Paris"}}, Report: kg.ParseReport{Status: kg.ParseClean, Triples: 1}}
	small.Verdicts = kgstore.Verdicts{Key: small.Key, Coverage: []kg.Verdict{{GTIndex: 0, State: kg.Uncovered, Judge: "offline"}}}
	must(t, kgstore.PutSamples(ctx, s, []kgstore.Sample{small, batch[1]}), "PutSamples")
	checkPrediction(t, s, small.Key, small.Prediction)
	checkVerdicts(t, s, small.Verdicts)
	for _, sm := range batch[1:] {
		checkPrediction(t, s, sm.Key, sm.Prediction)
		checkVerdicts(t, s, sm.Verdicts)
	}
	edges, err := s.Neighbors(ctx, small.Key, "radium")
	must(t, err, "Neighbors")
	if len(edges) != 0 {
		t.Errorf("Neighbors(radium) after a smaller graph = %+v, want none", edges)
	}
	if err := kgstore.PutSamples(ctx, s, []kgstore.Sample{small, small}); err == nil {
		t.Errorf("PutSamples with a key given twice: no error")
	}
}

// testPutTasks: kgstore.PutTasks writes a batch that reads back as PutTask
// would have written it, a second batch replaces what it names (a smaller
// graph leaves nothing stale) and leaves the rest, and a task given twice
// is refused.
func testPutTasks(t *testing.T, s kgstore.Store) {
	ctx := context.Background()
	tasks := Tasks()
	must(t, kgstore.PutTasks(ctx, s, tasks), "PutTasks")
	for _, task := range tasks {
		checkTask(t, s, task)
	}
	small := kg.Task{
		ID:      tasks[0].ID,
		Nodes:   []kg.Node{{ID: "n9", Name: "radium", Aliases: []string{"Ra"}}},
		Triples: []kg.GTTriple{{Triple: kg.Triple{Head: "radium", Relation: "discovered by", Tail: "Marie Curie"}, Weight: 1}},
	}
	must(t, kgstore.PutTasks(ctx, s, []kg.Task{small}), "PutTasks")
	checkTask(t, s, small)
	for _, task := range tasks[1:] {
		checkTask(t, s, task)
	}
	must(t, kgstore.PutTasks(ctx, s, nil), "PutTasks of no tasks")
	if err := kgstore.PutTasks(ctx, s, []kg.Task{small, small}); err == nil {
		t.Errorf("PutTasks with a task given twice: no error")
	}
	checkTask(t, s, small)
}
