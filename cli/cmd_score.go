package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/cayley"
	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/runs"
)

type scoreOptions struct {
	GT            string
	Pred          string
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
	Concurrency int
	Batching    string
	Aliases     string
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
}

func scoreCommand() *ucli.Command {
	var o scoreOptions
	return &ucli.Command{
		Name:      "score",
		Usage:     "score predictions against ground truth and write summary.json and per-sample items",
		UsageText: "kgjudge score --gt PATH --pred PATH [options]",
		Description: `Reads ground-truth task files (--gt: a file or a directory of task_*.json) and predictions
(--pred: a file or directory of trajectory JSONL, final-extraction JSON, JSON/JSONL arrays,
CSV/TSV, or agent response text), matches predictions to tasks (by qid/task id, by numeric
prefix for Pro-style ids such as "020", or by --map), stores both graphs, judges coverage
and writes OUT/summary.json, OUT/items/<task_id>_sample<N>.json and a table on stdout.

Judges:
   offline  rules over the prefilter's candidates: direct (aliases, relation concepts, canonical
            values), subsumption, collective, compositional; no key, no server
   openai   an LLM judge over any OpenAI-compatible endpoint (--judge-url, --judge-model,
            OPENAI_API_KEY); verdicts cached in STORE/judge-cache; see the LLM judge flags
   replay   the recorded verdicts of the benchmark's judge (--verdicts: reference eval outputs
            or trajectory JSONL whose lines end with the eval keys; default: --pred itself)

Protocols (FORMATS.md §4):
   paper    precision = predicted triples judged valid in the validity pass (published numbers)
   code     precision = distinct supporting predicted indices (the public evaluator's code)

EXAMPLES:
   kgjudge score --gt examples/gt --pred examples/pred
   kgjudge score --gt fixtures/p012/gt.json --pred fixtures/p012/eval.json --judge replay
   kgjudge score --gt tasks/ --pred trajs/model-x/ --judge replay --protocol code --store :memory: --json`,
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "gt", Usage: "ground-truth task file or directory", Required: true, Destination: &o.GT, EnvVars: []string{"KGJUDGE_GT"}},
			&ucli.StringFlag{Name: "pred", Usage: "prediction file or directory", Required: true, Destination: &o.Pred},
			&ucli.StringFlag{Name: "judge", Usage: "offline | replay", Value: "offline", Destination: &o.Judge, EnvVars: []string{"KGJUDGE_JUDGE"}},
			&ucli.StringFlag{Name: "verdicts", Usage: "recorded verdicts for --judge replay (default: --pred)", Destination: &o.Verdicts},
			&ucli.StringFlag{Name: "protocol", Usage: "paper | code", Value: string(matcher.ProtocolPaper), Destination: &o.Protocol, EnvVars: []string{"KGJUDGE_PROTOCOL"}},
			&ucli.StringFlag{Name: "store", Usage: "store directory, or :memory:", Value: ".kgjudge", Destination: &o.Store, EnvVars: []string{"KGJUDGE_STORE"}},
			&ucli.StringFlag{Name: "out", Usage: "output directory", Value: "kgjudge-out", Destination: &o.Out, EnvVars: []string{"KGJUDGE_OUT"}},
			&ucli.StringFlag{Name: "run", Usage: "run name (default: the base name of --pred)", Destination: &o.Run},
			&ucli.StringFlag{Name: "map", Usage: "file mapping prediction qids to task ids (JSON object or two-column CSV/TSV)", Destination: &o.Map},
			&ucli.BoolFlag{Name: "json", Usage: "print summary.json on stdout instead of the table", Destination: &o.JSON},
			&ucli.BoolFlag{Name: "allow-unjudged", Usage: "exit 0 even when some claims are unjudged", Destination: &o.AllowUnjudged},
			&ucli.StringFlag{Name: "judge-url", Category: "LLM judge", Usage: "OpenAI-compatible base URL, with /v1 (key from OPENAI_API_KEY)", Destination: &o.JudgeURL, EnvVars: []string{"KGJUDGE_JUDGE_URL", "OPENAI_BASE_URL"}},
			&ucli.StringFlag{Name: "judge-model", Category: "LLM judge", Usage: "judge model name", Destination: &o.JudgeModel, EnvVars: []string{"KGJUDGE_JUDGE_MODEL"}},
			&ucli.IntFlag{Name: "workers", Usage: "samples judged at once (outputs do not depend on it)", Value: 4, Destination: &o.Workers, EnvVars: []string{"KGJUDGE_WORKERS"}},
			&ucli.StringFlag{Name: "shard", Usage: "score slice i of n of the tasks (i/n; sorted task ids, every n-th from the i-th) and write OUT/shard.json; combine with kgjudge merge", Destination: &o.Shard, EnvVars: []string{"KGJUDGE_SHARD"}},
			&ucli.StringFlag{Name: "subset", Usage: "benchmark subset (e.g. pro, daily) of the tasks whose file gives none", Destination: &o.Subset},
			&ucli.StringFlag{Name: "aliases", Usage: "alias file (entity alias sets, extra relation-concept terms; format in alias/README.md)", Destination: &o.Aliases, EnvVars: []string{"KGJUDGE_ALIASES"}},
			&ucli.StringFlag{Name: "batching", Category: "LLM judge", Usage: "prefilter (few candidates per claim, deterministic tier first) | reference (5 batches with the whole predicted list, as the reference) | whole", Value: "prefilter", Destination: &o.Batching, EnvVars: []string{"KGJUDGE_BATCHING"}},
			&ucli.DurationFlag{Name: "judge-timeout", Category: "LLM judge", Usage: "per-request timeout", Value: 3 * time.Minute, Destination: &o.Timeout, EnvVars: []string{"KGJUDGE_JUDGE_TIMEOUT"}},
			&ucli.IntFlag{Name: "judge-attempts", Category: "LLM judge", Usage: "HTTP attempts per request (retries back off exponentially with jitter and honour Retry-After)", Value: 5, Destination: &o.Attempts, EnvVars: []string{"KGJUDGE_JUDGE_ATTEMPTS"}},
			&ucli.IntFlag{Name: "rpm", Category: "LLM judge", Usage: "requests per minute the endpoint allows (0: no limit)", Destination: &o.RPM, EnvVars: []string{"KGJUDGE_JUDGE_RPM"}},
			&ucli.IntFlag{Name: "tpm", Category: "LLM judge", Usage: "tokens per minute the endpoint allows (0: no limit)", Destination: &o.TPM, EnvVars: []string{"KGJUDGE_JUDGE_TPM"}},
			&ucli.IntFlag{Name: "concurrency", Category: "LLM judge", Usage: "judge requests in flight", Value: 4, Destination: &o.Concurrency, EnvVars: []string{"KGJUDGE_CONCURRENCY"}},
			&ucli.BoolFlag{Name: "no-cache", Category: "LLM judge", Usage: "neither read nor write the verdict cache (STORE/judge-cache)", Destination: &o.NoCache},
			&ucli.BoolFlag{Name: "cache-only", Category: "LLM judge", Usage: "use cached verdicts only; fail on a miss instead of calling the judge", Destination: &o.CacheOnly},
			&ucli.Int64Flag{Name: "max-tokens", Category: "LLM judge", Usage: "token budget for this run (0: none); when spent, remaining claims are unjudged and a rerun continues", Destination: &o.MaxTokens},
			&ucli.Float64Flag{Name: "price-in", Category: "LLM judge", Usage: "USD per million prompt tokens, for the cost report", Destination: &o.PriceIn, EnvVars: []string{"KGJUDGE_PRICE_IN"}},
			&ucli.Float64Flag{Name: "price-out", Category: "LLM judge", Usage: "USD per million completion tokens", Destination: &o.PriceOut, EnvVars: []string{"KGJUDGE_PRICE_OUT"}},
		}, scoreNeo4jFlags(&o.Neo4j, &o.Neo4jConn)...),
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return userErrorf("score takes no arguments (got %q); use --gt and --pred", c.Args().Slice())
			}
			_, err := runScore(c.Context, o, c.App.Writer, c.App.ErrWriter)
			return err
		},
	}
}

