package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/cayley"
)

// published reads each fixture's published covered_count, valid_count and
// triplet F1, by task id.
func publishedCounts(t *testing.T) map[string][3]float64 {
	t.Helper()
	out := map[string][3]float64{}
	for _, name := range fixtureNames {
		var ev struct {
			QID       string  `json:"qid"`
			TripletF1 float64 `json:"triplet_f1"`
			Coverage  struct {
				CoveredCount int `json:"covered_count"`
			} `json:"coverage_details"`
			Validity struct {
				ValidCount int `json:"valid_count"`
			} `json:"validity_details"`
		}
		b, err := os.ReadFile(filepath.Join(fixtureDir, name, "eval.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &ev); err != nil {
			t.Fatal(err)
		}
		var task struct {
			TaskID string `json:"task_id"`
		}
		b, _ = os.ReadFile(filepath.Join(fixtureDir, name, "gt.json"))
		json.Unmarshal(b, &task)
		out[task.TaskID] = [3]float64{float64(ev.Coverage.CoveredCount), float64(ev.Validity.ValidCount), ev.TripletF1}
	}
	return out
}

// evalDir copies the fixtures' eval records into one directory.
func evalDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range fixtureNames {
		copyFile(t, filepath.Join(fixtureDir, name, "eval.json"), filepath.Join(dir, name+".json"))
	}
	return dir
}

// checkCoveredCounts runs the cookbook's per-sample query and compares the
// graph's covered counts with the published ones.
func checkCoveredCounts(t *testing.T, o neo4jOptions, run string, wantPublished bool) {
	t.Helper()
	pub := publishedCounts(t)
	rows := queryJSON(t, o, queryOptions{File: "../docs/cypher/sample_covered_counts.cypher"})
	n := 0
	for _, r := range rows {
		if r["run"] != run {
			continue
		}
		n++
		task := r["task"].(string)
		want, ok := pub[task]
		if !ok {
			t.Errorf("unexpected task %q", task)
			continue
		}
		if r["covered"].(float64) != want[0] || r["covered_count"].(float64) != want[0] {
			t.Errorf("%s: covered %v, covered_count %v; published covered_count %v", task, r["covered"], r["covered_count"], want[0])
		}
		if wantPublished && r["published_covered_count"] != want[0] {
			t.Errorf("%s: published_covered_count %v, want %v", task, r["published_covered_count"], want[0])
		}
	}
	if n != len(pub) {
		t.Errorf("run %q: %d samples in Neo4j, want %d", run, n, len(pub))
	}
}

func TestImportThenCookbookGivesPublishedCounts(t *testing.T) {
	o := testNeo4j(t)
	evals := evalDir(t)
	var stdout, stderr bytes.Buffer
	res, err := runImport(t.Context(), importOptions{
		Evals: evals, Run: "opus", Model: "Claude Opus 4.6", Framework: "react", Subset: "mixed",
		Store: ":memory:", Neo4j: true, Neo4jConn: o,
	}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, stderr.String())
	}
	if len(res.Items) != 3 {
		t.Fatalf("imported %d samples, want 3", len(res.Items))
	}
	checkCoveredCounts(t, o, "opus", true)

	// Metrics recomputed from the imported verdicts are the published ones.
	pub := publishedCounts(t)
	rows := queryJSON(t, o, queryOptions{Cypher: `
MATCH (r:Run {ns: $ns})<-[:OF_RUN]-(s:Sample)-[:OF_TASK]->(t:Task)
RETURN r.model AS model, r.framework AS framework, t.subset AS subset, t.id AS task,
       s.valid_count AS valid, s.triplet_f1 AS f1, s.published_triplet_f1 AS published_f1`})
	for _, r := range rows {
		want := pub[r["task"].(string)]
		if r["model"] != "Claude Opus 4.6" || r["framework"] != "react" || r["subset"] != "mixed" {
			t.Errorf("run/task properties: %v", r)
		}
		if r["valid"].(float64) != want[1] || r["f1"].(float64) != want[2] || r["published_f1"].(float64) != want[2] {
			t.Errorf("%v: want valid %v, F1 %v", r, want[1], want[2])
		}
	}

	// With the task files the graphs are the same (the fixtures' gt.json
	// was rebuilt the same way), and a second import changes nothing.
	count := func() []map[string]any {
		return queryJSON(t, o, queryOptions{Cypher: `
MATCH (n) WHERE n.ns = $ns
OPTIONAL MATCH (n)-[r]->()
WITH reduce(s = '', l IN labels(n) | s + ':' + l) AS label, n, r
RETURN label, count(DISTINCT n) AS nodes, count(r) AS rels ORDER BY label`})
	}
	before := count()
	gtDir := t.TempDir()
	for _, name := range fixtureNames {
		copyFile(t, filepath.Join(fixtureDir, name, "gt.json"), filepath.Join(gtDir, name+".json"))
	}
	if _, err := runImport(t.Context(), importOptions{Evals: evals, GT: gtDir, Run: "opus-gt", Store: ":memory:", Neo4j: true, Neo4jConn: o}, &stdout, &stderr); err != nil {
		t.Fatalf("import --gt: %v\n%s", err, stderr.String())
	}
	checkCoveredCounts(t, o, "opus-gt", true)
	// The tasks were rewritten (gt.json has the final query): the first
	// run's verdict edges follow the new GT triples.
	checkCoveredCounts(t, o, "opus", true)
	mid := count()
	if _, err := runImport(t.Context(), importOptions{Evals: evals, GT: gtDir, Run: "opus-gt", Store: ":memory:", Neo4j: true, Neo4jConn: o}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if after := count(); !reflect.DeepEqual(mid, after) {
		t.Errorf("a second import changed the graph:\n%v\n%v", mid, after)
	}
	if reflect.DeepEqual(before, mid) {
		t.Errorf("the second run added nothing")
	}
}

func TestImportEmbeddedStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	var stdout, stderr bytes.Buffer
	res, err := runImport(t.Context(), importOptions{Evals: evalDir(t), Store: dir}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, stderr.String())
	}
	s, err := cayley.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// One run (named after --evals); every sample is there with the
	// recorded verdicts, and the task is the fixture's ground truth.
	runs, _ := s.Runs(t.Context())
	if len(runs) != 1 {
		t.Fatalf("runs = %v", runs)
	}
	keys, _ := s.Samples(t.Context(), runs[0])
	if len(keys) != 3 || len(res.Keys) != 3 {
		t.Errorf("samples = %v, want %v", keys, res.Keys)
	}
	pub := publishedCounts(t)
	for _, name := range fixtureNames {
		want, err := ingest.ReadTask(filepath.Join(fixtureDir, name, "gt.json"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Task(t.Context(), want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Triples, want.Triples) || !reflect.DeepEqual(got.Nodes, want.Nodes) || got.Language != want.Language {
			t.Errorf("%s: rebuilt task differs from gt.json (language %q vs %q)", name, got.Language, want.Language)
		}
		v, err := s.Verdicts(t.Context(), kgstore.SampleKey{Run: runs[0], TaskID: want.ID})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range v.Coverage {
			if c.State == "covered" {
				n++
			}
		}
		if float64(n) != pub[want.ID][0] {
			t.Errorf("%s: %d covered verdicts stored, published %v", name, n, pub[want.ID][0])
		}
	}
}

// TestImportTrajectoryJSONL: trajectory lines (qid, sample_idx, the
// dialogue, then the eval keys) import like eval files, several samples of
// one task sharing its ground truth.
func TestImportTrajectoryJSONL(t *testing.T) {
	var lines []byte
	var rec map[string]any
	b, err := os.ReadFile(filepath.Join(fixtureDir, "p012", "eval.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		rec["qid"], rec["sample_idx"] = "012", i
		rec["messages"] = []any{map[string]any{"role": "user", "content": "..."}}
		rec["response"] = "```json\n[]\n```"
		line, _ := json.Marshal(rec)
		lines = append(append(lines, line...), '\n')
	}
	path := filepath.Join(t.TempDir(), "012.jsonl")
	if err := os.WriteFile(path, lines, 0o644); err != nil {
		t.Fatal(err)
	}
	gtDir := t.TempDir()
	copyFile(t, filepath.Join(fixtureDir, "p012", "gt.json"), filepath.Join(gtDir, "task_012.json"))
	var stdout, stderr bytes.Buffer
	for _, gt := range []string{"", gtDir} {
		dir := filepath.Join(t.TempDir(), "store")
		res, err := runImport(t.Context(), importOptions{Evals: path, GT: gt, Store: dir}, &stdout, &stderr)
		if err != nil {
			t.Fatalf("import (--gt %q): %v\n%s", gt, err, stderr.String())
		}
		want := "task_012"
		if gt == "" {
			want = "012" // without task files the record's own qid is the task id
		}
		if len(res.Items) != 3 || len(res.Tasks) != 1 || res.Tasks[0] != want {
			t.Fatalf("--gt %q: %d samples, tasks %v", gt, len(res.Items), res.Tasks)
		}
		for _, it := range res.Items {
			if it.Coverage.CoveredCount != 70 || it.TripletF1 != 0.1728 {
				t.Errorf("--gt %q: sample %d covered %d F1 %v, published 70 and 0.1728", gt, it.SampleIdx, it.Coverage.CoveredCount, it.TripletF1)
			}
		}
		if res.Keys[0].Run != "012" {
			t.Errorf("run = %q, want the file's base name", res.Keys[0].Run)
		}
	}
}

func TestImportBadRecords(t *testing.T) {
	dir := evalDir(t)
	if err := os.WriteFile(filepath.Join(dir, "broken.json"), []byte(`{"qid": "x", "num_pred_triples": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	res, err := runImport(t.Context(), importOptions{Evals: dir, Store: ":memory:", Run: "r"}, &stdout, &stderr)
	if exitCodeOf(err) != ExitInput {
		t.Fatalf("err = %v, want exit %d", err, ExitInput)
	}
	if res == nil || len(res.Items) != 3 {
		t.Errorf("the good records were not imported: %+v", res)
	}
	if !bytes.Contains(stderr.Bytes(), []byte("broken.json")) && !bytes.Contains(stderr.Bytes(), []byte(`"x"`)) {
		t.Errorf("stderr does not name the bad record:\n%s", stderr.String())
	}
	if _, err := runImport(t.Context(), importOptions{Evals: dir, Map: "m.json", Store: ":memory:"}, &stdout, &stderr); exitCodeOf(err) != ExitInput {
		t.Errorf("--map without --gt: err = %v", err)
	}
}
