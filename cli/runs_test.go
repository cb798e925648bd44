package cli

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	exE01 = "task_e01_Kyoto Weekend"
	exE02 = "task_e02_咖啡豆选购"
)

// runsLayout is the two example tasks as ground truth; "full" predicts
// both samples of both, "partial" only sample 0 of e02.
func runsLayout(t *testing.T) (gt, full, partial string) {
	t.Helper()
	root := t.TempDir()
	gt, full, partial = filepath.Join(root, "gt"), filepath.Join(root, "full"), filepath.Join(root, "partial")
	for _, id := range []string{exE01, exE02} {
		copyFile(t, filepath.Join("../examples/gt", id+".json"), filepath.Join(gt, id+".json"))
		copyFile(t, filepath.Join("../examples/pred", id+".jsonl"), filepath.Join(full, id+".jsonl"))
	}
	copyFile(t, filepath.Join("../examples/pred", exE01+".jsonl"), filepath.Join(partial, exE01+".jsonl"))
	f, err := os.Open(filepath.Join("../examples/pred", exE02+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	sc.Scan()
	if err := os.WriteFile(filepath.Join(partial, exE02+".jsonl"), append(sc.Bytes(), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	return gt, full, partial
}

func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var o, e bytes.Buffer
	code := Main(t.Context(), append([]string{"kgjudge"}, args...), &o, &e)
	return code, o.String(), e.String()
}

// TestScoreSeveralPredsAndRunsCommands: --pred NAME=PATH twice scores two
// runs into OUT/NAME/; the missing sample is reported; runs list, show and
// rm read and delete them from the store, with no Neo4j.
func TestScoreSeveralPredsAndRunsCommands(t *testing.T) {
	gt, full, partial := runsLayout(t)
	store, out := filepath.Join(t.TempDir(), "store"), t.TempDir()
	code, stdout, stderr := cli(t, "score", "--gt", gt, "--pred", "full="+full, "--pred", "part="+partial, "--store", store, "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "run part: 1 of 4 sample(s) missing, scored 0 (--missing zero): "+exE02+" sample 1") {
		t.Errorf("stderr does not report the missing sample:\n%s", stderr)
	}
	if !strings.Contains(stdout, "missing: 1 sample(s) without a prediction, scored 0") {
		t.Errorf("the table does not report the missing sample:\n%s", stdout)
	}
	if strings.Contains(stderr, "run full:") {
		t.Errorf("the full run has nothing missing:\n%s", stderr)
	}
	for _, run := range []string{"full", "part"} {
		if _, err := os.Stat(filepath.Join(out, run, "summary.json")); err != nil {
			t.Error(err)
		}
		if !strings.Contains(stdout, "run "+run+" ·") {
			t.Errorf("no table for run %s", run)
		}
	}

	code, stdout, _ = cli(t, "runs", "list", "--store", store)
	if code != ExitOK || !strings.Contains(stdout, "full") || !strings.Contains(stdout, "part") || !strings.Contains(stdout, "offline") {
		t.Errorf("runs list: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = cli(t, "runs", "list", "--store", store, "--format", "csv")
	rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if code != ExitOK || err != nil || len(rows) != 3 || rows[2][0] != "part" || rows[2][4] != "2" || rows[2][5] != "2" || rows[2][6] != "3" {
		t.Errorf("runs list --format csv: exit %d, %v\n%s", code, err, stdout)
	}

	// show: flags after the run name work; the JSON summary is score's.
	code, stdout, stderr = cli(t, "runs", "show", "part", "--store", store, "--format", "json")
	if code != ExitOK {
		t.Fatalf("runs show: exit %d\n%s", code, stderr)
	}
	var shown struct {
		Run     map[string]any `json:"run"`
		Summary map[string]any `json:"summary"`
	}
	if err := json.Unmarshal([]byte(stdout), &shown); err != nil {
		t.Fatalf("runs show --format json: %v\n%s", err, stdout)
	}
	var scored map[string]any
	b, _ := os.ReadFile(filepath.Join(out, "part", "summary.json"))
	if err := json.Unmarshal(b, &scored); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"avg@2_triplet_f1", "best@2_triplet_f1", "avg@2_node_f1", "num_queries", "num_samples", "missing"} {
		a, _ := json.Marshal(shown.Summary[k])
		b, _ := json.Marshal(scored[k])
		if string(a) != string(b) {
			t.Errorf("runs show %s = %s, summary.json has %s", k, a, b)
		}
	}
	code, stdout, _ = cli(t, "runs", "show", "part", "--store", store, "--format", "csv")
	rows, err = csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if code != ExitOK || err != nil || len(rows) != 3 || rows[0][0] != "task_id" || rows[2][0] != exE02 || rows[2][3] != "2" || rows[2][4] != "1" {
		t.Errorf("runs show --format csv: exit %d, %v\n%s", code, err, stdout)
	}
	code, stdout, _ = cli(t, "runs", "show", "part", "--store", store)
	if code != ExitOK || !strings.Contains(stdout, "1 sample(s) missing (scored 0)") || !strings.Contains(stdout, "avg@2") {
		t.Errorf("runs show: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := cli(t, "runs", "show", "nope", "--store", store); code != ExitInput || !strings.Contains(stderr, `no run "nope"`) {
		t.Errorf("runs show of an unknown run: exit %d\n%s", code, stderr)
	}

	// rm
	if code, stdout, stderr := cli(t, "runs", "rm", "full", "--store", store); code != ExitOK || !strings.Contains(stdout, `deleted run "full"`) {
		t.Fatalf("runs rm: exit %d\n%s%s", code, stdout, stderr)
	}
	_, stdout, _ = cli(t, "runs", "list", "--store", store, "--format", "json")
	var list []struct {
		Info struct {
			Name string `json:"name"`
		} `json:"info"`
	}
	if err := json.Unmarshal([]byte(stdout), &list); err != nil || len(list) != 1 || list[0].Info.Name != "part" {
		t.Errorf("runs list after rm: %v\n%s", err, stdout)
	}
	if code, _, stderr := cli(t, "runs", "rm", "full", "--store", store); code != ExitInput || !strings.Contains(stderr, `no run "full"`) {
		t.Errorf("runs rm of a deleted run: exit %d\n%s", code, stderr)
	}
}

// TestRescoreStructureSeesNewSamples is the case: a run scored
// with 4 samples, then re-scored with 3, reports 3 in structure.
func TestRescoreStructureSeesNewSamples(t *testing.T) {
	gt, full, partial := runsLayout(t)
	store, out := filepath.Join(t.TempDir(), "store"), t.TempDir()
	for _, pred := range []string{full, partial} {
		if code, _, stderr := cli(t, "score", "--gt", gt, "--pred", pred, "--run", "r", "--store", store, "--out", out); code != ExitOK {
			t.Fatalf("score %s: exit %d\n%s", pred, code, stderr)
		}
	}
	rr, err := runStructure(t.Context(), structureOptions{Run: "r", Store: store, Protocol: "paper"}, &bytes.Buffer{}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if rr.Samples != 3 {
		t.Errorf("structure reports %d samples, the last scoring had 3", rr.Samples)
	}
	items, _ := os.ReadDir(filepath.Join(out, "r", "items"))
	if len(items) != 3 {
		t.Errorf("%d item files, the last scoring wrote 3", len(items))
	}
}

// TestScoreRunsFileExample scores the example manifest: each run in its
// directory, the second one's missing task reported.
func TestScoreRunsFileExample(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := cli(t, "score", "--gt", "../examples/gt", "--runs", "../examples/runs.json", "--store", ":memory:", "--out", out, "--json")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var sums []map[string]any
	if err := json.Unmarshal([]byte(stdout), &sums); err != nil || len(sums) != 2 || sums[0]["run"] != "demo-a" || sums[1]["run"] != "demo-b" {
		t.Fatalf("--json with two runs: %v\n%.400s", err, stdout)
	}
	if !strings.Contains(stderr, "run demo-b: 2 of 4 sample(s) missing") {
		t.Errorf("stderr:\n%s", stderr)
	}
	a, b := sums[0]["avg@2_triplet_f1"].(float64), sums[1]["avg@2_triplet_f1"].(float64)
	if b >= a || b <= 0 {
		t.Errorf("demo-b (one task of two answered) avg@2 F1 %v, demo-a %v", b, a)
	}
}

func TestScoreRunArgs(t *testing.T) {
	gt, full, partial := runsLayout(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"same default name", []string{"--pred", full, "--pred", filepath.Join(filepath.Dir(full), "..", filepath.Base(filepath.Dir(full)), "full")}, "both name run"},
		{"pred and runs", []string{"--pred", full, "--runs", "../examples/runs.json"}, "not both"},
		{"run with several", []string{"--pred", full, "--pred", "p=" + partial, "--run", "x"}, "--run names a single"},
		{"no pred", nil, "missing --pred"},
		{"bad name", []string{"--pred", ".x=" + full}, "not a usable run name"},
		{"missing policy", []string{"--pred", full, "--missing", "maybe"}, "--missing"},
		{"model with several", []string{"--pred", "a=" + full, "--pred", "b=" + partial, "--model", "m"}, "--runs file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"score", "--gt", gt, "--store", ":memory:", "--out", t.TempDir()}, tc.args...)
			if code, _, stderr := cli(t, args...); code != ExitInput || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q, want exit 2 and %q", code, stderr, tc.want)
			}
		})
	}
	// A path that holds "=" is a path, not NAME=PATH.
	odd := filepath.Join(t.TempDir(), "a=b")
	copyFile(t, filepath.Join(full, exE01+".jsonl"), filepath.Join(odd, exE01+".jsonl"))
	out := t.TempDir()
	if code, _, stderr := cli(t, "score", "--gt", gt, "--pred", odd, "--store", ":memory:", "--out", out, "--missing", "skip"); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "a=b", "summary.json")); err != nil {
		t.Error(err)
	}
}

// TestNeo4jRescoreAndSubset: with --neo4j, re-scoring replaces the run's
// samples in Neo4j too, a later command without --subset keeps the tasks'
// subsets there, and runs rm --neo4j deletes the run from both.
func TestNeo4jRescoreAndSubset(t *testing.T) {
	o := testNeo4j(t)
	gt, full, partial := runsLayout(t)
	store := filepath.Join(t.TempDir(), "store")
	score := func(pred, subset string) {
		t.Helper()
		if _, err := runScore(t.Context(), scoreOptions{GT: gt, Pred: pred, Run: "r", Judge: "offline", Protocol: "paper", Missing: "zero",
			Store: store, Out: t.TempDir(), Subset: subset, ModelName: "M", Neo4j: true, Neo4jConn: o}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
	}
	score(full, "pro")
	// A second scoring with fewer samples, through a fresh embedded store
	// (only Neo4j remembers the subset and the old samples).
	store = filepath.Join(t.TempDir(), "store2")
	score(partial, "")
	rows := queryJSON(t, o, queryOptions{Cypher: `
MATCH (r:Run {ns: $ns, name: 'r'})
RETURN r.model AS model, r.n_samples AS n, COUNT { (r)<-[:OF_RUN]-(:Sample) } AS samples`})
	if len(rows) != 1 || rows[0]["model"] != "M" || rows[0]["n"] != 2.0 || rows[0]["samples"] != 3.0 {
		t.Errorf("run r in Neo4j: %v, want model M, N 2, 3 samples", rows)
	}
	rows = queryJSON(t, o, queryOptions{Cypher: `MATCH (t:Task {ns: $ns}) WHERE t.loaded RETURN t.id AS id, t.subset AS subset ORDER BY id`})
	if len(rows) != 2 {
		t.Fatalf("tasks: %v", rows)
	}
	for _, r := range rows {
		if r["subset"] != "pro" {
			t.Errorf("task %v: subset %v after a score --neo4j without --subset, want pro", r["id"], r["subset"])
		}
	}
	if code, stdout, stderr := cli(t, "runs", "rm", "r", "--store", store, "--neo4j", "--neo4j-uri", o.URI, "--neo4j-namespace", o.Namespace); code != ExitOK {
		t.Fatalf("runs rm --neo4j: exit %d\n%s%s", code, stdout, stderr)
	}
	rows = queryJSON(t, o, queryOptions{Cypher: `MATCH (n {ns: $ns}) WHERE n:Run OR n:Sample OR n:Pred RETURN count(n) AS n`})
	if len(rows) != 1 || rows[0]["n"] != 0.0 {
		t.Errorf("after runs rm --neo4j: %v runs, samples and predicted triples left", rows)
	}
}
