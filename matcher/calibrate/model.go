package calibrate

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/kgjudge/kgjudge/kg"
)

// FormatVersion is the model file's format.
const FormatVersion = 1

// DefaultLambda is the L2 penalty on the standardised weights. It was fixed
// before measuring (a unit Gaussian prior per standardised weight over a
// few thousand claims is weak), not tuned on the fixtures.
const DefaultLambda = 1.0

// Pass is one pass's logistic regression (coverage or validity) over
// standardised features: p = sigmoid(Bias + sum w_i (x_i - Mean_i) / Scale_i).
type Pass struct {
	Features  []string  `json:"features"`
	Mean      []float64 `json:"mean"`
	Scale     []float64 `json:"scale"`
	Weights   []float64 `json:"weights"`
	Bias      float64   `json:"bias"`
	Threshold float64   `json:"threshold"`
	// Cross-validation figures of the calibration (leave one sample out):
	// pooled Cohen's kappa of the thresholded verdicts, and the root mean
	// square over held-out samples of (observed rate - mean probability),
	// the per-sample calibration error the estimates' intervals carry.
	CVKappa    float64 `json:"cv_kappa"`
	CVRateRMSE float64 `json:"cv_rate_rmse"`
}

// Model is the offline judge's calibrated model (the weights file).
type Model struct {
	Format int     `json:"format"`
	Lambda float64 `json:"lambda"`
	// Labels names the labelled samples the model was fitted on.
	Labels   []string `json:"labels"`
	Coverage Pass     `json:"coverage"`
	Validity Pass     `json:"validity"`
	// Route is the routing thresholds for the LLM judge (see Route).
	Route *Routes `json:"route,omitempty"`
	// CV is the cross-validation summary of the fit (leave one sample out).
	CV *CVSummary `json:"cv,omitempty"`
	// idx maps each pass's features to the feature vector.
	covIdx, valIdx []int
}

// CVSummary is the part of a cross-validation report kept in the model file.
type CVSummary struct {
	Method          string  `json:"method"`
	Samples         int     `json:"samples"`
	CoverageKappa   float64 `json:"coverage_kappa"`
	ValidityKappa   float64 `json:"validity_kappa"`
	F1MeanAbsError  float64 `json:"f1_mean_abs_error"`
	F1Spearman      float64 `json:"f1_spearman"`
	TierPrecision   float64 `json:"tier_precision"`
	ExpectedF1MAE   float64 `json:"expected_f1_mean_abs_error"`
	IntervalCovered int     `json:"interval_covers_published"`
}

//go:embed weights.json
var shipped []byte

// Default returns the shipped model (weights.json, fitted on the repository's
// recorded samples by kgjudge calibrate).
func Default() *Model {
	m, err := Parse(shipped, "weights.json")
	if err != nil {
		panic("calibrate: shipped weights: " + err.Error())
	}
	return m
}

// Load reads a model file.
func Load(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	return Parse(b, path)
}

// Parse reads a model from JSON; name is used in errors.
func Parse(b []byte, name string) (*Model, error) {
	var m Model
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("calibrate: %s: %w", name, err)
	}
	if m.Format != FormatVersion {
		return nil, fmt.Errorf("calibrate: %s: format %d, want %d", name, m.Format, FormatVersion)
	}
	if err := m.index(); err != nil {
		return nil, fmt.Errorf("calibrate: %s: %w", name, err)
	}
	return &m, nil
}

// Marshal writes the model file (indented, stable).
func (m *Model) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func featureIndex() map[string]int {
	m := map[string]int{}
	for i, n := range FeatureNames {
		m[n] = i
	}
	return m
}

func (m *Model) index() error {
	fi := featureIndex()
	for _, p := range []struct {
		name string
		pass *Pass
		idx  *[]int
	}{{"coverage", &m.Coverage, &m.covIdx}, {"validity", &m.Validity, &m.valIdx}} {
		n := len(p.pass.Features)
		if len(p.pass.Mean) != n || len(p.pass.Scale) != n || len(p.pass.Weights) != n {
			return fmt.Errorf("%s: %d features but %d means, %d scales, %d weights", p.name, n, len(p.pass.Mean), len(p.pass.Scale), len(p.pass.Weights))
		}
		*p.idx = make([]int, n)
		for i, f := range p.pass.Features {
			j, ok := fi[f]
			if !ok {
				return fmt.Errorf("%s: unknown feature %q", p.name, f)
			}
			if p.pass.Scale[i] <= 0 {
				return fmt.Errorf("%s: feature %q has scale %v", p.name, f, p.pass.Scale[i])
			}
			(*p.idx)[i] = j
		}
	}
	return nil
}

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// prob is the pass's probability for one feature vector.
func (p *Pass) prob(idx []int, x []float64) float64 {
	z := p.Bias
	for i, j := range idx {
		z += p.Weights[i] * (x[j] - p.Mean[i]) / p.Scale[i]
	}
	return sigmoid(z)
}

