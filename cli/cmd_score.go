package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/embed"
	"github.com/kgjudge/kgjudge/hierarchy"
	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/cayley"
	"github.com/kgjudge/kgjudge/llmjudge"
	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/runs"
)

type scoreOptions struct {
	GT string
	// Pred is one prediction path (callers that score a single run); Preds
	// holds each --pred: PATH, or NAME=PATH for one run of several.
	Pred  string
	Preds []string
	// RunsFile is --runs: a manifest of runs (runs.ReadRunsFile).
	RunsFile string
	Missing  string
	Samples  int
	// ModelName, Framework and Notes describe a single run (--model, ...).
	ModelName     string
	Framework     string
	Notes         string
	Judge         string
	Verdicts      string
	Protocol      string
	Store         string
	Out           string
	Run           string
	Map           string
	JSON          bool
	AllowUnjudged bool

	// LLM judge (--judge openai).
	JudgeURL    string
	JudgeModel  string
	NoCache     bool
	CacheOnly   bool
	MaxTokens   int64
	PriceIn     float64
	PriceOut    float64
	PriceCached float64
	Route       string
	RouteLow    float64
	RouteHigh   float64
	// RouteSet: --route-low or --route-high was given (a router's own
	// thresholds give way to them).
	RouteSet    bool
	Concurrency int
	Batching    string
	Aliases     string
	Model       string
	NoMemo      bool
	Subset      string
	Timeout     time.Duration
	Attempts    int
	Workers     int
	RPM, TPM    int
	// Shard is "i/n": score the i-th of n slices of the tasks (runs.Shard).
	Shard string

	// Neo4j sync (--neo4j; flags in cmd_export.go).
	Neo4j     bool
	Neo4jConn neo4jOptions

	// judge, when set, is used instead of the one named by Judge (tests).
	judge matcher.Judge
	// replayEvals are the records of --verdicts once read (runScore reads
	// them to pair a lone prediction file): 800 records take seconds to
	// decode, so the replay judge does not read them again.
	replayEvals []ingest.Eval

	// Embedding stage (--embed-url; flags in embed.go) and its client.
	Embed    embedOptions
	embedder *embed.Client
}

