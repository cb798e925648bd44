package cli

import (
	"context"
	"errors"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kg"
)

// inputs are the ground truth and predictions of one command, matched.
type inputs struct {
	tasks    []kg.Task
	taskByID map[string]*kg.Task
	ids      []string
	preds    []kg.Prediction
	mapping  map[string]string
	// problems are bad files and unmatched or duplicate predictions: they
	// are reported and make the command exit non-zero, but the good inputs
	// are still used.
	problems []error
}

// loadInputs reads --gt, --pred and --map and matches predictions to tasks.
// It fails only when nothing can be read at all (a missing path, a bad map).
func loadInputs(ctx context.Context, gt, pred, mapFile string) (*inputs, error) {
	in := &inputs{}
	keepGoing := func(err error) error {
		var fe *ingest.FileErrors
		if errors.As(err, &fe) {
			in.problems = append(in.problems, fe.Errs...)
			return nil
		}
		return err
	}
	var err error
	if in.tasks, err = ingest.ReadTasks(gt); keepGoing(err) != nil {
		return nil, wrapInput(err)
	}
	if in.preds, err = ingest.ReadPredictions(ctx, pred); keepGoing(err) != nil {
		return nil, wrapInput(err)
	}
	if mapFile != "" {
		if in.mapping, err = ingest.ReadMap(mapFile); err != nil {
			return nil, wrapInput(err)
		}
	}
	in.taskByID = make(map[string]*kg.Task, len(in.tasks))
	for i := range in.tasks {
		in.taskByID[in.tasks[i].ID] = &in.tasks[i]
		in.ids = append(in.ids, in.tasks[i].ID)
	}
	if err := ingest.MatchTasks(in.preds, in.ids, in.mapping); err != nil {
		var me *ingest.MatchError
		if !errors.As(err, &me) {
			return nil, err
		}
		in.problems = append(in.problems, err)
	}
	return in, nil
}

// samples returns the matched predictions, each (task, sample) once, in
// input order; the unmatched and the duplicates are in problems already.
func (in *inputs) samples() []*kg.Prediction {
	type key struct {
		task   string
		sample int
	}
	seen := map[key]bool{}
	var out []*kg.Prediction
	for i := range in.preds {
		p := &in.preds[i]
		k := key{p.TaskID, p.SampleIdx}
		if p.TaskID == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, p)
	}
	return out
}
