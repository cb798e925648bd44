package runs

import (
	"context"
	"errors"
	"fmt"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/neo4j"
)

// sink writes what a run commits to the store and, when configured, to
// Neo4j (reads always come from the store).
type sink struct {
	store kgstore.Store
	neo   *neo4j.Writer
	// pending are samples not yet written to the store (putSample).
	pending []kgstore.Sample
}

// putSample queues a sample for the store, which receives them batch at a
// time (kgstore.PutSamples), and writes it to Neo4j, whose writer batches
// on its own. flushSamples writes what is queued; reads of the store see a
// queued sample only after it.
func (s *sink) putSample(ctx context.Context, sm kgstore.Sample, batch int) error {
	s.pending = append(s.pending, sm)
	if len(s.pending) >= batch {
		if err := s.flushSamples(ctx); err != nil {
			return err
		}
	}
	if s.neo != nil {
		if err := s.neo.PutPrediction(ctx, sm.Key, sm.Prediction); err != nil {
			return err
		}
		return s.neo.PutVerdicts(ctx, sm.Verdicts)
	}
	return nil
}

func (s *sink) flushSamples(ctx context.Context) error {
	if len(s.pending) == 0 {
		return nil
	}
	err := kgstore.PutSamples(ctx, s.store, s.pending)
	clear(s.pending)
	s.pending = s.pending[:0]
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// tasksPerWrite is how many GT graphs a run writes per store transaction:
// a sync per task cost a replay run of 200 tasks 7 s before any sample
// could be scored; a few dozen graphs keep a transaction's memory small.
const tasksPerWrite = 25

// putTasks writes tasks to the store tasksPerWrite at a time
// (kgstore.PutTasks), and each to Neo4j.
func (s sink) putTasks(ctx context.Context, tasks []kg.Task) error {
	for len(tasks) > 0 {
		n := min(len(tasks), tasksPerWrite)
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := kgstore.PutTasks(ctx, s.store, tasks[:n]); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if s.neo != nil {
			for _, t := range tasks[:n] {
				if err := s.neo.PutTask(ctx, t); err != nil {
					return err
				}
			}
		}
		tasks = tasks[n:]
	}
	return nil
}

func (s sink) putTask(ctx context.Context, t kg.Task) error {
	if err := s.store.PutTask(ctx, t); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if s.neo != nil {
		return s.neo.PutTask(ctx, t)
	}
	return nil
}

func (s sink) putPrediction(ctx context.Context, key kgstore.SampleKey, p kg.Prediction) error {
	if err := s.store.PutPrediction(ctx, key, p); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if s.neo != nil {
		return s.neo.PutPrediction(ctx, key, p)
	}
	return nil
}

func (s sink) putVerdicts(ctx context.Context, v kgstore.Verdicts) error {
	if err := s.store.PutVerdicts(ctx, v); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if s.neo != nil {
		return s.neo.PutVerdicts(ctx, v)
	}
	return nil
}

// setSampleProps writes a scored sample's metrics where a store keeps them
// (Neo4j's Sample nodes; the embedded store recomputes them from verdicts).
func (s sink) setSampleProps(ctx context.Context, key kgstore.SampleKey, props map[string]any) error {
	if s.neo != nil {
		return s.neo.SetSampleProps(ctx, key, props)
	}
	return nil
}

// flush commits what is buffered for Neo4j, so that errors surface before
// the command reports success.
func (s sink) flush(ctx context.Context) error {
	if s.neo != nil {
		if err := s.neo.Flush(ctx); err != nil {
			return fmt.Errorf("neo4j: %w", err)
		}
	}
	return nil
}

// storedTask is the task an earlier command stored: the store's, else
// Neo4j's; ok is false when neither has it.
func (s sink) storedTask(ctx context.Context, id string) (kg.Task, bool, error) {
	t, err := s.store.Task(ctx, id)
	if err == nil {
		return t, true, nil
	}
	if !errors.Is(err, kgstore.ErrNotFound) {
		return kg.Task{}, false, fmt.Errorf("store: %w", err)
	}
	if s.neo == nil {
		return kg.Task{}, false, nil
	}
	t, err = s.neo.Store().Task(ctx, id)
	if errors.Is(err, kgstore.ErrNotFound) {
		return kg.Task{}, false, nil
	}
	return t, err == nil, err
}

// storedSubset is the subset an earlier command stored on a task: the
// store's, else Neo4j's ("" when neither has the task or a subset).
func (s sink) storedSubset(ctx context.Context, id string) (string, error) {
	t, _, err := s.storedTask(ctx, id)
	if err != nil || t.Subset != "" || s.neo == nil {
		return t.Subset, err
	}
	nt, err := s.neo.Store().Task(ctx, id)
	if err != nil && !errors.Is(err, kgstore.ErrNotFound) {
		return "", err
	}
	return nt.Subset, nil
}

// removeStale deletes the samples of run that the store (or Neo4j) holds
// and keep does not list, and returns them sorted.
func (s sink) removeStale(ctx context.Context, run string, keep map[kgstore.SampleKey]bool) ([]kgstore.SampleKey, error) {
	keys, err := s.store.Samples(ctx, run)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	var stale []kgstore.SampleKey
	for _, k := range keys {
		if !keep[k] {
			stale = append(stale, k)
			if err := s.store.DeleteSample(ctx, k); err != nil {
				return nil, fmt.Errorf("store: %w", err)
			}
		}
	}
	if s.neo != nil {
		if err := s.neo.Flush(ctx); err != nil {
			return nil, fmt.Errorf("neo4j: %w", err)
		}
		nkeys, err := s.neo.Store().Samples(ctx, run)
		if err != nil {
			return nil, err
		}
		var nstale []kgstore.SampleKey
		seen := map[kgstore.SampleKey]bool{}
		for _, k := range stale {
			seen[k] = true
		}
		for _, k := range nkeys {
			if !keep[k] {
				nstale = append(nstale, k)
				if !seen[k] {
					stale = append(stale, k)
				}
			}
		}
		if err := s.neo.DeleteSamples(ctx, nstale); err != nil {
			return nil, err
		}
	}
	kgstore.SortKeys(stale)
	return stale, nil
}

func (s sink) putRun(ctx context.Context, info kgstore.RunInfo) error {
	if err := s.store.PutRun(ctx, info); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if s.neo != nil {
		return s.neo.PutRun(ctx, info)
	}
	return nil
}
