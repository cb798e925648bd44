package cayley

import (
	"context"
	"reflect"
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
