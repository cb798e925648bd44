package ingest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

var fixtureSamples = []struct {
	dir                       string
	taskID                    string
	gtTriples, gtNodes, preds int
	tripletF1                 float64
}{
	{"d001", "task_001_liquid foundation", 460, 191, 373, 0.2503},
	{"p012", "task_012", 397, 274, 307, 0.1728},
	{"p041", "task_041", 313, 267, 327, 0.1864},
}

func fixture(parts ...string) string {
	return filepath.Join(append([]string{"..", "testdata", "fixtures"}, parts...)...)
}

func TestFixtureGroundTruth(t *testing.T) {
	for _, fx := range fixtureSamples {
		t.Run(fx.dir, func(t *testing.T) {
			task, err := ReadTask(fixture(fx.dir, "gt.json"))
			if err != nil {
				t.Fatal(err)
			}
			if task.ID != fx.taskID {
				t.Errorf("task id %q, want %q", task.ID, fx.taskID)
			}
			if len(task.Triples) != fx.gtTriples {
				t.Errorf("%d GT triples, want %d", len(task.Triples), fx.gtTriples)
			}
			if len(task.Nodes) != fx.gtNodes {
				t.Errorf("%d nodes, want %d", len(task.Nodes), fx.gtNodes)
			}
			if n := len(task.NodeNames()); n != fx.gtNodes {
				t.Errorf("%d distinct node names, want the published total_gt_nodes %d", n, fx.gtNodes)
			}
			if len(task.Warnings) != 0 {
				t.Errorf("unexpected warnings: %v", task.Warnings)
			}
			for i, tr := range task.Triples {
				if tr.Head == "" || tr.Tail == "" || tr.HeadID == "" || tr.TailID == "" {
					t.Fatalf("triple %d not resolved: %+v", i, tr)
				}
			}
			// The GT triples' text must be the recorded gt_triple of the evaluation.
			ev, err := ReadEval(fixture(fx.dir, "eval.json"))
			if err != nil {
				t.Fatal(err)
			}
			for _, rec := range ev.Coverage.PerGTTriple {
				if got := task.Triples[rec.GTIndex].Triple; got != rec.GTTriple {
					t.Fatalf("gt %d: %v, eval has %v", rec.GTIndex, got, rec.GTTriple)
				}
			}
		})
	}
}

func TestFixturePredictions(t *testing.T) {
	for _, fx := range fixtureSamples {
		t.Run(fx.dir, func(t *testing.T) {
			preds, err := ReadPredictions(context.Background(), fixture(fx.dir, "pred.json"))
			if err != nil {
				t.Fatal(err)
			}
			if len(preds) != 1 {
				t.Fatalf("%d predictions, want 1", len(preds))
			}
			p := preds[0]
			if len(p.Triples) != fx.preds || p.Report.Triples != fx.preds || p.Report.Status != kg.ParseClean {
				t.Errorf("%d triples, report %+v; want %d clean", len(p.Triples), p.Report, fx.preds)
			}
			if p.QID != "pred" {
				t.Errorf("qid %q, want the file name %q", p.QID, "pred")
			}
			// The same triples as response text (a fenced block, as agents answer).
			data, err := os.ReadFile(fixture(fx.dir, "pred.json"))
			if err != nil {
				t.Fatal(err)
			}
			triples, rep := ParseResponse("Here is the graph:\n```json\n" + string(data) + "\n```\nDone.")
			if len(triples) != fx.preds || rep.Status != kg.ParseClean || rep.Method != "fence" {
				t.Errorf("response: %d triples, %+v; want %d clean via fence", len(triples), rep, fx.preds)
			}
			ev, err := ReadEval(fixture(fx.dir, "eval.json"))
			if err != nil {
				t.Fatal(err)
			}
			if ev.NumPredTriples != fx.preds {
				t.Errorf("eval num_pred_triples %d, want %d", ev.NumPredTriples, fx.preds)
			}
			if ev.QID != fx.taskID || ev.SampleIdx != 0 || ev.TripletF1 != fx.tripletF1 {
				t.Errorf("eval qid %q sample %d f1 %v", ev.QID, ev.SampleIdx, ev.TripletF1)
			}
			if ev.Validity == nil || len(ev.Validity.PerPredTriple) != fx.preds {
				t.Fatalf("validity records missing")
			}
			if ev.Coverage == nil || len(ev.Coverage.PerGTTriple) != fx.gtTriples || ev.NodeDetails.TotalGTNodes != fx.gtNodes {
				t.Fatalf("coverage records: %+v", ev.NodeDetails)
			}
			for i, rec := range ev.Validity.PerPredTriple {
				if rec.PredIndex != i || rec.PredTriple != p.Triples[i] {
					t.Fatalf("pred %d: %v, eval has %d %v", i, p.Triples[i], rec.PredIndex, rec.PredTriple)
				}
			}
			for _, rec := range ev.Coverage.PerGTTriple {
				if len(rec.Unread) != 0 {
					t.Fatalf("gt %d: indices %v, unread %v", rec.GTIndex, rec.SupportingPredIndices, rec.Unread)
				}
			}
		})
	}
}

func TestFixtureFinalExtractions(t *testing.T) {
	cases := []struct {
		file, qid string
		n         int
	}{
		{"final_extraction_daily_task_038_Game_Selection.json", "task_038_Game Selection", 270},
		{"final_extraction_pro_050.json", "050", 384},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			preds, err := ReadPredictions(context.Background(), fixture("formats", c.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(preds) != 1 || preds[0].QID != c.qid || len(preds[0].Triples) != c.n || preds[0].Report.Triples != c.n {
				t.Fatalf("got %d preds, qid %q, %d triples; want %q %d", len(preds), preds[0].QID, len(preds[0].Triples), c.qid, c.n)
			}
			if preds[0].Report.Status != kg.ParseClean || len(preds[0].Report.Notes) != 0 {
				t.Errorf("report %+v", preds[0].Report)
			}
		})
	}
	t.Run("match", func(t *testing.T) {
		preds, err := ReadPredictions(context.Background(), fixture("formats"))
		if err != nil {
			t.Fatal(err)
		}
		tasks := []string{"task_038_Game Selection", "task_050_Poincare", "task_005_x"}
		if err := MatchTasks(preds, tasks, nil); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, p := range preds {
			got[p.QID] = p.TaskID
		}
		if got["050"] != "task_050_Poincare" || got["task_038_Game Selection"] != "task_038_Game Selection" {
			t.Errorf("matched %v", got)
		}
	})
}

func TestReadTasksFixtures(t *testing.T) {
	dir := t.TempDir()
	for _, fx := range fixtureSamples {
		data, err := os.ReadFile(fixture(fx.dir, "gt.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fx.dir+".json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tasks, err := ReadTasks(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"task_001_liquid foundation", "task_012", "task_041"}
	if len(tasks) != len(want) {
		t.Fatalf("%d tasks", len(tasks))
	}
	for i, w := range want {
		if tasks[i].ID != w || tasks[i].Source == "" {
			t.Errorf("task %d: %q from %q, want %q", i, tasks[i].ID, tasks[i].Source, w)
		}
	}
}