func scoreCommand() *ucli.Command {
	var o scoreOptions
	return &ucli.Command{
		Name:      "score",
		Usage:     "score predictions against ground truth and write summary.json and per-sample items",
		UsageText: "kgjudge score --gt PATH (--pred [NAME=]PATH ... | --runs FILE) [options]",
		Description: `Reads ground-truth task files (--gt: a file or a directory of task_*.json) and predictions
(--pred: a file or directory of trajectory JSONL, final-extraction JSON, JSON/JSONL arrays,
CSV/TSV, or agent response text), matches predictions to tasks (by qid/task id, by numeric
prefix for Pro-style ids such as "020", or by --map), stores both graphs, judges coverage
and writes OUT/RUN/summary.json, OUT/RUN/items/<task_id>_sample<N>.json and a table on stdout.

Several runs at once: --pred NAME=PATH repeated, or --runs FILE (a JSON or CSV/TSV manifest of
runs: name, model, framework, path, subset, notes; see README). All their samples go through one
worker pool. Each run is stored under its name and written to OUT/NAME/, replacing what an
earlier scoring of that run left in the store and in OUT/NAME/.

Missing predictions: N is the number of distinct sample indices of a run (or --samples N). A task
without a prediction, or with fewer than N samples, is listed (summary.json "missing", and a line
on stderr) and, with --missing zero (the default, as the reference does), scores 0 for each
missing sample; --missing skip leaves those samples out of the means.

Judges:
   offline  rules over the prefilter's candidates: direct (aliases, relation concepts, canonical
            values), subsumption, collective, compositional; no key, no server
   openai   an LLM judge over any OpenAI-compatible endpoint (--judge-url, --judge-model,
            OPENAI_API_KEY); verdicts cached in STORE/judge-cache; see the LLM judge flags
   replay   the recorded verdicts of the benchmark's judge (--verdicts: reference eval outputs
            or trajectory JSONL whose lines end with the eval keys; default: --pred itself)

Protocols (docs/FORMATS.md §4):
   paper    precision = predicted triples judged valid in the validity pass (published numbers)
   code     precision = distinct supporting predicted indices (the public evaluator's code)

A prediction file whose content carries no qid (a bare array, CSV, text) takes it from its
file name; with --judge replay, one such file replayed with one eval record (--verdicts) is
scored as the record's task. Formats: docs/FORMATS.md.

EXAMPLES:
   kgjudge score --gt examples/gt --pred examples/pred
   kgjudge score --gt examples/gt --pred model-a=examples/pred --pred model-b=examples/pred
   kgjudge score --gt examples/gt --runs examples/runs.json --out kgjudge-out
   kgjudge score --gt testdata/fixtures/p012/gt.json --pred testdata/fixtures/p012/pred.json --verdicts testdata/fixtures/p012/eval.json --judge replay
   kgjudge score --gt tasks/ --pred trajs/model-x/ --judge replay --protocol code --store :memory: --json`,
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "gt", Usage: "ground-truth task file or directory", Required: true, Destination: &o.GT, EnvVars: []string{"KGJUDGE_GT"}},
			&ucli.StringSliceFlag{Name: "pred", Usage: "prediction file or directory; NAME=PATH names the run (repeat for several runs)", Action: func(_ *ucli.Context, v []string) error { o.Preds = v; return nil }},
			&ucli.StringFlag{Name: "runs", Usage: "a manifest of runs to score (JSON, or CSV/TSV with a header: name, model, framework, path, subset, notes)", Destination: &o.RunsFile},
			&ucli.StringFlag{Name: "missing", Usage: "how a sample a run lacks counts: zero (scored 0, as the reference) | skip (left out of the means)", Value: string(runs.MissingZero), Destination: &o.Missing, EnvVars: []string{"KGJUDGE_MISSING"}},
			&ucli.IntFlag{Name: "samples", Usage: "N, the samples every task should have (default: the distinct sample indices of the run)", Destination: &o.Samples},
			&ucli.StringFlag{Name: "model", Usage: "model name, stored on the run (one run only; --runs has its own)", Destination: &o.ModelName},
			&ucli.StringFlag{Name: "framework", Usage: "agent framework, stored on the run (one run only)", Destination: &o.Framework},
			&ucli.StringFlag{Name: "notes", Usage: "free text, stored on the run (one run only)", Destination: &o.Notes},
			&ucli.StringFlag{Name: "judge", Usage: "offline | replay | openai", Value: "offline", Destination: &o.Judge, EnvVars: []string{"KGJUDGE_JUDGE"}},
			&ucli.StringFlag{Name: "verdicts", Usage: "recorded verdicts for --judge replay (default: --pred)", Destination: &o.Verdicts},
			&ucli.StringFlag{Name: "protocol", Usage: "paper | code", Value: string(matcher.ProtocolPaper), Destination: &o.Protocol, EnvVars: []string{"KGJUDGE_PROTOCOL"}},
			&ucli.StringFlag{Name: "store", Usage: "store directory, or :memory:", Value: ".kgjudge", Destination: &o.Store, EnvVars: []string{"KGJUDGE_STORE"}},
			&ucli.StringFlag{Name: "out", Usage: "output directory; each run writes OUT/RUN/", Value: "kgjudge-out", Destination: &o.Out, EnvVars: []string{"KGJUDGE_OUT"}},
			&ucli.StringFlag{Name: "run", Usage: "run name of a single --pred PATH (default: its base name)", Destination: &o.Run},
			&ucli.StringFlag{Name: "map", Usage: "file mapping prediction qids to task ids (JSON object or two-column CSV/TSV; docs/FORMATS.md §6)", Destination: &o.Map},
			&ucli.BoolFlag{Name: "json", Usage: "print summary.json on stdout instead of the table (a JSON array of them for several runs)", Destination: &o.JSON},
			&ucli.BoolFlag{Name: "allow-unjudged", Usage: "exit 0 even when some claims are unjudged", Destination: &o.AllowUnjudged},
			&ucli.StringFlag{Name: "judge-url", Category: "LLM judge", Usage: "OpenAI-compatible base URL, with /v1 (key from OPENAI_API_KEY)", Destination: &o.JudgeURL, EnvVars: []string{"KGJUDGE_JUDGE_URL", "OPENAI_BASE_URL"}},
			&ucli.StringFlag{Name: "judge-model", Category: "LLM judge", Usage: "judge model name", Destination: &o.JudgeModel, EnvVars: []string{"KGJUDGE_JUDGE_MODEL"}},
			&ucli.IntFlag{Name: "workers", Usage: "samples judged at once (outputs do not depend on it; each holds its candidate indexes in memory)", Value: 8, Destination: &o.Workers, EnvVars: []string{"KGJUDGE_WORKERS"}},
			&ucli.StringFlag{Name: "shard", Usage: "score slice i of n of the tasks (i/n; sorted task ids, every n-th from the i-th) and write OUT/RUN/shard.json; combine with kgjudge merge", Destination: &o.Shard, EnvVars: []string{"KGJUDGE_SHARD"}},
			&ucli.StringFlag{Name: "subset", Usage: "benchmark subset (e.g. pro, daily) of the tasks whose file gives none", Destination: &o.Subset},
			&ucli.StringFlag{Name: "offline-model", Usage: "offline judge: a calibrated model file from kgjudge calibrate (default: the shipped weights)", Destination: &o.Model, EnvVars: []string{"KGJUDGE_OFFLINE_MODEL"}},
			&ucli.BoolFlag{Name: "no-memo", Usage: "offline judge: neither read nor write the rescore memo (STORE/offline-memo), which spares a rescore the samples whose inputs and judge are unchanged", Destination: &o.NoMemo},
			&ucli.StringFlag{Name: "aliases", Usage: "alias file (entity alias sets, extra relation-concept terms; docs/FORMATS.md §5)", Destination: &o.Aliases, EnvVars: []string{"KGJUDGE_ALIASES"}},
			&ucli.StringFlag{Name: "batching", Category: "LLM judge", Usage: "prefilter (few candidates per claim, deterministic tier first) | reference (5 batches with the whole predicted list, as the reference) | whole", Value: "prefilter", Destination: &o.Batching, EnvVars: []string{"KGJUDGE_BATCHING"}},
			&ucli.DurationFlag{Name: "judge-timeout", Category: "LLM judge", Usage: "per-request timeout", Value: 3 * time.Minute, Destination: &o.Timeout, EnvVars: []string{"KGJUDGE_JUDGE_TIMEOUT"}},
			&ucli.IntFlag{Name: "judge-attempts", Category: "LLM judge", Usage: "HTTP attempts per request (retries back off exponentially with jitter and honour Retry-After)", Value: 5, Destination: &o.Attempts, EnvVars: []string{"KGJUDGE_JUDGE_ATTEMPTS"}},
			&ucli.IntFlag{Name: "rpm", Category: "LLM judge", Usage: "requests per minute the endpoint allows (0: no limit)", Destination: &o.RPM, EnvVars: []string{"KGJUDGE_JUDGE_RPM"}},
			&ucli.IntFlag{Name: "tpm", Category: "LLM judge", Usage: "tokens per minute the endpoint allows (0: no limit)", Destination: &o.TPM, EnvVars: []string{"KGJUDGE_JUDGE_TPM"}},
			&ucli.IntFlag{Name: "concurrency", Category: "LLM judge", Usage: "most judge requests in flight; the judge adapts below it (grows while latency stays flat, halves on 429/503)", Value: 64, Destination: &o.Concurrency, EnvVars: []string{"KGJUDGE_CONCURRENCY"}},
			&ucli.BoolFlag{Name: "no-cache", Category: "LLM judge", Usage: "neither read nor write the verdict cache (STORE/judge-cache)", Destination: &o.NoCache},
			&ucli.BoolFlag{Name: "cache-only", Category: "LLM judge", Usage: "use cached verdicts only; fail on a miss instead of calling the judge", Destination: &o.CacheOnly},
			&ucli.Int64Flag{Name: "max-tokens", Category: "LLM judge", Usage: "token budget for this run (0: none); when spent, remaining claims are unjudged and a rerun continues", Destination: &o.MaxTokens},
			&ucli.Float64Flag{Name: "price-in", Category: "LLM judge", Usage: "USD per million prompt tokens, for the cost report", Destination: &o.PriceIn, EnvVars: []string{"KGJUDGE_PRICE_IN"}},
			&ucli.Float64Flag{Name: "price-out", Category: "LLM judge", Usage: "USD per million completion tokens", Destination: &o.PriceOut, EnvVars: []string{"KGJUDGE_PRICE_OUT"}},
			&ucli.Float64Flag{Name: "price-cached-in", Category: "LLM judge", Usage: "USD per million prompt tokens the provider serves from its prompt cache (0: --price-in)", Destination: &o.PriceCached, EnvVars: []string{"KGJUDGE_PRICE_CACHED_IN"}},
			&ucli.StringFlag{Name: "route", Category: "LLM judge", Usage: "off (every planned claim goes to the LLM) | a router name: claims it is sure about (p >= --route-high or <= --route-low) are decided without a call", Value: "off", Destination: &o.Route, EnvVars: []string{"KGJUDGE_ROUTE"}},
			&ucli.Float64Flag{Name: "route-low", Category: "LLM judge", Usage: "with --route: decide 'not covered' without a call at or below this probability (--route calibrated: default its model's cross-validated thresholds per pass)", Value: 0.05, Destination: &o.RouteLow},
			&ucli.Float64Flag{Name: "route-high", Category: "LLM judge", Usage: "with --route: decide 'covered' without a call at or above this probability", Value: 0.95, Destination: &o.RouteHigh},
		}, append(scoreNeo4jFlags(&o.Neo4j, &o.Neo4jConn), embedFlags(&o.Embed)...)...),
		Action: func(c *ucli.Context) error {
			o.RouteSet = c.IsSet("route-low") || c.IsSet("route-high")
			if c.NArg() > 0 {
				return usageError("kgjudge score", "score takes no arguments (got %q); use --gt and --pred (or --runs)", c.Args().Slice())
			}
			_, err := runScore(c.Context, o, c.App.Writer, c.App.ErrWriter)
			return err
		},
	}
}

