package neo4j

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	driver "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/kgjudge/kgjudge/kgstore"
)

// Run metadata lives on the Run node, next to what SetRunProps put there;
// has_info says PutRun wrote it.
const (
	qRunInfo       = `MATCH (r:Run {key: $k}) WHERE r.has_info RETURN r{.*}`
	qRunSampleKeys = `MATCH (:Run {key: $k})<-[:OF_RUN]-(s:Sample) RETURN s.key`
	qSampleTasks   = `UNWIND $keys AS k MATCH (s:Sample {key: k}) RETURN DISTINCT s.task`
	qDeleteSamples = `UNWIND $keys AS k MATCH (s:Sample {key: k}) DETACH DELETE s`
	qDeleteRun     = `MATCH (r:Run {key: $k}) DETACH DELETE r`
)

// deleteBatch is how many samples one delete transaction removes.
const deleteBatch = 100

// runInfoProps are the Run node properties of info: every metadata key,
// nil for what info leaves empty, so that writing them replaces the old
// metadata whole.
func runInfoProps(info kgstore.RunInfo) map[string]any {
	var tasks, manifest, scored any
	if info.Tasks != nil {
		tasks = info.Tasks
	}
	if info.Manifest != nil {
		manifest = string(info.Manifest)
	}
	if !info.Scored.IsZero() {
		scored = info.Scored.UTC().Format(time.RFC3339)
	}
	return map[string]any{
		"has_info": true,
		"model":    nonEmpty(info.Model), "framework": nonEmpty(info.Framework), "subset": nonEmpty(info.Subset),
		"notes": nonEmpty(info.Notes), "source": nonEmpty(info.Source),
		"n_samples": info.Samples, "missing": nonEmpty(info.Missing),
		"protocol": nonEmpty(info.Protocol), "judge": nonEmpty(info.Judge),
		"manifest": manifest, "tasks": tasks, "scored": scored,
	}
}

func (s *Store) runUnit(info kgstore.RunInfo) (*unit, error) {
	if err := checkID("run", info.Name); err != nil {
		return nil, err
	}
	return &unit{kind: kindRunProps, key: s.runKey(info.Name), id: info.Name, props: runInfoProps(info), rows: 1}, nil
}

// PutRun implements kgstore.Store: one transaction.
func (s *Store) PutRun(ctx context.Context, info kgstore.RunInfo) error {
	u, err := s.runUnit(info)
	if err != nil {
		return err
	}
	_, err = s.writeTx(ctx, []*unit{u})
	return err
}

// PutRun buffers a run's metadata (see kgstore.Store.PutRun).
func (w *Writer) PutRun(ctx context.Context, info kgstore.RunInfo) error {
	u, err := w.s.runUnit(info)
	if err != nil {
		return err
	}
	return w.add(ctx, u)
}

// Run implements kgstore.Store.
func (s *Store) Run(ctx context.Context, name string) (kgstore.RunInfo, error) {
	recs, err := s.read(ctx, qRunInfo, map[string]any{"k": s.runKey(name)})
	if err != nil {
		return kgstore.RunInfo{}, err
	}
	if len(recs) == 0 {
		return kgstore.RunInfo{}, fmt.Errorf("run %q: %w", name, kgstore.ErrNotFound)
	}
	p := mapOf(recs[0].Values[0])
	info := kgstore.RunInfo{
		Name: str(p["name"]), Model: str(p["model"]), Framework: str(p["framework"]), Subset: str(p["subset"]),
		Notes: str(p["notes"]), Source: str(p["source"]), Samples: num(p["n_samples"]), Missing: str(p["missing"]),
		Protocol: str(p["protocol"]), Judge: str(p["judge"]), Tasks: strs(p["tasks"]),
	}
	if m, ok := p["manifest"].(string); ok {
		info.Manifest = json.RawMessage(m)
	}
	if sc := str(p["scored"]); sc != "" {
		t, err := time.Parse(time.RFC3339, sc)
		if err != nil {
			return kgstore.RunInfo{}, fmt.Errorf("neo4j: run %q: scored time %q: %w", name, sc, err)
		}
		info.Scored = t
	}
	return info, nil
}

// DeleteSample implements kgstore.Store.
func (s *Store) DeleteSample(ctx context.Context, key kgstore.SampleKey) error {
	if err := checkKey(key); err != nil {
		return err
	}
	return s.deleteSampleNodes(ctx, []string{s.sampleKey(key)})
}

// DeleteRun implements kgstore.Store. Samples go in transactions of
// deleteBatch each, the Run node last.
func (s *Store) DeleteRun(ctx context.Context, name string) error {
	if err := checkID("run", name); err != nil {
		return err
	}
	recs, err := s.read(ctx, qRunSampleKeys, map[string]any{"k": s.runKey(name)})
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(recs))
	for _, r := range recs {
		keys = append(keys, str(r.Values[0]))
	}
	if err := s.deleteSampleNodes(ctx, keys); err != nil {
		return err
	}
	return s.writeFunc(ctx, func(r txRunner) error {
		return r.exec(qDeleteRun, map[string]any{"k": s.runKey(name)})
	})
}

// deleteSampleNodes removes Sample nodes by key with their predicted
// triples, REL edges and verdict relationships, then the entities of their
// tasks that nothing uses any more.
func (s *Store) deleteSampleNodes(ctx context.Context, keys []string) error {
	for len(keys) > 0 {
		n := min(deleteBatch, len(keys))
		batch := keys[:n]
		keys = keys[n:]
		err := s.writeFunc(ctx, func(r txRunner) error {
			recs, err := r.collect(qSampleTasks, map[string]any{"keys": batch})
			if err != nil {
				return err
			}
			for _, q := range []string{qDeleteRels, qDeletePredTriples, qDeleteSamples} {
				if err := r.keys(q, batch); err != nil {
					return err
				}
			}
			var rows []map[string]any
			for _, rec := range recs {
				rows = append(rows, map[string]any{"ns": s.ns, "task": str(rec.Values[0])})
			}
			return r.rows(qSweepEntities, rows)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Store is the store the Writer writes to (for reads).
func (w *Writer) Store() *Store { return w.s }

// DeleteSamples commits what is buffered, then removes the samples (see
// kgstore.Store.DeleteSample).
func (w *Writer) DeleteSamples(ctx context.Context, keys []kgstore.SampleKey) error {
	if err := w.Flush(ctx); err != nil {
		return err
	}
	nodeKeys := make([]string, 0, len(keys))
	for _, k := range keys {
		if err := checkKey(k); err != nil {
			return err
		}
		nodeKeys = append(nodeKeys, w.s.sampleKey(k))
	}
	return w.s.deleteSampleNodes(ctx, nodeKeys)
}

// DeleteRun commits what is buffered, then removes the run (see
// kgstore.Store.DeleteRun).
func (w *Writer) DeleteRun(ctx context.Context, name string) error {
	if err := w.Flush(ctx); err != nil {
		return err
	}
	return w.s.DeleteRun(ctx, name)
}

// writeFunc runs fn in one managed write transaction.
func (s *Store) writeFunc(ctx context.Context, fn func(r txRunner) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	sess := s.session(ctx, driver.AccessModeWrite)
	defer sess.Close(ctx)
	_, err := sess.ExecuteWrite(ctx, func(tx driver.ManagedTransaction) (any, error) {
		return nil, fn(txRunner{ctx, tx, s.cfg.Trace})
	})
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		return fmt.Errorf("neo4j write: %w", err)
	}
	return nil
}
