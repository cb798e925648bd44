package runs

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/cayley"
	"github.com/kgjudge/kgjudge/llmjudge"
	"github.com/kgjudge/kgjudge/llmjudge/cost"
	"github.com/kgjudge/kgjudge/llmjudge/oracle"
	"github.com/kgjudge/kgjudge/matcher/prefilter"
	"github.com/kgjudge/kgjudge/plan"
)

// PlanConfig prices a plan's estimate (USD per million tokens) and reports
// progress.
type PlanConfig struct {
	PriceIn, PriceOut float64
	// Embedder turns the prefilter's embedding stage on (nil: off);
	// Embedding describes it for the output.
	Embedder  prefilter.Embedder
	Embedding any
	// Progress, when set, is called after each planned sample.
	Progress func(done, total int, taskID string, sample int)
	// PriceCachedIn prices the cacheable prefix (0: PriceIn).
	PriceCachedIn float64
	// Oracle, when not empty, holds recorded verdicts for the samples:
	// every planned call is answered as the recorded judge would, given
	// only what the call shows, and each item gets the F1 it would score.
	Oracle []ingest.Eval
	// Route, when set, routes the sure claims before the calls are
	// estimated and before the oracle answers (routed claims keep the
	// router's verdict).
	Route *llmjudge.Routing
	// Budget sizes kgjudge's calls (zero: plan.DefaultCallTokens and
	// plan.DefaultCallClaims).
	Budget plan.Budget
	// Workers is how many samples are planned at once (1 when 0, and with
	// an oracle); the output does not depend on it.
	Workers int
}

// PlanOutput is what `kgjudge plan` writes.
type PlanOutput struct {
	Items  []PlanItem `json:"items"`
	Totals PlanTotals `json:"totals"`
	// Embedding says whether the prefilter's embedding stage was on.
	Embedding any `json:"embedding,omitempty"`
}

// PlanItem is a prefilter item with the judge cost estimate.
type PlanItem struct {
	prefilter.Item
	Estimate PlanEstimate `json:"estimate"`
	Oracle   *OracleScore `json:"oracle,omitempty"`
}

// PlanEstimate compares what an LLM judge would be sent: kgjudge's
// prefiltered batches against the reference batching.
type PlanEstimate struct {
	Kgjudge   cost.Estimate `json:"kgjudge"`
	Reference cost.Estimate `json:"reference"`
}

type PlanTotals struct {
	Samples int `json:"samples"`
	prefilter.Volume
	VolumeRatio float64       `json:"volume_ratio"`
	FocusRatio  float64       `json:"focus_ratio"`
	Estimate    PlanEstimate  `json:"estimate"`
	Oracle      *OracleTotals `json:"oracle,omitempty"`
}

