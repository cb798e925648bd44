package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"sort"
	"time"

	"github.com/kgjudge/kgjudge/hierarchy"
	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/neo4j"
	"github.com/kgjudge/kgjudge/llmjudge"
	"github.com/kgjudge/kgjudge/llmjudge/cost"
	"github.com/kgjudge/kgjudge/matcher"
)

// ScoreConfig is one scoring command over one or more runs. Judge and Store
// are the caller's: it opens and closes them.
type ScoreConfig struct {
	Protocol matcher.Protocol
	// Judge judges every run that brings no judge of its own.
	Judge kg.Judge
	Store kgstore.Store
	// Neo4j, when set, receives every task, prediction, verdict set,
	// sample's metrics and run's metadata as they are committed; Score
	// flushes it at the end.
	Neo4j *neo4j.Writer
	// Out is the output directory: each run writes Out/RUN/ (summary.json,
	// items/), replacing what an earlier scoring of the run left there.
	Out string
	// Workers is how many samples (of all runs together) are judged at
	// once (outputs do not depend on it).
	Workers int
	// Version is kgjudge's version, written into the manifest.
	Version string
	// Subset is given to tasks whose file gives none (--subset); a task
	// with neither keeps the subset stored by an earlier command.
	Subset string
	// Missing says how a sample a run lacks counts (MissingZero when
	// empty).
	Missing MissingPolicy
	// Samples, when > 0, is every run's N; else a run's N is the number of
	// distinct sample indices among its predictions.
	Samples int
	// Now stamps the run metadata (time.Now when nil).
	Now func() time.Time
	// Progress, when set, is called after each committed sample, with
	// done and total counted over all runs.
	Progress func(done, total int, taskID string, sample int)
	// Embedding describes the embedding stage for the manifest (nil: not
	// recorded).
	Embedding any
}

// MissingPolicy is how a sample a run lacks counts in avg@N and best@N.
type MissingPolicy string

const (
	// MissingZero scores it 0, as the reference does.
	MissingZero MissingPolicy = "zero"
	// MissingSkip leaves it out of the means.
	MissingSkip MissingPolicy = "skip"
)

// ParseMissingPolicy reads --missing.
func ParseMissingPolicy(s string) (MissingPolicy, error) {
	switch MissingPolicy(s) {
	case "", MissingZero:
		return MissingZero, nil
	case MissingSkip:
		return MissingSkip, nil
	}
	return "", fmt.Errorf("unknown policy %q (want zero or skip)", s)
}

// BatchResult is what a scoring command produced: one result per run, in
// the order given.
type BatchResult struct {
	// ScoreResult is the first run's (Runs[0]), promoted so that a caller
	// scoring one run reads res.Summary and res.Items.
	*ScoreResult
	Runs []*ScoreResult
	// Invocation is what the judge spent over the whole command (nil for
	// judges that spend nothing); it is also in each run's result.
	Invocation *Invocation
}

// ScoreResult is what scoring one run produced.
type ScoreResult struct {
	Info       kgstore.RunInfo
	Summary    matcher.Summary
	Items      []matcher.Item
	Structure  hierarchy.RunReport
	Invocation *Invocation
	// Missing are the samples the run lacks (Summary.Missing).
	Missing []matcher.MissingSample
	// Removed are the samples an earlier scoring of the run stored that
	// this one did not score; they were deleted from the store.
	Removed []kgstore.SampleKey
	// Out is the run's output directory.
	Out string
	// Problems are the inputs that could not be scored (bad files,
	// unmatched predictions, samples a judge failed on); the good ones
	// were scored. They are also in Summary.Failed.
	Problems []error
	// Warnings are what the loaders noticed in the run's inputs without
	// refusing them (a GT triple naming a missing node id, a repeated node
	// id, an empty triple list, invalid UTF-8, ...), each naming its file;
	// also in summary.json "input_warnings".
	Warnings []string
}

// Manifest is summary.json's "manifest": everything that decides the
// numbers, and nothing that changes between two identical runs (tokens spent
// and cache hits of one invocation go to invocation.json), so that a rerun
// from the cache writes a byte-identical summary.
type Manifest struct {
	Version  string           `json:"kgjudge_version"`
	Protocol matcher.Protocol `json:"protocol"`
	Judge    string           `json:"judge"`
	LLM      *JudgeManifest   `json:"llm_judge,omitempty"`
	// Embedding says whether the prefilter's embedding stage was on, and
	// with which model.
	Embedding any `json:"embedding,omitempty"`
}

