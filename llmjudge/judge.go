// Package llmjudge owns the OpenAI-compatible LLM judge: it plans a
// sample's claims into batches, decides them through a cache and a
// transport stack, maps local ids back to the sample's indices, and keeps
// the token ledger and the run manifest. It satisfies kg.Judge. It must
// not score (matcher does), read task or prediction files, or touch the CLI.
//
// Versioning: every verdict's Judge field is "openai:<model>@<set hash>",
// where the set hash (12 hex) covers prompt.Version and the text and schema
// of every prompt variant of the style in use; any prompt change changes
// the judge name, misses the cache and shows in the manifest, which also
// lists each variant as "<style>/<pass>/<lang>@<16 hex>".
//
// Stack, outermost first: cache (decide.Cached) -> re-ask loop
// (decide.LLM) -> concurrency limit -> budget -> format/seed negotiation ->
// retry -> rate limit -> per-request timeout -> go-openai (with a body patch
// that always sends temperature).
package llmjudge

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/llmjudge/cache"
	"github.com/kgjudge/kgjudge/llmjudge/cost"
	"github.com/kgjudge/kgjudge/llmjudge/decide"
	"github.com/kgjudge/kgjudge/llmjudge/prompt"
	"github.com/kgjudge/kgjudge/llmjudge/transport"
	"github.com/kgjudge/kgjudge/plan"
)

// Judge is the LLM judge. It is safe for concurrent use by several samples.
type Judge struct {
	cfg      Config
	name     string
	endpoint string
	style    prompt.Style
	planner  plan.Planner
	decider  decide.Decider
	decoding decide.Decoding

	store     *cache.File
	memo      *memo
	budget    *transport.Budget
	negotiate *transport.Negotiate
	retry     *transport.Retry
	adaptive  *transport.Adaptive
	ledger    *cost.Ledger

	hits, misses, unjudged, budgetHit atomic.Int64
	routeScored, routePos, routeNeg   atomic.Int64
	modesMu                           sync.Mutex
	modes                             map[transport.Mode]int64
}

var _ kg.Judge = (*Judge)(nil)

// New builds a judge from cfg. Close it to release the cache file.
func New(ctx context.Context, cfg Config) (*Judge, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	j := &Judge{cfg: cfg, endpoint: redactURL(cfg.BaseURL), ledger: cost.NewLedger(cost.Price{InPerM: cfg.PriceIn, OutPerM: cfg.PriceOut, CachedInPerM: cfg.PriceCachedIn}), modes: map[transport.Mode]int64{}}

	switch {
	case cfg.Planner != nil:
		j.planner = cfg.Planner
	case cfg.Batching == BatchingWhole:
		j.planner = plan.WholeGraph{Size: cfg.BatchSize}
	default:
		j.planner = plan.Reference{}
	}
	styleName := cfg.PromptStyle
	if styleName == "" {
		styleName = string(prompt.Default)
		if cfg.Batching == BatchingReference && cfg.Planner == nil {
			styleName = string(prompt.Reference)
		}
	}
	style, err := prompt.ParseStyle(styleName)
	if err != nil {
		return nil, fmt.Errorf("llmjudge: %w", err)
	}
	j.style = style
	j.name = "openai:" + cfg.Model + "@" + prompt.SetHash(style)
	j.decoding = decide.Decoding{Temperature: cfg.Temperature, MaxTokens: cfg.MaxOutputTokens}
	if !cfg.NoSeed {
		seed := cfg.Seed
		j.decoding.Seed = &seed
	}

	// Transport, innermost first.
	var c transport.Completer = cfg.Completer
	if c == nil {
		c = transport.NewOpenAI(cfg.BaseURL, cfg.APIKey, cfg.Model, cfg.HTTPClient)
	}
	c = transport.Timeout{Next: c, D: cfg.Timeout}
	if cfg.RPM > 0 || cfg.TPM > 0 {
		c = transport.NewRateLimit(c, cfg.RPM, cfg.TPM, nil)
	}
	if !cfg.FixedConcurrency {
		j.adaptive = transport.NewAdaptive(nil, min(DefaultConcurrencyStart, cfg.Concurrency), cfg.Concurrency)
		c = j.adaptive.Observe(c)
	}
	j.retry = &transport.Retry{Next: c, MaxAttempts: cfg.MaxAttempts, Base: cfg.RetryBase, Max: cfg.RetryMax}
	j.negotiate = transport.NewNegotiate(j.retry)
	// The budget is checked once a request holds a concurrency slot, i.e.
	// just before it would go out, so queued requests see the spend of
	// those that ran before them.
	j.budget = transport.NewBudget(j.negotiate, cfg.TokenBudget)
	if j.adaptive != nil {
		c = j.adaptive.Wrap(j.budget)
	} else {
		c = transport.NewLimit(j.budget, cfg.Concurrency)
	}

	j.decider = &decide.LLM{C: c, Decoding: j.decoding, Mode: cfg.Mode, MaxReasks: cfg.MaxReasks}
	if cfg.Decider != nil {
		j.decider = cfg.Decider
	} else if !cfg.NoCache && cfg.CacheDir != "" {
		st, err := cache.Open(cfg.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("llmjudge: %w", err)
		}
		j.store = st
		if j.memo, err = openMemo(cfg.CacheDir); err != nil {
			st.Close()
			return nil, fmt.Errorf("llmjudge: %w", err)
		}
		j.decider = &decide.Cached{Next: j.decider, Store: st, Only: cfg.CacheOnly,
			Keys: decide.CacheKeyer{Model: cfg.Model, Decoding: j.decoding}}
	}
	return j, nil
}

