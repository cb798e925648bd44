// Package runset is a set of scored runs read back as per-sample metrics,
// with the run and task properties a leaderboard groups by: the one input
// shape of leaderboards and diffs. It reads kgjudge score's output
// directories and the embedded store; it never judges and never writes.
package runset

import (
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/matcher"
)

// Metrics are the six per-sample metrics of matcher.Item.
type Metrics struct {
	TripletP  float64 `json:"triplet_precision"`
	TripletR  float64 `json:"triplet_recall"`
	TripletF1 float64 `json:"triplet_f1"`
	NodeP     float64 `json:"node_precision"`
	NodeR     float64 `json:"node_recall"`
	NodeF1    float64 `json:"node_f1"`
}

// Get returns a metric by its matcher.MetricKeys name.
func (m Metrics) Get(key string) (float64, bool) {
	switch key {
	case "triplet_precision":
		return m.TripletP, true
	case "triplet_recall":
		return m.TripletR, true
	case "triplet_f1":
		return m.TripletF1, true
	case "node_precision":
		return m.NodeP, true
	case "node_recall":
		return m.NodeR, true
	case "node_f1":
		return m.NodeF1, true
	}
	return 0, false
}

// Pass names the judge pass a claim belongs to.
type Pass string

const (
	// Coverage claims are GT triples: does the prediction entail them?
	Coverage Pass = "coverage"
	// Validity claims are predicted triples: does the GT support them?
	Validity Pass = "validity"
)

// Claim is one verdict of a sample, kept for diffs.
type Claim struct {
	Pass  Pass     `json:"pass"`
	Index int      `json:"index"`
	Text  string   `json:"text"`
	State kg.State `json:"state"`
}

// Sample is one scored (task, sample) of a run.
type Sample struct {
	TaskID string `json:"task_id"`
	Index  int    `json:"sample"`
	Metrics
	// Missing marks a sample with no prediction, scored 0 (the reference's
	// rule); Claims is empty for it.
	Missing bool `json:"missing,omitempty"`
	// Claims are the sample's verdicts in pass then index order; nil when
	// the source keeps none (they are only needed by diffs).
	Claims []Claim `json:"claims,omitempty"`
}

// Run is one scored run.
type Run struct {
	Name      string           `json:"name"`
	Model     string           `json:"model,omitempty"`
	Framework string           `json:"framework,omitempty"`
	Protocol  matcher.Protocol `json:"protocol"`
	Judge     string           `json:"judge,omitempty"`
	// N is how many samples per task the run has (avg@N, best@N); 0 means
	// the most any of its tasks has. A task with fewer scores 0 for each
	// one missing.
	N       int      `json:"n,omitempty"`
	Samples []Sample `json:"samples"`
	// Source says where the run was read from, for messages.
	Source string `json:"-"`
}

// Task holds the properties of a task a leaderboard groups by.
type Task struct {
	ID       string `json:"task_id"`
	Subset   string `json:"subset,omitempty"`
	Language string `json:"language,omitempty"`
	Domain   string `json:"domain,omitempty"`
}

// Set is what leaderboards and diffs read.
type Set struct {
	Runs []Run
	// Tasks are the known task properties; a task missing here has blank
	// properties (shown as "unknown").
	Tasks map[string]Task
	// Universe, when set, is the list of tasks every run was meant to
	// score (the ground truth); a task of it that a run lacks scores 0 for
	// each of its N samples.
	Universe []string
}

// RunMeta is what a run's outputs do not say about it.
type RunMeta struct {
	Model     string `json:"model"`
	Framework string `json:"framework"`
}

// SampleFromItem is a scored matcher.Item as a Sample, its verdicts kept.
func SampleFromItem(it *matcher.Item) Sample {
	s := Sample{TaskID: it.QID, Index: it.SampleIdx, Metrics: Metrics{
		TripletP: it.TripletPrecision, TripletR: it.TripletRecall, TripletF1: it.TripletF1,
		NodeP: it.NodePrecision, NodeR: it.NodeRecall, NodeF1: it.NodeF1,
	}}
	if c := it.Coverage; c != nil {
		for _, r := range c.PerGTTriple {
			s.Claims = append(s.Claims, Claim{Pass: Coverage, Index: r.GTIndex, Text: tripleText(r.GTTriple), State: r.State})
		}
	}
	if v := it.Validity; v != nil {
		for _, r := range v.PerPredTriple {
			s.Claims = append(s.Claims, Claim{Pass: Validity, Index: r.PredIndex, Text: tripleText(r.PredTriple), State: r.State})
		}
	}
	return s
}

func tripleText(t kg.Triple) string { return t.Head + " | " + t.Relation + " | " + t.Tail }
