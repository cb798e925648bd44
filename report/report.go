// Package report writes what scored runs show a reader: one self-contained
// HTML file (leaderboard, per-task table, drill-down into a sample with its
// GT graph, two runs side by side on the same GT) and a Markdown summary fit
// for a pull request. It reads runs as they were scored (items, summaries,
// leaderboard rows) and never recomputes a score; it opens no store.
package report

import (
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/leaderboard"
	"github.com/kgjudge/kgjudge/matcher"
)

// Input is everything a report shows.
type Input struct {
	Title string
	// Tasks are the ground truths the runs were scored against.
	Tasks []kg.Task
	Runs  []Run
	// Leaderboards are shown first on the overview, in order, each with
	// its rows' 95% intervals and its paired differences, exactly as the
	// leaderboard package computed them (kgjudge leaderboard --format json
	// gives the same numbers).
	Leaderboards []*leaderboard.Board
	// ModelBySubset, when set, is drawn as the chart of the ranking metric
	// by model x subset (a board grouped by model,subset).
	ModelBySubset *leaderboard.Board
	// LeaderboardNote says why there are no leaderboards, when there are
	// none (runs scored under two protocols).
	LeaderboardNote string
}

// Run is one scored run.
type Run struct {
	Name string
	// Info are the run's manifest lines (model, framework, judge,
	// protocol, calibration, ...), shown as given, in key order.
	Info    map[string]string
	Summary matcher.Summary
	// Structure is the run's structure report (summary.json "structure").
	Structure any
	Samples   []Sample
	// Consistency, when set, is the run's self-consistency as its reader
	// counted it (samples not held in memory); else it is counted from
	// the samples' items.
	Consistency *matcher.SelfConsistency
}

// Sample is one scored sample: its item and the predicted triples' text
// (items of the code protocol carry no validity details, so no text).
type Sample struct {
	Item *matcher.Item
	Pred *kg.Prediction
	// Load, when Item is nil, reads the sample's item (and its predicted
	// triples when the item has no validity pass) while its task is
	// written, so that a large run is never held whole; TaskID and Index
	// name the sample.
	Load   func() (*matcher.Item, *kg.Prediction, error)
	TaskID string
	Index  int
}

// ItemStructure is the part of an item's structure report (hierarchy's
// per-sample analysis) a report reads: each graph's relations with their
// class. A reader of item files may decode just this into Item.Structure
// instead of the whole report, which a large run cannot afford to hold.
type ItemStructure struct {
	GT   GraphRelations `json:"gt"`
	Pred GraphRelations `json:"pred"`
}

// GraphRelations are one graph's classified relations.
type GraphRelations struct {
	Relations []RelationClass `json:"relations"`
}

// RelationClass is one relation and the class it was given.
type RelationClass struct {
	Relation string `json:"relation"`
	Class    string `json:"class"`
}
