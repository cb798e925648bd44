package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLeaderboardFromOutputs(t *testing.T) {
	root := t.TempDir()
	for _, run := range []string{"demo", "demo2"} {
		if _, err := runScore(t.Context(), scoreOptions{GT: "../examples/gt", Pred: "../examples/pred", Judge: "offline", Protocol: "paper",
			Store: ":memory:", Out: root, Run: run, Workers: 2}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
	}
	base := leaderboardOptions{By: "run", Format: "table", Missing: "zero", Metric: "triplet_f1", Title: "t"}

	var out bytes.Buffer
	if err := runLeaderboard(t.Context(), base, []string{root}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"demo2", "avg F1", "66.06", "paired differences"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}

	o := base
	o.By, o.Source.GT, o.Format = "language", "../examples/gt", "json"
	out.Reset()
	if err := runLeaderboard(t.Context(), o, []string{filepath.Join(root, "demo")}, &out); err != nil {
		t.Fatal(err)
	}
	var b struct {
		Rows []struct {
			Group []string
			Tasks int
		}
	}
	if err := json.Unmarshal(out.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	if len(b.Rows) != 2 || b.Rows[0].Tasks != 1 {
		t.Errorf("by language: %s", out.String())
	}

	for _, c := range []struct {
		name string
		mod  func(*leaderboardOptions)
		want string
	}{
		{"protocol not scored", func(o *leaderboardOptions) { o.Source.Protocol = "code" }, "scored under the paper protocol"},
		{"unknown dimension", func(o *leaderboardOptions) { o.By = "run,colour" }, "colour"},
		{"unknown format", func(o *leaderboardOptions) { o.Format = "xml" }, "xml"},
		{"site needs frameworks", func(o *leaderboardOptions) { o.Format = "site" }, "framework"},
		{"bad missing", func(o *leaderboardOptions) { o.Missing = "drop" }, "zero or skip"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := base
			c.mod(&o)
			err := runLeaderboard(t.Context(), o, []string{root}, &bytes.Buffer{})
			if exitCodeOf(err) != ExitInput || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want exit 2 about %q", err, c.want)
			}
		})
	}
}

// The site's leaderboard.json from a store: the fixtures scored with their
// recorded verdicts, daily and pro tasks given their subset at scoring.
func TestLeaderboardSiteFromStore(t *testing.T) {
	gt, pred, ver := fixtureInputs(t)
	store := filepath.Join(t.TempDir(), "store")
	// One scoring of every fixture: re-scoring a run replaces it, so the
	// subsets are given by the task files (d* daily, p* pro).
	g := filepath.Join(t.TempDir(), "gt")
	os.MkdirAll(g, 0o755)
	files, _ := filepath.Glob(filepath.Join(gt, "*.json"))
	for _, f := range files {
		var task map[string]any
		b, _ := os.ReadFile(f)
		if err := json.Unmarshal(b, &task); err != nil {
			t.Fatal(err)
		}
		task["subset"] = "pro"
		if strings.HasPrefix(filepath.Base(f), "d") {
			task["subset"] = "daily"
		}
		b, _ = json.Marshal(task)
		os.WriteFile(filepath.Join(g, filepath.Base(f)), b, 0o644)
	}
	if _, err := runScore(t.Context(), scoreOptions{GT: g, Pred: pred, Judge: "replay", Verdicts: ver, Protocol: "paper",
		Store: store, Out: t.TempDir(), Run: "opus", Workers: 2}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	meta := filepath.Join(t.TempDir(), "runs.csv")
	os.WriteFile(meta, []byte("name,model,framework\nopus,Claude Opus 4.6,react\n"), 0o644)
	var out bytes.Buffer
	o := leaderboardOptions{Source: runSource{Store: store, Meta: meta}, By: "run", Format: "site", Missing: "zero", Metric: "triplet_f1", Title: "VibeSearchBench"}
	if err := runLeaderboard(t.Context(), o, nil, &out); err != nil {
		t.Fatal(err)
	}
	var site struct {
		Title      string
		Metric     string
		Frameworks []struct{ ID, Label string }
		Models     []map[string]any
	}
	if err := json.Unmarshal(out.Bytes(), &site); err != nil {
		t.Fatal(err)
	}
	if site.Title != "VibeSearchBench" || site.Metric != "Triplet F1 (%)" || len(site.Frameworks) != 1 || site.Frameworks[0].Label != "ReAct" || len(site.Models) != 1 {
		t.Fatalf("%s", out.String())
	}
	react := site.Models[0]["react"].(map[string]any)
	pro, daily, avg := react["pro"].(map[string]any), react["daily"].(map[string]any), react["avg"].(map[string]any)
	// The recorded verdicts give the published F1 of each fixture: pro
	// 0.1728 0.1523 0.2053 0.1864 0.0366 0.1907 (mean 0.15735), daily 0.2503
	// 0.6344 0.4338 0.0589 0.3205 (mean 0.33958); the site shows the means in
	// percent, 2 decimals (15.735 is a double a hair off the tie).
	if f := pro["f1"].(float64); f != 15.73 && f != 15.74 {
		t.Errorf("pro f1 %v, want 15.73 or 15.74", f)
	}
	if f := daily["f1"].(float64); f != 33.96 {
		t.Errorf("daily f1 %v, want 33.96", f)
	}
	if want := (pro["f1"].(float64) + daily["f1"].(float64)) / 2; abs(avg["f1"].(float64)-want) > 0.006 {
		t.Errorf("avg f1 %v, want about %v", avg["f1"], want)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
