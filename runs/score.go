package runs

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/kgjudge/kgjudge/hierarchy"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/neo4j"
	"github.com/kgjudge/kgjudge/llmjudge"
	"github.com/kgjudge/kgjudge/llmjudge/cost"
	"github.com/kgjudge/kgjudge/matcher"
)

// ScoreConfig is one scoring run. Judge and Store are the caller's: it opens
// and closes them.
type ScoreConfig struct {
	// Run names the run in the store.
	Run      string
	Protocol matcher.Protocol
	Judge    kg.Judge
	Store    kgstore.Store
	// Neo4j, when set, receives every task, prediction, verdict set and
	// sample's metrics as they are committed; Score flushes it at the end.
	Neo4j *neo4j.Writer
	// Out is the output directory (summary.json, items/, invocation.json).
	Out string
	// Workers is how many samples are judged at once (outputs do not
	// depend on it).
	Workers int
	// Version is kgjudge's version, written into the manifest.
	Version string
	// Progress, when set, is called after each committed sample.
	Progress func(done, total int, taskID string, sample int)
}

// ScoreResult is what a scoring run produced.
type ScoreResult struct {
	Summary    matcher.Summary
	Items      []matcher.Item
	Structure  hierarchy.RunReport
	Invocation *Invocation
	// Problems are the inputs that could not be scored (bad files,
	// unmatched predictions, samples a judge failed on); the good ones
	// were scored. They are also in Summary.Failed.
	Problems []error
}

// Manifest is summary.json's "manifest": everything that decides the
// numbers, and nothing that changes between two identical runs (tokens spent
// and cache hits of one invocation go to invocation.json), so that a rerun
// from the cache writes a byte-identical summary.
type Manifest struct {
	Version  string             `json:"kgjudge_version"`
	Protocol matcher.Protocol   `json:"protocol"`
	Judge    string             `json:"judge"`
	LLM      *llmjudge.Manifest `json:"llm_judge,omitempty"`
}

// Invocation is OUT/invocation.json: what this run of the command spent.
type Invocation struct {
	LLM    *llmjudge.Manifest `json:"llm_judge,omitempty"`
	Ledger *cost.Report       `json:"ledger,omitempty"`
}

// accountant is a judge that keeps a manifest and a token ledger (the LLM
// judge).
type accountant interface {
	Manifest() llmjudge.Manifest
	Ledger() cost.Report
}