func validateScoreArgs(o *scoreOptions) (matcher.Protocol, error) {
	proto, err := matcher.ParseProtocol(o.Protocol)
	if err != nil {
		return "", &UserError{Err: fmt.Errorf("--protocol: %w", err)}
	}
	switch o.Judge {
	case "offline", "replay", "openai":
	default:
		return "", userErrorf("--judge: unknown judge %q (want offline, replay or openai)", o.Judge)
	}
	if o.Judge == "openai" && o.Store == ":memory:" && !o.NoCache {
		return "", userErrorf("--judge openai keeps its verdict cache in the store directory: give --store DIR, or --no-cache")
	}
	if o.Verdicts != "" && o.Judge != "replay" {
		return "", userErrorf("--verdicts is only used by --judge replay")
	}
	for flag, p := range map[string]string{"--gt": o.GT, "--pred": o.Pred, "--verdicts": o.Verdicts, "--map": o.Map, "--aliases": o.Aliases} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			return "", userErrorf("%s: %w", flag, err)
		}
	}
	if o.Run == "" {
		o.Run = strings.TrimSuffix(filepath.Base(filepath.Clean(o.Pred)), filepath.Ext(o.Pred))
	}
	if strings.ContainsAny(o.Run, "/\\") || o.Run == "" || o.Run == "." {
		return "", userErrorf("--run: %q is not a usable run name", o.Run)
	}
	return proto, nil
}

