package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// oddIDLayout writes one GT task and one predicted sample (trajectory JSONL,
// so the qid comes from the content) per task id.
func oddIDLayout(t *testing.T, ids []string) (gt, pred string) {
	t.Helper()
	root := t.TempDir()
	gt, pred = filepath.Join(root, "gt"), filepath.Join(root, "pred")
	for _, d := range []string{gt, pred} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var lines []byte
	for i, id := range ids {
		task := map[string]any{"task_id": id, "language": "en", "final_query": "q",
			"nodes":   []map[string]string{{"node_id": "n0", "node_name": "Alpha"}, {"node_id": "n1", "node_name": "Beta"}},
			"triples": []map[string]string{{"head_id": "n0", "relation": "has", "tail_id": "n1"}}}
		b, _ := json.Marshal(task)
		if err := os.WriteFile(filepath.Join(gt, fmt.Sprintf("t%d.json", i)), b, 0o644); err != nil {
			t.Fatal(err)
		}
		line, _ := json.Marshal(map[string]any{"qid": id, "sample_idx": 0, "response": `[{"head":"Alpha","relation":"has","tail":"Beta"}]`})
		lines = append(append(lines, line...), '\n')
	}
	if err := os.WriteFile(filepath.Join(pred, "all.jsonl"), lines, 0o644); err != nil {
		t.Fatal(err)
	}
	return gt, pred
}

// TestScoreOddTaskIDs: ids that once collided ("team/a" and "team_a") or
// could not be written (300 characters, NUL) each get their own item file,
// and every sample and the summary are written.
func TestScoreOddTaskIDs(t *testing.T) {
	ids := []string{"team/a", "team_a", strings.Repeat("x", 300), "nul\x00id", "50%", `a\b`, "task_e02_咖啡豆选购"}
	gt, pred := oddIDLayout(t, ids)
	root := t.TempDir()
	out := filepath.Join(root, "r")
	code, stdout, stderr := runCLI(t, []string{"score", "--gt", gt, "--pred", pred, "--store", filepath.Join(t.TempDir(), "s"), "--out", root, "--run", "r"})
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	entries, err := os.ReadDir(filepath.Join(out, "items"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(out, "items", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var it struct {
			QID string `json:"qid"`
		}
		if err := json.Unmarshal(b, &it); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		got[it.QID] = true
	}
	for _, id := range ids {
		if !got[id] {
			t.Errorf("no item file holds task %q (files: %d)", id, len(entries))
		}
	}
	if len(entries) != len(ids) {
		t.Errorf("%d item files for %d task ids", len(entries), len(ids))
	}
	if _, err := os.Stat(filepath.Join(out, "items", "task_e02_咖啡豆选购_sample0.json")); err != nil {
		t.Errorf("an ordinary id must keep its name: %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if !strings.Contains(string(b), `"num_queries": 7`) {
		t.Errorf("summary.json does not count the 7 tasks:\n%.300s", b)
	}
}

// An item file the disk refuses is covered in runs (TestWriteOutputsKeepsGoing):
// outputs are written to a temporary directory that replaces OUT/RUN whole,
// so no file of it can be blocked from here, and root ignores permissions.
