package runs

import (
	"context"
	"errors"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kg"
)

// Inputs are the ground truth and predictions of one command, matched.
type Inputs struct {
	Tasks    []kg.Task
	TaskByID map[string]*kg.Task
	IDs      []string
	Preds    []kg.Prediction
	Mapping  map[string]string
	// Problems are bad files and unmatched or duplicate predictions: they
	// are reported and make the command exit non-zero, but the good inputs
	// are still used.
	Problems []error
	// refs say where the triples of Preds are when LoadLazy dropped them.
	refs predRefs
}

// Load reads ground truth (a task file or directory), predictions (a file or
// directory) and an optional qid map, and matches predictions to tasks. It
// fails only when nothing can be read at all (a missing path, a bad map).
func Load(ctx context.Context, gt, pred, mapFile string) (*Inputs, error) {
	return LoadMapped(ctx, gt, pred, mapFile, nil)
}

// LoadMapped is Load with extra qid -> task id pairs that the caller knows
// (a replayed eval record names the task of a prediction file whose content
// carries no id); the map file's pairs win.
func LoadMapped(ctx context.Context, gt, pred, mapFile string, extra map[string]string) (*Inputs, error) {
	return load(ctx, gt, pred, mapFile, extra, false)
}

// LoadLazy is Load that keeps of each prediction its metadata and where its
// triples are, not the triples: Plan reads each sample's again when it
// plans it (a file changed since is a *ChangedInputError), so what the
// inputs hold does not grow with the triples. Callers that read
// Preds[i].Triples themselves use Load.
func LoadLazy(ctx context.Context, gt, pred, mapFile string) (*Inputs, error) {
	return load(ctx, gt, pred, mapFile, nil, true)
}

func load(ctx context.Context, gt, pred, mapFile string, extra map[string]string, lazy bool) (*Inputs, error) {
	in := &Inputs{}
	keepGoing := func(err error) error {
		var fe *ingest.FileErrors
		if errors.As(err, &fe) {
			in.Problems = append(in.Problems, fe.Errs...)
			return nil
		}
		return err
	}
	var err error
	if in.Tasks, err = ingest.ReadTasks(gt); keepGoing(err) != nil {
		return nil, asInput(err)
	}
	if len(in.Tasks) == 0 && len(in.Problems) == 0 {
		return nil, inputErrorf("--gt %s: no task file found (want *.json task files with task_id and triples; docs/FORMATS.md §1)", gt)
	}
	// ReadTasks takes no context: a signal during it is caught here (and
	// by the CLI's bounded stop).
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if lazy {
		err = ingest.ReadPredictionsEach(ctx, pred, func(file string, ps []kg.Prediction) {
			lighten(&in.refs, file, ps)
			in.Preds = append(in.Preds, ps...)
		})
	} else {
		in.Preds, err = ingest.ReadPredictions(ctx, pred)
	}
	if keepGoing(err) != nil {
		return nil, asInput(err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if mapFile != "" {
		if in.Mapping, err = ingest.ReadMap(mapFile); err != nil {
			return nil, asInput(err)
		}
	}
	for q, id := range extra {
		if _, ok := in.Mapping[q]; !ok {
			if in.Mapping == nil {
				in.Mapping = map[string]string{}
			}
			in.Mapping[q] = id
		}
	}
	in.TaskByID = make(map[string]*kg.Task, len(in.Tasks))
	for i := range in.Tasks {
		in.TaskByID[in.Tasks[i].ID] = &in.Tasks[i]
		in.IDs = append(in.IDs, in.Tasks[i].ID)
	}
	if err := ingest.MatchTasks(in.Preds, in.IDs, in.Mapping); err != nil {
		var me *ingest.MatchError
		if !errors.As(err, &me) {
			return nil, err
		}
		in.Problems = append(in.Problems, err)
	}
	return in, nil
}

// Samples returns the matched predictions, each (task, sample) once, in
// input order; the unmatched and the duplicates are in Problems already.
func (in *Inputs) Samples() []*kg.Prediction {
	type key struct {
		task   string
		sample int
	}
	seen := map[key]bool{}
	var out []*kg.Prediction
	for i := range in.Preds {
		p := &in.Preds[i]
		k := key{p.TaskID, p.SampleIdx}
		if p.TaskID == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, p)
	}
	return out
}

// readAll puts back the triples LoadLazy dropped of the samples.
func (in *Inputs) readAll(ctx context.Context) error {
	if in.refs == nil {
		return nil
	}
	files := newFileCache()
	samples := in.Samples() // the duplicates are never read
	in.refs.want(files, samples)
	for _, s := range samples {
		p, err := in.refs.prediction(ctx, files, s)
		if err != nil {
			var ce *ChangedInputError
			if errors.As(err, &ce) {
				return &InputError{Err: err}
			}
			return err
		}
		s.Triples = p.Triples
	}
	in.refs = nil
	return nil
}