// contributions are each feature's share of the logit, largest |.| first.
type contribution struct {
	name string
	v    float64
}

func (p *Pass) contributions(idx []int, x []float64) []contribution {
	out := make([]contribution, 0, len(idx))
	for i, j := range idx {
		if c := p.Weights[i] * (x[j] - p.Mean[i]) / p.Scale[i]; c != 0 {
			out = append(out, contribution{p.Features[i], c})
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		if math.Abs(out[a].v) != math.Abs(out[b].v) {
			return math.Abs(out[a].v) > math.Abs(out[b].v)
		}
		return out[a].name < out[b].name
	})
	return out
}

// Decision is the model's verdict about one claim.
type Decision struct {
	Covered bool
	Prob    float64
	Kind    kg.CoverageKind
	Support []int
	Reason  string
	// Tier: decided by the deterministic tier.
	Tier bool
}

// Decide gives every claim of a featurized sample its probability and
// verdict: the deterministic tier decides its claims (covered), the
// threshold the rest.
func (m *Model) Decide(s *Sample) (cov, val []Decision) {
	cov = make([]Decision, len(s.Coverage))
	for i := range s.Coverage {
		cov[i] = m.decide(&m.Coverage, m.covIdx, &s.Coverage[i], true)
	}
	val = make([]Decision, len(s.Validity))
	for i := range s.Validity {
		val[i] = m.decide(&m.Validity, m.valIdx, &s.Validity[i], false)
	}
	return cov, val
}

func (m *Model) decide(p *Pass, idx []int, c *Claim, coverage bool) Decision {
	pr := p.prob(idx, c.X)
	d := Decision{Prob: pr}
	if c.Tier {
		d.Covered, d.Tier, d.Kind, d.Support = true, true, c.Rule.Kind, c.Rule.Support
		d.Reason = fmt.Sprintf("deterministic tier: %s (p=%.2f)", c.TierWhy, pr)
		return d
	}
	d.Covered = pr >= p.Threshold
	cs := p.contributions(idx, c.X)
	var top []string
	for _, x := range cs {
		if len(top) == 3 {
			break
		}
		if (x.v > 0) == d.Covered {
			top = append(top, fmt.Sprintf("%s %+.2f", x.name, x.v))
		}
	}
	verb := "covered"
	if !coverage {
		verb = "valid"
	}
	if !d.Covered {
		verb = "not " + verb
	}
	d.Reason = fmt.Sprintf("%s: p=%.2f vs threshold %.2f; %s", verb, pr, p.Threshold, strings.Join(top, ", "))
	if !d.Covered {
		d.Support = []int{}
		return d
	}
	switch {
	case c.Rule.Covered:
		d.Kind, d.Support = c.Rule.Kind, c.Rule.Support
		d.Reason += "; rule: " + c.Rule.Reason
	default:
		d.Kind, d.Support = kindOf(cs), c.Best
		if d.Kind == kg.KindCollective && len(c.Parts) > 1 {
			d.Support = c.Parts
		}
	}
	if d.Support == nil {
		d.Support = []int{}
	}
	if !coverage {
		d.Kind = ""
	}
	return d
}

// kindOf names the coverage kind from the strongest positive feature that
// implies one.
func kindOf(cs []contribution) kg.CoverageKind {
	for _, c := range cs {
		if c.v <= 0 {
			continue
		}
		switch c.name {
		case "two_hop", "one_hop", "rule_compositional":
			return kg.KindCompositional
		case "collective_frac", "support_n", "count", "rule_collective":
			return kg.KindCollective
		case "t_in", "tail_in_triple", "category_head", "yes_no", "rule_subsumption":
			return kg.KindSubsumption
		case "hrt", "ht", "flat_ht", "num_unit_eq", "num_eq", "inverse", "rule_direct", "tier_resolved", "tier_exact":
			return kg.KindDirect
		}
	}
	return kg.KindDirect
}

