package runset_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kgstore/cayley"
	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/runs"
	"github.com/kgjudge/kgjudge/runset"
)

// scoreExamples scores the bundled examples (offline judge) into a real
// embedded store and an output directory.
func scoreExamples(t *testing.T, runName string) (storeDir, out string) {
	t.Helper()
	ctx := t.Context()
	root := t.TempDir()
	storeDir, out = filepath.Join(t.TempDir(), "store"), filepath.Join(root, runName)
	in, err := runs.LoadBatch(ctx, "../examples/gt", "", []runs.RunSpec{{Name: runName, Path: "../examples/pred"}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := cayley.Open(ctx, storeDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := runs.Score(ctx, in, runs.ScoreConfig{Protocol: matcher.ProtocolPaper, Judge: matcher.Offline{},
		Store: st, Out: root, Workers: 2, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	return storeDir, out
}

// The store and the output directory give the same run back: the same
// metrics and the same verdicts.
func TestReadStoreMatchesOutDir(t *testing.T) {
	storeDir, out := scoreExamples(t, "demo")
	fromOut, err := runset.ReadOutDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if fromOut.Name != "demo" || fromOut.N != 2 || len(fromOut.Samples) != 4 || fromOut.Protocol != matcher.ProtocolPaper {
		t.Fatalf("out dir: %s N=%d %d samples %s", fromOut.Name, fromOut.N, len(fromOut.Samples), fromOut.Protocol)
	}
	st, err := cayley.Open(t.Context(), storeDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fromStore, tasks, err := runset.ReadStore(t.Context(), st, nil, matcher.ProtocolPaper)
	if err != nil {
		t.Fatal(err)
	}
	if len(fromStore) != 1 || len(fromStore[0].Samples) != 4 {
		t.Fatalf("store: %+v", fromStore)
	}
	for i := range fromOut.Samples {
		a, b := fromOut.Samples[i], fromStore[0].Samples[i]
		if !reflect.DeepEqual(a, b) {
			t.Errorf("sample %d differs:\nout   %+v\nstore %+v", i, a, b)
		}
		if len(a.Claims) == 0 {
			t.Errorf("sample %d: no claims", i)
		}
	}
	if tasks["task_e02_咖啡豆选购"].Language != "zh" {
		t.Errorf("task properties: %+v", tasks)
	}
	if _, _, err := runset.ReadStore(t.Context(), st, []string{"nope"}, matcher.ProtocolPaper); err == nil || !strings.Contains(err.Error(), "demo") {
		t.Errorf("unknown run: %v", err)
	}
	// Under the code protocol precision changes, recall does not.
	code, _, err := runset.ReadStore(t.Context(), st, []string{"demo"}, matcher.ProtocolCode)
	if err != nil {
		t.Fatal(err)
	}
	if code[0].Protocol != matcher.ProtocolCode || code[0].Samples[0].TripletR != fromOut.Samples[0].TripletR {
		t.Errorf("code protocol: %+v", code[0].Samples[0].Metrics)
	}
}

func TestReadPaths(t *testing.T) {
	_, a := scoreExamples(t, "alpha")
	parent := filepath.Dir(a)
	rs, err := runset.ReadPaths([]string{parent})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].Name != "alpha" {
		t.Fatalf("%+v", rs)
	}
	if _, err := runset.ReadPaths([]string{a, a}); err == nil || !strings.Contains(err.Error(), "both") {
		t.Errorf("the same run twice: %v", err)
	}
	if _, err := runset.ReadPaths([]string{t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no summary.json") {
		t.Errorf("an empty folder: %v", err)
	}
	var ie *runset.InputError
	if _, err := runset.ReadOutDir(t.TempDir()); err == nil || !asInput(err, &ie) {
		t.Errorf("not an output directory: %v", err)
	}
}

func asInput(err error, target **runset.InputError) bool {
	ie, ok := err.(*runset.InputError)
	*target = ie
	return ok
}

func TestReadTasksAndMeta(t *testing.T) {
	dir := t.TempDir()
	task := `{"task_id": "t1", "language": "en", "subset": "pro", "domain": "finance", "nodes": [{"node_id": "a", "node_name": "A"}, {"node_id": "b", "node_name": "B"}], "triples": [{"head": "a", "relation": "r", "tail": "b"}]}`
	if err := os.WriteFile(filepath.Join(dir, "task_t1.json"), []byte(task), 0o644); err != nil {
		t.Fatal(err)
	}
	tasks, ids, err := runset.ReadTasks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := tasks["t1"]; got != (runset.Task{ID: "t1", Subset: "pro", Language: "en", Domain: "finance"}) || len(ids) != 1 {
		t.Errorf("%+v %v", got, ids)
	}

	for name, body := range map[string]string{
		"meta.csv":  "run,model,framework,notes\nopus-react,Claude Opus 4.6,react,first\n",
		"meta.tsv":  "name\tframework\tmodel\nopus-react\treact\tClaude Opus 4.6\n",
		"meta.json": `[{"name": "opus-react", "model": "Claude Opus 4.6", "framework": "react"}]`,
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		m, err := runset.ReadMeta(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m["opus-react"] != (runset.RunMeta{Model: "Claude Opus 4.6", Framework: "react"}) {
			t.Errorf("%s: %+v", name, m)
		}
	}
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("model,framework\nx,y\n"), 0o644)
	if _, err := runset.ReadMeta(bad); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("no run column: %v", err)
	}
	rs := []runset.Run{{Name: "opus-react", Model: "opus-react"}, {Name: "other", Model: "other"}}
	runset.ApplyMeta(rs, map[string]runset.RunMeta{"opus-react": {Model: "Claude Opus 4.6", Framework: "react"}})
	if rs[0].Model != "Claude Opus 4.6" || rs[0].Framework != "react" || rs[1].Model != "other" {
		t.Errorf("%+v", rs)
	}
}
