package kg

import "context"

// Judge decides coverage (and, for the paper protocol, validity) for one
// sample. Implementations: the offline and replay judges (matcher), the LLM
// judge (llmjudge). It is defined here, below both, so that a judge needs
// nothing of the packages that use it.
type Judge interface {
	Name() string
	Judge(ctx context.Context, task *Task, pred *Prediction) (Judgement, error)
}

// Judgement is what a judge decided about one sample. Validity is nil when
// the judge ran no validity pass (then only the code protocol applies).
type Judgement struct {
	Judge    string
	Coverage []Verdict
	Validity []Validity
	// Problems are indices the judge produced that could not be read as
	// integers (the replay judge reports them; they are never counted).
	Problems []IndexProblem
	// A calibrated judge's per-claim probabilities (parallel to Coverage
	// and Validity), its sample estimate and what it was calibrated on;
	// nil for other judges.
	CoverageProb, ValidityProb []float64
	Estimate                   *Estimate
	Calibration                *Calibration
}

// Interval is an expected value with its 95% interval.
type Interval struct {
	Expected float64 `json:"expected"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
}

// Estimate is a calibrated judge's expected triplet precision, recall and
// F1 for a sample (or a run), each with its 95% interval; how the interval
// is computed is the calibrating package's (matcher/calibrate).
type Estimate struct {
	Precision Interval `json:"precision"`
	Recall    Interval `json:"recall"`
	F1        Interval `json:"f1"`
}

// Calibration says what a calibrated judge was fitted on and how well it
// agreed with the labels it was not fitted on.
type Calibration struct {
	Labels          []string `json:"labels"`
	Method          string   `json:"method"`
	CoverageCVKappa float64  `json:"coverage_cv_kappa"`
	ValidityCVKappa float64  `json:"validity_cv_kappa"`
	Interval        string   `json:"interval"`
}

// IndexProblem is a supporting index that was not counted: out of range, not
// an integer, or pointing at a GT triple that does not exist.
type IndexProblem struct {
	Where string `json:"where"` // e.g. "per_gt_triple[3].supporting_pred_indices[1]"
	Value string `json:"value"`
	Why   string `json:"why"`
}
