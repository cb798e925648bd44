package cli

import (
	"context"
	"io"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/rundiff"
	"github.com/kgjudge/kgjudge/runset"
)

// ExitDrop is diff's exit code for a real drop (--fail-if-drop).
const ExitDrop = 4

type diffOptions struct {
	Source     runSource
	FailIfDrop float64
	Metric     string
	Missing    string
	Format     string
	Flips      int
}

func diffCommand() *ucli.Command {
	var o diffOptions
	return &ucli.Command{
		Name:      "diff",
		Usage:     "compare two scored runs: per-task deltas, flipped verdicts, the paired difference with its 95% CI; gate CI on a real drop",
		UsageText: "kgjudge diff A B [--fail-if-drop X] [--store DIR] [--format text|json]",
		Description: `A and B are output directories of kgjudge score (or, with --store DIR, run names of that store).
On the tasks both scored it prints each task's avg@N (--metric, default triplet_f1) in A and B,
the claims whose verdict flipped (a GT triple covered in one and not the other, a predicted
triple valid in one and not the other, with its text), and the paired difference B - A: the
mean of the per-task differences with its 95% t interval over the shared tasks.

--fail-if-drop X (a fraction: 0.02 is 2 points) exits 4 when B is worse than A by more than X
AND the interval excludes 0, so a noisy drop does not fail a pipeline and a real one does.

EXIT CODES:
   0  compared; no gate, or the gate passed
   1  internal error
   2  bad input or usage (a missing directory, no shared task, different protocols)
   4  --fail-if-drop: B is worse than A by more than X and the 95% interval excludes 0

EXAMPLES:
   kgjudge diff kgjudge-out/model-a kgjudge-out/model-b
   kgjudge diff kgjudge-out/model-a kgjudge-out/model-b --fail-if-drop 0.01
   kgjudge diff model-a model-b --store .kgjudge --format json`,
		Flags: append(runSourceFlags(&o.Source),
			&ucli.Float64Flag{Name: "fail-if-drop", Usage: "exit 4 when B is below A by more than this fraction and the 95% CI excludes 0", Destination: &o.FailIfDrop},
			&ucli.StringFlag{Name: "metric", Usage: "metric compared: " + strings.Join(matcher.MetricKeys, ", "), Value: "triplet_f1", Destination: &o.Metric},
			&ucli.StringFlag{Name: "missing", Usage: "zero (a missing sample scores 0, as the reference) | skip", Value: "zero", Destination: &o.Missing},
			&ucli.StringFlag{Name: "format", Usage: "text | json", Value: "text", Destination: &o.Format},
			&ucli.IntFlag{Name: "flips", Usage: "flipped verdicts to list in text (0: all)", Value: 20, Destination: &o.Flips},
		),
		Action: func(c *ucli.Context) error {
			_, err := runDiff(c.Context, o, c.Args().Slice(), c.App.Writer)
			return err
		},
	}
}

func runDiff(ctx context.Context, o diffOptions, args []string, stdout io.Writer) (*rundiff.Result, error) {
	if len(args) != 2 {
		return nil, userErrorf("diff takes two runs, A and B (got %d)", len(args))
	}
	if !slices.Contains([]string{"text", "json"}, o.Format) {
		return nil, userErrorf("--format: want text or json, not %q", o.Format)
	}
	if !slices.Contains(matcher.MetricKeys, o.Metric) {
		return nil, userErrorf("--metric: unknown metric %q (want one of %s)", o.Metric, strings.Join(matcher.MetricKeys, ", "))
	}
	if o.FailIfDrop < 0 || o.FailIfDrop >= 1 {
		return nil, userErrorf("--fail-if-drop %v: give a fraction in [0, 1), e.g. 0.02 for 2 points", o.FailIfDrop)
	}
	skip, err := parseMissing(o.Missing)
	if err != nil {
		return nil, err
	}
	// Each run is read on its own: A and B may be the same run name in two
	// output folders.
	var rs [2]runset.Run
	for i, a := range args {
		set, err := o.Source.load(ctx, []string{a})
		if err != nil {
			return nil, err
		}
		if len(set.Runs) != 1 {
			return nil, userErrorf("%s holds %d runs: name one output directory", a, len(set.Runs))
		}
		rs[i] = set.Runs[0]
	}
	res, err := rundiff.Compare(rs[0], rs[1], rundiff.Options{Metric: o.Metric, Skip: skip, FailIfDrop: o.FailIfDrop})
	if err != nil {
		return nil, &UserError{Err: err}
	}
	if o.Format == "json" {
		err = rundiff.WriteJSON(stdout, res)
	} else {
		err = rundiff.WriteText(stdout, res, o.Flips)
	}
	if err != nil {
		return res, err
	}
	if res.Failed {
		return res, &exitStatus{code: ExitDrop, msg: res.Verdict}
	}
	return res, nil
}
