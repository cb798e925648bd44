package matcher

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kg"
)

// hugeNameFiles writes a GT task whose node name is "Node " +
// "abcdefghij"*reps and a prediction stating its triple (and near misses)
// as real files, as a user would give them.
func hugeNameFiles(t testing.TB, reps int) (gtFile, predFile, name string) {
	name = "Node " + strings.Repeat("abcdefghij", reps)
	gtFile, predFile = hugeFiles(t, kg.Triple{Head: name, Relation: "located in", Tail: "Paris"})
	return gtFile, predFile, name
}

// hugeFiles writes a GT task of the one triple gt (id-based: its head and
// tail are nodes) and a prediction stating it, then a near miss (the first
// 20 bytes of each part), then a variant with "x" for its last byte.
func hugeFiles(t testing.TB, gt kg.Triple) (gtFile, predFile string) {
	dir := t.TempDir()
	cut := func(s string) string { return s[:min(len(s), 20)] }
	last := func(s string) string { return s[:len(s)-1] + "x" }
	task := map[string]any{
		"task_id": "task_001_huge", "final_query": "q",
		"nodes":   []map[string]string{{"node_id": "a", "node_name": gt.Head}, {"node_id": "b", "node_name": gt.Tail}},
		"triples": []map[string]string{{"head_id": "a", "relation": gt.Relation, "tail_id": "b"}},
	}
	pred := []map[string]string{
		{"head": gt.Head, "relation": gt.Relation, "tail": gt.Tail},
		{"head": cut(gt.Head) + " near", "relation": cut(gt.Relation), "tail": cut(gt.Tail) + " miss"},
		{"head": last(gt.Head), "relation": "lies in", "tail": last(gt.Tail)},
	}
	gtFile, predFile = filepath.Join(dir, "task_001_huge.json"), filepath.Join(dir, "pred", "task_001_huge.json")
	if err := os.MkdirAll(filepath.Dir(predFile), 0o755); err != nil {
		t.Fatal(err)
	}
	for f, v := range map[string]any{gtFile: task, predFile: pred} {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return gtFile, predFile
}

func judgeFiles(ctx context.Context, t testing.TB, gtFile, predFile string) (kg.Task, kg.Prediction, Item) {
	task, err := ingest.ReadTask(gtFile)
	if err != nil {
		t.Fatal(err)
	}
	preds, err := ingest.ReadPredictionFile(ctx, predFile)
	if err != nil || len(preds) != 1 {
		t.Fatalf("%d predictions, %v", len(preds), err)
	}
	pred := preds[0]
	pred.TaskID = task.ID
	j, err := Offline{}.Judge(ctx, &task, &pred)
	if err != nil {
		t.Fatalf("offline judge: %v", err)
	}
	it, err := Score(&task, &pred, j, ProtocolPaper)
	if err != nil {
		t.Fatalf("score: %v", err)
	}
	return task, pred, it
}

// TestHugeNames: a long Latin word in a GT node name reached Bleve's fuzzy
// query (issue 9.1: "dfa contains more than 10000 states" at ~700
// characters, out of memory at 60,000, 16 GB for 50 MB). Matching reads
// kg.MaxMatchBytes of a name; the verdicts and the outputs keep it whole.
func TestHugeNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		reps int
		long bool
	}{
		{"700 letters", 70, false},
		{"60,000 letters", 6000, false},
		{"50 MB", 5_000_000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.long && testing.Short() {
				t.Skip("-short: the 50 MB name is read and written several times")
			}
			gtFile, predFile, name := hugeNameFiles(t, tc.reps)
			task, pred, it := judgeFiles(t.Context(), t, gtFile, predFile)
			if task.Nodes[0].Name != name || task.Triples[0].Head != name || pred.Triples[0].Head != name {
				t.Fatalf("the name was not kept whole: GT node %d bytes, GT head %d, predicted head %d, want %d",
					len(task.Nodes[0].Name), len(task.Triples[0].Head), len(pred.Triples[0].Head), len(name))
			}
			v := it.Coverage.PerGTTriple[0]
			if !v.Covered || len(v.SupportingPredIndices) == 0 || v.SupportingPredIndices[0] != 0 {
				t.Fatalf("GT triple 0: %s %v (%s), want covered by predicted triple 0", v.State, v.SupportingPredIndices, v.Reason)
			}
			if v.GTTriple.Head != name {
				t.Errorf("the item's gt_triple head is %d bytes, want the whole %d", len(v.GTTriple.Head), len(name))
			}
			if p := it.Validity.PerPredTriple[1]; p.Valid {
				t.Errorf("predicted triple 1 (%q) judged valid: %s", pred.Triples[1].Head, p.Reason)
			}
		})
	}
}

