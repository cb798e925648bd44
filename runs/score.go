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
	// Memo, when set, is the rescore memo of Judge (an offline judge, whose
	// verdicts are a function of its inputs): a sample whose inputs and
	// judge configuration are unchanged is taken from it instead of being
	// judged, and is not written to the store again when the store holds
	// it as the memo last wrote it. Runs with a judge of their own do not
	// use it. The caller opens and closes it.
	Memo *Memo
	// CommitBatch is how many samples go to the store in one batch (one
	// transaction and sync; defaultCommitBatch when 0).
	CommitBatch int
}

// defaultCommitBatch: a bbolt sync per 8 samples instead of two per
// sample, while a batch stays a few MB.
const defaultCommitBatch = 8

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
	out       *outWriter
	// memo: the run's judge is ScoreConfig.Judge and a memo is open.
	memo bool
	// stored is what the store holds of the run by the memo's record
	// (sample -> memo key); memoKeys is what this scoring committed.
	stored, memoKeys map[string]string
}

// job is one sample of one run; p may lack its triples (the worker reads
// them again: RunInputs.prediction).
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
	sink := &sink{store: cfg.Store, neo: cfg.Neo4j}
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

	if err := sink.putTasks(ctx, b.GT.Tasks); err != nil {
		return nil, err
	}

	if err := prepareMemo(ctx, b, states, cfg); err != nil {
		return nil, err
	}
	// Each run's item files go into its new output directory as samples
	// commit; the directory takes the old one's place at the end.
	files := newFileCache()
	for _, jb := range jobs {
		if ref, ok := jb.run.in.refs[keyOf(jb.p)]; ok {
			files.want(ref.file)
		}
	}
	for _, st := range states {
		w, err := newOutWriter(st.res.Out)
		if err != nil {
			return nil, err
		}
		defer w.abort() // a no-op once finished
		st.out = w
	}

	// Samples are judged, scored and analysed by cfg.Workers goroutines;
	// they are committed to the store and the outputs in input order (a
	// few per store batch), so the outputs do not depend on which
	// judgement finishes first, and at most a window of them waits to be
	// committed. A committed sample leaves only what the summary needs.
	jctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batch := cfg.CommitBatch
	if batch <= 0 {
		batch = defaultCommitBatch
	}
	workers := max(1, cfg.Workers)
	sc := &scorer{gt: b.GT, proto: cfg.Protocol, memo: cfg.Memo, taskHash: taskHashes(b, cfg.Memo), files: files}
	results, release := judgeAll(jctx, jobs, workers, 2*workers+batch, sc.work)
	// Samples queued for the store were judged before any cancellation:
	// they are committed even when the command stops (Progress has
	// reported them).
	defer func() {
		if len(sink.pending) > 0 {
			sink.flushSamples(context.WithoutCancel(ctx))
		}
	}()
	progress := func(i int, p *kg.Prediction) {
		if cfg.Progress != nil {
			cfg.Progress(i+1, len(jobs), p.TaskID, p.SampleIdx)
		}
	}
	for i, jb := range jobs {
		st, p := jb.run, jb.p
		key := kgstore.SampleKey{Run: st.in.Spec.Name, TaskID: p.TaskID, Sample: p.SampleIdx}
		var o judged
		select {
		case o = <-results[i]:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		release()
		// A judgement that raced a cancellation may hold claims left
		// unjudged because of it: not committed, a rerun judges them.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if o.loadErr != nil {
			var ce *ChangedInputError
			if errors.As(o.loadErr, &ce) {
				return nil, &InputError{Err: fmt.Errorf("run %s: %w", st.in.Spec.Name, o.loadErr)}
			}
			return nil, o.loadErr
		}
		st.attempted[key] = true
		if err := o.err; err != nil {
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
		if o.scoreErr != nil {
			st.problems = append(st.problems, &InputError{Err: o.scoreErr})
			progress(i, p)
			continue
		}
		id := memoSampleID(key)
		// A sample taken from the memo that the store holds as the memo
		// last wrote it is not written again.
		if !o.hit || st.stored[id] != o.memoKey {
			v := kgstore.Verdicts{Key: key, Coverage: o.j.Coverage, Validity: o.j.Validity}
			if err := sink.putSample(ctx, kgstore.Sample{Key: key, Prediction: *o.pred, Verdicts: v}, batch); err != nil {
				return nil, err
			}
			if err := sink.setSampleProps(ctx, key, ItemProps(&o.item)); err != nil {
				return nil, err
			}
		}
		if o.encErr != nil {
			st.out.fail(&o.item, o.encErr)
		} else if err := st.out.itemBytes(&o.item, o.itemJSON); err != nil {
			st.out.fail(&o.item, err)
		}
		if o.memoNew != nil {
			if err := cfg.Memo.put(o.memoNew); err != nil {
				return nil, err
			}
		}
		if st.memoKeys != nil && o.memoKey != "" {
			st.memoKeys[id] = o.memoKey
		}
		st.structure = append(st.structure, hierarchy.SampleResult{Report: o.rep.ForAggregate(), Parse: p.Report, TripletF1: o.item.TripletF1})
		st.res.Items = append(st.res.Items, slimItem(o.item))
		st.done[key] = true
		progress(i, p)
	}
	if err := sink.flushSamples(ctx); err != nil {
		return nil, err
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
		if err := recordStored(ctx, cfg, st); err != nil {
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
	ws := make([]*outWriter, len(states))
	for i, st := range states {
		ws[i] = st.out
	}
	if err := writeBatch(cfg.Out, out, ws); err != nil {
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
func finishRun(ctx context.Context, sink *sink, st *runState, cfg ScoreConfig, scored time.Time, inv *Invocation) error {
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

// judged is one sample judged, scored and analysed by a worker.
type judged struct {
	j   kg.Judgement
	err error // the judge's
	// scoreErr is matcher.Score's (the judgement does not fit the task).
	scoreErr error
	item     matcher.Item
	rep      hierarchy.Report
	itemJSON []byte
	encErr   error
	// memoKey is the sample's memo key (memo runs); hit says the sample
	// came from the memo (o.j is set only when the store needs it);
	// memoNew is a new entry to append.
	memoKey string
	hit     bool
	memoNew *memoNew
	// pred is the sample with its triples, dropped once it is committed;
	// loadErr says they could not be read again.
	pred    *kg.Prediction
	loadErr error
}

// scorer is what a worker needs to turn a job into a committed sample.
type scorer struct {
	gt       *Inputs
	proto    matcher.Protocol
	memo     *Memo
	taskHash map[string]string
	files    *fileCache
}

func (sc *scorer) work(ctx context.Context, jb job) (o judged) {
	st := jb.run
	p, err := st.in.prediction(ctx, sc.files, jb.p)
	if err != nil {
		return judged{loadErr: err}
	}
	defer func() { o.pred = p }()
	task := sc.gt.TaskByID[p.TaskID]
	if th, ok := sc.taskHash[p.TaskID]; st.memo && ok {
		// A prediction that cannot be encoded is judged without the memo.
		if key, err := sc.memo.key(th, task, p, sc.proto); err == nil {
			o.memoKey = key
			if e, ok := sc.memo.get(key); ok {
				o.item, o.rep, o.itemJSON = e.item, e.rep, e.itemFile
				o.hit = true
				// The judgement is read only for a store that lacks
				// the sample as the memo recorded it.
				id := memoSampleID(kgstore.SampleKey{Run: st.in.Spec.Name, TaskID: p.TaskID, Sample: p.SampleIdx})
				if st.stored[id] == key {
					return o
				}
				if o.j, o.err = sc.memo.judgement(e); o.err == nil {
					return o
				}
				o = judged{memoKey: key} // unreadable: judged again
			}
		}
	}
	if o.j, o.err = st.judge.Judge(ctx, task, p); o.err != nil {
		return o
	}
	if o.item, o.scoreErr = matcher.Score(task, p, o.j, sc.proto); o.scoreErr != nil {
		return o
	}
	o.rep = hierarchy.Analyze(*task, *p, o.j.Coverage, o.j.Validity)
	o.item.Structure = o.rep
	o.itemJSON, o.encErr = encodeJSON(filepath.Join(st.out.items, ItemFileName(&o.item)), o.item)
	// A sample with an unjudged claim is not memoised (a rerun must judge
	// it again), nor one whose entry cannot be encoded.
	if o.memoKey != "" && o.encErr == nil && o.item.Unjudged.Total() == 0 {
		if n, it, rep, err := encodeMemo(o.memoKey, p, o.j, o.item, o.rep, o.itemJSON); err == nil {
			o.memoNew, o.item, o.rep = n, it, rep
		}
	}
	return o
}

// judgeAll runs work on jobs, at most workers at a time and at most window
// jobs ahead of the commits (release is called once per job committed), and
// returns one channel per job that receives its result. Judges are safe
// for concurrent use; a cancelled ctx stops the jobs not yet started.
func judgeAll(ctx context.Context, jobs []job, workers, window int, work func(context.Context, job) judged) ([]chan judged, func()) {
	out := make([]chan judged, len(jobs))
	for i := range out {
		out[i] = make(chan judged, 1)
	}
	running := make(chan struct{}, max(1, workers))
	pending := make(chan struct{}, max(1, window))
	go func() {
		for i, jb := range jobs {
			select {
			case pending <- struct{}{}:
			case <-ctx.Done():
				out[i] <- judged{err: ctx.Err()}
				continue
			}
			select {
			case running <- struct{}{}:
			case <-ctx.Done():
				out[i] <- judged{err: ctx.Err()}
				continue
			}
			go func() {
				defer func() { <-running }()
				defer func() {
					if r := recover(); r != nil {
						out[i] <- judged{err: &PanicError{Value: r, Stack: debug.Stack()}}
					}
				}()
				out[i] <- work(ctx, jb)
			}()
		}
	}()
	release := func() {
		select {
		case <-pending:
		default: // a job cancelled before it took a place
		}
	}
	return out, release
}

// slimItem is what a run keeps of a committed sample's item (its file is
// written): the metrics, the parse report and the counts, and of the
// per-claim records only the unjudged ones, whose reasons the CLI lists.
func slimItem(it matcher.Item) matcher.Item {
	it.Structure = nil
	if c := it.Coverage; c != nil {
		cc := *c
		cc.PerGTTriple = nil
		for _, r := range c.PerGTTriple {
			if r.State == kg.Unjudged {
				cc.PerGTTriple = append(cc.PerGTTriple, r)
			}
		}
		it.Coverage = &cc
	}
	if v := it.Validity; v != nil {
		vv := *v
		vv.PerPredTriple = nil
		for _, r := range v.PerPredTriple {
			if r.State == kg.Unjudged {
				vv.PerPredTriple = append(vv.PerPredTriple, r)
			}
		}
		it.Validity = &vv
	}
	return it
}

// taskHashes hashes every task's content once for the memo's keys.
func taskHashes(b *Batch, m *Memo) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(b.GT.Tasks))
	for i := range b.GT.Tasks {
		t := &b.GT.Tasks[i]
		// A task that cannot be encoded gets no hash, and its samples
		// are judged without the memo.
		if h, err := taskContentHash(t); err == nil {
			out[t.ID] = h
		}
	}
	return out
}

// prepareMemo sets each memo run up: what the store holds of it by the
// memo's record (trusted only while the store's metadata of the run is
// the one recorded, and only for samples the store lists), and then the
// record is forgotten, before any of the run's samples is written.
func prepareMemo(ctx context.Context, b *Batch, states []*runState, cfg ScoreConfig) error {
	if cfg.Memo == nil {
		return nil
	}
	for _, st := range states {
		if st.in.Judge != nil {
			continue
		}
		st.memo = true
		st.memoKeys = map[string]string{}
		name := st.in.Spec.Name
		info, err := cfg.Store.Run(ctx, name)
		ih := ""
		switch {
		case err == nil:
			ih = runInfoHash(info)
		case !errors.Is(err, kgstore.ErrNotFound):
			return fmt.Errorf("store: %w", err)
		}
		// With Neo4j every sample is written again: the memo does not
		// know what the server holds.
		if prev := cfg.Memo.storedRun(name, ih); prev != nil && cfg.Neo4j == nil {
			keys, err := cfg.Store.Samples(ctx, name)
			if err != nil {
				return fmt.Errorf("store: %w", err)
			}
			st.stored = map[string]string{}
			for _, k := range keys {
				if mk, ok := prev[memoSampleID(k)]; ok {
					st.stored[memoSampleID(k)] = mk
				}
			}
		}
		if err := cfg.Memo.setStored(name, "", nil); err != nil {
			return err
		}
	}
	return nil
}

// recordStored records in the memo what the store now holds of a memo
// run: its metadata's hash, as read back, and each committed sample's key.
func recordStored(ctx context.Context, cfg ScoreConfig, st *runState) error {
	if !st.memo {
		return nil
	}
	info, err := cfg.Store.Run(ctx, st.in.Spec.Name)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return cfg.Memo.setStored(st.in.Spec.Name, runInfoHash(info), st.memoKeys)
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
