package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"sort"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/matcher/calibrate"
)

type calibrateOptions struct {
	Labels []string
	Out    string
	Lambda float64
	JSON   bool
}

func calibrateCommand() *ucli.Command {
	var o calibrateOptions
	var labels ucli.StringSlice
	return &ucli.Command{
		Name:      "calibrate",
		Usage:     "refit the offline judge's model from recorded (or human) verdicts and print its cross-validation report",
		UsageText: "kgjudge calibrate --labels DIR [--labels DIR...] --out FILE [--lambda X] [--json]",
		Description: `Each --labels DIR is one labelled sample (gt.json, pred.json and eval.json in the reference
format, like testdata/fixtures/d001) or a directory of such sample directories. kgjudge runs the
offline judge's features on every sample, measures the model leave-one-sample-out (each sample
judged by a model fitted on the others, its thresholds chosen by cross-validation inside them),
then fits the model on all samples and writes it to --out. The report gives, per held-out
sample and pooled, Cohen's kappa of both passes against the labels, the thresholded and the
expected triplet F1 next to the recorded one, and the deterministic tier's precision.

The shipped weights (matcher/calibrate/weights.json) are this command's output on the
repository's fixtures; score with them by default, or pass a refit model to the offline judge
with score --offline-model FILE.

EXAMPLES:
   kgjudge calibrate --labels testdata/fixtures --out my-weights.json
   kgjudge calibrate --labels testdata/fixtures/d001 --labels testdata/fixtures/p012 --labels testdata/fixtures/p041 --out small.json`,
		Flags: []ucli.Flag{
			&ucli.StringSliceFlag{Name: "labels", Usage: "labelled sample directory, or a directory of them (repeatable)", Required: true, Destination: &labels},
			&ucli.StringFlag{Name: "out", Usage: "write the fitted model to FILE", Required: true, Destination: &o.Out},
			&ucli.Float64Flag{Name: "lambda", Usage: "L2 penalty on the standardised weights", Value: calibrate.DefaultLambda, Destination: &o.Lambda},
			&ucli.BoolFlag{Name: "json", Usage: "print the cross-validation report as JSON", Destination: &o.JSON},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return userErrorf("calibrate takes no arguments (got %q); use --labels", c.Args().Slice())
			}
			o.Labels = labels.Value()
			_, err := runCalibrate(c.Context, o, c.App.Writer, c.App.ErrWriter)
			return err
		},
	}
}

func runCalibrate(ctx context.Context, o calibrateOptions, stdout, stderr io.Writer) (*calibrate.Report, error) {
	if o.Lambda < 0 || math.IsNaN(o.Lambda) {
		return nil, userErrorf("--lambda must be 0 or more (got %v)", o.Lambda)
	}
	var all []*calibrate.Labeled
	seen := map[string]string{}
	for _, dir := range o.Labels {
		ls, err := calibrate.LoadLabels(ctx, dir)
		if err != nil {
			return nil, &UserError{Err: err}
		}
		for _, l := range ls {
			if prev, dup := seen[l.Name]; dup {
				return nil, userErrorf("--labels: two samples named %s (in %s and %s); sample directory names must be distinct", l.Name, prev, dir)
			}
			seen[l.Name] = dir
		}
		all = append(all, ls...)
	}
	if len(all) < 3 {
		return nil, userErrorf("--labels: %d labelled sample(s); calibration needs three or more (each cross-validation fold fits on the others)", len(all))
	}
	fmt.Fprintf(stderr, "kgjudge calibrate: featurizing %d sample(s)\n", len(all))
	if err := calibrate.FeaturizeAll(ctx, all, calibrate.Options{}, func(done int, name string) {
		fmt.Fprintf(stderr, "  %d/%d %s\n", done, len(all), name)
	}); err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "kgjudge calibrate: leave-one-sample-out over %d sample(s)\n", len(all))
	rep, err := calibrate.CrossValidate(all, o.Lambda)
	if err != nil {
		return nil, err
	}
	m, err := calibrate.Fit(all, o.Lambda)
	if err != nil {
		return nil, err
	}
	m.CV = rep.Summary(len(all))
	b, err := m.Marshal()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(o.Out, b, 0o644); err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	if o.JSON {
		return rep, printJSON(stdout, rep)
	}
	rep.Write(stdout)
	fmt.Fprintf(stdout, "\nmodel fitted on all %d samples -> %s (thresholds: coverage %.2f, validity %.2f; CV kappa inside: %.4f / %.4f)\n",
		len(all), o.Out, m.Coverage.Threshold, m.Validity.Threshold, m.Coverage.CVKappa, m.Validity.CVKappa)
	if rt := m.Route; rt != nil {
		fmt.Fprintf(stdout, "routing for --route calibrated (chosen on the held-out probabilities of all %d): coverage low %.2f high %.2f (share %.4f, agreement %.4f), validity low %.2f high %.2f (share %.4f, agreement %.4f)\n",
			len(all), rt.Coverage.Low, rt.Coverage.High, rt.Coverage.CVShare, rt.Coverage.CVAgreement, rt.Validity.Low, rt.Validity.High, rt.Validity.CVShare, rt.Validity.CVAgreement)
	}
	for _, p := range []struct {
		name string
		pass *calibrate.Pass
	}{{"coverage", &m.Coverage}, {"validity", &m.Validity}} {
		fmt.Fprintf(stdout, "%s: largest standardised weights\n", p.name)
		idx := make([]int, len(p.pass.Weights))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return math.Abs(p.pass.Weights[idx[a]]) > math.Abs(p.pass.Weights[idx[b]]) })
		for _, i := range idx[:min(10, len(idx))] {
			fmt.Fprintf(stdout, "  %+7.3f  %-18s %s\n", p.pass.Weights[i], p.pass.Features[i], calibrate.FeatureDoc[p.pass.Features[i]])
		}
	}
	return rep, nil
}