func runScore(ctx context.Context, o scoreOptions, stdout, stderr io.Writer) (*runs.ScoreResult, error) {
	proto, err := validateScoreArgs(&o)
	if err != nil {
		return nil, err
	}
	in, err := runs.Load(ctx, o.GT, o.Pred, o.Map)
	if err != nil {
		return nil, err
	}
	for i := range in.Tasks {
		if in.Tasks[i].Subset == "" {
			in.Tasks[i].Subset = o.Subset
		}
	}
	judge, closeJudge, err := newJudge(ctx, o, in.IDs, in.Mapping)
	if err != nil {
		return nil, err
	}
	defer closeJudge()
	var shard *runs.ShardInfo
	if o.Shard != "" {
		sh, err := runs.ParseShard(o.Shard)
		if err != nil {
			return nil, &UserError{Err: err}
		}
		info := in.Shard(sh)
		shard = &info
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

	prog := newProgress(stderr, len(in.Samples()))
	res, err := runs.Score(ctx, in, runs.ScoreConfig{
		Run: o.Run, Protocol: proto, Judge: judge, Store: store, Neo4j: neo.writer(),
		Out: o.Out, Workers: o.Workers, Version: Version,
		Progress: func(_, _ int, task string, sample int) { prog.step(task, sample) },
	})
	prog.done()
	if err != nil {
		return nil, err
	}
	if shard != nil {
		if err := runs.WriteJSON(filepath.Join(o.Out, "shard.json"), shard); err != nil {
			return nil, err
		}
	}
	if o.JSON {
		b, err := json.MarshalIndent(res.Summary, "", "  ")
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		printTable(stdout, o, res)
	}

	for _, e := range res.Problems {
		fmt.Fprintf(stderr, "kgjudge: %v\n", e)
	}
	switch {
	case len(res.Problems) > 0:
		return res, &exitStatus{code: ExitInput, msg: fmt.Sprintf("%d input problem(s); the good inputs were scored (%d samples)", len(res.Problems), len(res.Items))}
	case res.Summary.UnjudgedItems > 0 && !o.AllowUnjudged:
		return res, &exitStatus{code: ExitUnjudged, msg: fmt.Sprintf("%d claim(s) unjudged in %d sample(s); they count as not covered (pass --allow-unjudged to exit 0)",
			res.Summary.Unjudged.Total(), res.Summary.UnjudgedItems)}
	}
	return res, nil
}

func openStore(ctx context.Context, path string) (kgstore.Store, error) {
	s, err := cayley.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return s, nil
}
