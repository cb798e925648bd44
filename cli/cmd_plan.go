package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/cayley"
	"github.com/kgjudge/kgjudge/llmjudge"
	"github.com/kgjudge/kgjudge/llmjudge/cost"
	"github.com/kgjudge/kgjudge/matcher/prefilter"
)

type planOptions struct {
	GT       string
	Pred     string
	Out      string
	Map      string
	JSON     bool
	PriceIn  float64
	PriceOut float64
	Embed    embedOptions
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
				return userErrorf("plan takes no arguments (got %q); use --gt and --pred", c.Args().Slice())
			}
			_, err := runPlan(c.Context, o, c.App.Writer, c.App.ErrWriter)
			return err
		},
	}
}

// planOutput is what `kgjudge plan` writes.
type planOutput struct {
	Items  []planItem `json:"items"`
	Totals planTotals `json:"totals"`
	// Embedding says whether the prefilter's embedding stage was on.
	Embedding embedManifest `json:"embedding"`
}

// planItem is a prefilter item with the judge cost estimate.
type planItem struct {
	prefilter.Item
	Estimate planEstimate `json:"estimate"`
}

// planEstimate compares what an LLM judge would be sent: kgjudge's
// prefiltered batches against the reference batching.
type planEstimate struct {
	Kgjudge   cost.Estimate `json:"kgjudge"`
	Reference cost.Estimate `json:"reference"`
}

type planTotals struct {
	Samples int `json:"samples"`
	prefilter.Volume
	VolumeRatio float64      `json:"volume_ratio"`
	FocusRatio  float64      `json:"focus_ratio"`
	Estimate    planEstimate `json:"estimate"`
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
	return nil
}

func runPlan(ctx context.Context, o planOptions, stdout, stderr io.Writer) (*planOutput, error) {
	if err := validatePlanArgs(&o); err != nil {
		return nil, err
	}
	in, err := loadInputs(ctx, o.GT, o.Pred, o.Map)
	if err != nil {
		return nil, err
	}
	inputErrs := in.problems
	estimators, err := planEstimators(ctx, o)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, e := range estimators {
			e.Close()
		}
	}()
	store, err := cayley.Open(ctx, ":memory:")
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	defer store.Close()
	emb, err := o.Embed.newEmbedder(planStoreDir())
	if err != nil {
		return nil, err
	}
	if emb != nil {
		defer emb.Close()
	}
	popts := prefilter.Options{Graph: store}
	if emb != nil {
		popts.Embedder = emb
	}

	out := &planOutput{Items: []planItem{}, Embedding: newEmbedManifest(emb)}
	for _, p := range in.samples() {
		key := kgstore.SampleKey{Run: "plan", TaskID: p.TaskID, Sample: p.SampleIdx}
		task := in.taskByID[p.TaskID]
		if err := store.PutPrediction(ctx, key, *p); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		po := popts
		po.Key = key
		pl, err := prefilter.Planner{Options: po}.Sample(ctx, task, p)
		if err != nil {
			return nil, fmt.Errorf("%s sample %d: %w", p.TaskID, p.SampleIdx, err)
		}
		it := planItem{Item: pl.Item}
		for i, est := range []*cost.Estimate{&it.Estimate.Kgjudge, &it.Estimate.Reference} {
			if *est, err = estimators[i].Estimate(ctx, task, p); err != nil {
				return nil, fmt.Errorf("%s sample %d: estimate: %w", p.TaskID, p.SampleIdx, err)
			}
		}
		out.Totals.Estimate.Kgjudge.Add(it.Estimate.Kgjudge)
		out.Totals.Estimate.Reference.Add(it.Estimate.Reference)
		out.Items = append(out.Items, it)
	}
	sort.SliceStable(out.Items, func(a, b int) bool {
		if out.Items[a].QID != out.Items[b].QID {
			return out.Items[a].QID < out.Items[b].QID
		}
		return out.Items[a].SampleIdx < out.Items[b].SampleIdx
	})
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
	if o.Out != "" {
		if err := writeJSON(o.Out, out); err != nil {
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
	fmt.Fprintf(stderr, "kgjudge: %s\n", embedSummary(emb))
	for _, e := range inputErrs {
		fmt.Fprintf(stderr, "kgjudge: %v\n", e)
	}
	if len(inputErrs) > 0 {
		return out, &exitStatus{code: ExitInput, msg: fmt.Sprintf("%d input problem(s); the good inputs were planned (%d samples)", len(inputErrs), len(out.Items))}
	}
	return out, nil
}

func printPlan(w io.Writer, out *planOutput) {
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

// planEstimators are two LLM judges that are never asked anything: they
// render the prompts of kgjudge's batching and of the reference batching
// for the cost estimate.
func planEstimators(ctx context.Context, o planOptions) ([]*llmjudge.Judge, error) {
	var out []*llmjudge.Judge
	for _, b := range []string{llmjudge.BatchingPrefilter, llmjudge.BatchingReference} {
		cfg := llmjudge.Config{Model: "estimate", NoCache: true, Batching: b, PriceIn: o.PriceIn, PriceOut: o.PriceOut}
		if b == llmjudge.BatchingPrefilter {
			cfg.Planner = prefilter.Planner{}
		}
		j, err := llmjudge.New(ctx, cfg)
		if err != nil {
			for _, e := range out {
				e.Close()
			}
			return nil, &UserError{Err: err}
		}
		out = append(out, j)
	}
	return out, nil
}
