package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

func writeT(t *testing.T, path, data string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGTWarnings: every GT problem that does not stop the task from
// loading (issue 9.7: they existed only inside the store) comes out of the
// loader as a Warning naming the file, the JSON path (or line) and what is
// wrong, in file order.
func TestGTWarnings(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		want       []Warning // File is filled in
	}{
		{"triple naming a missing node id",
			`{"task_id": "t", "final_query": "q", "nodes": [{"node_id": "n0", "node_name": "A"}], "triples": [{"head_id": "n0", "relation": "r", "tail_id": "n9"}]}`,
			[]Warning{{Path: "triples[0].tail_id", Msg: `"n9" has no node; its name falls back to the id, as in the reference`}}},
		{"duplicate node id",
			`{"task_id": "t", "final_query": "q", "nodes": [{"node_id": "n0", "node_name": "A"}, {"node_id": "n0", "node_name": "B"}], "triples": [{"head_id": "n0", "relation": "r", "tail_id": "n0"}]}`,
			[]Warning{{Path: "nodes[1].node_id", Msg: `"n0" repeats nodes[0]; both take the last name "B", as in the reference`}}},
		{"no triples",
			`{"task_id": "t", "final_query": "q", "nodes": [], "triples": []}`,
			[]Warning{{Path: "triples", Msg: "empty: the task has no ground-truth triple to cover (every sample of it scores triplet recall 0)"}}},
		{"name-based triple naming no node",
			`{"task_id": "t", "final_query": "q", "nodes": [{"node_id": "a", "node_name": "A"}], "triples": [{"head": "A", "relation": "r", "tail": "B"}]}`,
			[]Warning{{Path: "triples[0]", Msg: `"B" is not the name of any node (node metrics only count the nodes list)`}}},
		{"no final_query",
			`{"task_id": "t", "triples": [{"head": "A", "relation": "r", "tail": "B"}]}`,
			[]Warning{{Path: "final_query", Msg: "missing (the reference loader requires it)"}}},
		{"invalid UTF-8",
			"{\"task_id\": \"t\", \"final_query\": \"q\",\n \"triples\": [{\"head\": \"A\xff\xfe\", \"relation\": \"r\", \"tail\": \"B\xc3\"}]}",
			[]Warning{{Path: "file", Msg: "invalid UTF-8: 3 invalid byte(s), the first at line 2 byte 25: each replaced by U+FFFD"}}},
		{"several, in file order",
			`{"task_id": "t", "nodes": [{"node_id": "n0", "node_name": "A"}, {"node_id": "n0", "node_name": "A"}], "triples": [{"head_id": "x", "relation": "r", "tail_id": "n0"}]}`,
			[]Warning{{Path: "final_query", Msg: "missing (the reference loader requires it)"},
				{Path: "nodes[1].node_id", Msg: `"n0" repeats nodes[0]; both take the last name "A", as in the reference`},
				{Path: "triples[0].head_id", Msg: `"x" has no node; its name falls back to the id, as in the reference`}}},
		{"none", `{"task_id": "t", "final_query": "q", "triples": [{"head": "A", "relation": "r", "tail": "B"}]}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := writeT(t, filepath.Join(dir, "task_t.json"), tc.json)
			tasks, err := ReadTasks(dir)
			if err != nil || len(tasks) != 1 {
				t.Fatalf("%d tasks, %v", len(tasks), err)
			}
			got := TaskWarnings(&tasks[0])
			if len(got) != len(tc.want) {
				t.Fatalf("warnings %+v, want %d", got, len(tc.want))
			}
			for i, w := range tc.want {
				w.File = file
				if got[i] != w {
					t.Errorf("warning %d:\n got %+v\nwant %+v", i, got[i], w)
				}
				if s := got[i].String(); !strings.HasPrefix(s, "ingest: "+file+": "+w.Path+": warning: ") {
					t.Errorf("String() = %q", s)
				}
			}
		})
	}
}

// TestBOMEverywhere: a UTF-8 byte order mark (issue 9.8: accepted in
// prediction .json only) is skipped by every reader.
func TestBOMEverywhere(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	triples := `[{"head": "A", "relation": "r", "tail": "B"}, {"head": "A", "relation": "s", "tail": "C"}]`
	ctx := context.Background()
	for _, tc := range []struct {
		name, file, data string
		read             func(path string) (int, error) // triples (or records) read
	}{
		{"GT task", "task_t.json", `{"task_id": "t", "final_query": "q", "triples": ` + triples + `}`, func(p string) (int, error) {
			ts, err := ReadTasks(p)
			if len(ts) != 1 {
				return 0, err
			}
			if len(ts[0].Warnings) > 0 {
				return 0, errors.New(strings.Join(ts[0].Warnings, "; "))
			}
			return len(ts[0].Triples), err
		}},
		{"prediction JSON list", "p.json", triples, predCount(ctx)},
		{"final extraction", "p.json", `{"qid": "t", "total": 2, "triplets": ` + triples + `}`, predCount(ctx)},
		{"JSONL triples", "p.jsonl", "{\"head\": \"A\", \"relation\": \"r\", \"tail\": \"B\"}\n{\"head\": \"A\", \"relation\": \"s\", \"tail\": \"C\"}\n", predCount(ctx)},
		{"JSONL arrays", "p.jsonl", "[\"A\", \"r\", \"B\"]\n[\"A\", \"s\", \"C\"]\n", predCount(ctx)},
		{"trajectory JSONL", "p.jsonl", `{"qid": "t", "sample_idx": 0, "response": "[{\"head\": \"A\", \"relation\": \"r\", \"tail\": \"B\"}, {\"head\": \"A\", \"relation\": \"s\", \"tail\": \"C\"}]"}` + "\n", predCount(ctx)},
		{"CSV", "p.csv", "head,relation,tail\nA,r,B\nA,s,C\n", predCount(ctx)},
		{"TSV", "p.tsv", "head\trelation\ttail\nA\tr\tB\nA\ts\tC\n", predCount(ctx)},
		{"response text", "p.txt", "Here:\n```json\n" + triples + "\n```\n", predCount(ctx)},
		{"eval record", "t_sample0.json", `{"qid": "t", "sample_idx": 0, "triplet_f1": 0.5, "num_pred_triples": 2}`, func(p string) (int, error) {
			evs, err := ReadEvals(ctx, p)
			return len(evs) * 2, err
		}},
		{"eval JSONL", "t.jsonl", `{"qid": "t", "sample_idx": 0, "triplet_f1": 0.5, "num_pred_triples": 2}` + "\n", func(p string) (int, error) {
			evs, err := ReadEvals(ctx, p)
			return len(evs) * 2, err
		}},
		{"map JSON", "map.json", `{"1": "t", "2": "u"}`, mapCount},
		{"map CSV", "map.csv", "qid,task_id\n1,t\n2,u\n", mapCount},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, withBOM := range []bool{false, true} {
				data := tc.data
				if withBOM {
					data = bom + data
				}
				p := writeT(t, filepath.Join(t.TempDir(), tc.file), data)
				n, err := tc.read(p)
				if err != nil || n != 2 {
					t.Errorf("BOM %v: read %d, %v; want 2 and no error", withBOM, n, err)
				}
			}
		})
	}
}

func predCount(ctx context.Context) func(string) (int, error) {
	return func(p string) (int, error) {
		ps, err := ReadPredictions(ctx, p)
		n := 0
		for _, x := range ps {
			n += len(x.Triples)
			if len(x.Report.Notes) > 0 {
				return n, errors.New(strings.Join(x.Report.Notes, "; "))
			}
		}
		return n, err
	}
}

func mapCount(p string) (int, error) {
	m, err := ReadMap(p)
	if m["1"] != "t" {
		return 0, err
	}
	return len(m), err
}

// TestInvalidUTF8Reported: invalid UTF-8 (issue 9.8: replaced without a
// word) is replaced by U+FFFD and reported in the parse report, naming the
// line and byte; PredictionWarnings gives it to the caller with the file.
func TestInvalidUTF8Reported(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, file, data, want string
		line                   int // of the warning (JSONL samples)
	}{
		{"JSON list", "p.json", "[{\"head\": \"A\", \"relation\": \"r\",\n \"tail\": \"B\xff\"}]", "1 invalid byte(s), the first at line 2 byte 12", 0},
		{"JSONL triples", "p.jsonl", "{\"head\": \"A\", \"relation\": \"r\", \"tail\": \"B\"}\n{\"head\": \"A\xe2\x82\", \"relation\": \"s\", \"tail\": \"C\xff\"}\n{\"head\": \"A\xff\", \"relation\": \"s\", \"tail\": \"D\"}\n",
			"3 invalid byte(s), the first at line 2 byte 12: each replaced by U+FFFD (and on 1 more line(s))", 0},
		{"trajectory line", "p.jsonl", "{\"qid\": \"t\", \"response\": \"ok\"}\n{\"qid\": \"t\", \"response\": \"[[\\\"A\\\", \\\"r\\\", \\\"B\xff\\\"]]\"}\n", "the first at line 2 byte", 2},
		{"CSV", "p.csv", "head,relation,tail\nA,r,B\nA,s,C\xff\n", "invalid UTF-8: in line 3", 0},
		{"response text", "p.txt", "Here:\n```json\n[[\"A\", \"r\", \"B\xc0\"]]\n```", "the first at line 3 byte 15", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeT(t, filepath.Join(t.TempDir(), tc.file), tc.data)
			preds, err := ReadPredictions(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			var ws []Warning
			for i := range preds {
				ws = append(ws, PredictionWarnings(&preds[i])...)
				for _, tr := range preds[i].Triples {
					for _, s := range []string{tr.Head, tr.Relation, tr.Tail} {
						if strings.ContainsRune(s, '\uFFFD') {
							continue
						}
						if !strings.HasPrefix(s, "A") && !strings.HasPrefix(s, "B") && !strings.HasPrefix(s, "C") && !strings.HasPrefix(s, "D") && s != "r" && s != "s" {
							t.Errorf("value %q", s)
						}
					}
				}
			}
			if len(ws) != 1 || ws[0].File != p || ws[0].Line != tc.line || !strings.Contains(ws[0].Msg, tc.want) {
				t.Fatalf("warnings %+v, want one for %s (line %d) saying %q", ws, p, tc.line, tc.want)
			}
		})
	}
	// Valid UTF-8 gives no warning.
	p := writeT(t, filepath.Join(t.TempDir(), "ok.json"), `[["清水寺", "位于", "京都"]]`)
	preds, err := ReadPredictions(ctx, p)
	if err != nil || len(preds) != 1 || len(PredictionWarnings(&preds[0])) != 0 {
		t.Fatalf("valid file: %v %+v", err, preds)
	}
}

// TestReadTasksNoTaskFile: a --gt directory without a task file (issue
// 9.8: only "no task for qid ..." later) says which directory, what was
// expected and what is there.
func TestReadTasksNoTaskFile(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		want  []string
	}{
		{"empty", nil, []string{"no ground-truth task file in this directory", "expected *.json files directly in it", "it is empty"}},
		{"tasks in a subdirectory", []string{"gt/task_1.json", "README.md"}, []string{"task files are in gt/: give that directory", "it holds README.md"}},
		{"other files only", []string{"a.jsonl", "b.csv"}, []string{"it holds a.jsonl, b.csv"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.files {
				writeT(t, filepath.Join(dir, f), `{"task_id": "t", "triples": []}`)
			}
			tasks, err := ReadTasks(dir)
			var ie *InputError
			if len(tasks) != 0 || !errors.As(err, &ie) || ie.File != dir {
				t.Fatalf("%d tasks, %v: want an *InputError naming %s", len(tasks), err, dir)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	// MatchTasks says what there was to match against.
	preds := []kg.Prediction{{QID: "pred", Source: "p012/pred.json"}}
	err := MatchTasks(preds, []string{"task_012_x", "task_041_y"}, nil)
	if err == nil || !strings.Contains(err.Error(), `no task for qid "pred" (p012/pred.json)`) || !strings.Contains(err.Error(), `the ground truth has 2 task(s): "task_012_x", "task_041_y"`) {
		t.Fatalf("MatchTasks: %v", err)
	}
	if err := MatchTasks(preds, nil, nil); err == nil || !strings.Contains(err.Error(), "the ground truth has no task at all") {
		t.Fatalf("MatchTasks without tasks: %v", err)
	}
}