func validateScoreArgs(o *scoreOptions) (matcher.Protocol, []runs.RunSpec, error) {
	proto, err := matcher.ParseProtocol(o.Protocol)
	if err != nil {
		return "", nil, &UserError{Err: fmt.Errorf("--protocol: %w", err)}
	}
	switch o.Judge {
	case "offline", "replay", "openai":
	default:
		return "", nil, userErrorf("--judge: unknown judge %q (want offline, replay or openai)", o.Judge)
	}
	if _, err := runs.ParseMissingPolicy(o.Missing); err != nil {
		return "", nil, userErrorf("--missing: %w", err)
	}
	if o.Samples < 0 {
		return "", nil, userErrorf("--samples: %d is not a sample count", o.Samples)
	}
	if o.Judge == "openai" && o.Store == ":memory:" && !o.NoCache {
		return "", nil, userErrorf("--judge openai keeps its verdict cache in the store directory: give --store DIR, or --no-cache")
	}
	if o.Verdicts != "" && o.Judge != "replay" {
		return "", nil, userErrorf("--verdicts is only used by --judge replay")
	}
	for flag, p := range map[string]string{"--gt": o.GT, "--verdicts": o.Verdicts, "--map": o.Map, "--aliases": o.Aliases, "--offline-model": o.Model} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			return "", nil, userErrorf("%s: %w", flag, err)
		}
	}
	if err := checkOutDir(o.Out); err != nil {
		return "", nil, err
	}
	specs, err := scoreSpecs(o)
	if err != nil {
		return "", nil, err
	}
	if len(specs) > 1 {
		if o.Verdicts != "" {
			return "", nil, userErrorf("--verdicts names one run's recorded verdicts: with several runs, --judge replay reads each run's own (leave --verdicts out)")
		}
		if o.ModelName != "" || o.Framework != "" || o.Notes != "" {
			return "", nil, userErrorf("--model, --framework and --notes describe one run: with several, give them in a --runs file")
		}
	}
	return proto, specs, nil
}

