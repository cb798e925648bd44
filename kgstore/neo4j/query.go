package neo4j

import (
	"context"
	"fmt"
	"sort"
	"time"

	driver "github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"
)

// Result is the outcome of a Cypher query: column names and rows of plain
// Go values (see Plain).
type Result struct {
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
}

// Query runs an analyst's Cypher query in a read transaction (write: in a
// write transaction). The parameter ns is bound to the store's namespace
// unless params sets it, so queries can scope themselves with {ns: $ns}.
func (s *Store) Query(ctx context.Context, cypher string, params map[string]any, write bool) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := map[string]any{"ns": s.ns}
	for k, v := range params {
		p[k] = v
	}
	mode := driver.AccessModeRead
	if write {
		mode = driver.AccessModeWrite
	}
	sess := s.session(ctx, mode)
	defer sess.Close(ctx)
	work := func(tx driver.ManagedTransaction) (any, error) {
		res, err := tx.Run(ctx, cypher, p)
		if err != nil {
			return nil, err
		}
		recs, err := res.Collect(ctx)
		if err != nil {
			return nil, err
		}
		keys, err := res.Keys()
		if err != nil {
			return nil, err
		}
		out := &Result{Columns: keys, Rows: [][]any{}}
		for _, r := range recs {
			row := make([]any, len(r.Values))
			for i, v := range r.Values {
				row[i] = Plain(v)
			}
			out.Rows = append(out.Rows, row)
		}
		return out, nil
	}
	var res any
	var err error
	if write {
		res, err = sess.ExecuteWrite(ctx, work)
	} else {
		res, err = sess.ExecuteRead(ctx, work)
	}
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	return res.(*Result), nil
}

// Plain turns a value returned by the driver into plain Go values that
// encoding/json can write: nodes become {"_labels": [...], props...},
// relationships {"_type": T, props...}, paths {"nodes": [...],
// "relationships": [...]}, temporal and spatial values their string form.
func Plain(v any) any {
	switch x := v.(type) {
	case nil, bool, int64, float64, string:
		return x
	case []byte:
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Plain(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Plain(e)
		}
		return out
	case dbtype.Node:
		out := make(map[string]any, len(x.Props)+1)
		for k, e := range x.Props {
			out[k] = Plain(e)
		}
		labels := append([]string(nil), x.Labels...)
		sort.Strings(labels)
		out["_labels"] = labels
		return out
	case dbtype.Relationship:
		out := make(map[string]any, len(x.Props)+1)
		for k, e := range x.Props {
			out[k] = Plain(e)
		}
		out["_type"] = x.Type
		return out
	case dbtype.Path:
		nodes := make([]any, len(x.Nodes))
		for i, n := range x.Nodes {
			nodes[i] = Plain(n)
		}
		rels := make([]any, len(x.Relationships))
		for i, r := range x.Relationships {
			rels[i] = Plain(r)
		}
		return map[string]any{"nodes": nodes, "relationships": rels}
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}

// DropNamespace deletes every node of the store's namespace (and their
// relationships) in batches small enough for the server's transaction
// memory: relationships first (a hub entity or a GT triple judged by many
// samples has thousands), then triples, then the other nodes. Other
// namespaces are untouched.
func (s *Store) DropNamespace(ctx context.Context) error {
	sess := s.session(ctx, driver.AccessModeWrite)
	defer sess.Close(ctx)
	for _, q := range []string{
		"MATCH (:Sample {ns: $ns})-[j:JUDGED]->() CALL { WITH j DELETE j } IN TRANSACTIONS OF 10000 ROWS",
		"MATCH (:Entity {ns: $ns})-[r:REL]->() CALL { WITH r DELETE r } IN TRANSACTIONS OF 10000 ROWS",
		"MATCH (:Sample {ns: $ns})-[:HAS_TRIPLE]->(x) CALL { WITH x DETACH DELETE x } IN TRANSACTIONS OF 1000 ROWS",
		"MATCH (:Task {ns: $ns})-[:HAS_TRIPLE]->(x) CALL { WITH x DETACH DELETE x } IN TRANSACTIONS OF 1000 ROWS",
		"MATCH (n:Sample {ns: $ns}) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 2000 ROWS",
		"MATCH (n:Task {ns: $ns}) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS",
		"MATCH (n:Run {ns: $ns}) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS",
		"MATCH (n:Entity {ns: $ns}) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS",
	} {
		if _, err := s.runAuto(ctx, sess, q); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) runAuto(ctx context.Context, sess driver.SessionWithContext, q string) (any, error) {
	res, err := sess.Run(ctx, q, map[string]any{"ns": s.ns})
	if err != nil {
		return nil, fmt.Errorf("neo4j: %w", err)
	}
	if _, err := res.Consume(ctx); err != nil {
		return nil, fmt.Errorf("neo4j: %w", err)
	}
	return nil, nil
}
