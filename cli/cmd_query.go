package cli

import (
	"github.com/kgjudge/kgjudge/hierarchy"

	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/kgstore/neo4j"
)

// neo4jOptions are the connection flags every Neo4j-speaking command takes.
// Empty fields fall back to the environment (NEO4J_URI, NEO4J_USER,
// NEO4J_PASSWORD, NEO4J_DATABASE, KGJUDGE_NEO4J_NAMESPACE).
type neo4jOptions struct {
	URI, User, Password, Database, Namespace string
}

func neo4jFlags(o *neo4jOptions) []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "neo4j-uri", Category: "Neo4j", Usage: "Neo4j Bolt URI", Destination: &o.URI, EnvVars: []string{neo4j.EnvURI}},
		&ucli.StringFlag{Name: "neo4j-user", Category: "Neo4j", Usage: "Neo4j user (empty with no password: no auth)", Destination: &o.User, EnvVars: []string{neo4j.EnvUser}},
		&ucli.StringFlag{Name: "neo4j-password", Category: "Neo4j", Usage: "Neo4j password", Destination: &o.Password, EnvVars: []string{neo4j.EnvPassword}},
		&ucli.StringFlag{Name: "neo4j-database", Category: "Neo4j", Usage: "Neo4j database (default: the server's)", Destination: &o.Database, EnvVars: []string{neo4j.EnvDatabase}},
		&ucli.StringFlag{Name: "neo4j-namespace", Category: "Neo4j", Usage: "dataset namespace inside the database (property ns)", Value: neo4j.DefaultNamespace, Destination: &o.Namespace, EnvVars: []string{neo4j.EnvNamespace}},
	}
}

func (o neo4jOptions) config() neo4j.Config {
	c := neo4j.ConfigFromEnv()
	for _, f := range []struct {
		dst *string
		v   string
	}{
		{&c.URI, o.URI}, {&c.User, o.User}, {&c.Password, o.Password}, {&c.Database, o.Database}, {&c.Namespace, o.Namespace},
	} {
		if f.v != "" {
			*f.dst = f.v
		}
	}
	// The store writes the class of every triple: the hierarchy analyzer
	// is the one in use.
	c.Classes = hierarchy.GraphClassifier{}
	return c
}

// openNeo4j connects; a missing URI is the user's to fix.
func openNeo4j(ctx context.Context, o neo4jOptions) (*neo4j.Store, error) {
	cfg := o.config()
	if cfg.URI == "" {
		return nil, userErrorf("no Neo4j server: pass --neo4j-uri or set %s (scripts/neo4j.sh start prints one)", neo4j.EnvURI)
	}
	s, err := neo4j.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return s, nil
}

type queryOptions struct {
	Cypher string
	File   string
	Params []string // k=v
	Format string
	Write  bool
	Neo4j  neo4jOptions
}

// paramList is a repeatable flag whose values may hold commas.
type paramList struct{ vals *[]string }

func (p paramList) Set(v string) error { *p.vals = append(*p.vals, v); return nil }
func (p paramList) String() string {
	if p.vals == nil {
		return ""
	}
	return strings.Join(*p.vals, " ")
}