// scoreSpecs turns --pred and --runs into runs.
func scoreSpecs(o *scoreOptions) ([]runs.RunSpec, error) {
	preds := o.Preds
	if o.Pred != "" {
		preds = append([]string{o.Pred}, preds...)
	}
	switch {
	case o.RunsFile != "" && len(preds) > 0:
		return nil, userErrorf("give --pred or --runs, not both")
	case o.RunsFile != "":
		if o.Run != "" {
			return nil, userErrorf("--run names a single --pred PATH; a --runs file names its runs")
		}
		specs, err := runs.ReadRunsFile(o.RunsFile)
		if err != nil {
			return nil, &UserError{Err: err}
		}
		return specs, nil
	case len(preds) == 0:
		return nil, usageError("kgjudge score", "score: missing --pred (PATH, or NAME=PATH repeated) or --runs FILE")
	}
	if o.Run != "" && len(preds) > 1 {
		return nil, userErrorf("--run names a single --pred PATH: with several, write --pred NAME=PATH")
	}
	var specs []runs.RunSpec
	seen := map[string]string{}
	for _, v := range preds {
		sp := runs.RunSpec{Path: v}
		// NAME=PATH, unless the whole value is an existing path.
		if i := strings.Index(v, "="); i > 0 {
			if _, err := os.Stat(v); err != nil {
				sp.Name, sp.Path = v[:i], v[i+1:]
			}
		}
		if _, err := os.Stat(sp.Path); err != nil {
			return nil, userErrorf("--pred: %w", err)
		}
		if sp.Name == "" {
			sp.Name = o.Run
		}
		if sp.Name == "" {
			sp.Name = runs.DefaultRunName(sp.Path)
		}
		if err := runs.CheckRunName(sp.Name); err != nil {
			return nil, userErrorf("--pred %s: %w", v, err)
		}
		if prev, ok := seen[sp.Name]; ok {
			return nil, userErrorf("--pred %s and --pred %s both name run %q: write --pred NAME=PATH", prev, v, sp.Name)
		}
		seen[sp.Name] = v
		sp.Model, sp.Framework, sp.Notes = o.ModelName, o.Framework, o.Notes
		specs = append(specs, sp)
	}
	return specs, nil
}

