package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/llmjudge/cost"
	"github.com/kgjudge/kgjudge/runs"
)

type planOptions struct {
	GT            string
	Pred          string
	Out           string
	Map           string
	JSON          bool
	PriceIn       float64
	PriceOut      float64
	PriceCachedIn float64
	Oracle        string
	Route         string
	RouteLow      float64
	RouteHigh     float64
	RouteSet      bool
	Workers       int
	// Embedding stage (--embed-url; flags in embed.go).
	Embed embedOptions
}

func planCommand() *ucli.Command {
	var o planOptions
	return &ucli.Command{
		Name:      "plan",
		Usage:     "run everything up to the judge: candidates, deterministic tier, batches and prompt volume",
		UsageText: "kgjudge plan --gt PATH --pred PATH [--out FILE] [--json] [--oracle VERDICTS]",
		Description: `Reads ground truth and predictions like score, keeps each predicted graph in an in-memory
store for graph expansion, and for every sample ranks the predicted triples that could cover
each GT triple (and the GT triples that could support each predicted triple), resolves the
unambiguous GT triples without a judge, and groups the rest into entity-coherent batches.
Writes {"items": [...], "totals": {...}} to --out (or stdout with --json) and a summary.

prompt_chars counts the claim and candidate lines kgjudge's batches would send;
reference_prompt_chars what the reference sends (5 x the whole predicted list plus each GT
claim, and the mirror image for validity). Fixed instruction text is excluded from both.
The estimate renders the real judge prompts (instructions included) for kgjudge's batches and
for reference batching, and counts tokens and cost (--price-in, --price-out, --price-cached-in for
the cacheable prefix: the fixed instructions every call of a prompt variant shares) without any call.

With --oracle VERDICTS (reference eval records or trajectory lines ending with coverage_details),
every planned call is answered as the recorded judge would, given only what the call shows, and
the plan prints per sample and pooled the F1 it would score next to the recorded F1; the --out
JSON gets "oracle" in each item and in the totals.

EXAMPLES:
   kgjudge plan --gt examples/gt --pred examples/pred --price-in 2 --price-out 8
   kgjudge plan --gt tasks/ --pred trajs/model-x/ --out plan.json
   kgjudge plan --gt tasks/ --pred trajs/model-x/ --oracle results/eval/opus/`,
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "gt", Usage: "ground-truth task file or directory", Required: true, Destination: &o.GT},
			&ucli.StringFlag{Name: "pred", Usage: "prediction file or directory", Required: true, Destination: &o.Pred},
			&ucli.StringFlag{Name: "out", Usage: "write the plan JSON to FILE", Destination: &o.Out},
			&ucli.StringFlag{Name: "map", Usage: "file mapping prediction qids to task ids", Destination: &o.Map},
			&ucli.BoolFlag{Name: "json", Usage: "print the plan JSON on stdout instead of the summary", Destination: &o.JSON},
			&ucli.Float64Flag{Name: "price-in", Usage: "USD per million prompt tokens, for the cost estimate", Destination: &o.PriceIn, EnvVars: []string{"KGJUDGE_PRICE_IN"}},
			&ucli.Float64Flag{Name: "price-out", Usage: "USD per million completion tokens", Destination: &o.PriceOut, EnvVars: []string{"KGJUDGE_PRICE_OUT"}},
			&ucli.Float64Flag{Name: "price-cached-in", Usage: "USD per million prompt tokens read from the provider's prompt cache (the fixed instructions); default: --price-in", Destination: &o.PriceCachedIn, EnvVars: []string{"KGJUDGE_PRICE_CACHED_IN"}},
			&ucli.StringFlag{Name: "route", Usage: "off | a router name (as score --route): estimate and oracle-score the plan with the sure claims routed", Value: "off", Destination: &o.Route},
			&ucli.Float64Flag{Name: "route-low", Usage: "with --route: 'not covered' at or below this probability", Value: 0.05, Destination: &o.RouteLow},
			&ucli.Float64Flag{Name: "route-high", Usage: "with --route: 'covered' at or above this probability", Value: 0.95, Destination: &o.RouteHigh},
			&ucli.IntFlag{Name: "workers", Usage: "samples planned at once (the output does not depend on it; with --oracle, 1)", Value: 8, Destination: &o.Workers, EnvVars: []string{"KGJUDGE_WORKERS"}},
			&ucli.StringFlag{Name: "oracle", Usage: "recorded verdicts (reference eval outputs or trajectory lines): answer every planned call as the recorded judge would, given only what the call shows, and print the F1 this plan would score", Destination: &o.Oracle},
		}, embedFlags(&o.Embed)...),
		Action: func(c *ucli.Context) error {
			o.RouteSet = c.IsSet("route-low") || c.IsSet("route-high")
			if c.NArg() > 0 {
				return usageError("kgjudge plan", "plan takes no arguments (got %q); use --gt and --pred", c.Args().Slice())
			}
			_, err := runPlan(c.Context, o, c.App.Writer, c.App.ErrWriter)
			return err
		},
	}
}

