package cayley

import (
	"context"
	"reflect"
	"strconv"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/storetest"
)

// TestVerdictRecordsCompact: a verdict set is a handful of quads whatever
// its size (records), not a few per verdict.
func TestVerdictRecordsCompact(t *testing.T) {
	v := kgstore.Verdicts{Key: kgstore.SampleKey{Run: "r", TaskID: "t"}}
	for i := 0; i < 500; i++ {
		v.Coverage = append(v.Coverage, kg.Verdict{GTIndex: i, State: kg.Covered, Kind: kg.KindDirect, Support: []int{i, i + 1}, Judge: "offline", Reason: "same triple"})
		v.Validity = append(v.Validity, kg.Validity{PredIndex: i, State: kg.Uncovered, Support: []int{}, Judge: "offline"})
	}
	if n, old := len(encodeVerdicts(v)), len(encodeVerdictNodes(v)); n > 8 || old < 5000 {
		t.Errorf("%d quads as records, %d as nodes; want at most 8 and at least 5000", n, old)
	}
}

// TestVerdictNodesStillRead: stores written before the records (verdicts as
// item nodes) read back as before, a records set replaces a node set
// without leaving quads behind, and a set whose strings are not valid
// UTF-8 (which JSON would alter) is written as nodes: memstore keeps it
// exactly, the kv backends refuse it, both as before.
func TestVerdictNodesStillRead(t *testing.T) {
	ctx := context.Background()
	for _, backend := range []string{BBolt, MemStore} {
		t.Run(backend, func(t *testing.T) {
			s := openBackendT(t, backend, t.TempDir())
			defer s.Close()
			for _, v := range storetest.VerdictSets() {
				if err := s.replace(ctx, nil, encodeVerdictNodes(v)); err != nil {
					t.Fatal(err)
				}
				got, err := s.Verdicts(ctx, v.Key)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, v) {
					t.Errorf("node-written %+v read back as %+v", v, got)
				}
				// Rewritten as records: the old item nodes go.
				if err := s.PutVerdicts(ctx, v); err != nil {
					t.Fatal(err)
				}
				quads, err := s.subtree(ctx, verdictLabel(v.Key.Run), verdictRoot(v.Key))
				if err != nil {
					t.Fatal(err)
				}
				if want := len(encodeVerdicts(v)); len(quads) != want {
					t.Errorf("%+v: %d quads after the rewrite, want %d", v.Key, len(quads), want)
				}
				if got, err := s.Verdicts(ctx, v.Key); err != nil || !reflect.DeepEqual(got, v) {
					t.Errorf("records read back as %+v, %v; want %+v", got, err, v)
				}
			}
			bad := kgstore.Verdicts{Key: kgstore.SampleKey{Run: "r", TaskID: "bad"},
				Coverage: []kg.Verdict{{GTIndex: 0, State: kg.Covered, Judge: "j\xff", Reason: "r\xfe\xfd", Support: []int{1}}}}
			if len(encodeVerdicts(bad)) == len(encodeVerdicts(kgstore.Verdicts{Key: bad.Key, Coverage: []kg.Verdict{{}}})) {
				t.Error("a set with invalid UTF-8 was written as records")
			}
			err := s.PutVerdicts(ctx, bad)
			if backend != MemStore {
				// The kv backends refuse invalid UTF-8 (protobuf strings),
				// as they did before records.
				if err == nil {
					t.Error("the kv backend stored invalid UTF-8")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, err := s.Verdicts(ctx, bad.Key); err != nil || !reflect.DeepEqual(got, bad) {
				t.Errorf("invalid UTF-8 set read back as %+v, %v; want %+v", got, err, bad)
			}
		})
	}
}

// TestPredictionNodesStillRead: predictions written with triple nodes (the
// model before the record) read back, Neighbors serves them, and a rewrite
// as a record leaves nothing of the nodes behind.
func TestPredictionNodesStillRead(t *testing.T) {
	ctx := context.Background()
	for _, backend := range []string{BBolt, MemStore} {
		t.Run(backend, func(t *testing.T) {
			s := openBackendT(t, backend, t.TempDir())
			defer s.Close()
			for _, p := range storetest.Predictions() {
				if err := s.replace(ctx, nil, encodePredictionNodes(p.Key, p.Prediction)); err != nil {
					t.Fatal(err)
				}
				want := p.Prediction
				want.Source = "" // not kept
				got, err := s.Prediction(ctx, p.Key)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("node-written %+v read back as %+v, %v", want, got, err)
				}
				var wantEdges []kgstore.Edge
				for i, tr := range want.Triples {
					if tr.Head == "Marie Curie" || tr.Tail == "Marie Curie" {
						wantEdges = append(wantEdges, kgstore.Edge{Index: i, Triple: tr})
					}
				}
				edges, err := s.Neighbors(ctx, p.Key, "Marie Curie")
				if err != nil || len(edges) != len(wantEdges) || len(edges) > 0 && !reflect.DeepEqual(edges, wantEdges) {
					t.Errorf("Neighbors of a node-written prediction = %+v, %v; want %+v", edges, err, wantEdges)
				}
				if err := s.PutPrediction(ctx, p.Key, p.Prediction); err != nil {
					t.Fatal(err)
				}
				quads, err := s.graphQuads(ctx, predLabel(p.Key))
				if err != nil {
					t.Fatal(err)
				}
				stored := map[any]bool{}
				for _, q := range encodePrediction(p.Key, p.Prediction) {
					stored[q] = true
				}
				have := map[any]bool{}
				for _, q := range quads {
					have[q] = true
				}
				if !reflect.DeepEqual(have, stored) {
					t.Errorf("%+v: %d distinct quads after the rewrite, want the %d of the record form", p.Key, len(have), len(stored))
				}
				edges2, err := s.Neighbors(ctx, p.Key, "Marie Curie")
				if err != nil || len(edges2) != len(wantEdges) || len(edges2) > 0 && !reflect.DeepEqual(edges2, wantEdges) {
					t.Errorf("Neighbors after the rewrite = %+v, %v; want %+v", edges2, err, wantEdges)
				}
			}
		})
	}
}

