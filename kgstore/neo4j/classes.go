package neo4j

import (
	"context"
	"fmt"

	"github.com/kgjudge/kgjudge/kgstore"
)

var _ kgstore.ClassReader = (*Store)(nil)

// TaskClasses implements kgstore.ClassReader: the class property of the
// task's GT triple nodes, in triple order.
func (s *Store) TaskClasses(ctx context.Context, taskID string) ([]string, error) {
	cls, err := s.readClasses(ctx, `
MATCH (t:Task {key: $k}) WHERE t.loaded
RETURN [(t)-[:HAS_TRIPLE]->(x) | [x.index, x.class]] AS classes`, s.taskKey(taskID))
	if err != nil {
		return nil, fmt.Errorf("neo4j: classes of task %q: %w", taskID, err)
	}
	return cls, nil
}

// PredictionClasses implements kgstore.ClassReader: the class property of
// the sample's predicted triple nodes, in triple order.
func (s *Store) PredictionClasses(ctx context.Context, key kgstore.SampleKey) ([]string, error) {
	cls, err := s.readClasses(ctx, `
MATCH (g:Sample {key: $k}) WHERE g.predicted
RETURN [(g)-[:HAS_TRIPLE]->(x) | [x.index, x.class]] AS classes`, s.sampleKey(key))
	if err != nil {
		return nil, fmt.Errorf("neo4j: classes of prediction %+v: %w", key, err)
	}
	return cls, nil
}

func (s *Store) readClasses(ctx context.Context, q, key string) ([]string, error) {
	recs, err := s.read(ctx, q, map[string]any{"k": key})
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, kgstore.ErrNotFound
	}
	if s.cfg.Classes == nil {
		// Triples were written with class "" (config.go): nothing to read.
		return nil, kgstore.ErrNoClasses
	}
	rows := list(recs[0].Values[0])
	out := make([]string, len(rows))
	for _, r := range rows {
		v := list(r)
		i := num(v[0])
		if i < 0 || i >= len(out) {
			return nil, fmt.Errorf("triple index %d out of range", i)
		}
		out[i] = str(v[1])
	}
	return out, nil
}