// JudgeManifest is the part of an LLM judge's manifest that decides its
// verdicts: which endpoint and model, which prompts, which batching, which
// decoding. Transport and spending settings (concurrency, rate limits, token
// budget, prices, the cache) change how fast or how dearly a run gets its
// verdicts, not which, so they are in invocation.json only: changing
// --concurrency leaves summary.json byte-identical.
type JudgeManifest struct {
	Judge         string              `json:"judge"`
	Endpoint      string              `json:"endpoint"`
	Model         string              `json:"model"`
	PromptVersion string              `json:"prompt_version"`
	PromptStyle   string              `json:"prompt_style"`
	PromptHash    string              `json:"prompt_hash"`
	Prompts       []string            `json:"prompts"`
	Batching      string              `json:"batching"`
	Validity      bool                `json:"validity_pass"`
	Routing       *llmjudge.RouteInfo `json:"routing,omitempty"`
	Decoding      llmjudge.Decoding   `json:"decoding"`
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

// runState is one run while it is scored.
type runState struct {
	in        *RunInputs
	judge     kg.Judge
	tasks     []string // the run's task set, sorted
	taskSet   map[string]bool
	indices   []int // the sample indices every task should have
	problems  []error
	res       *ScoreResult
	structure []hierarchy.SampleResult
	done      map[kgstore.SampleKey]bool // scored and committed
	attempted map[kgstore.SampleKey]bool // scored, or failed in the judge
}

// job is one sample of one run.
type job struct {
	run *runState
	p   *kg.Prediction
}

// Score judges every matched sample of every run of b in one worker pool,
// commits each to the store (and Neo4j) in input order, and writes each
// run's outputs to Out/RUN/. Per run, a task of the run's task set without
// a prediction, or with fewer samples than N, is listed as missing and
// (MissingZero) scored 0 per missing sample. Once a run is scored, the
// samples an earlier scoring of it stored and this one did not score are
// deleted, and its metadata (kgstore.RunInfo) is written last: the store
// then holds exactly this scoring. Samples a judge fails on are listed in
// Problems; a cancelled ctx stops the command (what was committed stays,
// nothing is deleted, so rerunning the same command resumes it).
func Score(ctx context.Context, b *Batch, cfg ScoreConfig) (*BatchResult, error) {
	if cfg.Missing == "" {
		cfg.Missing = MissingZero
	}
	now := time.Now
	if cfg.Now != nil {
		now = cfg.Now
	}
	sink := sink{store: cfg.Store, neo: cfg.Neo4j}
	out := &BatchResult{}

	// Task subsets: the file's, else --subset, else the stored one; then
	// each run's subset labels the tasks it predicts that have none.
	for i := range b.GT.Tasks {
		t := &b.GT.Tasks[i]
		if t.Subset == "" {
			t.Subset = cfg.Subset
		}
		if t.Subset == "" {
			sub, err := sink.storedSubset(ctx, t.ID)
			if err != nil {
				return nil, err
			}
			t.Subset = sub
		}
	}
	states := make([]*runState, len(b.Runs))
	labelledBy := map[string]string{}
	for i, ri := range b.Runs {
		st := &runState{in: ri, judge: ri.Judge, taskSet: map[string]bool{}, done: map[kgstore.SampleKey]bool{}, attempted: map[kgstore.SampleKey]bool{}}
		if st.judge == nil {
			st.judge = cfg.Judge
		}
		st.problems = append(append([]error(nil), b.GT.Problems...), ri.Problems...)
		if sub := ri.Spec.Subset; sub != "" {
			for _, p := range ri.Samples() {
				t := b.GT.TaskByID[p.TaskID]
				if t.Subset != "" {
					continue
				}
				t.Subset = sub
				labelledBy[t.ID] = ri.Spec.Name
			}
		}
		states[i] = st
	}
	var jobs []job
	for _, st := range states {
		sp := st.in.Spec
		for _, id := range b.GT.IDs {
			if sp.Subset == "" || b.GT.TaskByID[id].Subset == sp.Subset {
				st.taskSet[id] = true
				st.tasks = append(st.tasks, id)
			}
		}
		sort.Strings(st.tasks)
		seen := map[int]bool{}
		for _, p := range st.in.Samples() {
			t := b.GT.TaskByID[p.TaskID]
			switch {
			case !st.taskSet[p.TaskID]:
				how := "its file"
				if by := labelledBy[t.ID]; by != "" {
					how = "run " + by
				}
				st.problems = append(st.problems, inputErrorf("run %s (subset %s): %s sample %d: task %s is in subset %q (from %s), not scored", sp.Name, sp.Subset, p.Source, p.SampleIdx, t.ID, t.Subset, how))
				continue
			case cfg.Samples > 0 && (p.SampleIdx < 0 || p.SampleIdx >= cfg.Samples):
				st.problems = append(st.problems, inputErrorf("run %s: %s: task %s sample %d is outside --samples %d (samples 0 to %d), not scored", sp.Name, p.Source, p.TaskID, p.SampleIdx, cfg.Samples, cfg.Samples-1))
				continue
			}
			if !seen[p.SampleIdx] {
				seen[p.SampleIdx] = true
				st.indices = append(st.indices, p.SampleIdx)
			}
			jobs = append(jobs, job{st, p})
		}
		if cfg.Samples > 0 {
			st.indices = st.indices[:0]
			for i := 0; i < cfg.Samples; i++ {
				st.indices = append(st.indices, i)
			}
		}
		sort.Ints(st.indices)
		st.res = &ScoreResult{Out: filepath.Join(cfg.Out, sp.Name)}
	}

	for i := range b.GT.Tasks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := sink.putTask(ctx, b.GT.Tasks[i]); err != nil {
			return nil, err
		}
	}

	// Samples are judged by cfg.Workers goroutines; results are committed
	// to the store and the outputs in input order, so the outputs do not
	// depend on which judgement finishes first.
	jctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := judgeAll(jctx, b.GT, jobs, cfg.Workers)
	progress := func(i int, p *kg.Prediction) {
		if cfg.Progress != nil {
			cfg.Progress(i+1, len(jobs), p.TaskID, p.SampleIdx)
		}
	}
	for i, jb := range jobs {
		st, p := jb.run, jb.p
		key := kgstore.SampleKey{Run: st.in.Spec.Name, TaskID: p.TaskID, Sample: p.SampleIdx}
		task := b.GT.TaskByID[p.TaskID]
		if err := sink.putPrediction(ctx, key, *p); err != nil {
			return nil, err
		}
		var o judged
		select {
		case o = <-results[i]:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		// A judgement that raced a cancellation may hold claims left
		// unjudged because of it: not committed, a rerun judges them.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		j, err := o.j, o.err
		st.attempted[key] = true
		if err != nil {
			var pe *PanicError
			if errors.Is(err, context.Canceled) || errors.As(err, &pe) {
				return nil, err
			}
			if llmjudge.IsCacheMiss(err) {
				return nil, inputErrorf("--cache-only: %w", err)
			}
			st.problems = append(st.problems, fmt.Errorf("%s sample %d: %w", p.TaskID, p.SampleIdx, err))
			progress(i, p)
			continue
		}
		item, err := matcher.Score(task, p, j, cfg.Protocol)
		if err != nil {
			st.problems = append(st.problems, &InputError{Err: err})
			progress(i, p)
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
		st.structure = append(st.structure, hierarchy.SampleResult{Report: rep, Parse: p.Report, TripletF1: item.TripletF1})
		st.res.Items = append(st.res.Items, item)
		st.done[key] = true
		progress(i, p)
	}
	if err := sink.flush(ctx); err != nil {
		return nil, err
	}

	if a, ok := cfg.Judge.(accountant); ok {
		m, ledger := a.Manifest(), a.Ledger()
		out.Invocation = &Invocation{LLM: &m, Ledger: &ledger}
	}
	scored := now().UTC().Truncate(time.Second)
	for _, st := range states {
		st.res.Warnings = inputWarnings(b, st)
		if err := finishRun(ctx, sink, st, cfg, scored, out.Invocation); err != nil {
			return nil, err
		}
		out.Runs = append(out.Runs, st.res)
	}
	if len(out.Runs) > 0 {
		out.ScoreResult = out.Runs[0]
	}
	if err := sink.flush(ctx); err != nil {
		return nil, err
	}
	if err := writeBatch(cfg.Out, out); err != nil {
		if IsOutputError(err) {
			// What was written stays; the caller reports the rest.
			return out, err
		}
		return nil, err
	}
	return out, nil
}

// finishRun summarises a scored run, removes what an earlier scoring of it
// left in the store, and stores its metadata.
func finishRun(ctx context.Context, sink sink, st *runState, cfg ScoreConfig, scored time.Time, inv *Invocation) error {
	res, sp := st.res, st.in.Spec
	name := sp.Name
	// A sample the judge failed on is not missing: it is a failed input
	// (never a silent zero), and a rerun scores it.
	present := map[string]map[int]bool{}
	for k := range st.attempted {
		if present[k.TaskID] == nil {
			present[k.TaskID] = map[int]bool{}
		}
		present[k.TaskID][k.Sample] = true
	}
	for _, id := range st.tasks {
		for _, i := range st.indices {
			if !present[id][i] {
				res.Missing = append(res.Missing, matcher.MissingSample{TaskID: id, Sample: i})
			}
		}
	}
	if len(st.indices) == 0 {
		// No prediction at all: every task misses its one sample.
		for _, id := range st.tasks {
			res.Missing = append(res.Missing, matcher.MissingSample{TaskID: id, Sample: 0})
		}
	}

	sort.SliceStable(res.Items, func(a, b int) bool {
		if res.Items[a].QID != res.Items[b].QID {
			return res.Items[a].QID < res.Items[b].QID
		}
		return res.Items[a].SampleIdx < res.Items[b].SampleIdx
	})
	res.Summary = matcher.SummarizeWith(res.Items, matcher.SummaryOptions{Missing: res.Missing, ZeroFill: cfg.Missing == MissingZero})
	res.Summary.Run = name
	res.Summary.Judge = st.judge.Name()
	res.Summary.Protocol = cfg.Protocol
	for _, e := range st.problems {
		res.Summary.Failed = append(res.Summary.Failed, e.Error())
	}
	res.Problems = st.problems
	res.Structure = hierarchy.Aggregate(st.structure)
	man := Manifest{Version: cfg.Version, Protocol: cfg.Protocol, Judge: st.judge.Name(), Embedding: cfg.Embedding}
	if a, ok := st.judge.(accountant); ok {
		man.LLM = stableManifest(a.Manifest())
		res.Invocation = inv
	}
	res.Summary.Sections = append(res.Summary.Sections,
		matcher.Section{Key: "manifest", Value: man},
		matcher.Section{Key: "structure", Value: res.Structure})
	if len(res.Warnings) > 0 {
		res.Summary.Sections = append(res.Summary.Sections, matcher.Section{Key: "input_warnings", Value: res.Warnings})
	}

	// The store keeps exactly this scoring: an earlier one's samples that
	// were not scored now go.
	var err error
	if res.Removed, err = sink.removeStale(ctx, name, st.done); err != nil {
		return err
	}
	manJSON, err := json.Marshal(man)
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	n := len(st.indices)
	if n == 0 {
		n = 1
	}
	res.Info = kgstore.RunInfo{
		Name: name, Model: sp.Model, Framework: sp.Framework, Subset: sp.Subset, Notes: sp.Notes, Source: sp.Path,
		Samples: n, Missing: string(cfg.Missing), Protocol: string(cfg.Protocol), Judge: st.judge.Name(),
		Manifest: manJSON, Tasks: append([]string{}, st.tasks...), Scored: scored,
	}
	return sink.putRun(ctx, res.Info)
}

// stableManifest keeps what decides the verdicts from a judge manifest
// (what one invocation spent or found out, and how it was transported, are
// in invocation.json: a rerun from the cache makes no call, so it cannot
// know them).
func stableManifest(m llmjudge.Manifest) *JudgeManifest {
	d := m.Decoding
	d.SeedRefused = false
	return &JudgeManifest{Judge: m.Judge, Endpoint: m.Endpoint, Model: m.Model, PromptVersion: m.PromptVersion,
		PromptStyle: m.PromptStyle, PromptHash: m.PromptHash, Prompts: m.Prompts, Batching: m.Batching,
		Validity: m.Validity, Routing: m.Routing, Decoding: d}
}

type judged struct {
	j   kg.Judgement
	err error
}

// judgeAll judges jobs with at most workers at a time and returns one
// channel per job that receives its judgement. Judges are safe for
// concurrent use; a cancelled ctx stops the jobs not yet started.
func judgeAll(ctx context.Context, gt *Inputs, jobs []job, workers int) []chan judged {
	out := make([]chan judged, len(jobs))
	for i := range out {
		out[i] = make(chan judged, 1)
	}
	slots := make(chan struct{}, max(1, workers))
	go func() {
		for i, jb := range jobs {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				out[i] <- judged{err: ctx.Err()}
				continue
			}
			go func() {
				defer func() { <-slots }()
				defer func() {
					if r := recover(); r != nil {
						out[i] <- judged{err: &PanicError{Value: r, Stack: debug.Stack()}}
					}
				}()
				j, err := jb.run.judge.Judge(ctx, gt.TaskByID[jb.p.TaskID], jb.p)
				out[i] <- judged{j, err}
			}()
		}
	}()
	return out
}

// inputWarnings are the loaders' warnings about a run's inputs: its tasks'
// ground truth, then its predictions, in order.
func inputWarnings(b *Batch, st *runState) []string {
	var out []string
	for _, id := range st.tasks {
		if t := b.GT.TaskByID[id]; t != nil {
			for _, w := range ingest.TaskWarnings(t) {
				out = append(out, w.String())
			}
		}
	}
	for _, p := range st.in.Samples() {
		for _, w := range ingest.PredictionWarnings(p) {
			out = append(out, w.String())
		}
	}
	// Sorted, so that shards merge into the same list.
	sort.Strings(out)
	return out
}
