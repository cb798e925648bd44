package calibrate

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// Fit fits both passes on the featurized samples and chooses each pass's
// threshold by leave-one-sample-out cross-validation inside them: every
// sample's probabilities come from a model fitted on the others (the
// deterministic tier's claims count as yes). Coverage takes the threshold
// that maximises Cohen's kappa of those held-out verdicts. Validity takes
// the one whose held-out yes-rate matches the labelled yes-rate: triplet
// precision is that rate, so a threshold that gets the rate right gets
// every sample's F1 (and the samples' order) right on average, where the
// max-kappa threshold sat low and over-counted valid triples; its kappa
// is as good or better held-out. The same held-out probabilities give
// CVKappa (at the chosen threshold) and CVRateRMSE.
func Fit(train []*Labeled, lambda float64) (*Model, error) {
	if len(train) < 2 {
		return nil, fmt.Errorf("calibrate: %d labelled samples; cross-validation needs two or more", len(train))
	}
	for _, l := range train {
		if l.Sample == nil {
			return nil, fmt.Errorf("calibrate: sample %s not featurized", l.Name)
		}
	}
	m, err := fitAll(train, lambda)
	if err != nil {
		return nil, err
	}
	// Held-out probabilities of every training sample.
	oof := make([]heldOut, len(train))
	for i := range train {
		rest := without(train, i)
		mi, err := fitAll(rest, lambda)
		if err != nil {
			return nil, fmt.Errorf("calibrate: fold without %s: %w", train[i].Name, err)
		}
		oof[i] = probs(mi, train[i])
	}
	for _, pass := range []struct {
		p   *Pass
		get func(h heldOut) passOut
	}{{&m.Coverage, func(h heldOut) passOut { return h.cov }}, {&m.Validity, func(h heldOut) passOut { return h.val }}} {
		var all []passOut
		for _, h := range oof {
			all = append(all, pass.get(h))
		}
		if pass.p == &m.Validity {
			pass.p.Threshold = rateThreshold(all)
			pass.p.CVKappa = pooledConfusion(all, pass.p.Threshold).Kappa()
		} else {
			pass.p.Threshold, pass.p.CVKappa = bestThreshold(all)
		}
		var se float64
		for _, o := range all {
			d := o.rate() - o.meanProb()
			se += d * d
		}
		pass.p.CVRateRMSE = math.Sqrt(se / float64(len(all)))
		pass.p.round()
		pass.p.CVKappa = round6(pass.p.CVKappa)
		pass.p.CVRateRMSE = round6(pass.p.CVRateRMSE)
	}
	var open [2][][]scored
	for _, h := range oof {
		for k, o := range []passOut{h.cov, h.val} {
			var cs []scored
			for i, p := range o.p {
				if !o.tier[i] {
					cs = append(cs, scored{p, o.y[i]})
				}
			}
			open[k] = append(open[k], cs)
		}
	}
	m.Route = &Routes{Coverage: chooseRoute(open[0], RouteInnerTarget), Validity: chooseRoute(open[1], RouteInnerTarget)}
	for _, l := range train {
		m.Labels = append(m.Labels, l.Name)
	}
	if err := m.index(); err != nil {
		return nil, err
	}
	return m, nil
}

func without(ls []*Labeled, i int) []*Labeled {
	out := make([]*Labeled, 0, len(ls)-1)
	out = append(out, ls[:i]...)
	return append(out, ls[i+1:]...)
}

// fitAll fits both passes on all claims of the samples (threshold 0.5).
func fitAll(ls []*Labeled, lambda float64) (*Model, error) {
	var cx, vx [][]float64
	var cy, vy []bool
	for _, l := range ls {
		for i, c := range l.Sample.Coverage {
			cx, cy = append(cx, c.X), append(cy, l.Cov[i])
		}
		for i, c := range l.Sample.Validity {
			vx, vy = append(vx, c.X), append(vy, l.Val[i])
		}
	}
	cov, err := fitPass(cx, cy, lambda)
	if err != nil {
		return nil, fmt.Errorf("coverage: %w", err)
	}
	val, err := fitPass(vx, vy, lambda)
	if err != nil {
		return nil, fmt.Errorf("validity: %w", err)
	}
	m := &Model{Format: FormatVersion, Lambda: lambda, Coverage: cov, Validity: val}
	if err := m.index(); err != nil {
		return nil, err
	}
	return m, nil
}