// TestPredictionRecordsCompact: a prediction is its metadata, one record
// and one direct edge per distinct triple: no quads per triple beyond the
// edge.
func TestPredictionRecordsCompact(t *testing.T) {
	p := kg.Prediction{}
	for i := 0; i < 400; i++ {
		p.Triples = append(p.Triples, kg.Triple{Head: "e" + strconv.Itoa(i%50), Relation: "r" + strconv.Itoa(i), Tail: "v" + strconv.Itoa(i)})
	}
	key := kgstore.SampleKey{Run: "r", TaskID: "t"}
	if n, old := len(encodePrediction(key, p)), len(encodePredictionNodes(key, p)); n > 400+12 || old < 5*400 {
		t.Errorf("%d quads as a record, %d with triple nodes; want at most %d and at least %d", n, old, 400+12, 5*400)
	}
	// Invalid UTF-8 keeps the node form (memstore stores it exactly).
	bad := kg.Prediction{Triples: []kg.Triple{{Head: "a\xff", Relation: "r", Tail: "b"}}}
	s := openT(t, Memory)
	defer s.Close()
	if err := s.PutPrediction(context.Background(), key, bad); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Prediction(context.Background(), key); err != nil || !reflect.DeepEqual(got, bad) {
		t.Errorf("invalid UTF-8 prediction read back as %+v, %v", got, err)
	}
}

// TestTaskNodesStillRead: tasks written with triple nodes read back, and a
// rewrite as a record leaves nothing of the nodes behind.
func TestTaskNodesStillRead(t *testing.T) {
	ctx := context.Background()
	s := openBackendT(t, BBolt, t.TempDir())
	defer s.Close()
	for _, task := range storetest.Tasks() {
		old, err := encodeTaskForm(task, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.replace(ctx, nil, old); err != nil {
			t.Fatal(err)
		}
		want := task
		want.Source = ""
		if got, err := s.Task(ctx, task.ID); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("node-written task %q read back as %+v, %v", task.ID, got, err)
		}
		if err := s.PutTask(ctx, task); err != nil {
			t.Fatal(err)
		}
		quads, err := s.graphQuads(ctx, gtLabel(task.ID))
		if err != nil {
			t.Fatal(err)
		}
		recs, _ := encodeTask(task)
		recs = withContentHash(gtLabel(task.ID), recs)
		have, stored := map[any]bool{}, map[any]bool{}
		for _, q := range quads {
			have[q] = true
		}
		for _, q := range recs {
			stored[q] = true
		}
		if !reflect.DeepEqual(have, stored) {
			t.Errorf("task %q: %d distinct quads after the rewrite, want the %d of the record form", task.ID, len(have), len(stored))
		}
		if got, err := s.Task(ctx, task.ID); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("record task %q read back as %+v, %v", task.ID, got, err)
		}
	}
}

// TestPutSample: one PutSample leaves the store as PutPrediction and
// PutVerdicts do, twice changes nothing, and a rewrite with smaller graphs
// leaves nothing stale.
func TestPutSample(t *testing.T) {
	ctx := context.Background()
	bothBackends(t, func(t *testing.T, s *Store) {
		p := storetest.Predictions()[0]
		v := storetest.VerdictSets()[0]
		v.Key = p.Key
		for i := 0; i < 2; i++ {
			if err := kgstore.PutSample(ctx, s, p.Key, p.Prediction, v); err != nil {
				t.Fatal(err)
			}
			if i == 1 && s.deltas != 0 {
				t.Errorf("second PutSample applied %d deltas", s.deltas)
			}
		}
		want := p.Prediction
		want.Source = ""
		if got, err := s.Prediction(ctx, p.Key); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Prediction = %+v, %v; want %+v", got, err, want)
		}
		if got, err := s.Verdicts(ctx, p.Key); err != nil || !reflect.DeepEqual(got, v) {
			t.Errorf("Verdicts = %+v, %v; want %+v", got, err, v)
		}
		small := kg.Prediction{Triples: []kg.Triple{{Head: "a", Relation: "r", Tail: "b"}}}
		sv := kgstore.Verdicts{Key: p.Key, Coverage: []kg.Verdict{{GTIndex: 0, State: kg.Uncovered, Judge: "offline"}}}
		if err := s.PutSample(ctx, p.Key, small, sv); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Prediction(ctx, p.Key); err != nil || !reflect.DeepEqual(got.Triples, small.Triples) {
			t.Errorf("after a smaller sample: %+v, %v", got.Triples, err)
		}
		if got, err := s.Verdicts(ctx, p.Key); err != nil || !reflect.DeepEqual(got, sv) {
			t.Errorf("after smaller verdicts: %+v, %v", got, err)
		}
		if edges, err := s.Neighbors(ctx, p.Key, "Marie Curie"); err != nil || len(edges) != 0 {
			t.Errorf("Neighbors of a name only the old graph had = %+v, %v", edges, err)
		}
		if err := s.PutSample(ctx, p.Key, small, kgstore.Verdicts{Key: kgstore.SampleKey{Run: "other"}}); err == nil {
			t.Error("PutSample with verdicts of another key: no error")
		}
	})
}
