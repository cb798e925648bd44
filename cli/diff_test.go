package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// diffBase scores the 11 fixtures with their recorded verdicts: run A.
func diffBase(t *testing.T) string {
	t.Helper()
	gt, pred, ver := fixtureInputs(t)
	root := t.TempDir()
	if _, err := runScore(t.Context(), scoreOptions{GT: gt, Pred: pred, Judge: "replay", Verdicts: ver, Protocol: "paper",
		Store: ":memory:", Out: root, Run: "a", Workers: 2}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "a")
}

// variant copies run A's outputs as run name, changing each item's triplet
// F1 by shift(i) (i: the item's position in name order) and, when flip,
// the state of the first GT triple of the first item.
func variant(t *testing.T, a, name string, shift func(i int) float64, flip bool) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(filepath.Join(out, "items"), 0o755); err != nil {
		t.Fatal(err)
	}
	var sum map[string]any
	b, _ := os.ReadFile(filepath.Join(a, "summary.json"))
	json.Unmarshal(b, &sum)
	sum["run"] = name
	b, _ = json.Marshal(sum)
	os.WriteFile(filepath.Join(out, "summary.json"), b, 0o644)
	files, _ := filepath.Glob(filepath.Join(a, "items", "*.json"))
	for i, f := range files {
		var it map[string]any
		b, _ := os.ReadFile(f)
		if err := json.Unmarshal(b, &it); err != nil {
			t.Fatal(err)
		}
		it["triplet_f1"] = it["triplet_f1"].(float64) + shift(i)
		if flip && i == 0 {
			g := it["coverage_details"].(map[string]any)["per_gt_triple"].([]any)[0].(map[string]any)
			if g["state"] == "covered" {
				g["state"] = "uncovered"
			} else {
				g["state"] = "covered"
			}
		}
		b, _ = json.Marshal(it)
		os.WriteFile(filepath.Join(out, "items", filepath.Base(f)), b, 0o644)
	}
	return out
}

func TestDiffExitCodes(t *testing.T) {
	a := diffBase(t)
	real := variant(t, a, "real-drop", func(i int) float64 { return -0.05 - 0.005*float64(i%3) }, true)
	noisy := variant(t, a, "noisy-drop", func(i int) float64 {
		if i == 0 {
			return -0.6
		}
		return 0.02
	}, false)
	better := variant(t, a, "better", func(int) float64 { return 0.03 }, false)
	broken := filepath.Join(t.TempDir(), "broken")
	os.MkdirAll(filepath.Join(broken, "items", "x.json"), 0o755) // a folder where an item file should be
	os.WriteFile(filepath.Join(broken, "summary.json"), []byte(`{"run": "broken", "protocol": "paper"}`), 0o644)
	other := filepath.Join(t.TempDir(), "other")
	if _, err := runScore(t.Context(), scoreOptions{GT: "../examples/gt", Pred: "../examples/pred", Judge: "offline", Protocol: "paper",
		Store: ":memory:", Out: other, Run: "other", Workers: 2}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name string
		args []string
		drop float64
		code int
		want string
	}{
		{"identical runs pass the gate", []string{a, a}, 0.01, ExitOK, "pass: the change is +0.00"},
		{"a real drop fails the gate", []string{a, real}, 0.02, ExitDrop, "FAIL: real-drop is 5."},
		{"a real drop within the allowance passes", []string{a, real}, 0.08, ExitOK, "pass"},
		{"a drop without a gate is reported, exit 0", []string{a, real}, 0, ExitOK, "no gate"},
		{"a noisy drop passes", []string{a, noisy}, 0.02, ExitOK, "contains 0"},
		{"an improvement passes", []string{a, better}, 0.01, ExitOK, "pass: the change is +3.00"},
		{"no shared task", []string{a, other}, 0.01, ExitInput, "share no task"},
		{"a missing directory", []string{a, filepath.Join(t.TempDir(), "nope")}, 0, ExitInput, "no such file"},
		{"one run", []string{a}, 0, ExitInput, "two runs"},
		{"a drop given in points", []string{a, real}, 2, ExitInput, "fraction"},
		{"an unreadable item file is not the user's", []string{a, broken}, 0, ExitInternal, "is a directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			_, err := runDiff(t.Context(), diffOptions{FailIfDrop: c.drop, Metric: "triplet_f1", Missing: "zero", Format: "text", Flips: 5}, c.args, &out)
			if code := exitCodeOf(err); code != c.code {
				t.Fatalf("exit %d, want %d (%v)\n%s", code, c.code, err, out.String())
			}
			msg := out.String()
			if err != nil {
				msg += err.Error()
			}
			if !strings.Contains(msg, c.want) {
				t.Errorf("no %q in\n%s", c.want, msg)
			}
		})
	}

	// Through Main, as a CI pipeline runs it: exit status 4.
	var stdout, stderr bytes.Buffer
	if code := Main(t.Context(), []string{"kgjudge", "diff", a, real, "--fail-if-drop", "0.02"}, &stdout, &stderr); code != 4 {
		t.Errorf("Main: exit %d, want 4\n%s", code, stderr.String())
	}

	// The flipped claim is listed with its text; JSON has the paired
	// difference and the per-task deltas.
	var js bytes.Buffer
	res, err := runDiff(t.Context(), diffOptions{Metric: "triplet_f1", Missing: "zero", Format: "json"}, []string{a, real}, &js)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Flips) != 1 || res.Flips[0].Pass != "coverage" || res.Flips[0].Index != 0 || !strings.Contains(res.Flips[0].Text, " | ") {
		t.Errorf("flips: %+v", res.Flips)
	}
	if res.Diff.Shared != 11 || len(res.Tasks) != 11 || !res.Diff.HasCI || res.Diff.High >= 0 {
		t.Errorf("difference: %+v", res.Diff)
	}
	var back map[string]any
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back["difference"] == nil {
		t.Errorf("json: %v %s", err, js.String())
	}
}
