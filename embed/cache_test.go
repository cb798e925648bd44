package embed

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCacheTornLine: a crash mid-append leaves a torn last line; the
// cache loads what was complete, and the next append starts on a new line.
func TestCacheTornLine(t *testing.T) {
	dir := t.TempDir()
	c, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Put([]string{"k1", "k2"}, [][]float32{{1, 0}, {0, 1}}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	p := filepath.Join(dir, CacheFile)
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"key":"k3","dim":2,"vec":"AAA`)
	f.Close()
	c, err = OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != 2 {
		t.Fatalf("%d vectors loaded, want 2", c.Len())
	}
	if err := c.Put([]string{"k3"}, [][]float32{{0.6, 0.8}}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	c, err = OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if v, ok := c.Get("k3"); !ok || v[0] != 0.6 || v[1] != 0.8 {
		t.Errorf("k3 = %v, %v after the torn line", v, ok)
	}
}

// TestCacheCorrupt: a bad complete line is an error naming file and line.
func TestCacheCorrupt(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, CacheFile), []byte("{\"key\":\"k\",\"dim\":3,\"vec\":\"AAAA\"}\n"), 0o644)
	_, err := OpenCache(dir)
	if err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("error %v, want one naming line 1", err)
	}
}

func TestKeyDistinguishes(t *testing.T) {
	if Key("m", "", "ab") == Key("m", "a", "b") || Key("m", "", "x") == Key("n", "", "x") || Key("m", "query", "x") == Key("m", "passage", "x") {
		t.Error("keys of different inputs collide")
	}
}