// passOut is one pass of one held-out sample: probabilities, tier flags
// and labels.
type passOut struct {
	p    []float64
	tier []bool
	y    []bool
}

func (o passOut) rate() float64 {
	if len(o.y) == 0 {
		return 0
	}
	n := 0
	for _, y := range o.y {
		if y {
			n++
		}
	}
	return float64(n) / float64(len(o.y))
}

func (o passOut) meanProb() float64 {
	if len(o.p) == 0 {
		return 0
	}
	var s float64
	for _, p := range o.p {
		s += p
	}
	return s / float64(len(o.p))
}

type heldOut struct{ cov, val passOut }

func probs(m *Model, l *Labeled) heldOut {
	var h heldOut
	for i := range l.Sample.Coverage {
		c := &l.Sample.Coverage[i]
		h.cov.p = append(h.cov.p, m.Coverage.prob(m.covIdx, c.X))
		h.cov.tier = append(h.cov.tier, c.Tier)
		h.cov.y = append(h.cov.y, l.Cov[i])
	}
	for i := range l.Sample.Validity {
		c := &l.Sample.Validity[i]
		h.val.p = append(h.val.p, m.Validity.prob(m.valIdx, c.X))
		h.val.tier = append(h.val.tier, c.Tier)
		h.val.y = append(h.val.y, l.Val[i])
	}
	return h
}

// Thresholds are searched on a 0.01 grid from 0.05 to 0.95.
const gridLow, gridHigh = 5, 95

// pooledConfusion is the held-out verdicts at threshold th against the
// labels, pooled over the samples (tier claims decided yes).
func pooledConfusion(all []passOut, th float64) Confusion {
	var c Confusion
	for _, o := range all {
		for i, p := range o.p {
			c.Add(o.tier[i] || p >= th, o.y[i])
		}
	}
	return c
}

// bestThreshold is the threshold on the grid that maximises pooled kappa
// (lowest on ties).
func bestThreshold(all []passOut) (float64, float64) {
	bestT, bestK := 0.5, math.Inf(-1)
	for t := gridLow; t <= gridHigh; t++ {
		th := float64(t) / 100
		if k := pooledConfusion(all, th).Kappa(); k > bestK+1e-12 {
			bestT, bestK = th, k
		}
	}
	return bestT, bestK
}

// rateThreshold is the threshold on the grid whose pooled yes-rate is
// closest to the pooled labelled yes-rate (lowest on ties).
func rateThreshold(all []passOut) float64 {
	bestT, bestD := 0.5, math.Inf(1)
	for t := gridLow; t <= gridHigh; t++ {
		th := float64(t) / 100
		c := pooledConfusion(all, th)
		if c.N() == 0 {
			return bestT
		}
		// Yes decisions minus yes labels is FP - FN; in counts, not
		// rates, so equal distances compare equal.
		if d := math.Abs(float64(c.FP - c.FN)); d < bestD {
			bestT, bestD = th, d
		}
	}
	return bestT
}

// Confusion counts a judge's yes/no decisions against labels.
type Confusion struct{ TP, FP, FN, TN int }

// Add records one decision (got) against its label (want).
func (c *Confusion) Add(got, want bool) {
	switch {
	case got && want:
		c.TP++
	case got:
		c.FP++
	case want:
		c.FN++
	default:
		c.TN++
	}
}

// N is the number of decisions.
func (c Confusion) N() int { return c.TP + c.FP + c.FN + c.TN }

// Kappa is Cohen's kappa (1 when both raters give one answer to all).
func (c Confusion) Kappa() float64 {
	n := float64(c.N())
	if n == 0 {
		return 0
	}
	po := float64(c.TP+c.TN) / n
	pa := float64(c.TP+c.FP) / n
	pb := float64(c.TP+c.FN) / n
	pe := pa*pb + (1-pa)*(1-pb)
	if pe == 1 {
		return 1
	}
	return (po - pe) / (1 - pe)
}

// Precision of the yes decisions (0 when there are none).
func (c Confusion) Precision() float64 {
	if c.TP+c.FP == 0 {
		return 0
	}
	return float64(c.TP) / float64(c.TP+c.FP)
}

// Recall of the labelled yes claims.
func (c Confusion) Recall() float64 {
	if c.TP+c.FN == 0 {
		return 0
	}
	return float64(c.TP) / float64(c.TP+c.FN)
}

