package gen

import (
	"reflect"
	"testing"

	"github.com/kgjudge/kgjudge/ingest"
)

func TestGenerateShapes(t *testing.T) {
	bases := Bases(t)
	run := Generate(bases, 48, 1)
	if len(run.Preds) != 48 || len(run.Tasks) != 12 {
		t.Fatalf("%d preds, %d tasks; want 48, 12", len(run.Preds), len(run.Tasks))
	}
	langs := map[string]int{}
	for i, p := range run.Preds {
		task := run.Task(i)
		if n := len(task.Triples); n < MinGT || n > MaxGT {
			t.Errorf("%s: %d GT triples, want %d..%d", task.ID, n, MinGT, MaxGT)
		}
		if n := len(p.Triples); n < MinPred || n > MaxPred {
			t.Errorf("%s sample %d: %d predicted triples, want %d..%d", p.QID, p.SampleIdx, n, MinPred, MaxPred)
		}
		if p.TaskID != task.ID || p.SampleIdx != i%SamplesPerTask {
			t.Errorf("pred %d is %s/%d, want %s/%d", i, p.TaskID, p.SampleIdx, task.ID, i%SamplesPerTask)
		}
		langs[task.Language]++
	}
	if first := run.FirstSamples(); len(first.Preds) != len(run.Tasks) || first.Task(5).ID != run.Tasks[5].ID {
		t.Errorf("FirstSamples: %d preds for %d tasks", len(first.Preds), len(run.Tasks))
	}
	if langs["en"] == 0 || langs["zh"] == 0 {
		t.Errorf("languages %v: want English and Chinese", langs)
	}
	// Renamed names are shared by a task's GT and predictions (so exact
	// matches stay; some fixtures have none) and by no other task.
	withShared := 0
	for ti := range run.Tasks {
		gt := map[string]bool{}
		for _, g := range run.Tasks[ti].Triples {
			gt[g.Head] = true
		}
		shared := 0
		for _, p := range run.Preds[ti*SamplesPerTask].Triples {
			if gt[p.Head] {
				shared++
			}
		}
		if shared > 0 {
			withShared++
		}
	}
	if withShared < len(run.Tasks)/2 {
		t.Errorf("%d of %d tasks have a predicted head equal to a GT head", withShared, len(run.Tasks))
	}
	if reflect.DeepEqual(run.Tasks[0].Triples[:50], run.Tasks[len(bases)].Triples[:50]) {
		t.Error("tasks 0 and 11 (one base) have the same first triples: not perturbed")
	}
}

func TestGenerateDeterministic(t *testing.T) {
	bases := Bases(t)
	a, b := Generate(bases, 12, 7), Generate(bases, 12, 7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different runs")
	}
	if c := Generate(bases, 12, 8); reflect.DeepEqual(a, c) {
		t.Fatal("different seeds, same run")
	}
}

func TestWriteFilesReadBack(t *testing.T) {
	run := Generate(Bases(t), 8, 3)
	dir := t.TempDir()
	if err := run.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	tasks, err := ingest.ReadTasks(dir + "/gt")
	if err != nil {
		t.Fatal(err)
	}
	preds, err := ingest.ReadPredictions(t.Context(), dir+"/pred")
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != len(run.Tasks) || len(preds) != len(run.Preds) {
		t.Fatalf("read %d tasks, %d preds; wrote %d, %d", len(tasks), len(preds), len(run.Tasks), len(run.Preds))
	}
	for i, p := range preds {
		if !reflect.DeepEqual(p.Triples, run.Preds[i].Triples) {
			t.Errorf("pred %d: triples differ after a round trip", i)
		}
	}
	for i, tk := range tasks {
		if len(tk.Triples) != len(run.Tasks[i].Triples) {
			t.Errorf("task %s: %d triples read, %d written", tk.ID, len(tk.Triples), len(run.Tasks[i].Triples))
		}
	}
}