func validatePlanArgs(o *planOptions) error {
	for flag, p := range map[string]string{"--gt": o.GT, "--pred": o.Pred, "--map": o.Map, "--oracle": o.Oracle} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			return userErrorf("%s: %w", flag, err)
		}
	}
	if o.Out != "" {
		// Before the planning work, not after it.
		f, err := os.CreateTemp(filepath.Dir(o.Out), ".probe-*")
		if err != nil {
			return userErrorf("--out %s: cannot write there: %w", o.Out, err)
		}
		f.Close()
		os.Remove(f.Name())
	}
	return nil
}

func runPlan(ctx context.Context, o planOptions, stdout, stderr io.Writer) (*runs.PlanOutput, error) {
	if err := validatePlanArgs(&o); err != nil {
		return nil, err
	}
	// The predictions' triples are read again as each sample is planned
	// (the oracle reads every sample at once: Plan reads them whole then).
	in, err := runs.LoadLazy(ctx, o.GT, o.Pred, o.Map)
	if err != nil {
		return nil, err
	}
	emb, err := o.Embed.newEmbedder(planStoreDir())
	if err != nil {
		return nil, err
	}
	cfg := runs.PlanConfig{PriceIn: o.PriceIn, PriceOut: o.PriceOut, PriceCachedIn: o.PriceCachedIn, Embedding: newEmbedManifest(emb), Workers: o.Workers}
	if emb != nil {
		defer emb.Close()
		cfg.Embedder = emb
	}
	if cfg.Route, err = newRouting(ctx, scoreOptions{Route: o.Route, RouteLow: o.RouteLow, RouteHigh: o.RouteHigh, RouteSet: o.RouteSet, embedder: emb}); err != nil {
		return nil, err
	}
	if o.Oracle != "" {
		evals, err := ingest.ReadEvals(ctx, o.Oracle)
		if err != nil {
			var fe *ingest.FileErrors
			if errors.As(err, &fe) || ingest.IsInputError(err) {
				return nil, &UserError{Err: fmt.Errorf("--oracle: %w", err)}
			}
			return nil, err
		}
		if len(evals) == 0 {
			return nil, userErrorf("--oracle: no recorded verdicts found in %s (expected reference eval outputs or trajectory lines ending with coverage_details)", o.Oracle)
		}
		cfg.Oracle = evals
	}
	prog := newProgressVerb(stderr, len(in.Samples()), "planning", "planned")
	cfg.Progress = func(_, _ int, task string, sample int) { prog.step(task, sample) }
	out, err := runs.Plan(ctx, in, cfg)
	prog.done()
	if err != nil {
		return nil, err
	}
	if o.Out != "" {
		if err := runs.WritePlanJSON(o.Out, out); err != nil {
			return nil, err
		}
	}
	if o.JSON {
		if err := runs.EncodePlanJSON(stdout, out); err != nil {
			return nil, err
		}
	} else {
		printPlan(stdout, out)
	}
	for _, e := range in.Problems {
		fmt.Fprintf(stderr, "kgjudge: %v\n", e)
	}
	if len(in.Problems) > 0 {
		return out, &exitStatus{code: ExitInput, msg: fmt.Sprintf("%d input problem(s); the good inputs were planned (%d samples)", len(in.Problems), len(out.Items))}
	}
	return out, nil
}

