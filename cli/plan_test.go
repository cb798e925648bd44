package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// planMap maps the fixture's prediction (qid "pred", its file name) to its task.
func planMap(t *testing.T) string {
	m := filepath.Join(t.TempDir(), "map.json")
	if err := os.WriteFile(m, []byte(`{"pred": "task_041"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPlanFixture(t *testing.T) {
	out := filepath.Join(t.TempDir(), "plan.json")
	m := planMap(t)
	var stdout, stderr bytes.Buffer
	code := Main(t.Context(), []string{"kgjudge", "plan", "--gt", "../testdata/fixtures/p041/gt.json", "--pred", "../testdata/fixtures/p041/pred.json", "--map", m, "--out", out}, &stdout, &stderr)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "prompt volume") {
		t.Errorf("summary: %s", stdout.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Items []struct {
			QID                  string            `json:"qid"`
			GT                   []json.RawMessage `json:"gt"`
			Pred                 []json.RawMessage `json:"pred"`
			PromptChars          int               `json:"prompt_chars"`
			ReferencePromptChars int               `json:"reference_prompt_chars"`
			JudgeGTTriples       int               `json:"judge_gt_triples"`
			Batches              int               `json:"batches"`
			PredTriples          int               `json:"pred_triples"`
			MeanBatchCandidates  float64           `json:"mean_batch_candidates"`
		} `json:"items"`
		Totals map[string]any `json:"totals"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 1 || len(got.Items[0].GT) != 313 || len(got.Items[0].Pred) != 327 || got.Items[0].PredTriples != 327 {
		t.Fatalf("items %+v", got.Items)
	}
	it := got.Items[0]
	if it.PromptChars <= 0 || 2*it.PromptChars > it.ReferencePromptChars || it.Batches == 0 || it.JudgeGTTriples == 0 {
		t.Errorf("volume %+v", it)
	}
	if !strings.Contains(string(it.GT[0]), `"gt_index": 0`) || !strings.Contains(string(it.GT[0]), `"candidates"`) {
		t.Errorf("gt entry %s", it.GT[0])
	}

	var est struct {
		Totals struct {
			Estimate struct {
				Kgjudge, Reference struct {
					Calls            int   `json:"calls"`
					PromptTokens     int64 `json:"prompt_tokens"`
					InstructionChars int   `json:"instruction_chars"`
				}
			} `json:"estimate"`
		} `json:"totals"`
	}
	if err := json.Unmarshal(b, &est); err != nil {
		t.Fatal(err)
	}
	// The reference sends 5 coverage + 5 validity calls with the whole list;
	// kgjudge's real prompts (instructions included) must cost fewer tokens.
	e := est.Totals.Estimate
	// The fixed instruction text is reported apart, per call.
	if e.Reference.InstructionChars <= 0 || e.Kgjudge.InstructionChars <= 0 {
		t.Errorf("instruction chars %+v", e)
	}
	if e.Reference.Calls != 10 || e.Kgjudge.Calls == 0 || e.Kgjudge.PromptTokens >= e.Reference.PromptTokens {
		t.Errorf("estimate %+v", e)
	}

	// Same inputs, same bytes.
	out2 := filepath.Join(t.TempDir(), "plan.json")
	if code := Main(t.Context(), []string{"kgjudge", "plan", "--gt", "../testdata/fixtures/p041/gt.json", "--pred", "../testdata/fixtures/p041/pred.json", "--map", m, "--out", out2}, &bytes.Buffer{}, &bytes.Buffer{}); code != ExitOK {
		t.Fatal(code)
	}
	if b2, _ := os.ReadFile(out2); !bytes.Equal(b, b2) {
		t.Error("plan output differs between identical runs")
	}
}

func TestPlanBadInput(t *testing.T) {
	var stderr bytes.Buffer
	code := Main(t.Context(), []string{"kgjudge", "plan", "--gt", "/does/not/exist", "--pred", "../testdata/fixtures/p041/pred.json"}, &bytes.Buffer{}, &stderr)
	if code != ExitInput || !strings.Contains(stderr.String(), "/does/not/exist") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}
