package cli

import (
	"context"
	"fmt"
	"io"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/kgstore/neo4j"
	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/runs"
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
			return usageError("kgjudge export", "export needs a target: kgjudge export neo4j (got %q)", c.Args().Slice())
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
	st, err := runs.Export(ctx, src, w, proto)
	if err != nil {
		return st, err
	}
	fmt.Fprintf(stdout, "exported to %s (namespace %q): %d tasks, %d predictions, %d verdict sets, %d triples written, %d graphs unchanged, %d transactions\n",
		o.Neo4j.config().URI, dst.Namespace(), st.Tasks, st.Predictions, st.VerdictSets, st.Triples, st.Unchanged, st.Transactions)
	return st, nil
}

// scoreNeo4jFlags are score's --neo4j flag and the connection flags.
func scoreNeo4jFlags(on *bool, o *neo4jOptions) []ucli.Flag {
	return append([]ucli.Flag{
		&ucli.BoolFlag{Name: "neo4j", Category: "Neo4j", Usage: "also sync tasks, predictions, verdicts and metrics to Neo4j as they are produced", Destination: on},
	}, neo4jFlags(o)...)
}

// neoSync is score's and import's --neo4j: a Neo4j connection and the writer
// that the run syncs to. A nil *neoSync means no sync.
type neoSync struct {
	store *neo4j.Store
	w     *neo4j.Writer
}

// openSync connects to Neo4j when on is set, and returns nil otherwise.
func openSync(ctx context.Context, on bool, o neo4jOptions) (*neoSync, error) {
	if !on {
		return nil, nil
	}
	s, err := openNeo4j(ctx, o)
	if err != nil {
		return nil, err
	}
	return &neoSync{store: s, w: s.NewWriter()}, nil
}

func (n *neoSync) writer() *neo4j.Writer {
	if n == nil {
		return nil
	}
	return n.w
}

// Close flushes what the run left buffered and disconnects.
func (n *neoSync) Close() error {
	if n == nil {
		return nil
	}
	err := n.w.Flush(context.Background())
	if cerr := n.store.Close(); err == nil {
		err = cerr
	}
	return err
}
