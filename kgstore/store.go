// Package kgstore keeps ground-truth graphs, predicted graphs and judge
// verdicts in a labelled graph store (one label per graph). It owns
// persistence and graph look-ups; it does not parse files or compute metrics.
package kgstore

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/kgjudge/kgjudge/kg"
)

// ErrNotFound is returned (wrapped) when a task, prediction or verdict set is
// not in the store.
var ErrNotFound = errors.New("not found")

// SampleKey names one predicted graph: a run's prediction for a task's sample.
type SampleKey struct {
	Run    string `json:"run"`
	TaskID string `json:"task_id"`
	Sample int    `json:"sample_idx"`
}

// Verdicts is everything a judge decided about one sample.
type Verdicts struct {
	Key      SampleKey     `json:"key"`
	Coverage []kg.Verdict  `json:"coverage"`
	Validity []kg.Validity `json:"validity,omitempty"`
}

// Edge is one entity-to-entity (or entity-to-literal) edge of a stored graph,
// for graph expansion: Index is the triple's position in its graph.
type Edge struct {
	Index int
	kg.Triple
}

// Store is the storage boundary. Every backend (Cayley embedded, Neo4j) passes
// the conformance suite in kgstore/storetest.
//
// Put* methods are idempotent: writing the same graph twice replaces it and
// leaves the store as if it had been written once. Writes are batched inside
// a backend; callers hand over whole graphs.
type Store interface {
	// PutTask stores a ground-truth task (nodes, triples in order, metadata)
	// under its own label, replacing any earlier version.
	PutTask(ctx context.Context, t kg.Task) error
	// Task returns exactly what PutTask stored (Source is not kept).
	Task(ctx context.Context, taskID string) (kg.Task, error)
	// TaskIDs lists stored task ids, sorted.
	TaskIDs(ctx context.Context) ([]string, error)

	// PutPrediction stores one predicted graph (triples in order, parse
	// report) under the label of key, replacing any earlier version.
	PutPrediction(ctx context.Context, key SampleKey, p kg.Prediction) error
	Prediction(ctx context.Context, key SampleKey) (kg.Prediction, error)
	// Samples lists the stored prediction keys of a run, sorted by task then sample.
	Samples(ctx context.Context, run string) ([]SampleKey, error)
	// Runs lists runs that have predictions or verdicts, sorted.
	Runs(ctx context.Context) ([]string, error)

	// PutVerdicts stores a sample's verdicts under the run's verdict label,
	// replacing earlier verdicts for the same key.
	PutVerdicts(ctx context.Context, v Verdicts) error
	Verdicts(ctx context.Context, key SampleKey) (Verdicts, error)

	// Neighbors returns the edges of the predicted graph of key that touch
	// the entity named exactly name (as head or tail), sorted by Index.
	Neighbors(ctx context.Context, key SampleKey, name string) ([]Edge, error)

	Close() error
}

// SampleWriter is a Store that writes one sample's prediction and its
// verdicts together: one batch (one transaction where the backend has
// them) instead of two. PutSample is idempotent like the Puts it stands
// for; v.Key must be key.
type SampleWriter interface {
	PutSample(ctx context.Context, key SampleKey, p kg.Prediction, v Verdicts) error
}

// PutSample writes a sample's prediction and verdicts through st's
// PutSample when it is a SampleWriter, else with PutPrediction then
// PutVerdicts.
func PutSample(ctx context.Context, st Store, key SampleKey, p kg.Prediction, v Verdicts) error {
	if v.Key != key {
		return fmt.Errorf("kgstore: put sample %+v: verdicts are for %+v", key, v.Key)
	}
	if w, ok := st.(SampleWriter); ok {
		return w.PutSample(ctx, key, p, v)
	}
	if err := st.PutPrediction(ctx, key, p); err != nil {
		return err
	}
	return st.PutVerdicts(ctx, v)
}

// SortKeys orders sample keys as Samples returns them: by run, task, then
// sample number.
func SortKeys(keys []SampleKey) {
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.Run != b.Run {
			return a.Run < b.Run
		}
		if a.TaskID != b.TaskID {
			return a.TaskID < b.TaskID
		}
		return a.Sample < b.Sample
	})
}
