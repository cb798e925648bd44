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

// WriteOutputs writes res.Out/items/*.json and res.Out/summary.json (and
// invocation.json when inv is set), replacing the directory whole: the files
// go to a temporary sibling first, which then takes the old directory's
// place, so a reused output directory keeps no item file of an earlier
// scoring and a crash leaves either the old outputs or the new.
func WriteOutputs(res *ScoreResult, inv *Invocation) error {
	dir := res.Out
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".new-")
	if err != nil {
		return fmt.Errorf("output: %w", err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	items := filepath.Join(tmp, "items")
	if err := os.Mkdir(items, 0o755); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	for i := range res.Items {
		if err := WriteJSON(filepath.Join(items, ItemFileName(&res.Items[i])), res.Items[i]); err != nil {
			return err
		}
	}
	if err := WriteJSON(filepath.Join(tmp, "summary.json"), res.Summary); err != nil {
		return err
	}
	if inv != nil {
		if err := WriteJSON(filepath.Join(tmp, "invocation.json"), inv); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	old := ""
	if _, err := os.Lstat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("output: replace %s: %w", dir, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return fmt.Errorf("output: %w", err)
	}
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("output: remove the old %s: %w", dir, err)
		}
	}
	return nil
}

// writeBatch writes every run's outputs. What the judge spent goes into the
// run's directory when the command scored one run, and to
// out/invocation.json when several runs shared the judge.
func writeBatch(out string, b *BatchResult) error {
	for _, res := range b.Runs {
		var inv *Invocation
		if len(b.Runs) == 1 {
			inv = res.Invocation
		}
		if err := WriteOutputs(res, inv); err != nil {
			return err
		}
	}
	if len(b.Runs) > 1 && b.Invocation != nil {
		return WriteJSON(filepath.Join(out, "invocation.json"), b.Invocation)
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
