// Package kg is kgjudge's data model: triples, ground-truth tasks, predictions
// with their parse reports, and judge verdicts. It holds types and pure helpers
// only; it reads no files and talks to no store.
package kg

import "strings"

// Triple is one schema-free statement. Predicted triples and the text form of
// ground-truth triples both use it.
type Triple struct {
	Head     string `json:"head"`
	Relation string `json:"relation"`
	Tail     string `json:"tail"`
}

// String renders the triple the way the reference judge prompt does.
func (t Triple) String() string {
	return `"` + t.Head + `" --[` + t.Relation + `]--> "` + t.Tail + `"`
}

// Node is a ground-truth entity. Aliases is a kgjudge extension.
type Node struct {
	ID      string   `json:"node_id"`
	Name    string   `json:"node_name"`
	Aliases []string `json:"aliases,omitempty"`
}

// GTTriple is a ground-truth triple. Head and Tail hold the resolved names
// (what the judge sees); HeadID/TailID are empty for name-based task files.
// Weight, Stage and Kind are kgjudge extensions; Weight 0 means the default 1.
type GTTriple struct {
	Triple
	HeadID string  `json:"head_id,omitempty"`
	TailID string  `json:"tail_id,omitempty"`
	Weight float64 `json:"weight,omitempty"`
	Stage  int     `json:"stage,omitempty"`
	Kind   string  `json:"kind,omitempty"`
}

// Task is one ground-truth task: the user's query and its answer graph.
type Task struct {
	ID       string `json:"task_id"`
	Language string `json:"language,omitempty"`
	// Subset is the benchmark subset (VibeSearchBench: "pro" or "daily"),
	// from the task file's "subset" key or the command line (--subset).
	Subset     string     `json:"subset,omitempty"`
	FinalQuery string     `json:"final_query,omitempty"`
	Nodes      []Node     `json:"nodes"`
	Triples    []GTTriple `json:"triples"`
	// Warnings are non-fatal findings of the loader (e.g. a triple whose node
	// id has no node and falls back to the id as its name, as the reference does).
	Warnings []string `json:"warnings,omitempty"`
	// Source is the file the task was read from, for error messages.
	Source string `json:"-"`
}

// NodeNames returns the distinct node names of the task's node list, which is
// what node recall counts (including nodes no triple uses).
func (t *Task) NodeNames() []string {
	seen := make(map[string]bool, len(t.Nodes))
	var out []string
	for _, n := range t.Nodes {
		if !seen[n.Name] {
			seen[n.Name] = true
			out = append(out, n.Name)
		}
	}
	return out
}

// ParseStatus says how a prediction's triples were recovered from its source.
type ParseStatus string

const (
	ParseClean     ParseStatus = "clean"     // valid JSON, nothing changed
	ParseRepaired  ParseStatus = "repaired"  // JSON parsed after fixing quotes/control characters
	ParseSalvaged  ParseStatus = "salvaged"  // triple objects recovered one by one by pattern
	ParseTruncated ParseStatus = "truncated" // output cut off; what parsed was kept
	ParseEmpty     ParseStatus = "empty"     // no output, or an empty list
	ParseMalformed ParseStatus = "malformed" // output present, no triple recovered
)

// ParseStatuses lists every status in report order.
var ParseStatuses = []ParseStatus{ParseClean, ParseRepaired, ParseSalvaged, ParseTruncated, ParseEmpty, ParseMalformed}

// ParseReport records what the parser did to get a prediction's triples.
type ParseReport struct {
	Status ParseStatus `json:"status"`
	// Method names the step that succeeded (e.g. "fence", "whole", "brackets",
	// "repair", "salvage", "json", "jsonl", "csv").
	Method   string `json:"method,omitempty"`
	Triples  int    `json:"triples"`
	Salvaged int    `json:"salvaged,omitempty"`
	// Stringified counts values that were not strings (numbers, null, ...).
	Stringified int `json:"stringified,omitempty"`
	// Skipped counts objects that were present but could not become a triple.
	Skipped int `json:"skipped,omitempty"`
	// Misaligned counts items that did not follow the {head, relation, tail}
	// schema: other keys (subject/predicate/object), [h, r, t] arrays, missing
	// fields, and skipped items. A whole-output failure when it dominates.
	Misaligned int      `json:"misaligned,omitempty"`
	Notes      []string `json:"notes,omitempty"`
}

