package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/cayley"
	"github.com/kgjudge/kgjudge/matcher"
)

const fixtureDir = "../testdata/fixtures"

var fixtureNames = []string{"d001", "p012", "p041"}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fixtureLayout lays the fixtures out the way a user has them: a directory
// of task files, a directory of bare prediction arrays named after their task
// (the id comes from the file name), and a directory of reference eval outputs.
func fixtureLayout(t *testing.T) (gt, pred, verdicts string, published map[string]map[string]float64) {
	t.Helper()
	root := t.TempDir()
	gt, pred, verdicts = filepath.Join(root, "gt"), filepath.Join(root, "pred"), filepath.Join(root, "eval")
	published = map[string]map[string]float64{}
	for _, name := range fixtureNames {
		var task struct {
			TaskID string `json:"task_id"`
		}
		b, err := os.ReadFile(filepath.Join(fixtureDir, name, "gt.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &task); err != nil {
			t.Fatal(err)
		}
		copyFile(t, filepath.Join(fixtureDir, name, "gt.json"), filepath.Join(gt, name+".json"))
		copyFile(t, filepath.Join(fixtureDir, name, "pred.json"), filepath.Join(pred, task.TaskID+".json"))
		copyFile(t, filepath.Join(fixtureDir, name, "eval.json"), filepath.Join(verdicts, task.TaskID+"_sample0.json"))
		var ev map[string]any
		b, _ = os.ReadFile(filepath.Join(fixtureDir, name, "eval.json"))
		if err := json.Unmarshal(b, &ev); err != nil {
			t.Fatal(err)
		}
		m := map[string]float64{}
		for _, k := range []string{"node_precision", "node_recall", "node_f1", "triplet_precision", "triplet_recall", "triplet_f1"} {
			m[k] = ev[k].(float64)
		}
		published[task.TaskID] = m
	}
	return gt, pred, verdicts, published
}

func TestScoreReplayReproducesPublished(t *testing.T) {
	gt, pred, verdicts, published := fixtureLayout(t)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	res, err := runScore(t.Context(), scoreOptions{
		GT: gt, Pred: pred, Judge: "replay", Verdicts: verdicts, Protocol: "paper",
		Store: filepath.Join(t.TempDir(), "store"), Out: out, Run: "opus",
	}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\nstderr: %s", err, stderr.String())
	}
	if len(res.Items) != 3 {
		t.Fatalf("%d items", len(res.Items))
	}
	for _, it := range res.Items {
		want := published[it.QID]
		got := map[string]float64{
			"node_precision": it.NodePrecision, "node_recall": it.NodeRecall, "node_f1": it.NodeF1,
			"triplet_precision": it.TripletPrecision, "triplet_recall": it.TripletRecall, "triplet_f1": it.TripletF1,
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s %s = %.4f, published %.4f", it.QID, k, got[k], v)
			}
		}
	}
	// Summary: one sample per task, so avg@1 = best@1 = mean of the published values.
	var sum map[string]any
	b, err := os.ReadFile(filepath.Join(out, "opus", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	// (0.2503 + 0.1728 + 0.1864) / 3 = 0.20316... -> 0.2032
	if sum["avg@1_triplet_f1"] != 0.2032 || sum["best@1_triplet_f1"] != 0.2032 || sum["num_queries"] != 3.0 || sum["num_samples"] != 1.0 {
		t.Errorf("summary: %s", b)
	}
	for _, name := range []string{"task_001_liquid foundation_sample0.json", "task_012_sample0.json", "task_041_sample0.json"} {
		if _, err := os.Stat(filepath.Join(out, "opus", "items", name)); err != nil {
			t.Errorf("item file: %v", err)
		}
	}
	if !strings.Contains(stdout.String(), "avg@1") || !strings.Contains(stdout.String(), "0.2503") {
		t.Errorf("table:\n%s", stdout.String())
	}
}

func TestScoreStoreReopenReproducesVerdicts(t *testing.T) {
	gt, pred, verdicts, _ := fixtureLayout(t)
	storeDir := filepath.Join(t.TempDir(), "store")
	res, err := runScore(t.Context(), scoreOptions{
		GT: gt, Pred: pred, Judge: "replay", Verdicts: verdicts, Protocol: "paper",
		Store: storeDir, Out: t.TempDir(), Run: "opus",
	}, &bytes.Buffer{}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := cayley.Open(t.Context(), storeDir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, it := range res.Items {
		v, err := s.Verdicts(t.Context(), kgstore.SampleKey{Run: "opus", TaskID: it.QID, Sample: it.SampleIdx})
		if err != nil {
			t.Fatal(err)
		}
		covered, valid := 0, 0
		for _, c := range v.Coverage {
			if c.State == kg.Covered {
				covered++
			}
		}
		for _, c := range v.Validity {
			if c.State == kg.Covered {
				valid++
			}
		}
		if covered != it.Coverage.CoveredCount || valid != it.Validity.ValidCount {
			t.Errorf("%s: reopened store has %d covered / %d valid, run had %d / %d", it.QID, covered, valid, it.Coverage.CoveredCount, it.Validity.ValidCount)
		}
	}
}

func TestScoreDeterministic(t *testing.T) {
	gt, pred, verdicts, _ := fixtureLayout(t)
	var outs []string
	for i := 0; i < 2; i++ {
		out := t.TempDir()
		if _, err := runScore(t.Context(), scoreOptions{
			GT: gt, Pred: pred, Judge: "replay", Verdicts: verdicts, Protocol: "paper",
			Store: ":memory:", Out: out, Run: "opus",
		}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	for _, rel := range []string{"summary.json", "items/task_012_sample0.json"} {
		a, _ := os.ReadFile(filepath.Join(outs[0], "opus", rel))
		b, _ := os.ReadFile(filepath.Join(outs[1], "opus", rel))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between identical runs", rel)
		}
	}
}

func TestScoreExamplesOffline(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	res, err := runScore(t.Context(), scoreOptions{
		GT: "../examples/gt", Pred: "../examples/pred", Judge: "offline", Protocol: "paper",
		Store: ":memory:", Out: out,
	}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if res.Summary.NumQueries != 2 || res.Summary.NumSamples != 2 || len(res.Items) != 4 {
		t.Fatalf("queries %d samples %d items %d", res.Summary.NumQueries, res.Summary.NumSamples, len(res.Items))
	}
	statuses := map[kg.ParseStatus]int{}
	for _, it := range res.Items {
		statuses[it.ParseReport.Status]++
	}
	// The examples include a response with curly quotes and one cut off mid-array.
	if statuses[kg.ParseRepaired] != 1 || statuses[kg.ParseTruncated] != 1 {
		t.Errorf("parse statuses %v", statuses)
	}
	if res.Summary.Avg["triplet_f1"] <= 0 || res.Summary.Best["triplet_f1"] < res.Summary.Avg["triplet_f1"] {
		t.Errorf("avg/best %v / %v", res.Summary.Avg, res.Summary.Best)
	}
	if res.Summary.Run != "pred" {
		t.Errorf("default run name %q, want the base name of --pred", res.Summary.Run)
	}
}

func TestScoreExitCodes(t *testing.T) {
	gt, pred, verdicts, _ := fixtureLayout(t)
	// A bad task file and a prediction for an unknown task: the good ones are
	// still scored and the run exits 2, naming both.
	if err := os.WriteFile(filepath.Join(gt, "broken.json"), []byte(`{"task_id": "x", "triples": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pred, "task_999_nowhere.json"), []byte(`[{"head":"a","relation":"b","tail":"c"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	code := Main(t.Context(), []string{"kgjudge", "score", "--gt", gt, "--pred", pred, "--judge", "replay", "--verdicts", verdicts,
		"--store", ":memory:", "--out", t.TempDir()}, &bytes.Buffer{}, &stderr)
	if code != ExitInput {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, ExitInput, stderr.String())
	}
	for _, want := range []string{"broken.json", "task_999_nowhere", "3 samples"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown protocol", []string{"--protocol", "nope"}, ExitInput, "--protocol"},
		{"unknown judge", []string{"--judge", "nope"}, ExitInput, "--judge"},
		{"missing gt", []string{"--gt", "/does/not/exist"}, ExitInput, "/does/not/exist"},
		{"gt directory without tasks", []string{"--gt", t.TempDir()}, ExitInput, "no ground-truth task file"},
		// Before any judging: the out directory's parent is a file.
		{"unwritable out", []string{"--out", filepath.Join(gt, "broken.json", "out")}, ExitInput, "--out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"kgjudge", "score", "--gt", "../examples/gt", "--pred", "../examples/pred", "--store", ":memory:", "--out", t.TempDir()}, tc.args...)
			var stderr bytes.Buffer
			if code := Main(t.Context(), args, &bytes.Buffer{}, &stderr); code != tc.code || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %d (want %d), stderr %q (want %q)", code, tc.code, stderr.String(), tc.want)
			}
		})
	}
}

// halfJudge is the offline judge that loses every other coverage verdict, as
// a failing LLM judge would: those claims must surface as unjudged.
type halfJudge struct{ matcher.Offline }

func (h halfJudge) Judge(ctx context.Context, task *kg.Task, pred *kg.Prediction) (matcher.Judgement, error) {
	j, err := h.Offline.Judge(ctx, task, pred)
	for i := range j.Coverage {
		if i%2 == 1 {
			j.Coverage[i] = kg.Verdict{GTIndex: i, State: kg.Unjudged, Judge: "half", Reason: "judge failed"}
		}
	}
	return j, err
}

func TestScoreUnjudgedExits3(t *testing.T) {
	for _, allow := range []bool{false, true} {
		var stdout, stderr bytes.Buffer
		out := t.TempDir()
		res, err := runScore(t.Context(), scoreOptions{
			GT: "../examples/gt", Pred: "../examples/pred", Judge: "offline", Protocol: "paper",
			Store: ":memory:", Out: out, AllowUnjudged: allow, judge: halfJudge{},
		}, &stdout, &stderr)
		want := ExitUnjudged
		if allow {
			want = ExitOK
		}
		if code := exitCodeOf(err); code != want {
			t.Fatalf("allow=%v: exit %d, want %d (%v)", allow, code, want, err)
		}
		// 13 + 12 GT triples, every other one lost, in each of 2 samples.
		if res.Summary.Unjudged.Coverage != 2*(6+6) || res.Summary.UnjudgedItems != 4 {
			t.Errorf("unjudged %+v in %d items", res.Summary.Unjudged, res.Summary.UnjudgedItems)
		}
		if !strings.Contains(stdout.String(), "unjudged: 24 claim(s) in 4 sample(s)") {
			t.Errorf("table does not report unjudged:\n%s", stdout.String())
		}
		b, _ := os.ReadFile(filepath.Join(out, "pred", "summary.json"))
		if !bytes.Contains(b, []byte(`"coverage": 24`)) {
			t.Errorf("summary.json does not carry the unjudged count:\n%s", b)
		}
	}
}

// TestScoreReplayFromTrajectories: the published trajectory files carry the
// response and, at the end of each line, the evaluation; --judge replay with
// no --verdicts reads both from --pred.
func TestScoreReplayFromTrajectories(t *testing.T) {
	root := t.TempDir()
	gtDir, trajDir := filepath.Join(root, "gt"), filepath.Join(root, "trajs")
	published := map[string]float64{}
	for _, name := range fixtureNames {
		copyFile(t, filepath.Join(fixtureDir, name, "gt.json"), filepath.Join(gtDir, name+".json"))
		var ev map[string]any
		var preds []map[string]any
		for file, v := range map[string]any{"eval.json": &ev, "pred.json": &preds} {
			b, err := os.ReadFile(filepath.Join(fixtureDir, name, file))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, v); err != nil {
				t.Fatal(err)
			}
		}
		arr, _ := json.MarshalIndent(preds, "", " ")
		line := map[string]any{
			"qid": ev["qid"], "sample_idx": 0, "question": "…",
			"messages":    []map[string]string{{"role": "user", "content": strings.Repeat("search result text ", 20000)}},
			"response":    "Here is the graph.\n```json\n" + string(arr) + "\n```",
			"termination": "answer",
		}
		for k, v := range ev {
			if k != "qid" && k != "sample_idx" {
				line[k] = v
			}
		}
		b, _ := json.Marshal(line)
		if err := os.MkdirAll(trajDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(trajDir, ev["qid"].(string)+".jsonl"), append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		published[ev["qid"].(string)] = ev["triplet_f1"].(float64)
	}
	res, err := runScore(t.Context(), scoreOptions{GT: gtDir, Pred: trajDir, Judge: "replay", Protocol: "paper", Store: ":memory:", Out: t.TempDir()}, &bytes.Buffer{}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 3 {
		t.Fatalf("%d items", len(res.Items))
	}
	for _, it := range res.Items {
		if it.TripletF1 != published[it.QID] || it.ParseReport.Method != "fence" {
			t.Errorf("%s: F1 %.4f (published %.4f), parsed by %q", it.QID, it.TripletF1, published[it.QID], it.ParseReport.Method)
		}
	}
	if res.Summary.Run != "trajs" {
		t.Errorf("run %q", res.Summary.Run)
	}
}

// TestScoreWorkersDoNotChangeOutputs: judging samples in parallel commits
// them in input order; the outputs are the same bytes as a sequential run.
func TestScoreWorkersDoNotChangeOutputs(t *testing.T) {
	gt, pred, _, _ := fixtureLayout(t)
	var outs []string
	for _, workers := range []int{1, 8} {
		out := t.TempDir()
		if _, err := runScore(t.Context(), scoreOptions{GT: gt, Pred: pred, Judge: "offline", Protocol: "paper",
			Store: ":memory:", Out: out, Run: "w", Workers: workers}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	for _, rel := range []string{"summary.json", "items/task_001_liquid foundation_sample0.json", "items/task_041_sample0.json"} {
		a, _ := os.ReadFile(filepath.Join(outs[0], "w", rel))
		b, _ := os.ReadFile(filepath.Join(outs[1], "w", rel))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between 1 and 8 workers", rel)
		}
	}
}

// TestScoreReplayLoneFile: the documented replay of one fixture, a bare
// prediction array (its file name, "pred", is no task id) with its eval
// record, scores the record's task and reproduces the published F1; without
// a record to pair it with, the run says exactly what to pass.
func TestScoreReplayLoneFile(t *testing.T) {
	p012 := filepath.Join(fixtureDir, "p012")
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, []string{"score", "--gt", filepath.Join(p012, "gt.json"), "--pred", filepath.Join(p012, "pred.json"),
		"--verdicts", filepath.Join(p012, "eval.json"), "--judge", "replay", "--store", ":memory:", "--out", out})
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "pred", "items", "task_012_sample0.json")) // run name: the file's base name
	if err != nil {
		t.Fatal(err)
	}
	var it struct {
		F1 float64 `json:"triplet_f1"`
	}
	if err := json.Unmarshal(b, &it); err != nil || it.F1 != 0.1728 {
		t.Errorf("task_012 F1 %v (published 0.1728), %v", it.F1, err)
	}

	// Two records: which one is pred.json's is not for kgjudge to guess.
	gt, _, verdicts, _ := fixtureLayout(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"replay, several records", []string{"--gt", gt, "--judge", "replay", "--verdicts", verdicts}},
		{"offline", []string{"--gt", filepath.Join(p012, "gt.json")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"score", "--pred", filepath.Join(p012, "pred.json"), "--store", ":memory:", "--out", t.TempDir()}, tc.args...)
			code, stdout, stderr := runCLI(t, args)
			if code != ExitInput {
				t.Fatalf("exit %d, want %d\n%s", code, ExitInput, stderr)
			}
			for _, want := range []string{`no task for qid "pred"`, "name the file after its task", "--map FILE"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			if !strings.Contains(stdout, "no sample was scored") || strings.Contains(stdout, "avg@") {
				t.Errorf("stdout must say nothing was scored instead of an empty table:\n%s", stdout)
			}
		})
	}
}
