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

var t0ctx = context.Background()

func TestMatchTasks(t *testing.T) {
	tasks := []string{"task_020_Quantum", "task_021_A", "task_021_B", "task_038_Game Selection", "task_041", "task_100"}
	cases := []struct {
		name    string
		qids    []string
		samples []int
		mapping map[string]string
		want    []string // TaskID per prediction
		errs    []string // substrings of the error; none means no error
	}{
		{name: "exact", qids: []string{"task_038_Game Selection", "task_041"}, want: []string{"task_038_Game Selection", "task_041"}},
		{name: "numeric prefix", qids: []string{"020", "20", "41", "task_100"}, samples: []int{0, 1, 0, 0},
			want: []string{"task_020_Quantum", "task_020_Quantum", "task_041", "task_100"}},
		{name: "map", qids: []string{"021", "game"}, mapping: map[string]string{"021": "task_021_B", "game": "task_038_Game Selection"},
			want: []string{"task_021_B", "task_038_Game Selection"}},
		{name: "ambiguous", qids: []string{"021", "020"}, want: []string{"", "task_020_Quantum"},
			errs: []string{`qid "021" matches several tasks: task_021_A, task_021_B`}},
		{name: "orphans", qids: []string{"task_999", "Game Selection", "020"}, want: []string{"", "", "task_020_Quantum"},
			errs: []string{`no task for qid "task_999" (src0)`, `no task for qid "Game Selection" (src1)`}},
		{name: "map to unknown task", qids: []string{"x"}, mapping: map[string]string{"x": "task_404"}, want: []string{""},
			errs: []string{`mapping sends qid "x" to "task_404", which is not a task`}},
		{name: "duplicate sample", qids: []string{"020", "task_020_Quantum"}, want: []string{"task_020_Quantum", "task_020_Quantum"},
			errs: []string{`task "task_020_Quantum" sample 0 is given twice: by src0 and by src1`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			preds := make([]kg.Prediction, len(c.qids))
			for i, q := range c.qids {
				preds[i] = kg.Prediction{QID: q, Source: "src" + string(rune('0'+i))}
				if c.samples != nil {
					preds[i].SampleIdx = c.samples[i]
				}
			}
			err := MatchTasks(preds, tasks, c.mapping)
			for i, w := range c.want {
				if preds[i].TaskID != w {
					t.Errorf("pred %d (%q): task %q, want %q", i, c.qids[i], preds[i].TaskID, w)
				}
			}
			if len(c.errs) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var me *MatchError
			if !errors.As(err, &me) || !IsInputError(err) {
				t.Fatalf("want *MatchError, got %v", err)
			}
			for _, w := range c.errs {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%s", w, err)
				}
			}
		})
	}
}

func TestReadMap(t *testing.T) {
	cases := []struct{ name, file, content string }{
		{"json", "m.json", `{"020": "task_020_Quantum", "21": "task_021_B"}`},
		{"csv with header", "m.csv", "qid,task_id\n020,task_020_Quantum\n# comment\n21, task_021_B\n"},
		{"tsv", "m.tsv", "020\ttask_020_Quantum\n21\ttask_021_B\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), c.file)
			if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := ReadMap(p)
			if err != nil {
				t.Fatal(err)
			}
			if len(m) != 2 || m["020"] != "task_020_Quantum" || m["21"] != "task_021_B" {
				t.Errorf("map %v", m)
			}
		})
	}
}

func TestPredictionFormats(t *testing.T) {
	files := map[string]string{
		"a/020.json":                     `{"qid": "020", "total": 3, "triplets": [{"head": "A", "relation": "r", "tail": "B"}, ["C", "s", 1]]}`,
		"a/task_038_Game Selection.json": `[{"subject": "A", "predicate": "r", "object": "B"}]`,
		"b/x.jsonl":                      "{\"head\": \"A\", \"relation\": \"r\", \"tail\": \"B\"}\n\n[\"C\", \"s\", \"D\"]\n",
		"b/y.csv":                        "\ufeffHead,Relation,Tail\nA,r,\"B, C\"\n",
		"b/z.tsv":                        "subject\tpredicate\tobject\tqid\tsample_idx\nA\tr\tB\tq1\t0\nC\ts\tD\tq1\t1\nE\tt\tF\tq1\t0\n",
		"c/resp.txt":                     "Sure!\n```json\n[{\"head\": \"A\", \"relation\": \"r\", \"tail\": \"B\"}]\n```",
		"c/README.md":                    "# not a prediction",
		".hidden/bad.json":               "{",
	}
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	preds, err := ReadPredictions(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		qid     string
		sample  int
		triples string
		method  string
	}
	want := []got{
		{"020", 0, "A|r|B C|s|1", "json"},
		{"task_038_Game Selection", 0, "A|r|B", "json"},
		{"x", 0, "A|r|B C|s|D", "jsonl"},
		{"y", 0, "A|r|B, C", "csv"},
		{"q1", 0, "A|r|B E|t|F", "csv"},
		{"q1", 1, "C|s|D", "csv"},
		{"resp", 0, "A|r|B", "fence"},
	}
	if len(preds) != len(want) {
		t.Fatalf("%d predictions, want %d", len(preds), len(want))
	}
	for i, w := range want {
		p := preds[i]
		var parts []string
		for _, x := range p.Triples {
			parts = append(parts, x.Head+"|"+x.Relation+"|"+x.Tail)
		}
		g := got{p.QID, p.SampleIdx, strings.Join(parts, " "), p.Report.Method}
		if g != w {
			t.Errorf("pred %d: %+v, want %+v", i, g, w)
		}
		checkReport(t, p.Triples, p.Report)
	}
	if n := preds[0].Report.Notes; len(n) != 1 || !strings.Contains(n[0], `"total" says 3 triples, the file has 2`) {
		t.Errorf("total mismatch not noted: %q", n)
	}
}
