package llmjudge

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/llmjudge/cache"
	"github.com/kgjudge/kgjudge/llmjudge/fakeopenai"
)

// TestDamagedCacheEntryIsReasked: a verdicts.jsonl line whose support
// index is beyond its batch's candidates (issue 9.2: it panicked with
// "index out of range [9999] with length 6") is a damaged entry: ignored
// with a problem naming the file, its claim asked again, and the verdicts
// equal a clean run's.
func TestDamagedCacheEntryIsReasked(t *testing.T) {
	s := fakeopenai.New()
	defer s.Close()
	cfg := baseConfig(s)
	cfg.CacheDir = t.TempDir()
	task, pred := sample(12)
	j1 := newJudge(t, cfg)
	first, err := j1.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	j1.Close()
	path := filepath.Join(cfg.CacheDir, cache.FileName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	damaged := 0
	for i, l := range lines {
		var e map[string]any
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatal(err)
		}
		if e["state"] == "covered" && damaged < 2 {
			e["support"] = []int{9999}
			lines[i], _ = json.Marshal(e)
			damaged++
		}
	}
	if damaged != 2 {
		t.Fatalf("%d covered entries to damage", damaged)
	}
	if err := os.WriteFile(path, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	// The per-sample memo would answer the whole sample without reading
	// the verdict lines: remove it, so the damaged lines are what is read.
	if err := os.Remove(filepath.Join(cfg.CacheDir, SampleMemoFile)); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n := len(s.Calls())
	j2 := newJudge(t, cfg)
	second, err := j2.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Calls()) == n {
		t.Fatal("the damaged claims were not asked again")
	}
	if !reflect.DeepEqual(first, second) {
		t.Fatalf("verdicts after a damaged cache differ:\n%+v\n%+v", first, second)
	}
	probs := j2.CacheProblems()
	if len(probs) != 2 {
		t.Fatalf("problems %q, want 2", probs)
	}
	for _, p := range probs {
		if !strings.Contains(p, path) || !strings.Contains(p, "support index 9999 is out of range") || !strings.Contains(p, "asked again") {
			t.Errorf("problem %q: want the file, the index and what happens", p)
		}
	}
	j2.Close()
	// The re-asked decisions supersede the damaged lines: a third run
	// makes no call and reports nothing.
	n = len(s.Calls())
	j3 := newJudge(t, cfg)
	third, err := j3.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Calls()) != n || !reflect.DeepEqual(first, third) || len(j3.CacheProblems()) != 0 {
		t.Fatalf("third run: %d calls, problems %q", len(s.Calls())-n, j3.CacheProblems())
	}
}