// Fold is one held-out sample of a cross-validation.
type Fold struct {
	Sample        string     `json:"sample"`
	Coverage      Confusion  `json:"coverage"`
	Validity      Confusion  `json:"validity"`
	CoverageKappa float64    `json:"coverage_kappa"`
	ValidityKappa float64    `json:"validity_kappa"`
	Offline       [3]float64 `json:"offline_prf1"`
	Published     [3]float64 `json:"published_prf1"`
	Estimate      Estimate   `json:"estimate"`
	Tier          Confusion  `json:"tier"` // deterministic tier claims (both passes), decided yes
	Thresholds    [2]float64 `json:"thresholds"`
}

// Report is a leave-one-sample-out cross-validation of the whole offline
// judge: each sample is judged by a model fitted (thresholds included) on
// the others.
type Report struct {
	Lambda         float64   `json:"lambda"`
	Folds          []Fold    `json:"folds"`
	Coverage       Confusion `json:"coverage"`
	Validity       Confusion `json:"validity"`
	CoverageKappa  float64   `json:"coverage_kappa"`
	ValidityKappa  float64   `json:"validity_kappa"`
	F1MeanAbsError float64   `json:"f1_mean_abs_error"`
	F1Spearman     float64   `json:"f1_spearman"`
	// Expected* are the same for the calibrated expected F1 (mean
	// probability), with how many 95% intervals hold the published F1.
	ExpectedF1MAE      float64   `json:"expected_f1_mean_abs_error"`
	ExpectedF1Spearman float64   `json:"expected_f1_spearman"`
	IntervalCovers     int       `json:"interval_covers_published"`
	Tier               Confusion `json:"tier"`
	TierPrecision      float64   `json:"tier_precision"`
	// Route measures the LLM judge's routing thresholds on each held-out
	// sample (chosen inside its training fold).
	Route RouteReport `json:"route"`
}

// CrossValidate runs leave-one-sample-out over the featurized samples.
func CrossValidate(ls []*Labeled, lambda float64) (*Report, error) {
	if len(ls) < 3 {
		return nil, errors.New("calibrate: cross-validation needs three or more labelled samples (a fold fits on the rest and chooses its threshold inside them)")
	}
	r := &Report{Lambda: lambda}
	var off, pub, exp []float64
	for i, l := range ls {
		m, err := Fit(without(ls, i), lambda)
		if err != nil {
			return nil, fmt.Errorf("calibrate: fold %s: %w", l.Name, err)
		}
		f := Fold{Sample: l.Name, Published: l.Published, Thresholds: [2]float64{m.Coverage.Threshold, m.Validity.Threshold}}
		cov, val := m.Decide(l.Sample)
		var cp, vp []float64
		nc, nv := 0, 0
		for j, d := range cov {
			f.Coverage.Add(d.Covered, l.Cov[j])
			if d.Tier {
				f.Tier.Add(true, l.Cov[j])
			}
			cp = append(cp, d.Prob)
			if d.Covered {
				nc++
			}
		}
		for j, d := range val {
			f.Validity.Add(d.Covered, l.Val[j])
			if d.Tier {
				f.Tier.Add(true, l.Val[j])
			}
			vp = append(vp, d.Prob)
			if d.Covered {
				nv++
			}
		}
		r.Route.add(routeFold(l.Name, m.Route, cov, val, l.Cov, l.Val))
		f.Offline = PRF1(nv, len(val), nc, len(cov))
		f.Estimate = EstimateSample(cp, vp, m)
		f.CoverageKappa, f.ValidityKappa = round4(f.Coverage.Kappa()), round4(f.Validity.Kappa())
		r.Folds = append(r.Folds, f)
		addConf(&r.Coverage, f.Coverage)
		addConf(&r.Validity, f.Validity)
		addConf(&r.Tier, f.Tier)
		off, pub, exp = append(off, f.Offline[2]), append(pub, l.Published[2]), append(exp, f.Estimate.F1.Expected)
		r.F1MeanAbsError += math.Abs(f.Offline[2]-l.Published[2]) / float64(len(ls))
		r.ExpectedF1MAE += math.Abs(f.Estimate.F1.Expected-l.Published[2]) / float64(len(ls))
		if l.Published[2] >= f.Estimate.F1.Low && l.Published[2] <= f.Estimate.F1.High {
			r.IntervalCovers++
		}
	}
	r.CoverageKappa, r.ValidityKappa = round4(r.Coverage.Kappa()), round4(r.Validity.Kappa())
	r.F1MeanAbsError, r.ExpectedF1MAE = round4(r.F1MeanAbsError), round4(r.ExpectedF1MAE)
	r.F1Spearman, r.ExpectedF1Spearman = round4(Spearman(off, pub)), round4(Spearman(exp, pub))
	r.TierPrecision = round4(r.Tier.Precision())
	return r, nil
}