func queryCommand() *ucli.Command {
	var o queryOptions
	return &ucli.Command{
		Name:      "query",
		Usage:     "run a Cypher query against the Neo4j store and print the rows",
		UsageText: `kgjudge query --cypher 'MATCH ... RETURN ...' [--param k=v ...] [--format table|json|csv]`,
		Description: `Runs one Cypher query (read-only unless --write) on the Neo4j store that kgjudge score --neo4j,
kgjudge export neo4j or kgjudge import --neo4j filled. $ns is bound to the namespace
(--neo4j-namespace) unless --param ns=... is given: anchor queries with {ns: $ns}.
Quote the query with single quotes in a shell, or $ns is expanded away before kgjudge sees it.
Parameter values are JSON when they parse as JSON (numbers, true, ["a","b"], "quoted"),
otherwise plain strings. The graph model is in docs/neo4j.md; analyst questions with their
Cypher are in docs/cypher.md, and as files under docs/cypher/ (run them with --file).

EXAMPLES:
   kgjudge query --cypher 'MATCH (r:Run {ns: $ns}) RETURN r.name, r.model'
   kgjudge query --file docs/cypher/coverage_by_model.cypher --format csv
   kgjudge query --file docs/cypher/uncovered_gt_by_relation.cypher --param run=opus --format json`,
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "cypher", Usage: "the Cypher query", Destination: &o.Cypher},
			&ucli.StringFlag{Name: "file", Usage: "read the query from a file", Destination: &o.File},
			&ucli.GenericFlag{Name: "param", Usage: "query parameter k=v (repeatable)", Value: paramList{&o.Params}},
			&ucli.StringFlag{Name: "format", Usage: "table | json | csv", Value: "table", Destination: &o.Format},
			&ucli.BoolFlag{Name: "write", Usage: "run in a write transaction", Destination: &o.Write},
		}, neo4jFlags(&o.Neo4j)...),
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageError("kgjudge query", "query takes no arguments (got %q); use --cypher or --file", c.Args().Slice())
			}
			return runQuery(c.Context, o, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// parseParams turns k=v pairs into query parameters.
func parseParams(kvs []string) (map[string]any, error) {
	out := map[string]any{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, userErrorf("--param %q: want name=value", kv)
		}
		var x any
		dec := json.NewDecoder(strings.NewReader(v))
		dec.UseNumber()
		if err := dec.Decode(&x); err == nil && !dec.More() {
			out[k] = fromJSON(x)
		} else {
			out[k] = v
		}
	}
	return out, nil
}

// fromJSON converts json.Number to int64 or float64, recursively.
func fromJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = fromJSON(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = fromJSON(x[k])
		}
	}
	return v
}

func validateQueryArgs(o *queryOptions) (map[string]any, error) {
	switch o.Format {
	case "table", "json", "csv":
	default:
		return nil, userErrorf("--format: unknown format %q (want table, json or csv)", o.Format)
	}
	if (o.Cypher == "") == (o.File == "") {
		return nil, userErrorf("give exactly one of --cypher and --file")
	}
	if o.File != "" {
		b, err := os.ReadFile(o.File)
		if err != nil {
			return nil, userErrorf("--file: %w", err)
		}
		o.Cypher = string(b)
	}
	return parseParams(o.Params)
}

func runQuery(ctx context.Context, o queryOptions, stdout, stderr io.Writer) error {
	params, err := validateQueryArgs(&o)
	if err != nil {
		return err
	}
	s, err := openNeo4j(ctx, o.Neo4j)
	if err != nil {
		return err
	}
	defer s.Close()
	res, err := s.Query(ctx, o.Cypher, params, o.Write)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		// A syntax error, an unknown parameter: the query is the user's.
		return &UserError{Err: fmt.Errorf("query: %w", err)}
	}
	return writeResult(stdout, res, o.Format)
}

// cell renders a value for table and CSV output: strings as they are,
// everything else as JSON.
func cell(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func writeResult(w io.Writer, res *neo4j.Result, format string) error {
	switch format {
	case "json":
		// An array of objects, keys in column order.
		var buf bytes.Buffer
		buf.WriteString("[")
		for i, row := range res.Rows {
			if i > 0 {
				buf.WriteString(",")
			}
			buf.WriteString("\n  {")
			for j, col := range res.Columns {
				if j > 0 {
					buf.WriteString(", ")
				}
				k, _ := json.Marshal(col)
				v, err := json.Marshal(row[j]) // maps: keys sorted by encoding/json
				if err != nil {
					return err
				}
				buf.Write(k)
				buf.WriteString(": ")
				buf.Write(v)
			}
			buf.WriteString("}")
		}
		if len(res.Rows) > 0 {
			buf.WriteString("\n")
		}
		buf.WriteString("]\n")
		_, err := w.Write(buf.Bytes())
		return err
	case "csv":
		cw := csv.NewWriter(w)
		if err := cw.Write(res.Columns); err != nil {
			return err
		}
		for _, row := range res.Rows {
			rec := make([]string, len(row))
			for i, v := range row {
				// null is an empty field, as spreadsheets and CSV readers expect.
				if v != nil {
					rec[i] = cell(v)
				}
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	default:
		// Display width, not tabwriter's rune count: CJK cells line up.
		tb := &table{left: true}
		tb.add(res.Columns...)
		for _, row := range res.Rows {
			cells := make([]string, len(row))
			for i, v := range row {
				cells[i] = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(cell(v))
			}
			tb.add(cells...)
		}
		tb.write(w)
		_, err := fmt.Fprintf(w, "(%d rows)\n", len(res.Rows))
		return err
	}
}