func runScore(ctx context.Context, o scoreOptions, stdout, stderr io.Writer) (*runs.BatchResult, error) {
	proto, specs, err := validateScoreArgs(&o)
	if err != nil {
		return nil, err
	}
	missing, _ := runs.ParseMissingPolicy(o.Missing)
	// One prediction file replayed with one eval record is scored as the
	// record's task (a bare array's name says nothing).
	var pairs map[string]string
	if o.Judge == "replay" && o.judge == nil && o.Verdicts != "" && len(specs) == 1 {
		evals, err := readReplay(ctx, o)
		if err != nil {
			return nil, err
		}
		pairs = replayPairs(specs[0].Path, evals)
		o.replayEvals = evals
	}
	b, err := runs.LoadBatchMapped(ctx, o.GT, o.Map, specs, pairs)
	if err != nil {
		return nil, err
	}
	if o.embedder, err = o.Embed.newEmbedder(o.Store); err != nil {
		return nil, err
	}
	if o.embedder != nil {
		defer o.embedder.Close()
	}
	var judge matcher.Judge
	if o.Judge == "replay" && o.judge == nil && o.Verdicts == "" {
		// Each run replays its own recorded verdicts.
		for _, ri := range b.Runs {
			j, closeJudge, err := newJudge(ctx, o, ri.Spec.Path, b.GT.IDs, b.GT.Mapping)
			if err != nil {
				return nil, err
			}
			defer closeJudge()
			ri.Judge = j
		}
	} else {
		j, closeJudge, err := newJudge(ctx, o, o.Verdicts, b.GT.IDs, b.GT.Mapping)
		if err != nil {
			return nil, err
		}
		defer closeJudge()
		judge = j
	}
	// --shard scores a deterministic slice of the tasks (one run at a time).
	var shard *runs.ShardInfo
	if o.Shard != "" {
		sh, err := runs.ParseShard(o.Shard)
		if err != nil {
			return nil, &UserError{Err: err}
		}
		if len(b.Runs) != 1 {
			return nil, userErrorf("--shard scores one run at a time (got %d runs)", len(b.Runs))
		}
		in := &runs.Inputs{Tasks: b.GT.Tasks, IDs: b.GT.IDs, Preds: b.Runs[0].Preds, Problems: b.GT.Problems}
		info := in.Shard(sh)
		shard = &info
		b.GT.Tasks, b.GT.IDs, b.GT.TaskByID, b.Runs[0].Preds = in.Tasks, in.IDs, in.TaskByID, in.Preds
	}
	if o.Store == ":memory:" && os.Getenv("GOGC") == "" {
		// The in-memory store holds every sample until the command ends;
		// with the default GOGC=100 the heap grows to twice that. 800
		// generated samples: peak RSS 3.43 GB at GOGC=100, 2.26 GB at 50,
		// the same CPU within noise (384 s and 357 s) and the same bytes.
		defer debug.SetGCPercent(debug.SetGCPercent(50))
	}
	store, err := openStore(ctx, o.Store)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	neo, err := openSync(ctx, o.Neo4j, o.Neo4jConn)
	if err != nil {
		return nil, err
	}
	defer neo.Close()

	memo, err := openOfflineMemo(o)
	if err != nil {
		return nil, err
	}
	if memo != nil {
		defer memo.Close()
	}

	total := 0
	for _, ri := range b.Runs {
		total += len(ri.Samples())
	}
	prog := newProgress(stderr, total)
	res, err := runs.Score(ctx, b, runs.ScoreConfig{
		Protocol: proto, Judge: judge, Store: store, Neo4j: neo.writer(),
		Out: o.Out, Workers: o.Workers, Version: Version, Subset: o.Subset, Missing: missing, Samples: o.Samples,
		Embedding: newEmbedManifest(o.embedder), Memo: memo,
		Progress: func(_, _ int, task string, sample int) { prog.step(task, sample) },
	})
	prog.done()
	var outErr *runs.OutputError
	if err != nil && !errors.As(err, &outErr) {
		return nil, err
	}
	if shard != nil {
		if err := runs.WriteJSON(filepath.Join(res.Runs[0].Out, "shard.json"), shard); err != nil {
			return nil, err
		}
	}
	if o.JSON {
		var v any = res.Runs[0].Summary
		if len(res.Runs) > 1 {
			sums := make([]matcher.Summary, len(res.Runs))
			for i, r := range res.Runs {
				sums[i] = r.Summary
			}
			v = sums
		}
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		for i, r := range res.Runs {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			printTable(stdout, o, r)
		}
	}

	problems, scored, unjudgedClaims, unjudgedItems := 0, 0, 0, 0
	seen := map[string]bool{}
	for _, r := range res.Runs {
		prefix := ""
		if len(res.Runs) > 1 {
			prefix = "run " + r.Info.Name + ": "
		}
		for _, e := range r.Problems {
			msg := e.Error()
			if seen[msg] {
				continue // the ground truth's problems, once
			}
			seen[msg] = true
			fmt.Fprintf(stderr, "kgjudge: %s%v\n", prefix, e)
		}
		problems += len(r.Problems)
		scored += len(r.Items)
		unjudgedClaims += r.Summary.Unjudged.Total()
		unjudgedItems += r.Summary.UnjudgedItems
		if len(r.Missing) > 0 {
			how := "scored 0 (--missing zero)"
			if missing == runs.MissingSkip {
				how = "left out of the means (--missing skip)"
			}
			fmt.Fprintf(stderr, "kgjudge: run %s: %d of %d sample(s) missing, %s: %s\n", r.Info.Name, len(r.Missing), r.Info.Samples*len(r.Info.Tasks), how, missingList(r.Missing, 8))
		}
		if len(r.Removed) > 0 {
			fmt.Fprintf(stderr, "kgjudge: run %s: removed %d sample(s) of an earlier scoring that this one did not score\n", r.Info.Name, len(r.Removed))
		}
	}
	var allProblems []error
	var allItems []matcher.Item
	for _, r := range res.Runs {
		allProblems = append(allProblems, r.Problems...)
		allItems = append(allItems, r.Items...)
	}
	if memo != nil && memo.Hits() > 0 {
		fmt.Fprintf(stderr, "kgjudge: %d of %d sample(s) unchanged since an earlier scoring, taken from the rescore memo (%s; --no-memo judges them again)\n",
			memo.Hits(), scored, filepath.Join(o.Store, runs.MemoDir))
	}
	if o.embedder != nil {
		fmt.Fprintf(stderr, "kgjudge: %s\n", embedSummary(o.embedder))
	}
	warned := map[string]bool{}
	for _, r := range res.Runs {
		for _, w := range r.Warnings {
			if !warned[w] {
				warned[w] = true
				fmt.Fprintf(stderr, "kgjudge: warning: %s\n", w)
			}
		}
	}
	if lj, ok := judge.(*llmjudge.Judge); ok {
		for _, p := range lj.CacheProblems() {
			fmt.Fprintf(stderr, "kgjudge: warning: %s (ignored; the claim was asked again)\n", p)
		}
	}
	printMatchHint(stderr, allProblems)
	printUnjudgedCauses(stderr, allItems, maxCauses)
	switch {
	case outErr != nil:
		// The disk, not the input: every item name is made writable.
		for _, e := range outErr.Errs {
			fmt.Fprintf(stderr, "kgjudge: output: %v\n", e)
		}
		return res, &exitStatus{code: ExitInternal, msg: fmt.Sprintf("%d output file(s) not written (listed above and in summary.json failed_outputs); the other %d sample(s) were written",
			len(outErr.Errs), scored-outErr.Items)}
	case problems > 0:
		return res, &exitStatus{code: ExitInput, msg: fmt.Sprintf("%d input problem(s); the good inputs were scored (%d samples)", len(seen), scored)}
	case unjudgedItems > 0 && !o.AllowUnjudged:
		return res, &exitStatus{code: ExitUnjudged, msg: fmt.Sprintf("%d claim(s) unjudged in %d sample(s); they count as not covered (pass --allow-unjudged to exit 0)",
			unjudgedClaims, unjudgedItems)}
	}
	return res, nil
}