// fitPass fits one pass's logistic regression with an L2 penalty lambda on
// the standardised weights (not the bias) by Newton's method. Features
// constant in the training data get weight 0.
func fitPass(xs [][]float64, ys []bool, lambda float64) (Pass, error) {
	n := len(xs)
	if n == 0 {
		return Pass{}, errors.New("no labelled claims")
	}
	d := int(numFeatures)
	p := Pass{Features: FeatureNames[:], Mean: make([]float64, d), Scale: make([]float64, d), Weights: make([]float64, d), Threshold: 0.5}
	for j := 0; j < d; j++ {
		var s float64
		for _, x := range xs {
			s += x[j]
		}
		mean := s / float64(n)
		var v float64
		for _, x := range xs {
			v += (x[j] - mean) * (x[j] - mean)
		}
		sd := math.Sqrt(v / float64(n))
		p.Mean[j] = mean
		p.Scale[j] = sd
	}
	var active []int
	for j := 0; j < d; j++ {
		if p.Scale[j] > 1e-9 {
			active = append(active, j)
		} else {
			p.Scale[j] = 1
		}
	}
	k := len(active) + 1 // bias last
	z := make([][]float64, n)
	for i, x := range xs {
		row := make([]float64, k)
		for a, j := range active {
			row[a] = (x[j] - p.Mean[j]) / p.Scale[j]
		}
		row[k-1] = 1
		z[i] = row
	}
	w := make([]float64, k)
	pos := 0
	for _, y := range ys {
		if y {
			pos++
		}
	}
	if pos == 0 || pos == n {
		return Pass{}, fmt.Errorf("all %d labelled claims have one label", n)
	}
	rate := float64(pos) / float64(n)
	w[k-1] = math.Log(rate / (1 - rate))
	h := make([][]float64, k)
	for i := range h {
		h[i] = make([]float64, k)
	}
	g := make([]float64, k)
	for iter := 0; iter < 100; iter++ {
		for a := range h {
			for b := range h[a] {
				h[a][b] = 0
			}
			g[a] = 0
		}
		for i, row := range z {
			var s float64
			for a, v := range row {
				s += w[a] * v
			}
			pr := sigmoid(s)
			y := 0.0
			if ys[i] {
				y = 1
			}
			r := pr - y
			wt := pr * (1 - pr)
			for a, va := range row {
				if va == 0 {
					continue
				}
				g[a] += r * va
				ha := h[a]
				for b := a; b < k; b++ {
					ha[b] += wt * va * row[b]
				}
			}
		}
		for a := 0; a < k; a++ {
			for b := 0; b < a; b++ {
				h[a][b] = h[b][a]
			}
			if a < k-1 {
				h[a][a] += lambda
				g[a] += lambda * w[a]
			} else {
				h[a][a] += 1e-9
			}
		}
		step, err := solve(h, g)
		if err != nil {
			return Pass{}, err
		}
		var maxStep float64
		for a := range w {
			w[a] -= step[a]
			maxStep = math.Max(maxStep, math.Abs(step[a]))
		}
		if maxStep < 1e-9 {
			break
		}
	}
	for a, j := range active {
		p.Weights[j] = w[a]
	}
	p.Bias = w[k-1]
	return p, nil
}

// solve solves A x = b by Gaussian elimination with partial pivoting (A is
// small and positive definite; copies are taken).
func solve(a [][]float64, b []float64) ([]float64, error) {
	n := len(b)
	m := make([][]float64, n)
	for i := range a {
		m[i] = append(append([]float64{}, a[i]...), b[i])
	}
	for c := 0; c < n; c++ {
		piv := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[piv][c]) {
				piv = r
			}
		}
		if math.Abs(m[piv][c]) < 1e-15 {
			return nil, errors.New("calibrate: singular system")
		}
		m[c], m[piv] = m[piv], m[c]
		for r := c + 1; r < n; r++ {
			f := m[r][c] / m[c][c]
			if f == 0 {
				continue
			}
			for k := c; k <= n; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := m[r][n]
		for k := r + 1; k < n; k++ {
			s -= m[r][k] * x[k]
		}
		x[r] = s / m[r][r]
	}
	return x, nil
}

// round6 keeps the weights file readable and byte-stable.
func round6(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 6, 64), 64)
	return v
}

func (p *Pass) round() {
	for i := range p.Weights {
		p.Weights[i], p.Mean[i], p.Scale[i] = round6(p.Weights[i]), round6(p.Mean[i]), round6(p.Scale[i])
		if p.Scale[i] <= 0 {
			p.Scale[i] = 1
		}
	}
	p.Bias, p.Threshold = round6(p.Bias), round6(p.Threshold)
}

// Info names what a model was calibrated on, for summaries.
type Info = kg.Calibration

// IntervalMethod says in one line how the 95% intervals are computed (see
// Estimate).
const IntervalMethod = "expected +- 1.96 sqrt(sum p(1-p)/n^2 + cv_rate_rmse^2) per pass; F1 from the ends of P and R; run means add sample half-widths in quadrature"

// Info describes the model's calibration.
func (m *Model) Info() Info {
	return Info{Labels: append([]string{}, m.Labels...), Method: "leave-one-sample-out", CoverageCVKappa: m.Coverage.CVKappa,
		ValidityCVKappa: m.Validity.CVKappa, Interval: IntervalMethod}
}