// TestHugeValues: long values in every part of a triple, shaped to reach
// each matcher's own splitting (name parts split at commas and slashes,
// CJK bigrams, values with digits, relation concepts). Before matching read
// a bounded prefix, a tail of 32,000 comma-separated items took 337 s in
// matcher/rules (distinctRest compared every part with every other).
func TestHugeValues(t *testing.T) {
	items := func(n int, f string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(f, i%7)
		}
		return strings.Join(parts, ", ")
	}
	const n = 200_000
	for _, tc := range []struct {
		name string
		gt   kg.Triple
	}{
		{"tail of comma-separated values with digits", kg.Triple{Head: "Kyoto", Relation: "price", Tail: "12 " + items(n, "abc 1,2 x%d")}},
		{"head of comma-separated names", kg.Triple{Head: "A, " + items(n, "Node x%d"), Relation: "located in", Tail: "Japan"}},
		{"relation of slash-separated concepts", kg.Triple{Head: "Kyoto", Relation: "in / " + strings.ReplaceAll(items(n, "价格 %d"), ", ", " / "), Tail: "Japan"}},
		{"CJK name", kg.Triple{Head: strings.Repeat("京都", 3*n), Relation: "位于", Tail: "日本"}},
		{"one long word in the tail", kg.Triple{Head: "Kyoto", Relation: "motto", Tail: strings.Repeat("abcdefghij", n)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gtFile, predFile := hugeFiles(t, tc.gt)
			task, _, it := judgeFiles(t.Context(), t, gtFile, predFile)
			if task.Triples[0].Triple != tc.gt {
				t.Fatal("the GT triple was not kept whole")
			}
			if v := it.Coverage.PerGTTriple[0]; !v.Covered || len(v.SupportingPredIndices) == 0 || v.SupportingPredIndices[0] != 0 {
				t.Fatalf("GT triple 0: %s %v (%s), want covered by predicted triple 0", v.State, v.SupportingPredIndices, v.Reason)
			}
		})
	}
}

// BenchmarkHugeName50MB reads, judges (offline) and scores a sample whose GT
// node name, and the predicted triple stating it, are a 50 MB word. It
// reports the peak live heap during the op (sampled every millisecond) next
// to the inputs' size: the files are read whole and the name kept whole
// (three copies of 50 MB in the prediction and the task), but matching reads
// kg.MaxMatchBytes of it.
//
//	go test ./matcher -run '^$' -bench HugeName50MB -benchmem -benchtime 1x
func BenchmarkHugeName50MB(b *testing.B) {
	gtFile, predFile, _ := hugeNameFiles(b, 5_000_000)
	var inputs int64
	for _, f := range []string{gtFile, predFile} {
		st, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		inputs += st.Size()
	}
	b.ReportAllocs()
	var peak uint64
	for b.Loop() {
		runtime.GC()
		stop := sampleHeap(&peak)
		judgeFiles(b.Context(), b, gtFile, predFile)
		stop()
	}
	b.ReportMetric(float64(inputs)/1e6, "input-MB")
	b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
}

// sampleHeap records the largest live-heap figure seen until stop is called.
func sampleHeap(peak *uint64) (stop func()) {
	var done atomic.Bool
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for !done.Load() {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > *peak {
				*peak = v
			}
			time.Sleep(time.Millisecond)
		}
	}()
	return func() { done.Store(true); <-finished }
}

// cancelAfter reports cancellation from its n+1st Err call on, so that a
// test sees where a loop looks at its context, with no timing.
type cancelAfter struct {
	context.Context
	n, calls atomic.Int64
}

func (c *cancelAfter) Err() error {
	if c.calls.Add(1) > c.n.Load() {
		return context.Canceled
	}
	return nil
}

// TestOfflineStopsWhenCancelled: the offline judge looks at its context
// throughout (prefilter, coverage and validity loops), so that a
// cancellation stops a big sample part-way: at every point where it is
// first told, it returns context.Canceled and no judgement.
func TestOfflineStopsWhenCancelled(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	task, pred, _ := synthItem(r, "task_001_cancel", 200, 600)
	ctx := &cancelAfter{Context: context.Background()}
	ctx.n.Store(1 << 40)
	if _, err := (Offline{}).Judge(ctx, &task, &pred); err != nil {
		t.Fatal(err)
	}
	looks := ctx.calls.Load()
	if looks < 10 {
		t.Fatalf("the judge looked at its context %d times over 200 x 600 triples", looks)
	}
	for _, n := range []int64{0, 1, looks / 4, looks / 2, looks - 1} {
		ctx := &cancelAfter{Context: context.Background()}
		ctx.n.Store(n)
		j, err := (Offline{}).Judge(ctx, &task, &pred)
		if !errors.Is(err, context.Canceled) || j.Coverage != nil {
			t.Errorf("cancelled at look %d of %d: %v (%d verdicts)", n+1, looks, err, len(j.Coverage))
		}
	}
}