// missingList names missing samples by task, at most max tasks.
func missingList(ms []matcher.MissingSample, max int) string {
	var parts []string
	tasks := 0
	for i := 0; i < len(ms); {
		j := i
		var idx []string
		for ; j < len(ms) && ms[j].TaskID == ms[i].TaskID; j++ {
			idx = append(idx, strconv.Itoa(ms[j].Sample))
		}
		tasks++
		if tasks <= max {
			parts = append(parts, fmt.Sprintf("%s sample %s", ms[i].TaskID, strings.Join(idx, ",")))
		}
		i = j
	}
	if tasks > max {
		parts = append(parts, fmt.Sprintf("and %d more task(s) (summary.json \"missing\")", tasks-max))
	}
	return strings.Join(parts, "; ")
}

func openStore(ctx context.Context, path string) (kgstore.Store, error) {
	s, err := cayley.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	// Every stored triple keeps its relation class, as in Neo4j.
	s.SetClassifier(hierarchy.GraphClassifier{})
	return s, nil
}

// maxCauses is how many distinct reasons for unjudged claims score prints.
const maxCauses = 3

type cause struct {
	reason string
	n      int
}

// unjudgedCauses counts the distinct reasons claims were left unjudged, most
// frequent first (ties in order of first appearance).
func unjudgedCauses(items []matcher.Item) []cause {
	idx := map[string]int{}
	var out []cause
	add := func(st kg.State, reason string) {
		if st != kg.Unjudged {
			return
		}
		if reason == "" {
			reason = "(no reason given)"
		}
		if i, ok := idx[reason]; ok {
			out[i].n++
			return
		}
		idx[reason] = len(out)
		out = append(out, cause{reason, 1})
	}
	for i := range items {
		if c := items[i].Coverage; c != nil {
			for _, r := range c.PerGTTriple {
				add(r.State, r.Reason)
			}
		}
		if v := items[i].Validity; v != nil {
			for _, r := range v.PerPredTriple {
				add(r.State, r.Reason)
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].n > out[b].n })
	return out
}

