package ingest

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

func TestDecodeTask(t *testing.T) {
	cases := []struct {
		name      string
		doc       string
		nodes     []kg.Node
		triples   []kg.GTTriple
		warnings  []string // substrings, in order
		nodeNames int
	}{
		{
			name: "id-based with extensions and unknown keys",
			doc: `{"task_id": "t1", "language": "en", "final_query": "q", "user_persona": "p", "extra": {"x": 1},
				"nodes": [{"node_id": "n0", "node_name": "A", "aliases": ["a"]}, {"node_id": "n1", "node_name": "B"}, {"node_id": "n2", "node_name": "Unused"}],
				"triples": [{"head_id": "n0", "relation": "r", "tail_id": "n1", "weight": 2, "stage": 1, "kind": "factual"}]}`,
			nodes:     []kg.Node{{ID: "n0", Name: "A", Aliases: []string{"a"}}, {ID: "n1", Name: "B"}, {ID: "n2", Name: "Unused"}},
			triples:   []kg.GTTriple{{Triple: tr("A", "r", "B"), HeadID: "n0", TailID: "n1", Weight: 2, Stage: 1, Kind: "factual"}},
			nodeNames: 3,
		},
		{
			name: "unknown id falls back to the id",
			doc: `{"task_id": "t1", "final_query": "q", "nodes": [{"node_id": "n0", "node_name": "A"}],
				"triples": [{"head_id": "n0", "relation": "r", "tail_id": "n9"}, {"head_id": "n9", "relation": "s", "tail_id": "n0"}]}`,
			nodes: []kg.Node{{ID: "n0", Name: "A"}},
			triples: []kg.GTTriple{
				{Triple: tr("A", "r", "n9"), HeadID: "n0", TailID: "n9"},
				{Triple: tr("n9", "s", "A"), HeadID: "n9", TailID: "n0"},
			},
			warnings:  []string{`triples[0].tail_id: "n9" has no node`},
			nodeNames: 1,
		},
		{
			name:  "name-based, nodes derived in order of first appearance",
			doc:   `{"task_id": "t2", "final_query": "q", "triples": [{"head": "B", "relation": "r", "tail": "A"}, {"head": "A", "relation": "s", "tail": "C"}]}`,
			nodes: []kg.Node{{ID: "B", Name: "B"}, {ID: "A", Name: "A"}, {ID: "C", Name: "C"}},
			triples: []kg.GTTriple{
				{Triple: tr("B", "r", "A")}, {Triple: tr("A", "s", "C")},
			},
			nodeNames: 3,
		},
		{
			name: "name-based with nodes kept",
			doc: `{"task_id": "t3", "final_query": "q", "nodes": [{"node_id": "x", "node_name": "A"}, {"node_id": "y", "node_name": "Z"}],
				"triples": [{"head": "A", "relation": "r", "tail": "B"}]}`,
			nodes:     []kg.Node{{ID: "x", Name: "A"}, {ID: "y", Name: "Z"}},
			triples:   []kg.GTTriple{{Triple: tr("A", "r", "B")}},
			warnings:  []string{`"B" is not the name of any node`},
			nodeNames: 2,
		},
		{
			name: "duplicate node id takes the last name, as the reference",
			doc: `{"task_id": "t4", "final_query": "q", "nodes": [{"node_id": "n0", "node_name": "A"}, {"node_id": "n0", "node_name": "B"}],
				"triples": [{"head_id": "n0", "relation": "r", "tail_id": "n0"}]}`,
			nodes:     []kg.Node{{ID: "n0", Name: "B"}, {ID: "n0", Name: "B"}},
			triples:   []kg.GTTriple{{Triple: tr("B", "r", "B"), HeadID: "n0", TailID: "n0"}},
			warnings:  []string{`nodes[1].node_id: "n0" repeats nodes[0]`},
			nodeNames: 1,
		},
		{
			name:      "numeric ids and no final_query",
			doc:       `{"task_id": "t5", "nodes": [{"node_id": 1, "node_name": "A"}], "triples": [{"head_id": 1, "relation": "r", "tail_id": 1}]}`,
			nodes:     []kg.Node{{ID: "1", Name: "A"}},
			triples:   []kg.GTTriple{{Triple: tr("A", "r", "A"), HeadID: "1", TailID: "1"}},
			warnings:  []string{`final_query: missing`},
			nodeNames: 1,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			task, err := DecodeTask(strings.NewReader(c.doc), "task.json")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(task.Nodes, c.nodes) {
				t.Errorf("nodes\n got %+v\nwant %+v", task.Nodes, c.nodes)
			}
			if !reflect.DeepEqual(task.Triples, c.triples) {
				t.Errorf("triples\n got %+v\nwant %+v", task.Triples, c.triples)
			}
			if len(task.Warnings) != len(c.warnings) {
				t.Fatalf("warnings %q, want %d", task.Warnings, len(c.warnings))
			}
			for i, w := range c.warnings {
				if !strings.Contains(task.Warnings[i], w) {
					t.Errorf("warning %q lacks %q", task.Warnings[i], w)
				}
			}
			if n := len(task.NodeNames()); n != c.nodeNames {
				t.Errorf("%d node names, want %d", n, c.nodeNames)
			}
			if task.Source != "task.json" {
				t.Errorf("source %q", task.Source)
			}
		})
	}
}

