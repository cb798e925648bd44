package e2e

import (
	"path/filepath"
	"testing"

	"github.com/kgjudge/kgjudge/internal/gen"
	"github.com/kgjudge/kgjudge/kgstore/cayley"
	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/runs"
)

// BenchmarkRescore scores the stage samples once through runs.Score (files
// in, bbolt store, rescore memo, outputs; outside the timing), then times
// scoring them again with nothing changed: inputs read, every sample taken
// from the memo, nothing judged or written to the store, outputs written.
//
//	go test ./internal/e2e -run '^$' -bench Rescore -benchtime 3x
func BenchmarkRescore(b *testing.B) {
	dir := b.TempDir()
	if err := stageRun(b).WriteFiles(dir); err != nil {
		b.Fatal(err)
	}
	st, err := cayley.Open(b.Context(), filepath.Join(dir, "store"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	score := func() *runs.Memo {
		m, err := runs.OpenMemo(filepath.Join(dir, "store", runs.MemoDir), "bench")
		if err != nil {
			b.Fatal(err)
		}
		defer m.Close()
		in, err := runs.LoadBatch(b.Context(), filepath.Join(dir, "gt"), "", []runs.RunSpec{{Name: "r", Path: filepath.Join(dir, "pred")}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := runs.Score(b.Context(), in, runs.ScoreConfig{Protocol: matcher.ProtocolPaper, Judge: matcher.Offline{}, Store: st,
			Out: filepath.Join(dir, "out"), Workers: 2, Memo: m}); err != nil {
			b.Fatal(err)
		}
		return m
	}
	score()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := gen.CPU().Nanoseconds()
	for b.Loop() {
		if m := score(); m.Hits() != stageSamples {
			b.Fatalf("rescore: %d samples from the memo, want %d", m.Hits(), stageSamples)
		}
	}
	perSample(b, cpu0)
}
