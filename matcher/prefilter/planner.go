package prefilter

import (
	"context"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/kgjudge/kgjudge/alias"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/plan"
)

// Planner is the prefiltering plan.Planner: candidates, the deterministic
// tier, then Batches for each pass. Claims the deterministic tier resolved
// are in no batch (Planned.Result has their resolution).
type Planner struct {
	Options Options
	// Budget sizes each call (zero fields: plan.DefaultCallTokens and
	// plan.DefaultCallClaims).
	Budget plan.Budget
}

var _ plan.Planner = Planner{}

// Name implements plan.Planner.
func (p Planner) Name() string {
	b := p.Budget.WithDefaults()
	return fmt.Sprintf("prefilter/%dtok/%dclaims", b.Tokens, b.Claims)
}

// Plan implements plan.Planner.
func (p Planner) Plan(ctx context.Context, task *kg.Task, pred *kg.Prediction) ([]plan.Batch, error) {
	pl, err := p.Sample(ctx, task, pred)
	if err != nil {
		return nil, err
	}
	return pl.Batches, nil
}

// Planned is everything the planner decided for one sample.
type Planned struct {
	Result  *Result
	Batches []plan.Batch
	Item    Item
}

// Sample runs candidates, the deterministic tier and batching, and
// accounts for the prompt volume.
func (p Planner) Sample(ctx context.Context, task *kg.Task, pred *kg.Prediction) (*Planned, error) {
	res, err := Build(ctx, task, pred, p.Options)
	if err != nil {
		return nil, err
	}
	gtKey := func(i int) string { return alias.Canon(task.Triples[i].Head) }
	predKey := func(i int) string { return alias.Canon(pred.Triples[i].Head) }
	var batches []plan.Batch
	gtTok := func(i int) int { return plan.EstimateTokens(`GT-000: "" --[]--> ""`) + triTok(task.Triples[i].Triple) }
	predTok := func(i int) int { return plan.EstimateTokens(`P-000: "" --[]--> ""`) + triTok(pred.Triples[i]) }
	batches = append(batches, Batches(plan.Coverage, res.GT, gtKey, gtTok, predTok, p.Budget)...)
	batches = append(batches, Batches(plan.Validity, res.Pred, predKey, predTok, gtTok, p.Budget)...)
	return &Planned{Result: res, Batches: batches, Item: account(task, pred, res, batches)}, nil
}

func triTok(t kg.Triple) int {
	return plan.EstimateTokens(t.Head) + plan.EstimateTokens(t.Relation) + plan.EstimateTokens(t.Tail)
}

// Item is one sample of `kgjudge plan` output.
type Item struct {
	QID       string      `json:"qid"`
	SampleIdx int         `json:"sample_idx"`
	GT        []GTEntry   `json:"gt"`
	Pred      []PredEntry `json:"pred"`
	Volume
}

// Volume is a sample's (or a run's) prompt accounting. Characters are
// Unicode code points of the claim and candidate lines, formatted
// `P-{i}: "{head}" --[{relation}]--> "{tail}"` (GT-{i} for GT triples), one
// per line; fixed instruction text is excluded.
type Volume struct {
	PromptChars          int `json:"prompt_chars"`
	ReferencePromptChars int `json:"reference_prompt_chars"`
	GTTriples            int `json:"gt_triples"`
	PredTriples          int `json:"pred_triples"`
	// Deterministic tier and empty candidate lists (decided without a call).
	ResolvedGT       int `json:"resolved_gt_triples"`
	NoCandidateGT    int `json:"no_candidate_gt_triples"`
	JudgeGTTriples   int `json:"judge_gt_triples"`
	ResolvedPred     int `json:"resolved_pred_triples"`
	NoCandidatePred  int `json:"no_candidate_pred_triples"`
	JudgePredTriples int `json:"judge_pred_triples"`
	// Batches is the number of judge calls (coverage + validity); the
	// reference makes 2 x plan.ReferenceBatches.
	Batches         int `json:"batches"`
	CoverageBatches int `json:"coverage_batches"`
	ValidityBatches int `json:"validity_batches"`
	// MeanBatchCandidates: over GT claims sent to a judge, the mean size of
	// the candidate list of the batch each one sits in.
	MeanBatchCandidates float64 `json:"mean_batch_candidates"`
	batchCandSum        int
}

// GTEntry is one GT triple's plan.
type GTEntry struct {
	GTIndex    int              `json:"gt_index"`
	Resolved   *kg.CoverageKind `json:"resolved"`
	Support    []int            `json:"support"`
	Candidates []Candidate      `json:"candidates"`
	Batch      *int             `json:"batch"`
}

// PredEntry is one predicted triple's plan (validity direction).
type PredEntry struct {
	PredIndex  int              `json:"pred_index"`
	Resolved   *kg.CoverageKind `json:"resolved"`
	Support    []int            `json:"support"`
	Candidates []Candidate      `json:"candidates"`
	Batch      *int             `json:"batch"`
}