// Name implements kg.Judge: "openai:<model>@<prompt set hash>".
func (j *Judge) Name() string { return j.name }

// Close releases the cache file.
func (j *Judge) Close() error {
	var errs []error
	if j.memo != nil {
		errs = append(errs, j.memo.close())
	}
	if j.store != nil {
		errs = append(errs, j.store.Close())
	}
	return errors.Join(errs...)
}

// CacheProblems lists the judge cache's torn and damaged entries (each
// ignored, its claim asked again), naming the file and the line or key;
// empty when the cache is sound or not used. Callers print them as
// warnings.
func (j *Judge) CacheProblems() []string {
	if j.store == nil {
		return nil
	}
	return j.store.Problems()
}

// Ledger returns the token ledger so far (per item and batch, and totals).
func (j *Judge) Ledger() cost.Report { return j.ledger.Report() }

// DeterministicJudge names the verdicts a Resolver planner decided without
// a call (kgjudge's deterministic tier), so that they can be told apart from
// the model's in every output.
const DeterministicJudge = "deterministic"

func batchName(p plan.Pass, i int) string { return fmt.Sprintf("%s#%03d", p, i) }

type job struct {
	name  string
	batch plan.Batch
	ask   *decide.Ask
}

// jobs plans a sample and turns the batches into asks; a Resolver planner
// also returns the claims it decided itself.
func (j *Judge) jobs(ctx context.Context, task *kg.Task, pred *kg.Prediction) ([]job, []plan.Resolution, []routed, error) {
	var batches []plan.Batch
	var resolved []plan.Resolution
	var err error
	if r, ok := j.planner.(plan.Resolver); ok {
		batches, resolved, err = r.PlanResolved(ctx, task, pred)
	} else {
		batches, err = j.planner.Plan(ctx, task, pred)
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("llmjudge: task %q sample %d: plan %s: %w", task.ID, pred.SampleIdx, j.planner.Name(), err)
	}
	return j.jobsFrom(ctx, task, pred, batches, resolved)
}

