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
}

// IndexProblem is a supporting index that was not counted: out of range, not
// an integer, or pointing at a GT triple that does not exist.
type IndexProblem struct {
	Where string `json:"where"` // e.g. "per_gt_triple[3].supporting_pred_indices[1]"
	Value string `json:"value"`
	Why   string `json:"why"`
}
