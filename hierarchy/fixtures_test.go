package hierarchy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

// fixture is one sample of testdata/fixtures, parsed with encoding/json.
type fixture struct {
	name string
	task kg.Task
	pred kg.Prediction
	cov  []kg.Verdict
	val  []kg.Validity
	// published counts from eval.json
	covered, valid int
}

func loadFixture(t *testing.T, name string) *fixture {
	t.Helper()
	dir := filepath.Join("..", "testdata", "fixtures", name)
	read := func(file string, v any) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s/%s: %v", name, file, err)
		}
	}
	f := &fixture{name: name}
	read("gt.json", &f.task)
	names := map[string]string{}
	for _, n := range f.task.Nodes {
		names[n.ID] = n.Name
	}
	for i := range f.task.Triples {
		tr := &f.task.Triples[i]
		tr.Head, tr.Tail = names[tr.HeadID], names[tr.TailID]
	}
	read("pred.json", &f.pred.Triples)
	var ev struct {
		QID       string `json:"qid"`
		SampleIdx int    `json:"sample_idx"`
		Coverage  struct {
			PerGT []struct {
				GTIndex int   `json:"gt_index"`
				Covered bool  `json:"covered"`
				Support []int `json:"supporting_pred_indices"`
			} `json:"per_gt_triple"`
		} `json:"coverage_details"`
		Validity struct {
			PerPred []struct {
				PredIndex int   `json:"pred_index"`
				Valid     bool  `json:"valid"`
				Support   []int `json:"supporting_gt_indices"`
			} `json:"per_pred_triple"`
		} `json:"validity_details"`
	}
	read("eval.json", &ev)
	f.pred.QID, f.pred.TaskID, f.pred.SampleIdx = ev.QID, f.task.ID, ev.SampleIdx
	for _, g := range ev.Coverage.PerGT {
		st := kg.Uncovered
		if g.Covered {
			st = kg.Covered
			f.covered++
		}
		f.cov = append(f.cov, kg.Verdict{GTIndex: g.GTIndex, State: st, Kind: kg.KindRecorded, Support: g.Support, Judge: "recorded"})
	}
	for _, p := range ev.Validity.PerPred {
		st := kg.Uncovered
		if p.Valid {
			st = kg.Covered
			f.valid++
		}
		f.val = append(f.val, kg.Validity{PredIndex: p.PredIndex, State: st, Support: p.Support, Judge: "recorded"})
	}
	return f
}

var fixtureNames = []string{"d001", "p012", "p041"}