// Plan runs everything up to the judge for every matched sample of in:
// candidates, the deterministic tier, batches, prompt volume against the
// reference's, and a token and cost estimate of both batchings. It calls no
// model.
func Plan(ctx context.Context, in *Inputs, cfg PlanConfig) (*PlanOutput, error) {
	estimators, err := planEstimators(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, e := range estimators {
			e.Close()
		}
	}()
	// Graph expansion reads each predicted graph from a store.
	store, err := cayley.Open(ctx, ":memory:")
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	defer store.Close()

	var or *oracleRun
	var oracleJudge *llmjudge.Judge
	if len(cfg.Oracle) > 0 {
		// The oracle is built from every sample at once: lazy inputs
		// are read whole first.
		if err := in.readAll(ctx); err != nil {
			return nil, err
		}
		if or, err = newOracleRun(ctx, in, cfg.Oracle); err != nil {
			return nil, err
		}
		if oracleJudge, err = llmjudge.New(ctx, llmjudge.Config{Model: "oracle", NoCache: true, Batching: llmjudge.BatchingPrefilter,
			Planner: prefilter.Planner{Budget: cfg.Budget, Options: prefilter.Options{Embedder: cfg.Embedder}}, Decider: oracle.Decider{O: or.oracle}, Route: cfg.Route}); err != nil {
			return nil, err
		}
		defer oracleJudge.Close()
	}
	out := &PlanOutput{Items: []PlanItem{}, Embedding: cfg.Embedding}
	samples := in.Samples()
	files := newFileCache()
	in.refs.want(files, samples)
	planOne := func(ctx context.Context, p *kg.Prediction) (PlanItem, error) {
		// A lazy input's triples are read again here, and dropped with
		// the sample's plan.
		p, err := in.refs.prediction(ctx, files, p)
		if err != nil {
			var ce *ChangedInputError
			if errors.As(err, &ce) {
				return PlanItem{}, &InputError{Err: err}
			}
			return PlanItem{}, err
		}
		key := kgstore.SampleKey{Run: "plan", TaskID: p.TaskID, Sample: p.SampleIdx}
		task := in.TaskByID[p.TaskID]
		if err := store.PutPrediction(ctx, key, *p); err != nil {
			return PlanItem{}, fmt.Errorf("store: %w", err)
		}
		// The store holds a sample only while it is planned.
		defer store.DeleteSample(context.WithoutCancel(ctx), key)
		pl, err := prefilter.Planner{Options: prefilter.Options{Graph: store, Key: key, Embedder: cfg.Embedder}, Budget: cfg.Budget}.Sample(ctx, task, p)
		if err != nil {
			return PlanItem{}, fmt.Errorf("%s sample %d: %w", p.TaskID, p.SampleIdx, err)
		}
		it := PlanItem{Item: pl.Item}
		if cfg.Embedder == nil {
			// kgjudge's estimator plans with this planner less the store,
			// whose graph expansion reads the same edges as its default
			// in-memory graph: its batches are these.
			it.Estimate.Kgjudge, err = estimators[0].EstimatePlanned(ctx, task, p, pl.Batches, pl.Resolutions())
		} else {
			it.Estimate.Kgjudge, err = estimators[0].Estimate(ctx, task, p)
		}
		if err == nil {
			it.Estimate.Reference, err = estimators[1].Estimate(ctx, task, p)
		}
		if err != nil {
			return PlanItem{}, fmt.Errorf("%s sample %d: estimate: %w", p.TaskID, p.SampleIdx, err)
		}
		if or != nil {
			s, err := or.score(ctx, oracleJudge, task, p)
			if err != nil {
				return PlanItem{}, fmt.Errorf("%s sample %d: oracle: %w", p.TaskID, p.SampleIdx, err)
			}
			it.Oracle = &s
		}
		return it, nil
	}
	workers := max(1, cfg.Workers)
	if or != nil {
		workers = 1
	}
	// Samples are planned by workers goroutines, at most a window of them
	// ahead of the one taken next, and taken in input order.
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type planned struct {
		it  PlanItem
		err error
	}
	results := make([]chan planned, len(samples))
	for i := range results {
		results[i] = make(chan planned, 1)
	}
	pending := make(chan struct{}, 2*workers)
	running := make(chan struct{}, workers)
	go func() {
		for i, p := range samples {
			select {
			case pending <- struct{}{}:
			case <-pctx.Done():
				return
			}
			select {
			case running <- struct{}{}:
			case <-pctx.Done():
				return
			}
			go func() {
				defer func() { <-running }()
				defer func() {
					if r := recover(); r != nil {
						results[i] <- planned{err: &PanicError{Value: r, Stack: debug.Stack()}}
					}
				}()
				it, err := planOne(pctx, p)
				results[i] <- planned{it, err}
			}()
		}
	}()
	for n, p := range samples {
		var r planned
		select {
		case r = <-results[n]:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		<-pending
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if r.err != nil {
			return nil, r.err
		}
		it := r.it
		out.Totals.Estimate.Kgjudge.Add(it.Estimate.Kgjudge)
		out.Totals.Estimate.Reference.Add(it.Estimate.Reference)
		out.Items = append(out.Items, it)
		if cfg.Progress != nil {
			cfg.Progress(n+1, len(samples), p.TaskID, p.SampleIdx)
		}
	}
	sort.SliceStable(out.Items, func(a, b int) bool {
		if out.Items[a].QID != out.Items[b].QID {
			return out.Items[a].QID < out.Items[b].QID
		}
		return out.Items[a].SampleIdx < out.Items[b].SampleIdx
	})
	if or != nil {
		out.Totals.Oracle = &OracleTotals{}
		gap := 0.0
		for _, it := range out.Items {
			out.Totals.Oracle.add(*it.Oracle)
			gap += absGap(*it.Oracle)
		}
		out.Totals.Oracle.finish(gap, len(out.Items))
	}
	focusNum := 0.0
	for _, it := range out.Items {
		out.Totals.Samples++
		out.Totals.Add(it.Volume)
		if it.PredTriples > 0 {
			focusNum += float64(it.JudgeGTTriples) * it.MeanBatchCandidates / float64(it.PredTriples)
		}
	}
	if t := out.Totals; t.ReferencePromptChars > 0 {
		out.Totals.VolumeRatio = float64(int(1000*float64(t.PromptChars)/float64(t.ReferencePromptChars)+0.5)) / 1000
	}
	if t := out.Totals; t.JudgeGTTriples > 0 {
		out.Totals.FocusRatio = float64(int(1000*focusNum/float64(t.JudgeGTTriples)+0.5)) / 1000
	}
	return out, nil
}

// planEstimators are two LLM judges that are never asked anything: they
// render the prompts of kgjudge's batching and of the reference batching
// for the cost estimate.
func planEstimators(ctx context.Context, o PlanConfig) ([]*llmjudge.Judge, error) {
	var out []*llmjudge.Judge
	for _, b := range []string{llmjudge.BatchingPrefilter, llmjudge.BatchingReference} {
		cfg := llmjudge.Config{Model: "estimate", NoCache: true, Batching: b, PriceIn: o.PriceIn, PriceOut: o.PriceOut, PriceCachedIn: o.PriceCachedIn}
		if b == llmjudge.BatchingPrefilter {
			cfg.Planner = prefilter.Planner{Budget: o.Budget}
			cfg.Route = o.Route
		}
		j, err := llmjudge.New(ctx, cfg)
		if err != nil {
			for _, e := range out {
				e.Close()
			}
			return nil, &InputError{Err: err}
		}
		out = append(out, j)
	}
	return out, nil
}
