package runs

import (
	"context"
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

func (s sink) setRunProps(ctx context.Context, run string, props map[string]any) error {
	if s.neo != nil && len(props) > 0 {
		return s.neo.SetRunProps(ctx, run, props)
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
