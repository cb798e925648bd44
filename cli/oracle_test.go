package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/internal/fixtures"
	"github.com/kgjudge/kgjudge/llmjudge/fakeopenai"
	"github.com/kgjudge/kgjudge/llmjudge/oracle"
	"github.com/kgjudge/kgjudge/matcher"
)

// fixtureDirs writes the fixtures as a command's inputs: task files, one
// final-extraction prediction file per sample (format c) and the recorded
// evaluations, and returns the three directories and the oracle over them.
func fixtureDirs(t *testing.T, names []string) (gt, pred, evals string, o *oracle.Oracle) {
	t.Helper()
	root := t.TempDir()
	gt, pred, evals = filepath.Join(root, "gt"), filepath.Join(root, "pred"), filepath.Join(root, "eval")
	var samples []oracle.Sample
	for _, d := range []string{gt, pred, evals} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range names {
		f := fixtures.Load(t, n)
		src := filepath.Join(fixtures.Dir(), n)
		copyFile(t, filepath.Join(src, "gt.json"), filepath.Join(gt, n+".json"))
		copyFile(t, filepath.Join(src, "eval.json"), filepath.Join(evals, n+".json"))
		raw, err := os.ReadFile(filepath.Join(src, "pred.json"))
		if err != nil {
			t.Fatal(err)
		}
		line, _ := json.Marshal(map[string]any{"qid": f.Eval.QID, "sample_idx": f.Eval.SampleIdx, "triplets": json.RawMessage(raw)})
		if err := os.WriteFile(filepath.Join(pred, n+".json"), line, 0o644); err != nil {
			t.Fatal(err)
		}
		rp, err := matcher.NewReplay([]ingest.Eval{f.Eval}, []string{f.Task.ID}, nil)
		if err != nil {
			t.Fatal(err)
		}
		j, err := rp.Judge(t.Context(), &f.Task, &f.Pred)
		if err != nil {
			t.Fatal(err)
		}
		task, p := f.Task, f.Pred
		samples = append(samples, oracle.Sample{Task: &task, Pred: &p, Recorded: j})
	}
	return gt, pred, evals, oracle.New(samples)
}

// TestScoreOpenAIReproducesPlanOracle: `score --judge openai` against the
// test server in oracle mode scores exactly the F1 `plan --oracle`
// predicted, sample by sample (the plan and the run agree), on all 11
// fixtures, through real HTTP and the real prompt parser.
func TestScoreOpenAIReproducesPlanOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("plans and judges the 11 fixtures")
	}
	gt, pred, evals, o := fixtureDirs(t, fixtures.All())
	srv := fakeopenai.New(fakeopenai.WithOracle(o))
	defer srv.Close()

	planOut := filepath.Join(t.TempDir(), "plan.json")
	code, stdout, stderr := runCLI(t, []string{"plan", "--gt", gt, "--pred", pred, "--oracle", evals, "--out", planOut})
	if code != ExitOK {
		t.Fatalf("plan exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("plan --oracle:\n%s", stdout)
	var pl struct {
		Items []struct {
			QID    string `json:"qid"`
			Sample int    `json:"sample_idx"`
			Oracle *struct {
				P  float64 `json:"triplet_precision"`
				R  float64 `json:"triplet_recall"`
				F1 float64 `json:"triplet_f1"`
			} `json:"oracle"`
			Estimate struct {
				Kgjudge struct {
					Calls int `json:"calls"`
				} `json:"kgjudge"`
			} `json:"estimate"`
		} `json:"items"`
	}
	b, err := os.ReadFile(planOut)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pl); err != nil {
		t.Fatal(err)
	}
	if len(pl.Items) != len(fixtures.All()) {
		t.Fatalf("plan has %d items", len(pl.Items))
	}

	out := t.TempDir()
	code, stdout, stderr = runCLI(t, []string{"score", "--gt", gt, "--pred", pred, "--judge", "openai", "--judge-url", srv.BaseURL(),
		"--judge-model", "oracle", "--store", ":memory:", "--no-cache", "--out", out, "--run", "oracle", "--batching", "prefilter"})
	if code != ExitOK {
		t.Fatalf("score exit %d\n%s\n%s\nstatuses %v", code, stdout, stderr, srv.Statuses())
	}
	calls := 0
	for _, it := range pl.Items {
		calls += it.Estimate.Kgjudge.Calls
		rb, err := os.ReadFile(filepath.Join(out, "oracle", "items", fmt.Sprintf("%s_sample%d.json", it.QID, it.Sample)))
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			P  float64 `json:"triplet_precision"`
			R  float64 `json:"triplet_recall"`
			F1 float64 `json:"triplet_f1"`
		}
		if err := json.Unmarshal(rb, &got); err != nil {
			t.Fatal(err)
		}
		if got.P != it.Oracle.P || got.R != it.Oracle.R || got.F1 != it.Oracle.F1 {
			t.Errorf("%s: score P %.4f R %.4f F1 %.4f, plan --oracle P %.4f R %.4f F1 %.4f", it.QID, got.P, got.R, got.F1, it.Oracle.P, it.Oracle.R, it.Oracle.F1)
		}
	}
	if n := len(srv.Calls()); n != calls {
		t.Errorf("the run made %d calls, the plan estimated %d", n, calls)
	}
	statuses := map[int]int{}
	for _, s := range srv.Statuses() {
		statuses[s]++
	}
	keys := []int{}
	for k := range statuses {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	if len(keys) != 1 || keys[0] != 200 {
		t.Errorf("server statuses %v, want only 200", statuses)
	}
}
