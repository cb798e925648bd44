package calibrate_test

import (
	"bytes"
	"flag"
	"math"
	"os"
	"sync"
	"testing"

	"github.com/kgjudge/kgjudge/internal/fixtures"
	"github.com/kgjudge/kgjudge/matcher/calibrate"
)

var updateWeights = flag.Bool("update-weights", false, "refit weights.json on all fixtures")

var (
	labelsOnce sync.Once
	labels     []*calibrate.Labeled
	labelsErr  error
	cvOnce     sync.Once
	cvReport   *calibrate.Report
	cvErr      error
)

// looReport is the leave-one-sample-out report over the fixtures, computed
// once per test binary.
func looReport(t *testing.T) *calibrate.Report {
	t.Helper()
	ls := fixtureLabels(t)
	cvOnce.Do(func() { cvReport, cvErr = calibrate.CrossValidate(ls, calibrate.DefaultLambda) })
	if cvErr != nil {
		t.Fatal(cvErr)
	}
	return cvReport
}

// fixtureLabels featurizes the 11 recorded fixtures once per test binary.
func fixtureLabels(t *testing.T) []*calibrate.Labeled {
	t.Helper()
	labelsOnce.Do(func() {
		labels, labelsErr = calibrate.LoadLabels(t.Context(), fixtures.Dir())
		if labelsErr == nil {
			labelsErr = calibrate.FeaturizeAll(t.Context(), labels, calibrate.Options{}, nil)
		}
	})
	if labelsErr != nil {
		t.Fatal(labelsErr)
	}
	if len(labels) != len(fixtures.All()) {
		t.Fatalf("%d labelled fixtures, want %d", len(labels), len(fixtures.All()))
	}
	return labels
}

// TestLeaveOneOut is the measurement: each fixture is judged by a
// model fitted (threshold included) on the other ten. Floors are set just
// below what was measured.
func TestLeaveOneOut(t *testing.T) {
	r := looReport(t)
	var b bytes.Buffer
	r.Write(&b)
	t.Logf("\n%s", b.String())
	for _, c := range []struct {
		name       string
		got, floor float64
	}{
		// Measured on i11 alone: coverage 0.5492, validity 0.5236, Spearman
		// 0.8455; after the prefilter gained loose name forms, the
		// embedding hooks and bounded text (same features, other
		// candidates): coverage 0.5247, validity 0.5245, Spearman 0.8364.
		// With gloss, rel_context, category_tail, head_clash and
		// best_other (coverage features for the misses of issue 11):
		// coverage 0.5408, validity 0.5245, Spearman 0.8273 (one pair of
		// close samples swapped), expected F1 Spearman 0.9000, tier
		// precision 1.0000 (234/234). These features were chosen over
		// about six variants looked at with this same figure: read it
		// as slightly optimistic. With the validity threshold chosen by
		// rate matching (was max kappa): validity 0.5508, Spearman
		// 0.9182; chosen among five threshold rules on this figure, so
		// optimistic by that one choice. With glossInline in ent and
		// value_words: coverage 0.5506, validity 0.5513 (coverage
		// 0.5433 with the first alone, 0.5353 with the second alone);
		// kept among nine variants looked at with this figure, so read
		// the 0.55 as optimistic too.
		{"coverage kappa", r.CoverageKappa, 0.545},
		{"validity kappa", r.ValidityKappa, 0.54},
		{"F1 Spearman", r.F1Spearman, 0.90},
		{"expected F1 Spearman", r.ExpectedF1Spearman, 0.88},
		{"tier precision", r.TierPrecision, 0.99},
	} {
		if c.got < c.floor {
			t.Errorf("%s %.4f below floor %.4f", c.name, c.got, c.floor)
		}
	}
	// Routing (issue 14): thresholds chosen inside each training fold so
	// that every training sample's routed claims agree >= 0.97 with the
	// recorded verdicts. Measured: 106/7326 open claims routed (share
	// 0.0145), agreement 0.7925 on them (109, 0.7982 before value_words
	// and glossInline): below the 0.97 target, because
	// the held-out d038's validity verdicts are far more lenient than the
	// others' (its p <= 0.01 claims are mostly valid). Only the
	// deterministic tier is sure on unseen samples. The check is that
	// the measurement covers every open claim.
	open := 0
	for _, l := range fixtureLabels(t) {
		for _, cs := range [][]calibrate.Claim{l.Sample.Coverage, l.Sample.Validity} {
			for _, c := range cs {
				if !c.Tier {
					open++
				}
			}
		}
	}
	if r.Route.Open != open || len(r.Route.Folds) != len(r.Folds) {
		t.Errorf("routing measured on %d open claims in %d folds, want %d in %d", r.Route.Open, len(r.Route.Folds), open, len(r.Folds))
	}
	// Measured: 0.0501 (thresholded; 0.0432 with the max-kappa validity
	// threshold), 0.0508 (expected F1); 11/11 intervals hold the
	// published F1.
	if r.F1MeanAbsError > 0.053 || r.ExpectedF1MAE > 0.053 || r.IntervalCovers < 10 {
		t.Errorf("F1 mean abs error %.4f / expected %.4f above ceilings, or intervals hold only %d/11", r.F1MeanAbsError, r.ExpectedF1MAE, r.IntervalCovers)
	}
}

// TestShippedWeights: weights.json is the fit on all 11 fixtures (a refit
// gives the same bytes), and names them as its labels.
func TestShippedWeights(t *testing.T) {
	ls := fixtureLabels(t)
	m, err := calibrate.Fit(ls, calibrate.DefaultLambda)
	if err != nil {
		t.Fatal(err)
	}
	m.CV = looReport(t).Summary(len(ls))
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if *updateWeights {
		if err := os.WriteFile("weights.json", b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old, err := os.ReadFile("weights.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, b) {
		t.Fatal("weights.json is not the fit on the fixtures: run go test ./matcher/calibrate -run TestShippedWeights -update-weights (or kgjudge calibrate --labels testdata/fixtures --out matcher/calibrate/weights.json)")
	}
}

// TestInSample reports the shipped weights on the samples they were fitted
// on. These figures are in-sample (not a result); TestLeaveOneOut's are the
// measurement. It checks that the shipped model is no worse in-sample than
// the held-out floors.
func TestInSample(t *testing.T) {
	ls := fixtureLabels(t)
	m := calibrate.Default()
	var cov, val calibrate.Confusion
	var off, pub []float64
	var mae float64
	for _, l := range ls {
		cd, vd := m.Decide(l.Sample)
		nc, nv := 0, 0
		for i, d := range cd {
			cov.Add(d.Covered, l.Cov[i])
			if d.Covered {
				nc++
			}
		}
		for i, d := range vd {
			val.Add(d.Covered, l.Val[i])
			if d.Covered {
				nv++
			}
		}
		f := calibrate.PRF1(nv, len(vd), nc, len(cd))
		off, pub = append(off, f[2]), append(pub, l.Published[2])
		mae += math.Abs(f[2]-l.Published[2]) / float64(len(ls))
	}
	sp := calibrate.Spearman(off, pub)
	t.Logf("IN-SAMPLE (shipped weights, fitted on these 11): coverage kappa %.4f, validity kappa %.4f, F1 mean |offline - published| %.4f, Spearman %.4f",
		cov.Kappa(), val.Kappa(), mae, sp)
	if cov.Kappa() < 0.52 || val.Kappa() < 0.51 {
		t.Errorf("in-sample kappa %.4f / %.4f below the held-out floors", cov.Kappa(), val.Kappa())
	}
}