// jobsFrom checks and routes a sample's plan and turns its batches into asks.
func (j *Judge) jobsFrom(ctx context.Context, task *kg.Task, pred *kg.Prediction, batches []plan.Batch, resolved []plan.Resolution) ([]job, []plan.Resolution, []routed, error) {
	if _, err := plan.Check(batches, len(task.Triples), len(pred.Triples)); err != nil {
		return nil, nil, nil, fmt.Errorf("llmjudge: task %q sample %d: plan %s: %w", task.ID, pred.SampleIdx, j.planner.Name(), err)
	}
	if err := plan.CheckResolved(batches, resolved, len(task.Triples), len(pred.Triples)); err != nil {
		return nil, nil, nil, fmt.Errorf("llmjudge: task %q sample %d: plan %s: %w", task.ID, pred.SampleIdx, j.planner.Name(), err)
	}
	batches, decided, err := j.route(ctx, task, pred, batches)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("llmjudge: task %q sample %d: %w", task.ID, pred.SampleIdx, err)
	}
	count := map[plan.Pass]int{}
	var out []job
	for _, b := range batches {
		if b.Pass == plan.Validity && j.cfg.NoValidity {
			continue
		}
		name := batchName(b.Pass, count[b.Pass])
		count[b.Pass]++
		pb := prompt.Batch{Pass: b.Pass, Lang: task.Language}
		claimsOf, candsOf := gtTriple(task), predTriple(pred)
		if b.Pass == plan.Validity {
			claimsOf, candsOf = predTriple(pred), gtTriple(task)
		}
		for i, c := range b.Claims {
			label := i
			if j.style == prompt.Reference && b.Pass == plan.Coverage {
				label = c // the reference numbers claims by their GT index
			}
			pb.Claims = append(pb.Claims, prompt.Claim{Label: label, Triple: claimsOf(c)})
		}
		for _, c := range b.Candidates {
			pb.Candidates = append(pb.Candidates, candsOf(c))
		}
		out = append(out, job{name: name, batch: b, ask: &decide.Ask{
			Name:  fmt.Sprintf("task %q sample %d batch %s", task.ID, pred.SampleIdx, name),
			Style: j.style, Batch: pb,
		}})
	}
	return out, resolved, decided, nil
}

func gtTriple(t *kg.Task) func(int) kg.Triple {
	return func(i int) kg.Triple { return t.Triples[i].Triple }
}

func predTriple(p *kg.Prediction) func(int) kg.Triple {
	return func(i int) kg.Triple { return p.Triples[i] }
}

// Judge implements kg.Judge. Claims the judge could not decide are
// unjudged with the reason (never uncovered by accident). The error names
// the task, sample and batch; it is returned for a cancelled context, a
// cache-only miss, a bad plan or a cache write failure.
func (j *Judge) Judge(ctx context.Context, task *kg.Task, pred *kg.Prediction) (kg.Judgement, error) {
	nGT, nPred := len(task.Triples), len(pred.Triples)
	out := kg.Judgement{Judge: j.name, Coverage: make([]kg.Verdict, nGT)}
	if !j.cfg.NoValidity {
		out.Validity = make([]kg.Validity, nPred)
	}
	if nPred == 0 {
		// The reference makes no call and scores zero.
		for gi := range out.Coverage {
			out.Coverage[gi] = kg.Verdict{GTIndex: gi, State: kg.Uncovered, Support: []int{}, Judge: j.name, Reason: "no predicted triples"}
		}
		return out, nil
	}
	var key string
	if j.memo != nil {
		key = j.sampleKey(task, pred)
		if got, ok := j.memo.get(key); ok {
			n := len(got.Coverage) + len(got.Validity)
			j.hits.Add(int64(n))
			j.ledger.AddItem(cost.Item{Task: task.ID, Sample: pred.SampleIdx, Batches: []cost.Batch{{Batch: "sample-memo", CacheHits: n}}})
			return got, nil
		}
	}
	out, err := j.judge(ctx, task, pred, out)
	if err == nil && j.memo != nil && complete(out) {
		if perr := j.memo.put(key, task, pred, out); perr != nil {
			return out, fmt.Errorf("llmjudge: %w", perr)
		}
	}
	return out, err
}