// Score judges every matched sample of in, commits each to the store (and
// Neo4j) in input order, and writes the outputs. Samples a judge fails on
// are listed in Problems; a cancelled ctx stops the run (what was committed
// stays, so rerunning the same command resumes it).
func Score(ctx context.Context, in *Inputs, cfg ScoreConfig) (*ScoreResult, error) {
	problems := append([]error(nil), in.Problems...)
	sink := sink{store: cfg.Store, neo: cfg.Neo4j}
	for i := range in.Tasks {
		if err := sink.putTask(ctx, in.Tasks[i]); err != nil {
			return nil, err
		}
	}

	res := &ScoreResult{}
	samples := in.Samples()
	var structure []hierarchy.SampleResult
	// Samples are judged by cfg.Workers goroutines; results are committed
	// to the store and the outputs in input order, so the outputs do not
	// depend on which judgement finishes first.
	jctx, cancel := context.WithCancel(ctx)
	defer cancel()
	judged := judgeAll(jctx, cfg.Judge, in, samples, cfg.Workers)
	for i, p := range samples {
		key := kgstore.SampleKey{Run: cfg.Run, TaskID: p.TaskID, Sample: p.SampleIdx}
		task := in.TaskByID[p.TaskID]
		if err := sink.putPrediction(ctx, key, *p); err != nil {
			return nil, err
		}
		out := <-judged[i]
		j, err := out.j, out.err
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return nil, err
			}
			if llmjudge.IsCacheMiss(err) {
				return nil, inputErrorf("--cache-only: %w", err)
			}
			problems = append(problems, fmt.Errorf("%s sample %d: %w", p.TaskID, p.SampleIdx, err))
			continue
		}
		item, err := matcher.Score(task, p, j, cfg.Protocol)
		if err != nil {
			problems = append(problems, &InputError{Err: err})
			continue
		}
		if err := sink.putVerdicts(ctx, kgstore.Verdicts{Key: key, Coverage: j.Coverage, Validity: j.Validity}); err != nil {
			return nil, err
		}
		if err := sink.setSampleProps(ctx, key, ItemProps(&item)); err != nil {
			return nil, err
		}
		rep := hierarchy.Analyze(*task, *p, j.Coverage, j.Validity)
		item.Structure = rep
		structure = append(structure, hierarchy.SampleResult{Report: rep, Parse: p.Report, TripletF1: item.TripletF1})
		res.Items = append(res.Items, item)
		if cfg.Progress != nil {
			cfg.Progress(i+1, len(samples), p.TaskID, p.SampleIdx)
		}
	}
	if err := sink.flush(ctx); err != nil {
		return nil, err
	}

	sort.SliceStable(res.Items, func(a, b int) bool {
		if res.Items[a].QID != res.Items[b].QID {
			return res.Items[a].QID < res.Items[b].QID
		}
		return res.Items[a].SampleIdx < res.Items[b].SampleIdx
	})
	res.Summary = matcher.Summarize(res.Items)
	res.Summary.Run = cfg.Run
	res.Summary.Judge = cfg.Judge.Name()
	res.Summary.Protocol = cfg.Protocol
	for _, e := range problems {
		res.Summary.Failed = append(res.Summary.Failed, e.Error())
	}
	res.Problems = problems
	res.Structure = hierarchy.Aggregate(structure)
	man := Manifest{Version: cfg.Version, Protocol: cfg.Protocol, Judge: cfg.Judge.Name()}
	if a, ok := cfg.Judge.(accountant); ok {
		m, ledger := a.Manifest(), a.Ledger()
		man.LLM = stableManifest(m)
		res.Invocation = &Invocation{LLM: &m, Ledger: &ledger}
	}
	res.Summary.Sections = append(res.Summary.Sections,
		matcher.Section{Key: "manifest", Value: man},
		matcher.Section{Key: "structure", Value: res.Structure})
	if err := WriteOutputs(cfg.Out, res); err != nil {
		return nil, err
	}
	return res, nil
}

// stableManifest drops what one invocation spent or found out from a judge
// manifest (a rerun from the cache makes no call, so it cannot know them).
func stableManifest(m llmjudge.Manifest) *llmjudge.Manifest {
	m.BudgetReached = false
	m.Tokens = cost.Usage{}
	m.USD, m.Calls, m.Attempts, m.Retries, m.Reasks, m.Unjudged = 0, 0, 0, 0, 0, 0
	m.Cache.Hits, m.Cache.Misses, m.Cache.Path = 0, 0, ""
	m.Decoding.SeedRefused = false
	m.ResponseModes = nil
	m.Adaptive = nil
	return &m
}

type judged struct {
	j   kg.Judgement
	err error
}

// judgeAll judges samples with at most workers at a time and returns one
// channel per sample that receives its judgement. Judges are safe for
// concurrent use; a cancelled ctx stops the samples not yet started.
func judgeAll(ctx context.Context, judge kg.Judge, in *Inputs, samples []*kg.Prediction, workers int) []chan judged {
	out := make([]chan judged, len(samples))
	for i := range out {
		out[i] = make(chan judged, 1)
	}
	slots := make(chan struct{}, max(1, workers))
	go func() {
		for i, p := range samples {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				out[i] <- judged{err: ctx.Err()}
				continue
			}
			go func() {
				defer func() { <-slots }()
				j, err := judge.Judge(ctx, in.TaskByID[p.TaskID], p)
				out[i] <- judged{j, err}
			}()
		}
	}()
	return out
}
