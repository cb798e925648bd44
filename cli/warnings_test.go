package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScoreShowsGTWarnings: ground-truth problems the loader accepts (a
// triple naming a missing node id, a repeated node id, a task with no
// triples) are printed on stderr and kept in summary.json's
// input_warnings, each naming its file; the run still scores (exit 0).
func TestScoreShowsGTWarnings(t *testing.T) {
	dir := t.TempDir()
	gt, pred := filepath.Join(dir, "gt"), filepath.Join(dir, "pred")
	for _, d := range []string{gt, pred} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(gt, "a.json"): `{"task_id": "task_a", "final_query": "q", "nodes": [{"node_id": "n0", "node_name": "Alpha"}, {"node_id": "n0", "node_name": "Again"}],
			"triples": [{"head_id": "n0", "relation": "has", "tail_id": "n9"}]}`,
		filepath.Join(gt, "b.json"):        `{"task_id": "task_b", "final_query": "q", "nodes": [], "triples": []}`,
		filepath.Join(pred, "task_a.json"): `[{"head": "Alpha", "relation": "has", "tail": "n9"}]`,
		filepath.Join(pred, "task_b.json"): `[{"head": "x", "relation": "y", "tail": "z"}]`,
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	code, _, stderr := runCLI(t, []string{"score", "--gt", gt, "--pred", pred, "--run", "w", "--store", ":memory:", "--out", out})
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "w", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"a.json", "n9", "n0", "b.json"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(string(b), `"input_warnings"`) || !strings.Contains(string(b), "b.json") || !strings.Contains(string(b), "n9") {
		t.Errorf("summary.json lacks the input warnings:\n%.2000s", b)
	}
	if strings.Count(stderr, "kgjudge: warning:") < 3 {
		t.Errorf("want a warning each for the missing node id, the repeated node id and the empty task:\n%s", stderr)
	}
}