// judge plans, routes and decides one sample (Judge without the memo).
func (j *Judge) judge(ctx context.Context, task *kg.Task, pred *kg.Prediction, out kg.Judgement) (kg.Judgement, error) {
	nGT, nPred := len(task.Triples), len(pred.Triples)
	jobs, resolved, decided, err := j.jobs(ctx, task, pred)
	if err != nil {
		return out, err
	}
	notPlanned := "not planned by planner " + j.planner.Name()
	for gi := range out.Coverage {
		out.Coverage[gi] = kg.Verdict{GTIndex: gi, State: kg.Unjudged, Support: []int{}, Judge: j.name, Reason: notPlanned}
	}
	for pi := range out.Validity {
		out.Validity[pi] = kg.Validity{PredIndex: pi, State: kg.Unjudged, Support: []int{}, Judge: j.name, Reason: notPlanned}
	}
	for _, r := range resolved {
		support := append([]int{}, r.Support...)
		switch {
		case r.Pass == plan.Coverage:
			out.Coverage[r.Claim] = kg.Verdict{GTIndex: r.Claim, State: kg.Covered, Kind: r.Kind, Support: support, Judge: DeterministicJudge, Reason: r.Reason}
		case r.Pass == plan.Validity && out.Validity != nil:
			out.Validity[r.Claim] = kg.Validity{PredIndex: r.Claim, State: kg.Covered, Support: support, Judge: DeterministicJudge, Reason: r.Reason}
		}
	}
	for _, r := range decided {
		st := kg.Uncovered
		if r.covered {
			st = kg.Covered
		}
		switch r.pass {
		case plan.Coverage:
			kind := kg.KindNone
			if r.covered {
				kind = kg.KindCalibrated
			}
			out.Coverage[r.claim] = kg.Verdict{GTIndex: r.claim, State: st, Kind: kind, Support: r.support, Judge: CalibratedJudge, Reason: r.reason()}
		case plan.Validity:
			out.Validity[r.claim] = kg.Validity{PredIndex: r.claim, State: st, Support: r.support, Judge: CalibratedJudge, Reason: r.reason()}
		}
	}

	ledger := make([]cost.Batch, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for ji := range jobs {
		wg.Add(1)
		go func(ji int) {
			defer wg.Done()
			jb := jobs[ji]
			lb := cost.Batch{Batch: jb.name, Pass: string(jb.batch.Pass), Claims: len(jb.batch.Claims)}
			var ans *decide.Answer
			if len(jb.batch.Candidates) == 0 {
				ans = &decide.Answer{}
				for i := range jb.batch.Claims {
					ans.Decisions = append(ans.Decisions, decide.Decision{Claim: i, State: kg.Uncovered, Support: []int{},
						Reason: "planner " + j.planner.Name() + " found no candidate triple"})
				}
			} else {
				ans, errs[ji] = j.decider.Decide(ctx, jb.ask)
			}
			if ans != nil {
				j.apply(&out, jb, ans, nGT, nPred)
				lb.Usage, lb.Calls, lb.Attempts, lb.Reasks, lb.CacheHits = ans.Usage, ans.Calls, ans.Attempts, ans.Reasks, ans.CacheHits
				for _, d := range ans.Decisions {
					if d.State == kg.Unjudged {
						lb.Unjudged++
					}
				}
			}
			ledger[ji] = lb
		}(ji)
	}
	wg.Wait()
	j.ledger.AddItem(cost.Item{Task: task.ID, Sample: pred.SampleIdx, Batches: ledger})
	for _, err := range errs {
		if err != nil {
			return out, fmt.Errorf("llmjudge: %w", err)
		}
	}
	return out, nil
}

// apply maps an answer's decisions onto the judgement. Different jobs touch
// different indices, so concurrent calls do not race.
func (j *Judge) apply(out *kg.Judgement, jb job, ans *decide.Answer, nGT, nPred int) {
	modes := map[transport.Mode]int64{}
	for _, m := range ans.Modes {
		modes[m]++
	}
	j.modesMu.Lock()
	for m, n := range modes {
		j.modes[m] += n
	}
	j.modesMu.Unlock()
	j.hits.Add(int64(ans.CacheHits))
	for _, d := range ans.Decisions {
		if d.Source != decide.FromCache {
			j.misses.Add(1)
		}
		if d.State == kg.Unjudged {
			j.unjudged.Add(1)
			if d.Reason == "budget" {
				j.budgetHit.Store(1)
			}
		}
		if d.Claim < 0 || d.Claim >= len(jb.batch.Claims) {
			// A decider bug; never index out of range on it.
			continue
		}
		sup := make([]int, 0, len(d.Support))
		for _, s := range d.Support {
			if s < 0 || s >= len(jb.batch.Candidates) {
				// The deciders check local ids; should one slip through
				// (a bug), the claim is unjudged rather than a panic.
				d = decide.Decision{Claim: d.Claim, State: kg.Unjudged,
					Reason: fmt.Sprintf("the judge's support index %d is not one of the batch's %d candidates", s, len(jb.batch.Candidates))}
				sup = sup[:0]
				j.unjudged.Add(1)
				break
			}
			sup = append(sup, jb.batch.Candidates[s])
		}
		sort.Ints(sup)
		claim := jb.batch.Claims[d.Claim]
		if jb.batch.Pass == plan.Coverage {
			out.Coverage[claim] = kg.Verdict{GTIndex: claim, State: d.State, Kind: d.Kind, Support: sup, Judge: j.name, Reason: d.Reason, Shown: shown(jb.batch, nPred)}
		} else if out.Validity != nil {
			out.Validity[claim] = kg.Validity{PredIndex: claim, State: d.State, Support: sup, Judge: j.name, Reason: d.Reason, Shown: shown(jb.batch, nGT)}
		}
	}
}

// Estimate forecasts the calls, tokens and dollars judging a sample would
// take with no cache: prompts are rendered and measured with
// cost.EstimateTokens; each claim is assumed to need 40 completion tokens
// (15 with the reference prompt, which asks for no reason).
func (j *Judge) Estimate(ctx context.Context, task *kg.Task, pred *kg.Prediction) (cost.Estimate, error) {
	if len(pred.Triples) == 0 {
		return cost.Estimate{}, nil
	}
	jobs, _, _, err := j.jobs(ctx, task, pred)
	if err != nil {
		return cost.Estimate{}, err
	}
	return j.estimate(task, jobs)
}

// EstimatePlanned is Estimate over a plan of the sample the caller already
// made with a planner configured as the judge's (its batches and the
// claims it resolved), so that the sample is not planned twice: `kgjudge
// plan` builds each sample's candidates for its output and estimated the
// same calls by building them again.
func (j *Judge) EstimatePlanned(ctx context.Context, task *kg.Task, pred *kg.Prediction, batches []plan.Batch, resolved []plan.Resolution) (cost.Estimate, error) {
	if len(pred.Triples) == 0 {
		return cost.Estimate{}, nil
	}
	jobs, _, _, err := j.jobsFrom(ctx, task, pred, batches, resolved)
	if err != nil {
		return cost.Estimate{}, err
	}
	return j.estimate(task, jobs)
}

func (j *Judge) estimate(task *kg.Task, jobs []job) (cost.Estimate, error) {
	var e cost.Estimate
	for _, jb := range jobs {
		if len(jb.batch.Candidates) == 0 {
			continue
		}
		r, err := prompt.Render(jb.ask.Style, jb.ask.Batch, "")
		if err != nil {
			return e, fmt.Errorf("llmjudge: %s: %w", jb.ask.Name, err)
		}
		// The fixed text: the prompt of one empty claim and one empty candidate.
		fixed, err := prompt.Render(jb.ask.Style, prompt.Batch{Pass: jb.batch.Pass, Lang: task.Language,
			Claims: []prompt.Claim{{}}, Candidates: []kg.Triple{{}}}, "")
		if err != nil {
			return e, fmt.Errorf("llmjudge: %s: %w", jb.ask.Name, err)
		}
		e.InstructionChars += utf8.RuneCountInString(fixed.System) + utf8.RuneCountInString(fixed.User)
		per := int64(40)
		if j.style == prompt.Reference && jb.batch.Pass == plan.Coverage {
			per = 15
		}
		e.Calls++
		e.PromptTokens += int64(cost.EstimateTokens(r.System) + cost.EstimateTokens(r.User) + 8)
		// The system message is the prefix every call of a variant shares:
		// kgjudge's whole instructions, the reference prompt's one line
		// (it puts its instructions after the triples).
		e.CacheableTokens += int64(cost.EstimateTokens(r.System) + 4)
		e.CompletionTokens += per*int64(len(jb.batch.Claims)) + 10
	}
	e.USD = j.price().Cost(cost.Usage{Prompt: e.PromptTokens, Completion: e.CompletionTokens, Cached: e.CacheableTokens})
	return e, nil
}

func (j *Judge) price() cost.Price {
	return cost.Price{InPerM: j.cfg.PriceIn, OutPerM: j.cfg.PriceOut, CachedInPerM: j.cfg.PriceCachedIn}
}

// IsCacheMiss reports whether err is a cache-only miss.
func IsCacheMiss(err error) bool { return errors.Is(err, cache.ErrMiss) }

// shown is what a batch showed the judge for its claims, for reports: nil
// when it showed the whole list (reference batching), which says nothing.
func shown(b plan.Batch, whole int) []int {
	if len(b.Candidates) == 0 || len(b.Candidates) >= whole {
		return nil
	}
	return b.Candidates
}