func addConf(a *Confusion, b Confusion) {
	a.TP += b.TP
	a.FP += b.FP
	a.FN += b.FN
	a.TN += b.TN
}

// Summary is the part of the report kept in a model file.
func (r *Report) Summary(n int) *CVSummary {
	return &CVSummary{Method: "leave-one-sample-out", Samples: n, CoverageKappa: r.CoverageKappa, ValidityKappa: r.ValidityKappa,
		F1MeanAbsError: r.F1MeanAbsError, F1Spearman: r.F1Spearman, TierPrecision: r.TierPrecision,
		ExpectedF1MAE: r.ExpectedF1MAE, IntervalCovered: r.IntervalCovers}
}

// Write prints the report as a table.
func (r *Report) Write(w io.Writer) {
	fmt.Fprintf(w, "leave-one-sample-out over %d samples (lambda %.2f; thresholds chosen inside each training fold)\n", len(r.Folds), r.Lambda)
	fmt.Fprintf(w, "%-8s %7s %7s %6s %6s  %-22s %-22s %-26s %s\n", "sample", "cov k", "val k", "thr c", "thr v", "offline P/R/F1", "published P/R/F1", "estimate F1 [95%]", "tier prec")
	for _, f := range r.Folds {
		fmt.Fprintf(w, "%-8s %7.3f %7.3f %6.2f %6.2f  %.3f/%.3f/%.3f      %.3f/%.3f/%.3f      %.3f [%.3f, %.3f]     %s\n",
			f.Sample, f.CoverageKappa, f.ValidityKappa, f.Thresholds[0], f.Thresholds[1],
			f.Offline[0], f.Offline[1], f.Offline[2], f.Published[0], f.Published[1], f.Published[2],
			f.Estimate.F1.Expected, f.Estimate.F1.Low, f.Estimate.F1.High, fracText(f.Tier.TP, f.Tier.TP+f.Tier.FP))
	}
	fmt.Fprintf(w, "pooled: coverage kappa %.4f (P %.3f R %.3f), validity kappa %.4f (P %.3f R %.3f)\n",
		r.CoverageKappa, r.Coverage.Precision(), r.Coverage.Recall(), r.ValidityKappa, r.Validity.Precision(), r.Validity.Recall())
	fmt.Fprintf(w, "triplet F1: mean |offline - published| %.4f, Spearman %.4f; expected F1: mean |.| %.4f, Spearman %.4f, 95%% interval holds the published F1 in %d/%d\n",
		r.F1MeanAbsError, r.F1Spearman, r.ExpectedF1MAE, r.ExpectedF1Spearman, r.IntervalCovers, len(r.Folds))
	fmt.Fprintf(w, "deterministic tier precision %.4f (%s claims)\n", r.TierPrecision, fracText(r.Tier.TP, r.Tier.TP+r.Tier.FP))
	r.Route.write(w)
}

func fracText(a, b int) string { return fmt.Sprintf("%d/%d", a, b) }

// Spearman is the rank correlation of x and y (average ranks for ties).
func Spearman(x, y []float64) float64 {
	if len(x) != len(y) || len(x) < 2 {
		return 0
	}
	rx, ry := ranks(x), ranks(y)
	var mx, my float64
	for i := range rx {
		mx += rx[i]
		my += ry[i]
	}
	mx /= float64(len(rx))
	my /= float64(len(ry))
	var sxy, sxx, syy float64
	for i := range rx {
		sxy += (rx[i] - mx) * (ry[i] - my)
		sxx += (rx[i] - mx) * (rx[i] - mx)
		syy += (ry[i] - my) * (ry[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		avg := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = avg
		}
		i = j + 1
	}
	return r
}

// Labels lists a model's labels for a summary line.
func (m *Model) LabelText() string {
	return fmt.Sprintf("%d recorded samples (%s)", len(m.Labels), strings.Join(m.Labels, " "))
}