func printPlan(w io.Writer, out *runs.PlanOutput) {
	tb := &table{}
	tb.add("task", "sample", "GT", "resolved", "no-cand", "judged", "batches", "chars", "reference", "focus")
	for _, it := range out.Items {
		focus := 0.0
		if it.PredTriples > 0 {
			focus = it.MeanBatchCandidates / float64(it.PredTriples)
		}
		tb.add(it.QID, strconv.Itoa(it.SampleIdx), strconv.Itoa(it.GTTriples), strconv.Itoa(it.ResolvedGT), strconv.Itoa(it.NoCandidateGT),
			strconv.Itoa(it.JudgeGTTriples), strconv.Itoa(it.Batches), strconv.Itoa(it.PromptChars), strconv.Itoa(it.ReferencePromptChars),
			strconv.FormatFloat(focus, 'f', 3, 64))
	}
	tb.write(w)
	fmt.Fprint(w, planLegend)
	if t := out.Totals; t.Oracle != nil {
		ot := &table{}
		ot.add("task", "sample", "oracle P", "oracle R", "oracle F1", "recorded F1", "|dF1|", "calls", "prompt tokens")
		for _, it := range out.Items {
			o := it.Oracle
			ot.add(it.QID, strconv.Itoa(it.SampleIdx), f4(o.TripletPrecision), f4(o.TripletRecall), f4(o.TripletF1), f4(o.RecordedTripletF1),
				f4(math.Abs(o.TripletF1-o.RecordedTripletF1)), strconv.Itoa(it.Estimate.Kgjudge.Calls), strconv.FormatInt(it.Estimate.Kgjudge.PromptTokens, 10))
		}
		fmt.Fprintln(w)
		ot.write(w)
		o := t.Oracle
		fmt.Fprintf(w, "oracle, pooled: P %.4f R %.4f F1 %.4f; recorded P %.4f R %.4f F1 %.4f; mean |dF1| %.4f; recall %.4f x recorded; %d claim(s) routed\n",
			o.TripletPrecision, o.TripletRecall, o.TripletF1, o.RecordedTripletPrecision, o.RecordedTripletRecall, o.RecordedTripletF1, o.MeanAbsF1Gap, o.RecallRatio, o.Routed)
	}
	t := out.Totals
	fmt.Fprintf(w, "\n%d sample(s): prompt volume %.3f x reference (%d / %d chars), focus %.3f, %d GT triples resolved without a judge, %d with no candidate, %d sent in %d batch(es)\n",
		t.Samples, t.VolumeRatio, t.PromptChars, t.ReferencePromptChars, t.FocusRatio, t.ResolvedGT, t.NoCandidateGT, t.JudgeGTTriples, t.Batches)
	for _, e := range []struct {
		name string
		e    cost.Estimate
	}{{"kgjudge", t.Estimate.Kgjudge}, {"reference", t.Estimate.Reference}} {
		fmt.Fprintf(w, "estimate, %s batching: %d call(s), ~%d prompt + ~%d completion tokens, $%.4f; fixed instruction text %d chars (not in the volume above); cacheable prefix ~%d tokens (%.1f%% of prompt tokens)\n",
			e.name, e.e.Calls, e.e.PromptTokens, e.e.CompletionTokens, e.e.USD, e.e.InstructionChars, e.e.CacheableTokens, 100*e.e.CacheableShare())
	}
}

// planLegend explains the plan table's columns.
const planLegend = `
GT: GT triples · resolved: decided without a judge (deterministic tier) · no-cand: no predicted
triple could cover it (uncovered, no call) · judged: sent to the judge · batches: judge calls
(coverage + validity) · chars / reference: prompt characters of kgjudge's batches / of the
reference batching · focus: mean candidate list of a judged claim's batch / predicted triples
(the share of the prediction a batch shows; reference batching: 1)
`
