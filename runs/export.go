package runs

import (
	"context"
	"errors"
	"fmt"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/neo4j"
	"github.com/kgjudge/kgjudge/matcher"
)

// Export copies every task, and every run's metadata and samples with their
// verdicts and metrics (recomputed under proto), from src into w, and
// flushes w.
func Export(ctx context.Context, src kgstore.Store, w *neo4j.Writer, proto matcher.Protocol) (neo4j.Stats, error) {
	ids, err := src.TaskIDs(ctx)
	if err != nil {
		return neo4j.Stats{}, fmt.Errorf("store: %w", err)
	}
	tasks := map[string]*kg.Task{}
	for _, id := range ids {
		t, err := src.Task(ctx, id)
		if err != nil {
			return neo4j.Stats{}, fmt.Errorf("store: %w", err)
		}
		tasks[id] = &t
		if err := w.PutTask(ctx, t); err != nil {
			return w.Stats(), err
		}
	}
	runs, err := src.Runs(ctx)
	if err != nil {
		return w.Stats(), fmt.Errorf("store: %w", err)
	}
	for _, run := range runs {
		info, err := src.Run(ctx, run)
		switch {
		case err == nil:
			if err := w.PutRun(ctx, info); err != nil {
				return w.Stats(), err
			}
		case !errors.Is(err, kgstore.ErrNotFound):
			return w.Stats(), fmt.Errorf("store: %w", err)
		}
		keys, err := src.Samples(ctx, run)
		if err != nil {
			return w.Stats(), fmt.Errorf("store: %w", err)
		}
		for _, key := range keys {
			p, err := src.Prediction(ctx, key)
			if err != nil {
				return w.Stats(), fmt.Errorf("store: %w", err)
			}
			if err := w.PutPrediction(ctx, key, p); err != nil {
				return w.Stats(), err
			}
			v, err := src.Verdicts(ctx, key)
			if errors.Is(err, kgstore.ErrNotFound) {
				continue
			}
			if err != nil {
				return w.Stats(), fmt.Errorf("store: %w", err)
			}
			if err := w.PutVerdicts(ctx, v); err != nil {
				return w.Stats(), err
			}
			if t := tasks[key.TaskID]; t != nil {
				if props, ok := scoreProps(t, &p, v, proto); ok {
					if err := w.SetSampleProps(ctx, key, props); err != nil {
						return w.Stats(), err
					}
				}
			}
		}
	}
	if err := w.Flush(ctx); err != nil {
		return w.Stats(), err
	}
	return w.Stats(), nil
}

// scoreProps recomputes a stored sample's metrics from its verdicts (see
// scoreStored).
func scoreProps(t *kg.Task, p *kg.Prediction, v kgstore.Verdicts, proto matcher.Protocol) (map[string]any, bool) {
	it, err := scoreStored(t, p, v, proto)
	if err != nil {
		return nil, false
	}
	return ItemProps(&it), true
}

// ItemProps are the metrics of a scored sample as Sample node properties.
func ItemProps(it *matcher.Item) map[string]any {
	p := map[string]any{
		"protocol": string(it.Protocol), "judge": it.Judge,
		"triplet_precision": it.TripletPrecision, "triplet_recall": it.TripletRecall, "triplet_f1": it.TripletF1,
		"node_precision": it.NodePrecision, "node_recall": it.NodeRecall, "node_f1": it.NodeF1,
		"num_pred_triples":  it.NumPredTriples,
		"unjudged_coverage": it.Unjudged.Coverage, "unjudged_validity": it.Unjudged.Validity,
		"index_problems": len(it.IndexProblems),
	}
	if c := it.Coverage; c != nil {
		p["total_gt_triples"], p["covered_count"] = c.TotalGTTriples, c.CoveredCount
	}
	if v := it.Validity; v != nil {
		p["valid_count"] = v.ValidCount
	}
	if n := it.NodeDetails; n != nil {
		p["total_gt_nodes"], p["recalled_gt_nodes"] = n.TotalGTNodes, n.RecalledGTNodes
		p["total_pred_nodes"], p["precise_pred_nodes"] = n.TotalPredNodes, n.PrecisePredNodes
	}
	return p
}