// Add accumulates another sample's volume (for totals).
func (v *Volume) Add(o Volume) {
	v.PromptChars += o.PromptChars
	v.ReferencePromptChars += o.ReferencePromptChars
	v.GTTriples += o.GTTriples
	v.PredTriples += o.PredTriples
	v.ResolvedGT += o.ResolvedGT
	v.ResolvedPred += o.ResolvedPred
	v.NoCandidateGT += o.NoCandidateGT
	v.JudgeGTTriples += o.JudgeGTTriples
	v.NoCandidatePred += o.NoCandidatePred
	v.JudgePredTriples += o.JudgePredTriples
	v.Batches += o.Batches
	v.CoverageBatches += o.CoverageBatches
	v.ValidityBatches += o.ValidityBatches
	v.batchCandSum += o.batchCandSum
	if v.JudgeGTTriples > 0 {
		v.MeanBatchCandidates = round3(float64(v.batchCandSum) / float64(v.JudgeGTTriples))
	}
}

// LineChars is the length of one listed triple in a judge prompt.
func LineChars(prefix string, i int, t kg.Triple) int {
	return utf8.RuneCountInString(prefix) + len(strconv.Itoa(i)) + len(`: "" --[]--> ""`+"\n") +
		utf8.RuneCountInString(t.Head) + utf8.RuneCountInString(t.Relation) + utf8.RuneCountInString(t.Tail)
}

// ReferenceChars is what the reference evaluator sends for a sample: five
// coverage batches each listing every predicted triple plus each GT claim
// once, and the mirror image for the validity pass.
func ReferenceChars(task *kg.Task, pred *kg.Prediction) int {
	if len(pred.Triples) == 0 {
		return 0
	}
	gt, pr := 0, 0
	for i, t := range task.Triples {
		gt += LineChars("GT-", i, t.Triple)
	}
	for i, t := range pred.Triples {
		pr += LineChars("P-", i, t)
	}
	nb := func(n int) int { return min(n, plan.ReferenceBatches) }
	return nb(len(task.Triples))*pr + gt + nb(len(pred.Triples))*gt + pr
}

func account(task *kg.Task, pred *kg.Prediction, res *Result, batches []plan.Batch) Item {
	it := Item{QID: task.ID, SampleIdx: pred.SampleIdx, GT: make([]GTEntry, len(task.Triples)), Pred: make([]PredEntry, len(pred.Triples))}
	v := &it.Volume
	v.GTTriples, v.PredTriples = len(task.Triples), len(pred.Triples)
	v.ReferencePromptChars = ReferenceChars(task, pred)
	for i, c := range res.GT {
		e := GTEntry{GTIndex: i, Support: []int{}, Candidates: c.Candidates}
		if c.Resolved != nil {
			k := c.Resolved.Kind
			e.Resolved, e.Support = &k, c.Resolved.Support
			v.ResolvedGT++
		}
		it.GT[i] = e
	}
	for i, c := range res.Pred {
		e := PredEntry{PredIndex: i, Support: []int{}, Candidates: c.Candidates}
		if c.Resolved != nil {
			k := c.Resolved.Kind
			e.Resolved, e.Support = &k, c.Resolved.Support
			v.ResolvedPred++
		}
		it.Pred[i] = e
	}
	for bi, b := range batches {
		n := bi
		if b.Pass == plan.Coverage {
			for _, c := range b.Claims {
				it.GT[c].Batch = &n
			}
			if len(b.Candidates) == 0 {
				v.NoCandidateGT += len(b.Claims)
				continue
			}
			v.CoverageBatches++
			v.JudgeGTTriples += len(b.Claims)
			v.batchCandSum += len(b.Claims) * len(b.Candidates)
			for _, c := range b.Claims {
				v.PromptChars += LineChars("GT-", c, task.Triples[c].Triple)
			}
			for li, x := range b.Candidates {
				v.PromptChars += LineChars("P-", li, pred.Triples[x])
			}
			continue
		}
		for _, c := range b.Claims {
			it.Pred[c].Batch = &n
		}
		if len(b.Candidates) == 0 {
			v.NoCandidatePred += len(b.Claims)
			continue
		}
		v.ValidityBatches++
		v.JudgePredTriples += len(b.Claims)
		for _, c := range b.Claims {
			v.PromptChars += LineChars("P-", c, pred.Triples[c])
		}
		for li, x := range b.Candidates {
			v.PromptChars += LineChars("GT-", li, task.Triples[x].Triple)
		}
	}
	v.Batches = v.CoverageBatches + v.ValidityBatches
	if v.JudgeGTTriples > 0 {
		v.MeanBatchCandidates = round3(float64(v.batchCandSum) / float64(v.JudgeGTTriples))
	}
	return it
}