// Prediction is one sample of a model's predicted graph for one task.
type Prediction struct {
	// QID is the task reference as found in the input (a task id, or a Pro
	// numeric id such as "020"); TaskID is set once it is matched to a task.
	QID       string      `json:"qid"`
	TaskID    string      `json:"task_id,omitempty"`
	SampleIdx int         `json:"sample_idx"`
	Triples   []Triple    `json:"triples"`
	Report    ParseReport `json:"parse_report"`
	Source    string      `json:"-"`
}

// State is a judge's decision about one claim.
type State string

const (
	Covered   State = "covered"
	Uncovered State = "uncovered"
	// Unjudged means no judge decided: it counts as not covered (or not valid)
	// in the metrics but is always counted and reported separately.
	Unjudged State = "unjudged"
)

// CoverageKind says how the prediction entails a GT triple (FORMATS.md §4).
type CoverageKind string

const (
	KindNone          CoverageKind = ""
	KindDirect        CoverageKind = "direct"
	KindSubsumption   CoverageKind = "subsumption"
	KindCollective    CoverageKind = "collective"
	KindCompositional CoverageKind = "compositional"
	// KindRecorded marks a verdict replayed from a record that gives no kind.
	KindRecorded CoverageKind = "recorded"
	// KindCalibrated marks a claim a calibrated router decided covered
	// without a call (llmjudge.Routing); the model never named a kind.
	KindCalibrated CoverageKind = "calibrated"
)

// Verdict is the coverage decision for one GT triple.
type Verdict struct {
	GTIndex int          `json:"gt_index"`
	State   State        `json:"state"`
	Kind    CoverageKind `json:"kind,omitempty"`
	// Support are predicted-triple indices as the judge gave them; metrics use
	// only those in range (see matcher).
	Support []int  `json:"supporting_pred_indices"`
	Judge   string `json:"judge"`
	Reason  string `json:"reason,omitempty"`
	// Shown are the predicted triples the judge was shown for this claim
	// (the prefilter's candidates); nil when it saw the whole list or
	// none was needed.
	Shown []int `json:"candidates_shown,omitempty"`
}

// Validity is the paper protocol's second pass: is a predicted triple
// supported by the GT graph. State is Covered (valid), Uncovered (invalid) or
// Unjudged.
type Validity struct {
	PredIndex int    `json:"pred_index"`
	State     State  `json:"state"`
	Support   []int  `json:"supporting_gt_indices"`
	Judge     string `json:"judge"`
	Reason    string `json:"reason,omitempty"`
	// Shown are the GT triples the judge was shown for this claim.
	Shown []int `json:"candidates_shown,omitempty"`
}

// Normalize folds text for exact comparison: Unicode NFKC (which also folds
// full-width forms), lower case, punctuation removed, whitespace collapsed.
// It is the offline judge's notion of "the same text". It reads at most
// MaxMatchBytes of s (see MatchText).
func Normalize(s string) string {
	n := normalize(MatchText(s))
	if len(n) > MaxMatchBytes {
		// NFKC can lengthen text (an "㍿" is four letters); a second round
		// keeps the result within the limit and Normalize idempotent.
		n = normalize(MatchText(n))
	}
	return n
}

// Key is a compact identity for a triple after Normalize, used for exact matching.
func (t Triple) Key() string {
	return strings.Join([]string{Normalize(t.Head), Normalize(t.Relation), Normalize(t.Tail)}, "\x1f")
}
