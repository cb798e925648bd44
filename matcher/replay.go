package matcher

import (
	"context"
	"fmt"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kg"
)

// Replay judges with the verdicts a judge recorded earlier (the reference
// evaluator's outputs). It refuses records that do not belong to the inputs:
// every recorded GT triple must equal the ground truth at its index, and the
// recorded predicted triples must be the ones parsed from the prediction.
type Replay struct {
	byKey map[replayKey]*ingest.Eval
}

type replayKey struct {
	task   string
	sample int
}

var _ Judge = (*Replay)(nil)

// NewReplay indexes records by task id and sample. Records carry the qid the
// reference wrote (a task id, or a Pro-style "020"): they are matched to
// taskIDs exactly like predictions are (ingest.MatchTasks, with mapping).
func NewReplay(records []ingest.Eval, taskIDs []string, mapping map[string]string) (*Replay, error) {
	keys := make([]kg.Prediction, len(records))
	for i, r := range records {
		keys[i] = kg.Prediction{QID: r.QID, SampleIdx: r.SampleIdx, Source: r.Source}
	}
	if err := ingest.MatchTasks(keys, taskIDs, mapping); err != nil {
		return nil, fmt.Errorf("recorded verdicts: %w", err)
	}
	r := &Replay{byKey: make(map[replayKey]*ingest.Eval, len(records))}
	for i := range records {
		k := replayKey{keys[i].TaskID, records[i].SampleIdx}
		if prev, dup := r.byKey[k]; dup {
			return nil, fmt.Errorf("recorded verdicts: task %q sample %d recorded twice (%s and %s)", k.task, k.sample, prev.Source, records[i].Source)
		}
		r.byKey[k] = &records[i]
	}
	return r, nil
}

// Name implements Judge.
func (*Replay) Name() string { return "replay" }

// Judge implements Judge.
func (r *Replay) Judge(ctx context.Context, task *kg.Task, pred *kg.Prediction) (Judgement, error) {
	if err := ctx.Err(); err != nil {
		return Judgement{}, err
	}
	rec, ok := r.byKey[replayKey{task.ID, pred.SampleIdx}]
	if !ok {
		return Judgement{}, fmt.Errorf("replay: no recorded verdicts for task %q sample %d", task.ID, pred.SampleIdx)
	}
	where := rec.Source
	if rec.NumPredTriples != len(pred.Triples) {
		return Judgement{}, fmt.Errorf("replay: %s: recorded num_pred_triples %d, but the prediction (%s) has %d triples", where, rec.NumPredTriples, pred.Source, len(pred.Triples))
	}
	j := Judgement{Judge: "replay"}
	if len(pred.Triples) == 0 {
		return j, nil
	}
	if rec.Coverage == nil {
		return Judgement{}, fmt.Errorf("replay: %s: no coverage_details for a sample with %d predicted triples", where, len(pred.Triples))
	}
	if n := len(rec.Coverage.PerGTTriple); n != len(task.Triples) {
		return Judgement{}, fmt.Errorf("replay: %s: %d recorded GT triples, ground truth %q has %d", where, n, task.ID, len(task.Triples))
	}
	for i, g := range rec.Coverage.PerGTTriple {
		if g.GTIndex < 0 || g.GTIndex >= len(task.Triples) {
			return Judgement{}, fmt.Errorf("replay: %s: coverage_details.per_gt_triple[%d].gt_index %d out of range (%d GT triples)", where, i, g.GTIndex, len(task.Triples))
		}
		if want := task.Triples[g.GTIndex].Triple; g.GTTriple != want {
			return Judgement{}, fmt.Errorf("replay: %s: coverage_details.per_gt_triple[%d] (gt_index %d) is %s, ground truth has %s", where, i, g.GTIndex, g.GTTriple, want)
		}
		v := kg.Verdict{GTIndex: g.GTIndex, State: kg.Uncovered, Judge: "replay", Support: []int{}}
		if g.Covered {
			v.State, v.Kind = kg.Covered, kg.KindRecorded
		}
		ints, bad := g.SupportingPredIndices, g.Unread
		v.Support = append(v.Support, ints...)
		for _, b := range bad {
			j.Problems = append(j.Problems, IndexProblem{
				Where: fmt.Sprintf("per_gt_triple[%d].supporting_pred_indices", g.GTIndex), Value: b, Why: "not an integer",
			})
		}
		j.Coverage = append(j.Coverage, v)
	}
	if rec.Validity == nil {
		return j, nil
	}
	j.Validity = []kg.Validity{}
	for i, p := range rec.Validity.PerPredTriple {
		if p.PredIndex < 0 || p.PredIndex >= len(pred.Triples) {
			return Judgement{}, fmt.Errorf("replay: %s: validity_details.per_pred_triple[%d].pred_index %d out of range (%d predicted triples)", where, i, p.PredIndex, len(pred.Triples))
		}
		if want := pred.Triples[p.PredIndex]; p.PredTriple != want {
			return Judgement{}, fmt.Errorf("replay: %s: validity_details.per_pred_triple[%d] is %s, but predicted triple %d parsed from %s is %s", where, i, p.PredTriple, p.PredIndex, pred.Source, want)
		}
		v := kg.Validity{PredIndex: p.PredIndex, State: kg.Uncovered, Judge: "replay", Support: []int{}}
		if p.Valid {
			v.State = kg.Covered
		}
		ints, bad := p.SupportingGTIndices, p.Unread
		v.Support = append(v.Support, ints...)
		for _, b := range bad {
			j.Problems = append(j.Problems, IndexProblem{
				Where: fmt.Sprintf("per_pred_triple[%d].supporting_gt_indices", p.PredIndex), Value: b, Why: "not an integer",
			})
		}
		j.Validity = append(j.Validity, v)
	}
	return j, nil
}
