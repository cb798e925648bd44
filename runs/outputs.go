package runs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kgjudge/kgjudge/matcher"
)

// ItemFileName is the reference's per-sample file name; task ids may hold
// spaces and CJK (kept), but never a path separator.
func ItemFileName(it *matcher.Item) string {
	id := strings.NewReplacer("/", "_", "\\", "_").Replace(it.QID)
	return fmt.Sprintf("%s_sample%d.json", id, it.SampleIdx)
}

// WriteOutputs writes dir/items/*.json, dir/summary.json and, when the judge
// spent anything, dir/invocation.json.
func WriteOutputs(dir string, res *ScoreResult) error {
	items := filepath.Join(dir, "items")
	if err := os.MkdirAll(items, 0o755); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	for i := range res.Items {
		if err := WriteJSON(filepath.Join(items, ItemFileName(&res.Items[i])), res.Items[i]); err != nil {
			return err
		}
	}
	if err := WriteJSON(filepath.Join(dir, "summary.json"), res.Summary); err != nil {
		return err
	}
	if res.Invocation != nil {
		return WriteJSON(filepath.Join(dir, "invocation.json"), res.Invocation)
	}
	return nil
}

// WriteJSON writes indented JSON atomically (temp file + rename), so a crash
// never leaves a half-written result behind.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}
