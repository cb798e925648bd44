package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/cayley"
	"github.com/kgjudge/kgjudge/matcher/prefilter"
)

type planOptions struct {
	GT   string
	Pred string
	Out  string
	Map  string
	JSON bool
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

EXAMPLES:
   kgjudge plan --gt testdata/fixtures/p041/gt.json --pred testdata/fixtures/p041/pred.json --out plan.json`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "gt", Usage: "ground-truth task file or directory", Required: true, Destination: &o.GT},
			&ucli.StringFlag{Name: "pred", Usage: "prediction file or directory", Required: true, Destination: &o.Pred},
			&ucli.StringFlag{Name: "out", Usage: "write the plan JSON to FILE", Destination: &o.Out},
			&ucli.StringFlag{Name: "map", Usage: "file mapping prediction qids to task ids", Destination: &o.Map},
			&ucli.BoolFlag{Name: "json", Usage: "print the plan JSON on stdout instead of the summary", Destination: &o.JSON},
		},
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
	Items  []prefilter.Item `json:"items"`
	Totals planTotals       `json:"totals"`
}

type planTotals struct {
	Samples int `json:"samples"`
	prefilter.Volume
	VolumeRatio float64 `json:"volume_ratio"`
	FocusRatio  float64 `json:"focus_ratio"`
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
	var inputErrs []error
	keepGoing := func(err error) error {
		var fe *ingest.FileErrors
		if errors.As(err, &fe) {
			inputErrs = append(inputErrs, fe.Errs...)
			return nil
		}
		return err
	}
	tasks, err := ingest.ReadTasks(o.GT)
	if err = keepGoing(err); err != nil {
		return nil, wrapInput(err)
	}
	preds, err := ingest.ReadPredictions(ctx, o.Pred)
	if err = keepGoing(err); err != nil {
		return nil, wrapInput(err)
	}
	var mapping map[string]string
	if o.Map != "" {
		if mapping, err = ingest.ReadMap(o.Map); err != nil {
			return nil, wrapInput(err)
		}
	}
	taskByID := make(map[string]*kg.Task, len(tasks))
	ids := make([]string, 0, len(tasks))
	for i := range tasks {
		taskByID[tasks[i].ID] = &tasks[i]
		ids = append(ids, tasks[i].ID)
	}
	if err := ingest.MatchTasks(preds, ids, mapping); err != nil {
		var me *ingest.MatchError
		if !errors.As(err, &me) {
			return nil, err
		}
		inputErrs = append(inputErrs, err)
	}
	store, err := cayley.Open(ctx, ":memory:")
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	defer store.Close()

	out := &planOutput{Items: []prefilter.Item{}}
	seen := map[kgstore.SampleKey]bool{}
	for i := range preds {
		p := &preds[i]
		key := kgstore.SampleKey{Run: "plan", TaskID: p.TaskID, Sample: p.SampleIdx}
		if p.TaskID == "" || seen[key] {
			continue
		}
		seen[key] = true
		if err := store.PutPrediction(ctx, key, *p); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		pl, err := prefilter.Planner{Options: prefilter.Options{Graph: store, Key: key}}.Sample(ctx, taskByID[p.TaskID], p)
		if err != nil {
			return nil, fmt.Errorf("%s sample %d: %w", p.TaskID, p.SampleIdx, err)
		}
		out.Items = append(out.Items, pl.Item)
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
	for _, e := range inputErrs {
		fmt.Fprintf(stderr, "kgjudge: %v\n", e)
	}
	if len(inputErrs) > 0 {
		return out, &exitStatus{code: ExitInput, msg: fmt.Sprintf("%d input problem(s); the good inputs were planned (%d samples)", len(inputErrs), len(out.Items))}
	}
	return out, nil
}

func printPlan(w io.Writer, out *planOutput) {
	fmt.Fprintf(w, "%-40s %6s %6s %8s %7s %7s %7s %10s %10s %6s\n", "task", "sample", "GT", "resolved", "no-cand", "judged", "batches", "chars", "reference", "focus")
	for _, it := range out.Items {
		focus := 0.0
		if it.PredTriples > 0 {
			focus = it.MeanBatchCandidates / float64(it.PredTriples)
		}
		fmt.Fprintf(w, "%-40s %6d %6d %8d %7d %7d %7d %10d %10d %6.3f\n", trunc(it.QID, 40), it.SampleIdx, it.GTTriples, it.ResolvedGT,
			it.NoCandidateGT, it.JudgeGTTriples, it.Batches, it.PromptChars, it.ReferencePromptChars, focus)
	}
	t := out.Totals
	fmt.Fprintf(w, "\n%d sample(s): prompt volume %.3f x reference (%d / %d chars), focus %.3f, %d GT triples resolved without a judge, %d with no candidate, %d sent in %d batch(es)\n",
		t.Samples, t.VolumeRatio, t.PromptChars, t.ReferencePromptChars, t.FocusRatio, t.ResolvedGT, t.NoCandidateGT, t.JudgeGTTriples, t.Batches)
}

func trunc(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
