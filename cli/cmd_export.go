package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/neo4j"
	"github.com/kgjudge/kgjudge/matcher"
)

type exportOptions struct {
	Store    string
	Protocol string
	Neo4j    neo4jOptions
}

func exportCommand() *ucli.Command {
	var o exportOptions
	return &ucli.Command{
		Name:      "export",
		Usage:     "push an embedded store (all tasks, runs, samples, verdicts) to another store",
		UsageText: "kgjudge export neo4j [--store DIR] [--protocol paper|code] [--neo4j-uri URI] ...",
		Action: func(c *ucli.Context) error {
			return userErrorf("export needs a target: kgjudge export neo4j (got %q)", c.Args().Slice())
		},
		Subcommands: []*ucli.Command{{
			Name:      "neo4j",
			Usage:     "push an embedded store (all tasks, runs, samples, verdicts) to Neo4j",
			UsageText: "kgjudge export neo4j [--store DIR] [--protocol paper|code] [--neo4j-uri URI] ...",
			Description: `Copies everything in the embedded store (--store) into Neo4j: every task, every run's
predicted samples and their verdicts, with each sample's metrics (computed from the stored
verdicts under --protocol; samples judged without a validity pass fall back to code).
Idempotent: graphs already in Neo4j with the same content are skipped, so exporting twice
changes nothing. Verdict sets of samples that have no stored prediction cannot be listed
through the store and are not exported.

EXAMPLES:
   export NEO4J_URI="$(scripts/neo4j.sh start)"
   kgjudge export neo4j --store .kgjudge`,
			Flags: append([]ucli.Flag{
				&ucli.StringFlag{Name: "store", Usage: "embedded store directory", Value: ".kgjudge", Destination: &o.Store, EnvVars: []string{"KGJUDGE_STORE"}},
				&ucli.StringFlag{Name: "protocol", Usage: "paper | code, for the metrics written on samples", Value: string(matcher.ProtocolPaper), Destination: &o.Protocol, EnvVars: []string{"KGJUDGE_PROTOCOL"}},
			}, neo4jFlags(&o.Neo4j)...),
			Action: func(c *ucli.Context) error {
				if c.NArg() > 0 {
					return userErrorf("export neo4j takes no arguments (got %q)", c.Args().Slice())
				}
				_, err := runExport(c.Context, o, c.App.Writer, c.App.ErrWriter)
				return err
			},
		}},
	}
}

func runExport(ctx context.Context, o exportOptions, stdout, stderr io.Writer) (neo4j.Stats, error) {
	proto, err := matcher.ParseProtocol(o.Protocol)
	if err != nil {
		return neo4j.Stats{}, &UserError{Err: fmt.Errorf("--protocol: %w", err)}
	}
	if o.Store == ":memory:" {
		return neo4j.Stats{}, userErrorf("--store: an in-memory store is empty; export needs a store directory")
	}
	src, err := openStore(ctx, o.Store)
	if err != nil {
		return neo4j.Stats{}, err
	}
	defer src.Close()
	dst, err := openNeo4j(ctx, o.Neo4j)
	if err != nil {
		return neo4j.Stats{}, err
	}
	defer dst.Close()
	w := dst.NewWriter()
	st, err := exportStore(ctx, src, w, proto)
	if err != nil {
		return st, err
	}
	fmt.Fprintf(stdout, "exported to %s (namespace %q): %d tasks, %d predictions, %d verdict sets, %d triples written, %d graphs unchanged, %d transactions\n",
		o.Neo4j.config().URI, dst.Namespace(), st.Tasks, st.Predictions, st.VerdictSets, st.Triples, st.Unchanged, st.Transactions)
	return st, nil
}

