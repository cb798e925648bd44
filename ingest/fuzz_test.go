package ingest

import (
	"bytes"
	"os"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

func FuzzParseResponse(f *testing.F) {
	for _, c := range responseCases {
		f.Add(c.text)
	}
	for _, dir := range []string{"d001", "p012", "p041"} {
		data, err := os.ReadFile(fixture(dir, "pred.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add("```json\n" + string(data[:2000]) + "\n```")
		f.Add(string(data[:3000])) // cut off mid-array
	}
	f.Fuzz(func(t *testing.T, text string) {
		triples, rep := ParseResponse(text)
		checkReport(t, triples, rep)
		if rep.Status == kg.ParseEmpty && len(bytes.TrimSpace([]byte(text))) > 0 && rep.Method == "" && len(rep.Notes) == 0 {
			t.Fatalf("empty without a note")
		}
		// Deterministic.
		again, rep2 := ParseResponse(text)
		if len(again) != len(triples) || rep2.Status != rep.Status {
			t.Fatalf("not deterministic")
		}
	})
}

func FuzzDecodeTask(f *testing.F) {
	for _, dir := range []string{"d001", "p012", "p041"} {
		data, err := os.ReadFile(fixture(dir, "gt.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), 4000)])
	}
	f.Add([]byte(`{"task_id": "t", "triples": [{"head": "a", "relation": "r", "tail": "b", "weight": 1.5, "stage": 2}]}`))
	f.Add([]byte(`{"task_id": "t", "nodes": [{"node_id": 1, "node_name": "A", "aliases": ["x"]}], "triples": [{"head_id": 1, "relation": "r", "tail_id": 2}]}`))
	f.Add([]byte("\xef\xbb\xbf{\"task_id\": \"t\", \"triples\": [{\"head\": \"a\xff\", \"relation\": \"r\", \"tail\": \"b\"}]}"))
	f.Add([]byte(`{"task_id": "t", "nodes": [{"node_id": "a", "node_name": "A"}, {"node_id": "a", "node_name": "B"}], "triples": []}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		task, err := DecodeTask(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			if _, ok := err.(*InputError); !ok {
				t.Fatalf("error is not an *InputError: %T %v", err, err)
			}
			return
		}
		if task.ID == "" {
			t.Fatal("task without id")
		}
		for _, w := range TaskWarnings(&task) {
			if w.File != "fuzz.json" || w.Msg == "" {
				t.Fatalf("warning %+v", w)
			}
		}
		ids := map[string]string{}
		for _, n := range task.Nodes {
			ids[n.ID] = n.Name
		}
		for i, tr := range task.Triples {
			if tr.HeadID != "" {
				want, ok := ids[tr.HeadID]
				if !ok {
					want = tr.HeadID
				}
				if tr.Head != want {
					t.Fatalf("triple %d head %q, want %q", i, tr.Head, want)
				}
			}
			if tr.Weight < 0 {
				t.Fatalf("negative weight")
			}
		}
	})
}