// TestInputErrors checks that every error names the file, the line or JSON
// path, and the problem, and is an *InputError.
func TestInputErrors(t *testing.T) {
	cases := []struct {
		name, file, content string
		read                func(path string) error
		want                string
		line                int
		path                string
	}{
		{"task missing tail_id", "gt.json",
			`{"task_id": "t", "nodes": [], "triples": [{"head_id": "a", "relation": "r", "tail_id": "b"}, {"head_id": "a", "relation": "r", "tail_id": "b"}, {"head_id": "a", "relation": "r", "tail_id": "b"}, {"head_id": "a", "relation": "r"}]}`,
			readTask, `gt.json: triples[3].tail_id: missing`, 0, "triples[3].tail_id"},
		{"task missing relation", "gt.json", `{"task_id": "t", "triples": [{"head": "a", "tail": "b"}]}`,
			readTask, `gt.json: triples[0].relation: missing`, 0, "triples[0].relation"},
		{"task node name wrong type", "gt.json", `{"task_id": "t", "nodes": [{"node_id": "n", "node_name": ["x"]}], "triples": []}`,
			readTask, `gt.json: nodes[0].node_name: must be a string, found a list`, 0, "nodes[0].node_name"},
		{"task no task_id", "gt.json", `{"nodes": [], "triples": []}`,
			readTask, `gt.json: task_id: missing`, 0, "task_id"},
		{"task negative weight", "gt.json", `{"task_id": "t", "triples": [{"head": "a", "relation": "r", "tail": "b", "weight": -1}]}`,
			readTask, `triples[0].weight: must not be negative`, 0, "triples[0].weight"},
		{"task syntax error line", "gt.json", "{\"task_id\": \"t\",\n\"triples\": [\n{\"head\": \"a\",, }]}",
			readTask, `gt.json line 3: invalid JSON`, 3, ""},
		{"task not an object", "gt.json", `[1, 2]`,
			readTask, `gt.json: expected a JSON object (a task), found a JSON array`, 0, ""},
		{"jsonl triple missing tail", "task_038.jsonl",
			"{\"head\": \"a\", \"relation\": \"r\", \"tail\": \"b\"}\n{\"head\": \"a\", \"relation\": \"r\", \"tail\": \"b\"}\n{\"head\": \"a\", \"relation\": \"r\"}\n",
			readPreds, `task_038.jsonl line 3: missing "tail"`, 3, ""},
		{"final extraction item missing head", "020.json", `{"qid": "020", "total": 2, "triplets": [{"head": "a", "relation": "r", "tail": "b"}, {"relation": "r", "tail": "b"}]}`,
			readPreds, `020.json: triplets[1]: missing "head"`, 0, "triplets[1]"},
		{"json array item not a triple", "p.json", `[{"head": "a", "relation": "r", "tail": "b"}, 5]`,
			readPreds, `p.json: [1]: a triple must be an object`, 0, "[1]"},
		{"csv short row", "p.csv", "head,relation,tail\na,r,b\nc,s\n",
			readPreds, `p.csv line 3: missing "tail"`, 3, ""},
		{"csv bad header", "p.csv", "h,r,t\na,r,b\n",
			readPreds, `p.csv line 1: header must name head, relation and tail`, 1, ""},
		{"gt file given as predictions", "gt.json", `{"task_id": "t", "nodes": [], "triples": []}`,
			readPreds, `gt.json: this is a ground-truth task file`, 0, ""},
		{"eval wrong type", "t_sample0.json", `{"num_pred_triples": 1, "coverage_details": {"per_gt_triple": [{"gt_index": "x"}]}}`,
			readEvalErr, `t_sample0.json: coverage_details.per_gt_triple.gt_index: wrong type`, 0, "coverage_details.per_gt_triple.gt_index"},
		{"eval not a record", "t_sample0.json", `{"qid": "t"}`,
			readEvalErr, `t_sample0.json: not an evaluation record`, 0, ""},
		{"map bad row", "map.csv", "qid,task_id\n020,task_020_x\n021\n",
			readMapErr, `map.csv line 3: expected 2 columns`, 3, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.file)
			if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			err := c.read(path)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), "ingest: "+path) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\nwant prefix %q and %q", err, "ingest: "+path, c.want)
			}
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("not an *InputError: %T", err)
			}
			if ie.File != path || ie.Line != c.line || ie.Path != c.path {
				t.Errorf("file %q line %d path %q; want line %d path %q", ie.File, ie.Line, ie.Path, c.line, c.path)
			}
		})
	}
}

func readTask(p string) error { _, err := ReadTask(p); return err }
func readPreds(p string) error {
	_, err := ReadPredictionFile(t0ctx, p)
	var fe *FileErrors
	if errors.As(err, &fe) && len(fe.Errs) == 1 {
		return fe.Errs[0]
	}
	return err
}
func readEvalErr(p string) error { _, err := ReadEval(p); return err }
func readMapErr(p string) error  { _, err := ReadMap(p); return err }

func TestReadTasksErrors(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.json":     `{"task_id": "task_002", "triples": []}`,
		"b.json":     `{"task_id": "task_001", "triples": []}`,
		"c.json":     `{"task_id": "task_002", "triples": []}`,
		"d.json":     `{"task_id": "task_003", "triples": [{"head": "x"}]}`,
		"notes.txt":  `ignored`,
		"e.json":     `{"task_id": "task_004", "triples": []`,
		".hidden.js": `x`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tasks, err := ReadTasks(dir)
	var fe *FileErrors
	if !errors.As(err, &fe) || len(fe.Errs) != 3 {
		t.Fatalf("want 3 collected errors, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{
		`c.json: task_id: task id "task_002" is also the id of ` + filepath.Join(dir, "a.json"),
		`d.json: triples[0].relation: missing`,
		`e.json line 1: invalid JSON`,
		"3 bad inputs",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if len(tasks) != 2 || tasks[0].ID != "task_001" || tasks[1].ID != "task_002" {
		t.Fatalf("good tasks not returned sorted: %v", tasks)
	}
}
