package runs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/matcher"
)

// countingJudge is the offline judge, counting its judgements.
type countingJudge struct {
	matcher.Offline
	n *atomic.Int32
}

func (c countingJudge) Judge(ctx context.Context, t *kg.Task, p *kg.Prediction) (matcher.Judgement, error) {
	c.n.Add(1)
	return c.Offline.Judge(ctx, t, p)
}

// countingStore is a store on disk, counting the sample writes it receives
// (it is no SamplesWriter, so a batch arrives as Puts).
type countingStore struct {
	kgstore.Store
	writes *atomic.Int32
}

func (c countingStore) PutPrediction(ctx context.Context, k kgstore.SampleKey, p kg.Prediction) error {
	c.writes.Add(1)
	return c.Store.PutPrediction(ctx, k, p)
}

func (c countingStore) PutVerdicts(ctx context.Context, v kgstore.Verdicts) error {
	c.writes.Add(1)
	return c.Store.PutVerdicts(ctx, v)
}

func outTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	got := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		got[rel], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func sameTree(t *testing.T, what string, a, b map[string][]byte) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("%s: %d files, want %d", what, len(b), len(a))
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			t.Errorf("%s: %s differs", what, k)
		}
	}
}

// TestRescoreMemo: with the rescore memo, a second scoring of unchanged
// inputs judges nothing, writes no sample to the store and writes the same
// bytes as the first and as a scoring without the memo; another judge
// configuration, or a changed prediction, is judged again (only the
// samples it changes).
func TestRescoreMemo(t *testing.T) {
	dir := t.TempDir()
	var judged, writes atomic.Int32
	st := countingStore{openStore(t, filepath.Join(dir, "store")), &writes}
	plain := t.TempDir()
	score(t, openStore(t, filepath.Join(dir, "plain")), examplesGT, plain, ScoreConfig{}, RunSpec{Name: "r", Path: examplesPred})
	want := outTree(t, plain)

	run := func(config, pred string) map[string][]byte {
		t.Helper()
		m, err := OpenMemo(filepath.Join(dir, "memo"), config)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		b, err := LoadBatch(t.Context(), examplesGT, "", []RunSpec{{Name: "r", Path: pred}})
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		judged.Store(0)
		writes.Store(0)
		if _, err := Score(t.Context(), b, ScoreConfig{Protocol: matcher.ProtocolPaper, Judge: countingJudge{n: &judged}, Store: st,
			Out: out, Workers: 2, Now: fixedNow, Memo: m}); err != nil {
			t.Fatal(err)
		}
		return outTree(t, out)
	}
	first := run("a", examplesPred)
	if judged.Load() != 4 || writes.Load() != 8 {
		t.Fatalf("first scoring: %d judged, %d sample writes; want 4 and 8", judged.Load(), writes.Load())
	}
	sameTree(t, "first scoring with the memo", want, first)
	again := run("a", examplesPred)
	if judged.Load() != 0 || writes.Load() != 0 {
		t.Errorf("rescore: %d judged, %d sample writes; want none", judged.Load(), writes.Load())
	}
	sameTree(t, "rescore from the memo", want, again)

	// Another configuration (a changed alias file, say) misses every entry.
	run("b", examplesPred)
	if judged.Load() != 4 {
		t.Errorf("new judge configuration: %d judged, want 4", judged.Load())
	}

	// One changed prediction file: its samples are judged and written
	// again, the others are not.
	pred := t.TempDir()
	ents, _ := os.ReadDir(examplesPred)
	for _, e := range ents {
		copyTo(t, filepath.Join(examplesPred, e.Name()), filepath.Join(pred, e.Name()))
	}
	first2 := filepath.Join(pred, ents[0].Name())
	b, _ := os.ReadFile(first2)
	if err := os.WriteFile(first2, bytes.Replace(b, []byte(`"head\": \"Kyoto`), []byte(`"head\": \"Kyōto`), -1), 0o644); err != nil {
		t.Fatal(err)
	}
	run("b", pred)
	if n := judged.Load(); n == 0 || n == 4 {
		t.Errorf("one changed prediction: %d of 4 samples judged again, want some", n)
	}
	if w := writes.Load(); w != 2*judged.Load() {
		t.Errorf("one changed prediction: %d sample writes for %d judged", w, judged.Load())
	}
}

// A memo whose store changed under it (the run deleted) writes the samples
// again.
func TestRescoreMemoStoreChanged(t *testing.T) {
	dir := t.TempDir()
	var judged, writes atomic.Int32
	st := countingStore{openStore(t, filepath.Join(dir, "store")), &writes}
	for i, wantWrites := range []int32{8, 8} {
		m, err := OpenMemo(filepath.Join(dir, "memo"), "a")
		if err != nil {
			t.Fatal(err)
		}
		b, err := LoadBatch(t.Context(), examplesGT, "", []RunSpec{{Name: "r", Path: examplesPred}})
		if err != nil {
			t.Fatal(err)
		}
		writes.Store(0)
		if _, err := Score(t.Context(), b, ScoreConfig{Protocol: matcher.ProtocolPaper, Judge: countingJudge{n: &judged}, Store: st,
			Out: t.TempDir(), Workers: 2, Now: fixedNow, Memo: m}); err != nil {
			t.Fatal(err)
		}
		m.Close()
		if writes.Load() != wantWrites {
			t.Errorf("scoring %d: %d sample writes, want %d", i+1, writes.Load(), wantWrites)
		}
		if err := st.DeleteRun(t.Context(), "r"); err != nil {
			t.Fatal(err)
		}
	}
	if judged.Load() != 4 {
		t.Errorf("%d judged over both scorings, want 4 (the second from the memo)", judged.Load())
	}
}