// printUnjudgedCauses says why claims were left unjudged (an unreachable
// endpoint, a refused key, a spent budget), each distinct cause once with
// its count, so a failing judge is not only a number.
func printUnjudgedCauses(w io.Writer, items []matcher.Item, limit int) {
	causes := unjudgedCauses(items)
	if len(causes) == 0 {
		return
	}
	total := 0
	for _, c := range causes {
		total += c.n
	}
	more := ""
	if len(causes) > limit {
		more = fmt.Sprintf(", the first %d of %d distinct causes", limit, len(causes))
		causes = causes[:limit]
	}
	fmt.Fprintf(w, "kgjudge: why %d claim(s) are unjudged%s (every reason is in the item files):\n", total, more)
	for _, c := range causes {
		fmt.Fprintf(w, "  %d x %s\n", c.n, c.reason)
	}
}

// printMatchHint says what to pass when predictions matched no task: the
// usual cause is a file whose content carries no id, named after something
// else than its task (pred.json).
func printMatchHint(w io.Writer, problems []error) {
	for _, e := range problems {
		var me *ingest.MatchError
		if errors.As(e, &me) && len(me.Orphans) > 0 {
			fmt.Fprintln(w, "kgjudge: hint: a prediction whose content carries no qid takes it from its file name; name the file after its task "+
				"(task_012.json, or 012.json for task_012_*), or pass --map FILE mapping the qid to the task id (docs/FORMATS.md); "+
				"with --judge replay, one prediction file and one eval record (--verdicts) are paired by the record's qid")
			return
		}
	}
}

// checkOutDir makes sure --out can take the outputs before any judging is
// paid for: it creates OUT/items and writes and removes a probe file there.
func checkOutDir(out string) error {
	items := filepath.Join(out, "items")
	if err := os.MkdirAll(items, 0o755); err != nil {
		return userErrorf("--out %s: cannot create the output directory: %w", out, err)
	}
	f, err := os.CreateTemp(items, ".probe-*")
	if err != nil {
		return userErrorf("--out %s: cannot write there: %w", out, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}
