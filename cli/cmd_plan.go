package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/llmjudge/cost"
	"github.com/kgjudge/kgjudge/runs"
)

type planOptions struct {
	GT       string
	Pred     string
	Out      string
	Map      string
	JSON     bool
	PriceIn  float64
	PriceOut float64
	// Embedding stage (--embed-url; flags in embed.go).
	Embed embedOptions
}

func planCommand() *ucli.Command {
	var o planOptions
	return &ucli.Command{
		Name:      "plan",
		Usage:     "run everything up to the judge: candidates, deterministic tier, batches and prompt volume",
		UsageText: "kgjudge plan --gt PATH --pred PATH [--out FILE] [--json]",
		Description: `Reads ground truth and predictions like score, keeps each predicted graph in an in-memory
store for graph expansion, and for every sample ranks the predicted triples that could cover
each GT triple (and the GT triples that could support each predicted triple), resolves the
unambiguous GT triples without a judge, and groups the rest into entity-coherent batches.
Writes {"items": [...], "totals": {...}} to --out (or stdout with --json) and a summary.

prompt_chars counts the claim and candidate lines kgjudge's batches would send;
reference_prompt_chars what the reference sends (5 x the whole predicted list plus each GT
claim, and the mirror image for validity). Fixed instruction text is excluded from both.
The estimate renders the real judge prompts (instructions included) for kgjudge's batches and
for reference batching, and counts tokens and cost (--price-in, --price-out) without any call.

EXAMPLES:
   kgjudge plan --gt examples/gt --pred examples/pred --price-in 2 --price-out 8
   kgjudge plan --gt tasks/ --pred trajs/model-x/ --out plan.json`,
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "gt", Usage: "ground-truth task file or directory", Required: true, Destination: &o.GT},
			&ucli.StringFlag{Name: "pred", Usage: "prediction file or directory", Required: true, Destination: &o.Pred},
			&ucli.StringFlag{Name: "out", Usage: "write the plan JSON to FILE", Destination: &o.Out},
			&ucli.StringFlag{Name: "map", Usage: "file mapping prediction qids to task ids", Destination: &o.Map},
			&ucli.BoolFlag{Name: "json", Usage: "print the plan JSON on stdout instead of the summary", Destination: &o.JSON},
			&ucli.Float64Flag{Name: "price-in", Usage: "USD per million prompt tokens, for the cost estimate", Destination: &o.PriceIn, EnvVars: []string{"KGJUDGE_PRICE_IN"}},
			&ucli.Float64Flag{Name: "price-out", Usage: "USD per million completion tokens", Destination: &o.PriceOut, EnvVars: []string{"KGJUDGE_PRICE_OUT"}},
		}, embedFlags(&o.Embed)...),
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageError("kgjudge plan", "plan takes no arguments (got %q); use --gt and --pred", c.Args().Slice())
			}
			_, err := runPlan(c.Context, o, c.App.Writer, c.App.ErrWriter)
			return err
		},
	}
}

func validatePlanArgs(o *planOptions) error {
	for flag, p := range map[string]string{"--gt": o.GT, "--pred": o.Pred, "--map": o.Map} {
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
	in, err := runs.Load(ctx, o.GT, o.Pred, o.Map)
	if err != nil {
		return nil, err
	}
	emb, err := o.Embed.newEmbedder(planStoreDir())
	if err != nil {
		return nil, err
	}
	pc := runs.PlanConfig{PriceIn: o.PriceIn, PriceOut: o.PriceOut, Embedding: newEmbedManifest(emb)}
	if emb != nil {
		defer emb.Close()
		pc.Embedder = emb
	}
	prog := newProgressVerb(stderr, len(in.Samples()), "planning", "planned")
	pc.Progress = func(_, _ int, task string, sample int) { prog.step(task, sample) }
	out, err := runs.Plan(ctx, in, pc)
	prog.done()
	if err != nil {
		return nil, err
	}
	if o.Out != "" {
		if err := runs.WriteJSON(o.Out, out); err != nil {
			return nil, err
		}
	}
	if o.JSON {
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(stdout, "%s\n", b)
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
	t := out.Totals
	fmt.Fprintf(w, "\n%d sample(s): prompt volume %.3f x reference (%d / %d chars), focus %.3f, %d GT triples resolved without a judge, %d with no candidate, %d sent in %d batch(es)\n",
		t.Samples, t.VolumeRatio, t.PromptChars, t.ReferencePromptChars, t.FocusRatio, t.ResolvedGT, t.NoCandidateGT, t.JudgeGTTriples, t.Batches)
	for _, e := range []struct {
		name string
		e    cost.Estimate
	}{{"kgjudge", t.Estimate.Kgjudge}, {"reference", t.Estimate.Reference}} {
		fmt.Fprintf(w, "estimate, %s batching: %d call(s), ~%d prompt + ~%d completion tokens, $%.4f; fixed instruction text %d chars (not in the volume above)\n",
			e.name, e.e.Calls, e.e.PromptTokens, e.e.CompletionTokens, e.e.USD, e.e.InstructionChars)
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
