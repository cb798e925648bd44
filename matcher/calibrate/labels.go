package calibrate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kg"
)

// Labeled is one sample with recorded (or human) verdicts in the reference
// format: the model's training and test unit.
type Labeled struct {
	Name     string
	Task     kg.Task
	Pred     kg.Prediction
	Cov, Val []bool
	// Published are the recorded triplet P/R/F1.
	Published [3]float64
	// Sample is filled by Featurize (see FeaturizeAll).
	Sample *Sample
}

// LoadLabels reads labelled samples from a directory: either one sample
// (gt.json, pred.json and eval.json in it) or a directory of such
// directories. Samples are returned in name order; the name is the
// directory's base name.
func LoadLabels(ctx context.Context, dir string) ([]*Labeled, error) {
	if _, err := os.Stat(filepath.Join(dir, "eval.json")); err == nil {
		l, err := loadOne(ctx, dir)
		if err != nil {
			return nil, err
		}
		return []*Labeled{l}, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("labels %s: %w", dir, err)
	}
	var out []*Labeled
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		if _, err := os.Stat(filepath.Join(sub, "eval.json")); err != nil {
			continue
		}
		l, err := loadOne(ctx, sub)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("labels %s: no sample directory (gt.json, pred.json, eval.json) found", dir)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func loadOne(ctx context.Context, dir string) (*Labeled, error) {
	task, err := ingest.ReadTask(filepath.Join(dir, "gt.json"))
	if err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	preds, err := ingest.ReadPredictions(ctx, filepath.Join(dir, "pred.json"))
	if err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	if len(preds) != 1 {
		return nil, fmt.Errorf("labels: %s: %d predictions, want one sample", filepath.Join(dir, "pred.json"), len(preds))
	}
	ev, err := ingest.ReadEval(filepath.Join(dir, "eval.json"))
	if err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	p := preds[0]
	p.QID, p.TaskID, p.SampleIdx = ev.QID, task.ID, ev.SampleIdx
	l := &Labeled{Name: filepath.Base(dir), Task: task, Pred: p, Published: [3]float64{ev.TripletPrecision, ev.TripletRecall, ev.TripletF1}}
	evf := filepath.Join(dir, "eval.json")
	if ev.Coverage == nil || ev.Validity == nil {
		return nil, fmt.Errorf("labels: %s: needs coverage_details and validity_details", evf)
	}
	if n := len(ev.Coverage.PerGTTriple); n != len(task.Triples) {
		return nil, fmt.Errorf("labels: %s: %d coverage records for %d GT triples", evf, n, len(task.Triples))
	}
	if n := len(ev.Validity.PerPredTriple); n != len(p.Triples) {
		return nil, fmt.Errorf("labels: %s: %d validity records for %d predicted triples", evf, n, len(p.Triples))
	}
	l.Cov = make([]bool, len(task.Triples))
	for i, r := range ev.Coverage.PerGTTriple {
		if r.GTIndex != i {
			return nil, fmt.Errorf("labels: %s: per_gt_triple[%d] has gt_index %d", evf, i, r.GTIndex)
		}
		if kg.Normalize(r.GTTriple.Head) != kg.Normalize(task.Triples[i].Head) || kg.Normalize(r.GTTriple.Tail) != kg.Normalize(task.Triples[i].Tail) {
			return nil, fmt.Errorf("labels: %s: per_gt_triple[%d] is %v, gt.json has %v", evf, i, r.GTTriple, task.Triples[i].Triple)
		}
		l.Cov[i] = r.Covered
	}
	l.Val = make([]bool, len(p.Triples))
	for i, r := range ev.Validity.PerPredTriple {
		if r.PredIndex != i {
			return nil, fmt.Errorf("labels: %s: per_pred_triple[%d] has pred_index %d", evf, i, r.PredIndex)
		}
		l.Val[i] = r.Valid
	}
	return l, nil
}

// FeaturizeAll featurizes every sample that is not yet, in order; progress
// (may be nil) is called after each.
func FeaturizeAll(ctx context.Context, ls []*Labeled, o Options, progress func(done int, name string)) error {
	for i, l := range ls {
		if l.Sample != nil {
			continue
		}
		s, err := Featurize(ctx, &l.Task, &l.Pred, o)
		if err != nil {
			return fmt.Errorf("labels %s: %w", l.Name, err)
		}
		l.Sample = s
		if progress != nil {
			progress(i+1, l.Name)
		}
	}
	return nil
}
