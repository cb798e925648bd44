package runs

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/cayley"
	"github.com/kgjudge/kgjudge/matcher"
)

const (
	examplesGT   = "../examples/gt"
	examplesPred = "../examples/pred"
	taskE01      = "task_e01_Kyoto Weekend"
	taskE02      = "task_e02_咖啡豆选购"
	taskD001     = "task_001_liquid foundation" // testdata/fixtures/d001
)

func copyTo(t *testing.T, src, dst string) {
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

// firstLines writes the first n lines of src to dst.
func firstLines(t *testing.T, src, dst string, n int) {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var out []string
	for len(out) < n && sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// layout is a hand-made benchmark: the two example tasks plus fixture d001
// as ground truth; "full" predicts both samples of each example task,
// "partial" only sample 0 of task e02; neither predicts d001.
type layout struct{ gt, full, partial string }

func newLayout(t *testing.T) layout {
	t.Helper()
	root := t.TempDir()
	l := layout{gt: filepath.Join(root, "gt"), full: filepath.Join(root, "full"), partial: filepath.Join(root, "partial")}
	for _, id := range []string{taskE01, taskE02} {
		copyTo(t, filepath.Join(examplesGT, id+".json"), filepath.Join(l.gt, id+".json"))
		copyTo(t, filepath.Join(examplesPred, id+".jsonl"), filepath.Join(l.full, id+".jsonl"))
	}
	copyTo(t, "../testdata/fixtures/d001/gt.json", filepath.Join(l.gt, "d001.json"))
	copyTo(t, filepath.Join(examplesPred, taskE01+".jsonl"), filepath.Join(l.partial, taskE01+".jsonl"))
	firstLines(t, filepath.Join(examplesPred, taskE02+".jsonl"), filepath.Join(l.partial, taskE02+".jsonl"), 1)
	return l
}

func openStore(t *testing.T, dir string) kgstore.Store {
	t.Helper()
	s, err := cayley.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var fixedNow = func() time.Time { return time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC) }

func score(t *testing.T, store kgstore.Store, gt, out string, cfg ScoreConfig, specs ...RunSpec) *BatchResult {
	t.Helper()
	b, err := LoadBatch(t.Context(), gt, "", specs)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store, cfg.Out, cfg.Judge, cfg.Now = store, out, matcher.Offline{}, fixedNow
	if cfg.Protocol == "" {
		cfg.Protocol = matcher.ProtocolPaper
	}
	res, err := Score(t.Context(), b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func f1Of(items []matcher.Item) map[string]map[int]float64 {
	m := map[string]map[int]float64{}
	for _, it := range items {
		if m[it.QID] == nil {
			m[it.QID] = map[int]float64{}
		}
		m[it.QID][it.SampleIdx] = it.TripletF1
	}
	return m
}

// TestScoreZeroFillsMissingSamples reproduces the reference's avg@N on a
// hand-made case: task e01 has 2 samples of 2, task e02 1 of 2, task d001
// none. The reference scores each missing sample 0, so
//
//	avg@2 F1 = ((f(e01,0)+f(e01,1))/2 + (f(e02,0)+0)/2 + (0+0)/2) / 3
//	best@2 F1 = (max(f(e01,0), f(e01,1)) + f(e02,0) + 0) / 3
//
// with the per-sample F1s f of the samples that are there; --missing skip
// averages e01 over 2 samples and e02 over its one, and leaves d001 out.
func TestScoreZeroFillsMissingSamples(t *testing.T) {
	l := newLayout(t)
	full := score(t, openStore(t, cayley.Memory), l.gt, t.TempDir(), ScoreConfig{}, RunSpec{Name: "full", Path: l.full})
	f := f1Of(full.Runs[0].Items)
	if len(f[taskE01]) != 2 || len(f[taskE02]) != 2 || f[taskE02][0] == 0 {
		t.Fatalf("the full run's F1s: %v", f)
	}

	for _, tc := range []struct {
		policy   MissingPolicy
		avg, bst float64
		queries  int
	}{
		{MissingZero, ((f[taskE01][0]+f[taskE01][1])/2 + (f[taskE02][0]+0)/2 + 0) / 3,
			(max(f[taskE01][0], f[taskE01][1]) + f[taskE02][0] + 0) / 3, 3},
		{MissingSkip, ((f[taskE01][0]+f[taskE01][1])/2 + f[taskE02][0]) / 2,
			(max(f[taskE01][0], f[taskE01][1]) + f[taskE02][0]) / 2, 2},
	} {
		t.Run(string(tc.policy), func(t *testing.T) {
			out := t.TempDir()
			res := score(t, openStore(t, cayley.Memory), l.gt, out, ScoreConfig{Missing: tc.policy}, RunSpec{Name: "partial", Path: l.partial})
			r := res.Runs[0]
			s := r.Summary
			if s.Avg["triplet_f1"] != matcher.Round4(tc.avg) || s.Best["triplet_f1"] != matcher.Round4(tc.bst) {
				t.Errorf("avg@2 F1 %v best@2 F1 %v, want %v and %v (by hand)", s.Avg["triplet_f1"], s.Best["triplet_f1"], matcher.Round4(tc.avg), matcher.Round4(tc.bst))
			}
			if s.NumQueries != tc.queries || s.NumSamples != 2 {
				t.Errorf("num_queries %d num_samples %d, want %d and 2", s.NumQueries, s.NumSamples, tc.queries)
			}
			want := []matcher.MissingSample{{TaskID: taskD001, Sample: 0}, {TaskID: taskD001, Sample: 1}, {TaskID: taskE02, Sample: 1}}
			if !reflect.DeepEqual(r.Missing, want) {
				t.Errorf("missing %+v, want %+v", r.Missing, want)
			}
			b, err := os.ReadFile(filepath.Join(out, "partial", "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `"missing": [`) || !strings.Contains(string(b), `"task_id": "task_001_liquid foundation"`) {
				t.Errorf("summary.json lacks the missing samples:\n%.600s", b)
			}
			if r.Info.Samples != 2 || r.Info.Missing != string(tc.policy) || len(r.Info.Tasks) != 3 {
				t.Errorf("run info %+v", r.Info)
			}
		})
	}
}

// TestScoreSamplesFlag: --samples 3 makes every task miss sample 2; a
// sample beyond N is a problem, not scored.
func TestScoreSamplesFlag(t *testing.T) {
	l := newLayout(t)
	res := score(t, openStore(t, cayley.Memory), l.gt, t.TempDir(), ScoreConfig{Samples: 3}, RunSpec{Name: "full", Path: l.full})
	r := res.Runs[0]
	if r.Summary.NumSamples != 3 || len(r.Missing) != 3+1+1 {
		t.Errorf("num_samples %d, missing %+v", r.Summary.NumSamples, r.Missing)
	}
	res = score(t, openStore(t, cayley.Memory), l.gt, t.TempDir(), ScoreConfig{Samples: 1}, RunSpec{Name: "full", Path: l.full})
	r = res.Runs[0]
	if len(r.Items) != 2 || len(r.Problems) != 2 || !strings.Contains(r.Problems[0].Error(), "outside --samples 1") {
		t.Errorf("--samples 1: %d items, problems %v", len(r.Items), r.Problems)
	}
}

// TestRescoreReplacesRun: a run scored with 4 samples and re-scored with 3
// keeps 3 in the store (structure, runs show and Read see 3), and its output
// directory keeps no item file of the first scoring.
func TestRescoreReplacesRun(t *testing.T) {
	l := newLayout(t)
	storeDir := filepath.Join(t.TempDir(), "store")
	out := t.TempDir()
	store := openStore(t, storeDir)
	first := score(t, store, l.gt, out, ScoreConfig{}, RunSpec{Name: "r", Path: l.full})
	if len(first.Runs[0].Items) != 4 {
		t.Fatalf("first scoring: %d items", len(first.Runs[0].Items))
	}
	stray := filepath.Join(out, "r", "items", "left over by hand.json")
	if err := os.WriteFile(stray, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	second := score(t, store, l.gt, out, ScoreConfig{}, RunSpec{Name: "r", Path: l.partial})
	want := []kgstore.SampleKey{{Run: "r", TaskID: taskE02, Sample: 1}}
	if !reflect.DeepEqual(second.Runs[0].Removed, want) {
		t.Errorf("removed %+v, want %+v", second.Runs[0].Removed, want)
	}
	keys, err := store.Samples(t.Context(), "r")
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 3 {
		t.Errorf("store holds %d samples of r after re-scoring with 3: %+v", len(keys), keys)
	}
	if _, err := store.Verdicts(t.Context(), kgstore.SampleKey{Run: "r", TaskID: taskE02, Sample: 1}); err == nil {
		t.Errorf("the removed sample's verdicts are still stored")
	}
	entries, err := os.ReadDir(filepath.Join(out, "r", "items"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	wantNames := []string{taskE01 + "_sample0.json", taskE01 + "_sample1.json", taskE02 + "_sample0.json"}
	if !reflect.DeepEqual(names, wantNames) {
		t.Errorf("items after re-scoring: %q, want %q", names, wantNames)
	}
	top, _ := os.ReadDir(out)
	if len(top) != 1 || top[0].Name() != "r" {
		t.Errorf("output directory holds %v, want only r/ (no temporary directories)", top)
	}
	// Read sees exactly the second scoring and reproduces its summary.
	rs, err := Read(t.Context(), store, "r", matcher.ProtocolPaper)
	if err != nil {
		t.Fatal(err)
	}
	s2 := second.Runs[0].Summary
	if !reflect.DeepEqual(rs.Summary.Avg, s2.Avg) || !reflect.DeepEqual(rs.Summary.Best, s2.Best) || !reflect.DeepEqual(rs.Missing, second.Runs[0].Missing) {
		t.Errorf("Read: avg %v best %v missing %v; score: avg %v best %v missing %v", rs.Summary.Avg, rs.Summary.Best, rs.Missing, s2.Avg, s2.Best, second.Runs[0].Missing)
	}
}

// TestReadShape pins what the leaderboard reads: every task of the run
// with exactly N samples in index order, missing ones zero-filled and
// flagged, task properties, and the run's metadata.
func TestReadShape(t *testing.T) {
	l := newLayout(t)
	store := openStore(t, filepath.Join(t.TempDir(), "store"))
	res := score(t, store, l.gt, t.TempDir(), ScoreConfig{Subset: "daily"},
		RunSpec{Name: "partial", Path: l.partial, Model: "M", Framework: "react", Notes: "n"})
	rs, err := Read(t.Context(), store, "partial", matcher.ProtocolPaper)
	if err != nil {
		t.Fatal(err)
	}
	if rs.N != 2 || len(rs.Tasks) != 3 || rs.Info.Model != "M" || rs.Info.Framework != "react" || rs.Info.Notes != "n" || !rs.Info.Scored.Equal(fixedNow()) {
		t.Fatalf("RunScores: N %d, %d tasks, info %+v", rs.N, len(rs.Tasks), rs.Info)
	}
	byItem := f1Of(res.Runs[0].Items)
	for _, ts := range rs.Tasks {
		if len(ts.Samples) != 2 || ts.Samples[0].Sample != 0 || ts.Samples[1].Sample != 1 {
			t.Errorf("%s: samples %+v", ts.TaskID, ts.Samples)
		}
		if ts.Subset != "daily" || ts.Language == "" {
			t.Errorf("%s: subset %q language %q", ts.TaskID, ts.Subset, ts.Language)
		}
		for _, ss := range ts.Samples {
			f, present := byItem[ts.TaskID][ss.Sample]
			switch {
			case ss.Missing != !present:
				t.Errorf("%s sample %d: missing %v, scored %v", ts.TaskID, ss.Sample, ss.Missing, present)
			case ss.Missing && (ss.Item != nil || ss.Metrics["triplet_f1"] != 0 || len(ss.Metrics) != 6):
				t.Errorf("%s sample %d: a missing sample must be zeros without an item: %+v", ts.TaskID, ss.Sample, ss)
			case !ss.Missing && (ss.Item == nil || ss.Metrics["triplet_f1"] != f):
				t.Errorf("%s sample %d: F1 %v, scored %v", ts.TaskID, ss.Sample, ss.Metrics["triplet_f1"], f)
			}
		}
	}
	if _, err := Read(t.Context(), store, "nope", matcher.ProtocolPaper); !IsInputError(err) {
		t.Errorf("Read of an unknown run: %v, want an input error", err)
	}
}

// TestScoreSeveralRunsOnePool: two runs in one command share the worker
// pool and one progress count, and each gets its own directory and
// metadata.
func TestScoreSeveralRunsOnePool(t *testing.T) {
	l := newLayout(t)
	store := openStore(t, cayley.Memory)
	out := t.TempDir()
	var dones []int
	total := 0
	res := score(t, store, l.gt, out, ScoreConfig{Workers: 3, Progress: func(done, tot int, _ string, _ int) {
		dones = append(dones, done)
		total = tot
	}}, RunSpec{Name: "a", Path: l.full, Model: "A"}, RunSpec{Name: "b", Path: l.partial, Model: "B"})
	if total != 7 || len(dones) != 7 || dones[0] != 1 || dones[6] != 7 {
		t.Errorf("progress %v of %d, want 1..7 of 7", dones, total)
	}
	if len(res.Runs) != 2 || len(res.Runs[0].Items) != 4 || len(res.Runs[1].Items) != 3 {
		t.Fatalf("runs %d", len(res.Runs))
	}
	for _, name := range []string{"a", "b"} {
		if _, err := os.Stat(filepath.Join(out, name, "summary.json")); err != nil {
			t.Error(err)
		}
	}
	names, _ := store.Runs(t.Context())
	if !reflect.DeepEqual(names, []string{"a", "b"}) {
		t.Errorf("runs %q", names)
	}
	infoB, err := store.Run(t.Context(), "b")
	if err != nil || infoB.Model != "B" || infoB.Source != l.partial || infoB.Judge != "offline" || infoB.Protocol != "paper" {
		t.Errorf("run b: %+v %v", infoB, err)
	}
	var man Manifest
	if err := json.Unmarshal(infoB.Manifest, &man); err != nil || man.Judge != "offline" {
		t.Errorf("manifest %s: %v", infoB.Manifest, err)
	}
	// The same runs one at a time give the same summaries.
	for i, sp := range []RunSpec{{Name: "a", Path: l.full, Model: "A"}, {Name: "b", Path: l.partial, Model: "B"}} {
		alone := score(t, openStore(t, cayley.Memory), l.gt, t.TempDir(), ScoreConfig{}, sp)
		a, _ := json.Marshal(alone.Runs[0].Summary)
		b, _ := json.Marshal(res.Runs[i].Summary)
		if string(a) != string(b) {
			t.Errorf("run %s scored alone differs from the batch", sp.Name)
		}
	}
}

// TestSubsetNeverErased: a subset stored by one command survives a later
// score and a later import that do not give one.
func TestSubsetNeverErased(t *testing.T) {
	l := newLayout(t)
	store := openStore(t, filepath.Join(t.TempDir(), "store"))
	subset := func(id string) string {
		t.Helper()
		task, err := store.Task(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		return task.Subset
	}
	score(t, store, l.gt, t.TempDir(), ScoreConfig{Subset: "pro"}, RunSpec{Name: "a", Path: l.full})
	score(t, store, l.gt, t.TempDir(), ScoreConfig{}, RunSpec{Name: "b", Path: l.full})
	for _, id := range []string{taskE01, taskE02, taskD001} {
		if got := subset(id); got != "pro" {
			t.Errorf("after a score without --subset: %s subset %q, want pro", id, got)
		}
	}
	// Import the recorded run of d001 with a subset, then again without.
	evals := filepath.Join(t.TempDir(), "evals")
	copyTo(t, "../testdata/fixtures/d001/eval.json", filepath.Join(evals, taskD001+"_sample0.json"))
	for i, sub := range []string{"daily", ""} {
		res, err := Import(t.Context(), ImportConfig{Evals: evals, Run: "imp", Subset: sub, Store: store, Now: fixedNow})
		if err != nil || len(res.Items) != 1 {
			t.Fatalf("import %d: %v", i, err)
		}
		if got := subset(taskD001); got != "daily" {
			t.Errorf("import %d (subset %q): d001 subset %q, want daily", i, sub, got)
		}
	}
	// The import rebuilt d001 from its records: the stored task of the
	// task file (node list, final query, language) stays.
	gtTasks, err := ingest.ReadTasks(filepath.Join(l.gt, "d001.json"))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := store.Task(t.Context(), taskD001)
	if err != nil {
		t.Fatal(err)
	}
	want := gtTasks[0]
	want.Source, want.Subset = "", "daily"
	if !reflect.DeepEqual(stored, want) {
		t.Errorf("after an import without --gt, d001 is no longer the task file's: %d nodes, final query %q", len(stored.Nodes), stored.FinalQuery)
	}
	info, err := store.Run(t.Context(), "imp")
	if err != nil || info.Samples != 1 || !reflect.DeepEqual(info.Tasks, []string{taskD001}) {
		t.Errorf("imported run info %+v %v", info, err)
	}
	// A later --subset does change it: that command sets it.
	score(t, store, l.gt, t.TempDir(), ScoreConfig{Subset: "x"}, RunSpec{Name: "b", Path: l.full})
	if got := subset(taskE01); got != "x" {
		t.Errorf("after --subset x: e01 subset %q, want x", got)
	}
}

// TestRunSubsetLimitsTasks: a run with a subset is scored on that subset's
// tasks only (the others are not missing), and labels the tasks it predicts
// that have none.
func TestRunSubsetLimitsTasks(t *testing.T) {
	l := newLayout(t)
	store := openStore(t, cayley.Memory)
	res := score(t, store, l.gt, t.TempDir(), ScoreConfig{}, RunSpec{Name: "p", Path: l.full, Subset: "pro"})
	r := res.Runs[0]
	if len(r.Items) != 4 || len(r.Missing) != 0 || !reflect.DeepEqual(r.Info.Tasks, []string{taskE01, taskE02}) {
		t.Errorf("items %d missing %+v tasks %q", len(r.Items), r.Missing, r.Info.Tasks)
	}
	task, _ := store.Task(context.Background(), taskE01)
	if task.Subset != "pro" {
		t.Errorf("e01 subset %q, want pro (labelled by the run)", task.Subset)
	}
}

func TestReadRunsFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "preds", "opus"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "preds", "gpt"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	want := []RunSpec{
		{Name: "opus-react", Model: "Claude Opus 4.6", Framework: "react", Path: filepath.Join(dir, "preds", "opus"), Subset: "pro", Notes: "t=0"},
		{Name: "gpt", Path: filepath.Join(dir, "preds", "gpt")},
	}
	for _, tc := range []struct{ name, body string }{
		{"runs.json", `[{"name": "opus-react", "model": "Claude Opus 4.6", "framework": "react", "path": "preds/opus", "subset": "pro", "notes": "t=0"}, {"path": "preds/gpt"}]`},
		{"wrapped.json", `{"runs": [{"name": "opus-react", "model": "Claude Opus 4.6", "framework": "react", "path": "preds/opus", "subset": "pro", "notes": "t=0"}, {"path": "preds/gpt"}]}`},
		{"runs.csv", "name,model,framework,path,subset,notes\nopus-react,Claude Opus 4.6,react,preds/opus,pro,t=0\n,,,preds/gpt,,\n"},
		{"runs.tsv", "path\tname\tmodel\tframework\tsubset\tnotes\npreds/opus\topus-react\tClaude Opus 4.6\treact\tpro\tt=0\npreds/gpt\n"},
	} {
		got, err := ReadRunsFile(write(tc.name, tc.body))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v %v, want %+v", tc.name, got, err, want)
		}
	}
	for _, tc := range []struct{ name, body, want string }{
		{"dup.json", `[{"name": "x", "path": "preds/opus"}, {"name": "x", "path": "preds/gpt"}]`, `run 2: run name "x" is also used by run 1`},
		{"nopath.json", `[{"name": "x"}]`, `run 1: no "path"`},
		{"gone.json", `[{"path": "preds/nowhere"}]`, "run 1: path:"},
		{"unknown.json", `[{"path": "preds/gpt", "modle": "typo"}]`, `unknown field "modle"`},
		{"badname.json", `[{"name": "a/b", "path": "preds/gpt"}]`, "run 1: name:"},
		{"empty.json", `[]`, "no runs"},
		{"bad.csv", "name,path,size\nx,preds/gpt,3\n", `unknown column "size"`},
		{"long.csv", "name,path\nx,preds/gpt,extra\n", "line 2: 3 fields"},
	} {
		_, err := ReadRunsFile(write(tc.name, tc.body))
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s: err %v, want an input error naming the file and %q", tc.name, err, tc.want)
		}
	}
}

// TestExampleRunsFile: the manifest under examples/ reads and names runs
// whose predictions exist.
func TestExampleRunsFile(t *testing.T) {
	specs, err := ReadRunsFile("../examples/runs.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) < 2 || specs[0].Model == "" {
		t.Errorf("examples/runs.json: %+v", specs)
	}
}
