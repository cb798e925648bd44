// Package kgstore keeps ground-truth graphs, predicted graphs and judge
// verdicts in a labelled graph store (one label per graph). It owns
// persistence and graph look-ups; it does not parse files or compute metrics.
package kgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/kgjudge/kgjudge/kg"
)

// ErrNotFound is returned (wrapped) when a task, prediction or verdict set is
// not in the store.
var ErrNotFound = errors.New("not found")

// ErrDamaged is returned (wrapped, in a *DamagedError) when a store's files
// cannot be read: truncated, overwritten or otherwise corrupt. It is neither
// bad input nor a bug in kgjudge; the message says which file and what to do.
var ErrDamaged = errors.New("store is damaged")

// DamagedError says which store file cannot be read, what was found, and
// what the user can do.
type DamagedError struct {
	File    string // the damaged file
	Problem string // what was found ("truncated: ...", the backend's panic)
	Advice  string // what to do
}

func (e *DamagedError) Error() string {
	msg := "kgstore: store file " + e.File + " is damaged (" + e.Problem + ")"
	if e.Advice != "" {
		msg += ": " + e.Advice
	}
	return msg
}

// Is makes errors.Is(err, ErrDamaged) hold.
func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }

// ErrNoClasses is returned (wrapped) by a ClassReader when a graph is stored
// but no classes were kept with it (the store had no classifier when it was
// written).
var ErrNoClasses = errors.New("no triple classes stored")

// Classifier gives every triple of a graph its class (hierarchy's relation
// classes), for stores that keep a class per stored triple. Version names
// the classification (rules and lexicon): a store rewrites a graph whose
// classes came from another version when the graph is written again.
type Classifier interface {
	// Classify returns one class per triple of graph, in order.
	Classify(graph []kg.Triple) []string
	Version() string
}

// ClassReader is a Store that keeps a class on every stored triple and
// reads it back: out[i] is the class of triple i of the stored graph.
// A missing graph wraps ErrNotFound; a graph written without a classifier
// wraps ErrNoClasses. Both backends implement it; kgstore/storetest's
// RunClasses is its conformance suite.
type ClassReader interface {
	TaskClasses(ctx context.Context, taskID string) ([]string, error)
	PredictionClasses(ctx context.Context, key SampleKey) ([]string, error)
}

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

// RunInfo is a run's metadata: what produced its predictions and how it was
// scored. Every field is kept as given, nil versus empty Tasks included, and
// Scored to the second in UTC.
type RunInfo struct {
	Name      string `json:"name"`
	Model     string `json:"model,omitempty"`
	Framework string `json:"framework,omitempty"`
	// Subset is the benchmark subset the run was scored on ("" for all).
	Subset string `json:"subset,omitempty"`
	Notes  string `json:"notes,omitempty"`
	// Source is where the predictions were read from (a path).
	Source string `json:"source,omitempty"`
	// Samples is N, the samples per task that avg@N and best@N are over.
	Samples int `json:"samples"`
	// Missing says how a sample the run lacks counts: "zero" (scored 0,
	// as the reference does) or "skip" (left out of the means).
	Missing  string `json:"missing,omitempty"`
	Protocol string `json:"protocol,omitempty"`
	Judge    string `json:"judge,omitempty"`
	// Manifest is summary.json's "manifest" (version, protocol, judge and
	// the LLM judge's settings), as JSON.
	Manifest json.RawMessage `json:"manifest,omitempty"`
	// Tasks are the ground-truth tasks the run is scored on, sorted: a task
	// here without a prediction is missing, not absent.
	Tasks []string `json:"tasks"`
	// Scored is when the run was last scored or imported.
	Scored time.Time `json:"scored"`
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
	// Runs lists runs that have predictions, verdicts or run metadata
	// (PutRun), sorted.
	Runs(ctx context.Context) ([]string, error)

	// PutRun stores a run's metadata, replacing any earlier version whole
	// (a field left empty is empty afterwards; keeping what a command did
	// not set is the caller's job). It does not touch the run's samples.
	PutRun(ctx context.Context, info RunInfo) error
	// Run returns what PutRun stored, ErrNotFound (wrapped) when the run
	// has no metadata (it may still have samples).
	Run(ctx context.Context, name string) (RunInfo, error)
	// DeleteRun removes a run's predictions, verdicts (including verdict
	// sets without a prediction) and metadata; tasks and other runs are
	// untouched. Deleting a run that is not there is not an error.
	DeleteRun(ctx context.Context, name string) error
	// DeleteSample removes one sample's prediction and verdicts; deleting
	// a sample that is not there is not an error.
	DeleteSample(ctx context.Context, key SampleKey) error

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

// Sample is one sample's prediction and verdicts, as PutSamples writes them.
type Sample struct {
	Key        SampleKey
	Prediction kg.Prediction
	Verdicts   Verdicts
}

// SamplesWriter is a Store that writes several samples in one batch (one
// transaction, one sync to disk, where the backend has them): a scoring
// run commits a few samples at a time instead of paying a sync each.
// PutSamples is idempotent like the Puts it stands for; the keys are
// distinct and each Verdicts.Key is its sample's Key.
type SamplesWriter interface {
	PutSamples(ctx context.Context, samples []Sample) error
}

// PutSamples writes samples through st's PutSamples when it is a
// SamplesWriter, else one PutSample each.
func PutSamples(ctx context.Context, st Store, samples []Sample) error {
	seen := make(map[SampleKey]bool, len(samples))
	for _, s := range samples {
		if s.Verdicts.Key != s.Key {
			return fmt.Errorf("kgstore: put sample %+v: verdicts are for %+v", s.Key, s.Verdicts.Key)
		}
		if seen[s.Key] {
			return fmt.Errorf("kgstore: put samples: %+v is given twice", s.Key)
		}
		seen[s.Key] = true
	}
	if w, ok := st.(SamplesWriter); ok {
		return w.PutSamples(ctx, samples)
	}
	for _, s := range samples {
		if err := PutSample(ctx, st, s.Key, s.Prediction, s.Verdicts); err != nil {
			return err
		}
	}
	return nil
}

// TasksWriter is a Store that writes several tasks' GT graphs in one batch
// (one transaction, one sync, where the backend has them). PutTasks is
// idempotent like the PutTask calls it stands for; the task ids are distinct.
type TasksWriter interface {
	PutTasks(ctx context.Context, tasks []kg.Task) error
}

// PutTasks writes tasks through st's PutTasks when it is a TasksWriter,
// else one PutTask each.
func PutTasks(ctx context.Context, st Store, tasks []kg.Task) error {
	seen := make(map[string]bool, len(tasks))
	for _, t := range tasks {
		if seen[t.ID] {
			return fmt.Errorf("kgstore: put tasks: task %q is given twice", t.ID)
		}
		seen[t.ID] = true
	}
	if w, ok := st.(TasksWriter); ok {
		return w.PutTasks(ctx, tasks)
	}
	for _, t := range tasks {
		if err := st.PutTask(ctx, t); err != nil {
			return err
		}
	}
	return nil
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
