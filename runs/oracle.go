package runs

import (
	"context"
	"fmt"
	"math"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/llmjudge"
	"github.com/kgjudge/kgjudge/llmjudge/oracle"
	"github.com/kgjudge/kgjudge/matcher"
)

// OracleScore is what a plan would score if the recorded judge answered
// every planned call given only what the call shows, next to what the
// recorded judge scored with everything shown (paper protocol).
type OracleScore struct {
	TripletPrecision         float64 `json:"triplet_precision"`
	TripletRecall            float64 `json:"triplet_recall"`
	TripletF1                float64 `json:"triplet_f1"`
	RecordedTripletPrecision float64 `json:"recorded_triplet_precision"`
	RecordedTripletRecall    float64 `json:"recorded_triplet_recall"`
	RecordedTripletF1        float64 `json:"recorded_triplet_f1"`
	// Counts behind the rates (pooled in the totals).
	Covered         int `json:"covered"`
	RecordedCovered int `json:"recorded_covered"`
	Valid           int `json:"valid"`
	RecordedValid   int `json:"recorded_valid"`
	GTTriples       int `json:"gt_triples"`
	PredTriples     int `json:"pred_triples"`
	// Routed counts claims a router decided without a call.
	Routed int `json:"routed,omitempty"`
}

// OracleTotals pools the samples' counts (micro rates) and gives the mean
// per-sample F1 gap.
type OracleTotals struct {
	OracleScore
	MeanAbsF1Gap float64 `json:"mean_abs_f1_gap"`
	// RecallRatio is pooled oracle recall over pooled recorded recall.
	RecallRatio float64 `json:"recall_ratio"`
}

func (o *OracleTotals) add(s OracleScore) {
	o.Covered += s.Covered
	o.RecordedCovered += s.RecordedCovered
	o.Valid += s.Valid
	o.RecordedValid += s.RecordedValid
	o.GTTriples += s.GTTriples
	o.PredTriples += s.PredTriples
	o.Routed += s.Routed
}

func (o *OracleTotals) finish(gapSum float64, n int) {
	rate := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return matcher.Round4(float64(a) / float64(b))
	}
	o.TripletPrecision, o.TripletRecall = rate(o.Valid, o.PredTriples), rate(o.Covered, o.GTTriples)
	o.TripletF1 = matcher.Round4(matcher.F1(o.TripletPrecision, o.TripletRecall))
	o.RecordedTripletPrecision, o.RecordedTripletRecall = rate(o.RecordedValid, o.PredTriples), rate(o.RecordedCovered, o.GTTriples)
	o.RecordedTripletF1 = matcher.Round4(matcher.F1(o.RecordedTripletPrecision, o.RecordedTripletRecall))
	if n > 0 {
		o.MeanAbsF1Gap = matcher.Round4(gapSum / float64(n))
	}
	o.RecallRatio = rate(o.Covered, o.RecordedCovered)
}

// oracleRun is the recorded verdicts of a plan's samples, indexed for the
// oracle and for scoring.
type oracleRun struct {
	recorded map[*kg.Prediction]kg.Judgement
	oracle   *oracle.Oracle
}

// newOracleRun matches recorded verdicts to the samples (as --judge replay
// does) and builds the oracle. Every sample needs a record.
func newOracleRun(ctx context.Context, in *Inputs, evals []ingest.Eval) (*oracleRun, error) {
	rp, err := matcher.NewReplay(evals, in.IDs, in.Mapping)
	if err != nil {
		return nil, &InputError{Err: fmt.Errorf("--oracle: %w", err)}
	}
	r := &oracleRun{recorded: map[*kg.Prediction]kg.Judgement{}}
	var samples []oracle.Sample
	for _, p := range in.Samples() {
		task := in.TaskByID[p.TaskID]
		j, err := rp.Judge(ctx, task, p)
		if err != nil {
			return nil, &InputError{Err: fmt.Errorf("--oracle: %w", err)}
		}
		r.recorded[p] = j
		samples = append(samples, oracle.Sample{Task: task, Pred: p, Recorded: j})
	}
	r.oracle = oracle.New(samples)
	return r, nil
}

// score judges one sample with the oracle behind judge (whose Decider is
// the oracle) and scores both judgements.
func (r *oracleRun) score(ctx context.Context, judge *llmjudge.Judge, task *kg.Task, p *kg.Prediction) (OracleScore, error) {
	j, err := judge.Judge(ctx, task, p)
	if err != nil {
		return OracleScore{}, err
	}
	got, err := matcher.Score(task, p, j, matcher.ProtocolPaper)
	if err != nil {
		return OracleScore{}, err
	}
	rec, err := matcher.Score(task, p, r.recorded[p], matcher.ProtocolPaper)
	if err != nil {
		return OracleScore{}, err
	}
	s := OracleScore{
		TripletPrecision: got.TripletPrecision, TripletRecall: got.TripletRecall, TripletF1: got.TripletF1,
		RecordedTripletPrecision: rec.TripletPrecision, RecordedTripletRecall: rec.TripletRecall, RecordedTripletF1: rec.TripletF1,
		GTTriples: len(task.Triples), PredTriples: len(p.Triples),
	}
	if got.Coverage != nil {
		s.Covered = got.Coverage.CoveredCount
	}
	if got.Validity != nil {
		s.Valid = got.Validity.ValidCount
	}
	if rec.Coverage != nil {
		s.RecordedCovered = rec.Coverage.CoveredCount
	}
	if rec.Validity != nil {
		s.RecordedValid = rec.Validity.ValidCount
	}
	for _, v := range j.Coverage {
		if v.Judge == llmjudge.CalibratedJudge {
			s.Routed++
		}
	}
	for _, v := range j.Validity {
		if v.Judge == llmjudge.CalibratedJudge {
			s.Routed++
		}
	}
	return s, nil
}

func absGap(s OracleScore) float64 { return math.Abs(s.TripletF1 - s.RecordedTripletF1) }