// exportStore copies every task, and every run's samples with their verdicts
// and metrics, from src into w.
func exportStore(ctx context.Context, src kgstore.Store, w *neo4j.Writer, proto matcher.Protocol) (neo4j.Stats, error) {
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

// scoreProps recomputes a stored sample's metrics from its verdicts; the
// code protocol is used when there is no validity pass.
func scoreProps(t *kg.Task, p *kg.Prediction, v kgstore.Verdicts, proto matcher.Protocol) (map[string]any, bool) {
	judge := ""
	for _, c := range v.Coverage {
		if c.Judge != "" {
			judge = c.Judge
			break
		}
	}
	if proto == matcher.ProtocolPaper && v.Validity == nil {
		proto = matcher.ProtocolCode
	}
	it, err := matcher.Score(t, p, matcher.Judgement{Judge: judge, Coverage: v.Coverage, Validity: v.Validity}, proto)
	if err != nil {
		return nil, false
	}
	return itemProps(&it), true
}

// itemProps are the metrics of a scored sample as Sample node properties.
func itemProps(it *matcher.Item) map[string]any {
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

// scoreNeo4jFlags are score's --neo4j flag and the connection flags.
func scoreNeo4jFlags(on *bool, o *neo4jOptions) []ucli.Flag {
	return append([]ucli.Flag{
		&ucli.BoolFlag{Name: "neo4j", Category: "Neo4j", Usage: "also sync tasks, predictions, verdicts and metrics to Neo4j as they are produced", Destination: on},
	}, neo4jFlags(o)...)
}

// syncStore is a kgstore.Store that also writes everything to Neo4j, in
// batches, as it is produced (kgjudge score --neo4j). Reads come from the
// primary store. Close flushes the batches.
type syncStore struct {
	kgstore.Store
	neo *neo4j.Store
	w   *neo4j.Writer
}

// withNeo4j wraps primary so that writes are synced to Neo4j when on is set.
func withNeo4j(ctx context.Context, primary kgstore.Store, on bool, o neo4jOptions) (kgstore.Store, error) {
	if !on {
		return primary, nil
	}
	neo, err := openNeo4j(ctx, o)
	if err != nil {
		primary.Close()
		return nil, err
	}
	return &syncStore{Store: primary, neo: neo, w: neo.NewWriter()}, nil
}

func (s *syncStore) PutTask(ctx context.Context, t kg.Task) error {
	if err := s.Store.PutTask(ctx, t); err != nil {
		return err
	}
	return s.w.PutTask(ctx, t)
}

func (s *syncStore) PutPrediction(ctx context.Context, key kgstore.SampleKey, p kg.Prediction) error {
	if err := s.Store.PutPrediction(ctx, key, p); err != nil {
		return err
	}
	return s.w.PutPrediction(ctx, key, p)
}

func (s *syncStore) PutVerdicts(ctx context.Context, v kgstore.Verdicts) error {
	if err := s.Store.PutVerdicts(ctx, v); err != nil {
		return err
	}
	return s.w.PutVerdicts(ctx, v)
}

// Flush commits what is buffered for Neo4j.
func (s *syncStore) Flush(ctx context.Context) error { return s.w.Flush(ctx) }

func (s *syncStore) Close() error {
	err := s.w.Flush(context.Background())
	if cerr := s.neo.Close(); err == nil {
		err = cerr
	}
	if cerr := s.Store.Close(); err == nil {
		err = cerr
	}
	return err
}

// recordItem writes a scored sample's metrics to Neo4j when store syncs
// there; otherwise it does nothing.
func recordItem(ctx context.Context, store kgstore.Store, key kgstore.SampleKey, it *matcher.Item) error {
	s, ok := store.(*syncStore)
	if !ok {
		return nil
	}
	return s.w.SetSampleProps(ctx, key, itemProps(it))
}

// flushStore commits what a syncing store buffered, so that errors surface
// before the command reports success.
func flushStore(ctx context.Context, store kgstore.Store) error {
	if s, ok := store.(*syncStore); ok {
		return s.Flush(ctx)
	}
	return nil
}
