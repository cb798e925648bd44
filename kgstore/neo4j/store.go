package neo4j

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	driver "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/kgjudge/kgjudge/internal/redact"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
)

// sep joins the parts of a node key. Ids and run names must not contain it.
const sep = "\x1f"

// modelVersion is part of every content hash: bump it when the graph model
// changes, so that a sync rewrites graphs written by an older kgjudge.
const modelVersion = "kgjudge-neo4j-1"

// Store is the Neo4j kgstore.Store. It is safe for concurrent use.
type Store struct {
	cfg    Config
	ns     string
	driver driver.DriverWithContext

	closeOnce sync.Once
	closeErr  error
}

var _ kgstore.Store = (*Store)(nil)

// Open connects to Neo4j, checks the connection and creates kgjudge's
// constraints and indexes if they are missing.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	auth := driver.NoAuth()
	if cfg.User != "" || cfg.Password != "" {
		user := cfg.User
		if user == "" {
			user = "neo4j"
		}
		auth = driver.BasicAuth(user, cfg.Password, "")
	}
	// A password in the URI (bolt://neo4j:pw@host) or NEO4J_PASSWORD must
	// not reach a message, even one the driver wrote.
	secrets := append(redact.Secrets(cfg.URI), cfg.Password)
	where := redact.URL(cfg.URI)
	d, err := driver.NewDriverWithContext(cfg.URI, auth)
	if err != nil {
		return nil, redact.Error(fmt.Errorf("neo4j %s: %w", where, err), secrets...)
	}
	if err := d.VerifyConnectivity(ctx); err != nil {
		d.Close(ctx)
		return nil, redact.Error(fmt.Errorf("neo4j %s: %w", where, err), secrets...)
	}
	s := &Store{cfg: cfg, ns: cfg.Namespace, driver: d}
	if err := s.ensureSchema(ctx); err != nil {
		d.Close(ctx)
		return nil, err
	}
	return s, nil
}

// Namespace returns the namespace the store reads and writes.
func (s *Store) Namespace() string { return s.ns }

// Close closes the connection pool.
func (s *Store) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.driver.Close(context.Background()) })
	return s.closeErr
}

// schema is created once per database, constraints first (each backs its
// MERGE key with a unique index).
var schema = []string{
	"CREATE CONSTRAINT kgjudge_task_key IF NOT EXISTS FOR (n:Task) REQUIRE n.key IS UNIQUE",
	"CREATE CONSTRAINT kgjudge_run_key IF NOT EXISTS FOR (n:Run) REQUIRE n.key IS UNIQUE",
	"CREATE CONSTRAINT kgjudge_sample_key IF NOT EXISTS FOR (n:Sample) REQUIRE n.key IS UNIQUE",
	"CREATE CONSTRAINT kgjudge_entity_key IF NOT EXISTS FOR (n:Entity) REQUIRE n.key IS UNIQUE",
	"CREATE CONSTRAINT kgjudge_triple_key IF NOT EXISTS FOR (n:Triple) REQUIRE n.key IS UNIQUE",
	"CREATE INDEX kgjudge_task_ns IF NOT EXISTS FOR (n:Task) ON (n.ns)",
	"CREATE INDEX kgjudge_run_ns IF NOT EXISTS FOR (n:Run) ON (n.ns)",
	"CREATE INDEX kgjudge_entity_task IF NOT EXISTS FOR (n:Entity) ON (n.ns, n.task)",
	"CREATE INDEX kgjudge_rel_graph IF NOT EXISTS FOR ()-[r:REL]-() ON (r.graph)",
}

func (s *Store) ensureSchema(ctx context.Context) error {
	// Once per Open: the statements are idempotent (IF NOT EXISTS) and
	// cheap when the schema exists, and no state outlives the Store.
	sess := s.session(ctx, driver.AccessModeWrite)
	defer sess.Close(ctx)
	for _, q := range schema {
		// Schema statements run in auto-commit transactions. Another
		// process may create the same rule at the same moment: retry once.
		var err error
		for try := 0; try < 3; try++ {
			if _, err = sess.Run(ctx, q, nil); err == nil {
				break
			}
			var ne *driver.Neo4jError
			if errors.As(err, &ne) && strings.Contains(ne.Code, "AlreadyExists") {
				err = nil
				break
			}
		}
		if err != nil {
			return fmt.Errorf("neo4j schema: %s: %w", q, err)
		}
	}
	if _, err := sess.Run(ctx, "CALL db.awaitIndexes(300)", nil); err != nil {
		return fmt.Errorf("neo4j schema: await indexes: %w", err)
	}
	return nil
}

func (s *Store) session(ctx context.Context, mode driver.AccessMode) driver.SessionWithContext {
	return s.driver.NewSession(ctx, driver.SessionConfig{AccessMode: mode, DatabaseName: s.cfg.Database})
}

// ---------------------------------------------------------------- keys

func checkID(what, id string) error {
	if strings.Contains(id, sep) {
		return fmt.Errorf("neo4j: %s %q contains U+001F, which the Neo4j store uses in keys", what, id)
	}
	return nil
}

func checkKey(k kgstore.SampleKey) error {
	if err := checkID("run", k.Run); err != nil {
		return err
	}
	return checkID("task id", k.TaskID)
}

func (s *Store) taskKey(id string) string { return s.ns + sep + "T" + sep + id }
func (s *Store) runKey(run string) string { return s.ns + sep + "R" + sep + run }
func (s *Store) entityKey(task, name string) string {
	return s.ns + sep + "E" + sep + task + sep + name
}
func (s *Store) sampleKey(k kgstore.SampleKey) string {
	return s.ns + sep + "S" + sep + k.Run + sep + k.TaskID + sep + strconv.Itoa(k.Sample)
}
func tripleKey(graph string, i int) string { return graph + sep + strconv.Itoa(i) }

// ---------------------------------------------------------------- reads

func (s *Store) read(ctx context.Context, q string, params map[string]any) ([]*driver.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sess := s.session(ctx, driver.AccessModeRead)
	defer sess.Close(ctx)
	recs, err := sess.ExecuteRead(ctx, func(tx driver.ManagedTransaction) (any, error) {
		res, err := tx.Run(ctx, q, params)
		if err != nil {
			return nil, err
		}
		return res.Collect(ctx)
	})
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("neo4j: %w", err)
	}
	return recs.([]*driver.Record), nil
}

// Task implements kgstore.Store.
func (s *Store) Task(ctx context.Context, taskID string) (kg.Task, error) {
	recs, err := s.read(ctx, `
MATCH (t:Task {key: $k}) WHERE t.loaded
RETURN t{.*} AS t,
  [(t)-[r:HAS_NODE]->(e) | [r.pos, r.id, e.name, r.aliases]] AS nodes,
  [(t)-[:HAS_TRIPLE]->(x) | x{.index, .head, .relation, .tail, .head_id, .tail_id, .weight, .stage, .kind}] AS triples`,
		map[string]any{"k": s.taskKey(taskID)})
	if err != nil {
		return kg.Task{}, err
	}
	if len(recs) == 0 {
		return kg.Task{}, fmt.Errorf("task %q: %w", taskID, kgstore.ErrNotFound)
	}
	r := recs[0]
	p := mapOf(r.Values[0])
	t := kg.Task{ID: str(p["id"]), Language: str(p["language"]), Subset: str(p["subset"]), FinalQuery: str(p["final_query"]), Warnings: strs(p["warnings"])}
	nodes := list(r.Values[1])
	if !boolOf(p["nodes_nil"]) {
		t.Nodes = make([]kg.Node, len(nodes))
	}
	for _, n := range nodes {
		v := list(n)
		pos := num(v[0])
		if pos < 0 || pos >= len(t.Nodes) {
			return kg.Task{}, fmt.Errorf("neo4j: task %q: node position %d out of range", taskID, pos)
		}
		t.Nodes[pos] = kg.Node{ID: str(v[1]), Name: str(v[2]), Aliases: strs(v[3])}
	}
	triples := list(r.Values[2])
	if !boolOf(p["triples_nil"]) {
		t.Triples = make([]kg.GTTriple, len(triples))
	}
	for _, x := range triples {
		m := mapOf(x)
		i := num(m["index"])
		if i < 0 || i >= len(t.Triples) {
			return kg.Task{}, fmt.Errorf("neo4j: task %q: triple index %d out of range", taskID, i)
		}
		t.Triples[i] = kg.GTTriple{
			Triple: kg.Triple{Head: str(m["head"]), Relation: str(m["relation"]), Tail: str(m["tail"])},
			HeadID: str(m["head_id"]), TailID: str(m["tail_id"]),
			Weight: float(m["weight"]), Stage: num(m["stage"]), Kind: str(m["kind"]),
		}
	}
	return t, nil
}

// TaskIDs implements kgstore.Store.
func (s *Store) TaskIDs(ctx context.Context) ([]string, error) {
	recs, err := s.read(ctx, `MATCH (t:Task {ns: $ns}) WHERE t.loaded RETURN t.id`, map[string]any{"ns": s.ns})
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range recs {
		ids = append(ids, str(r.Values[0]))
	}
	sort.Strings(ids)
	return ids, nil
}

// Prediction implements kgstore.Store.
func (s *Store) Prediction(ctx context.Context, key kgstore.SampleKey) (kg.Prediction, error) {
	recs, err := s.read(ctx, `
MATCH (s:Sample {key: $k}) WHERE s.predicted
RETURN s{.*} AS s, [(s)-[:HAS_TRIPLE]->(x) | x{.index, .head, .relation, .tail}] AS triples`,
		map[string]any{"k": s.sampleKey(key)})
	if err != nil {
		return kg.Prediction{}, err
	}
	if len(recs) == 0 {
		return kg.Prediction{}, fmt.Errorf("prediction %+v: %w", key, kgstore.ErrNotFound)
	}
	p := mapOf(recs[0].Values[0])
	out := kg.Prediction{
		QID: str(p["qid"]), TaskID: str(p["pred_task_id"]), SampleIdx: num(p["pred_sample_idx"]),
		Report: kg.ParseReport{
			Status: kg.ParseStatus(str(p["parse_status"])), Method: str(p["parse_method"]),
			Triples: num(p["parse_triples"]), Salvaged: num(p["parse_salvaged"]),
			Stringified: num(p["parse_stringified"]), Skipped: num(p["parse_skipped"]), Misaligned: num(p["parse_misaligned"]),
			Notes: strs(p["parse_notes"]),
		},
	}
	triples := list(recs[0].Values[1])
	if !boolOf(p["triples_nil"]) {
		out.Triples = make([]kg.Triple, len(triples))
	}
	for _, x := range triples {
		m := mapOf(x)
		i := num(m["index"])
		if i < 0 || i >= len(out.Triples) {
			return kg.Prediction{}, fmt.Errorf("neo4j: prediction %+v: triple index %d out of range", key, i)
		}
		out.Triples[i] = kg.Triple{Head: str(m["head"]), Relation: str(m["relation"]), Tail: str(m["tail"])}
	}
	return out, nil
}

// Samples implements kgstore.Store.
func (s *Store) Samples(ctx context.Context, run string) ([]kgstore.SampleKey, error) {
	recs, err := s.read(ctx, `
MATCH (:Run {key: $k})<-[:OF_RUN]-(s:Sample) WHERE s.predicted
RETURN s.task, s.sample`, map[string]any{"k": s.runKey(run)})
	if err != nil {
		return nil, err
	}
	var keys []kgstore.SampleKey
	for _, r := range recs {
		keys = append(keys, kgstore.SampleKey{Run: run, TaskID: str(r.Values[0]), Sample: num(r.Values[1])})
	}
	kgstore.SortKeys(keys)
	return keys, nil
}

// Runs implements kgstore.Store.
func (s *Store) Runs(ctx context.Context) ([]string, error) {
	recs, err := s.read(ctx, `
MATCH (r:Run {ns: $ns}) WHERE r.has_info OR EXISTS { (r)<-[:OF_RUN]-(s:Sample) WHERE s.predicted OR s.judged }
RETURN r.name`, map[string]any{"ns": s.ns})
	if err != nil {
		return nil, err
	}
	var runs []string
	for _, r := range recs {
		runs = append(runs, str(r.Values[0]))
	}
	sort.Strings(runs)
	return runs, nil
}

// Verdicts implements kgstore.Store.
func (s *Store) Verdicts(ctx context.Context, key kgstore.SampleKey) (kgstore.Verdicts, error) {
	recs, err := s.read(ctx, `MATCH (s:Sample {key: $k}) WHERE s.judged RETURN s.verdicts`,
		map[string]any{"k": s.sampleKey(key)})
	if err != nil {
		return kgstore.Verdicts{}, err
	}
	if len(recs) == 0 {
		return kgstore.Verdicts{}, fmt.Errorf("verdicts %+v: %w", key, kgstore.ErrNotFound)
	}
	rec, err := decodeVerdicts(str(recs[0].Values[0]))
	if err != nil {
		return kgstore.Verdicts{}, fmt.Errorf("neo4j: verdicts %+v: %w", key, err)
	}
	return kgstore.Verdicts{Key: key, Coverage: rec.Coverage, Validity: rec.Validity}, nil
}

// Neighbors implements kgstore.Store.
func (s *Store) Neighbors(ctx context.Context, key kgstore.SampleKey, name string) ([]kgstore.Edge, error) {
	recs, err := s.read(ctx, `
MATCH (s:Sample {key: $k}) WHERE s.predicted
OPTIONAL MATCH (s)-[:HAS_TRIPLE]->(x)-[:HEAD|TAIL]->(:Entity {key: $e})
RETURN s.key, collect(DISTINCT x{.index, .head, .relation, .tail})`,
		map[string]any{"k": s.sampleKey(key), "e": s.entityKey(key.TaskID, name)})
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("prediction %+v: %w", key, kgstore.ErrNotFound)
	}
	var edges []kgstore.Edge
	for _, x := range list(recs[0].Values[1]) {
		m := mapOf(x)
		edges = append(edges, kgstore.Edge{Index: num(m["index"]), Triple: kg.Triple{Head: str(m["head"]), Relation: str(m["relation"]), Tail: str(m["tail"])}})
	}
	sort.Slice(edges, func(i, j int) bool { return edges[i].Index < edges[j].Index })
	return edges, nil
}

// ---------------------------------------------------------------- values

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) int {
	switch n := v.(type) {
	case int64:
		return int(n)
	case float64:
		return int(n)
	}
	return 0
}

func float(v any) float64 {
	switch n := v.(type) {
	case int64:
		return float64(n)
	case float64:
		return n
	}
	return 0
}

func boolOf(v any) bool {
	b, _ := v.(bool)
	return b
}

// strs reads a string list property: absent (nil) stays nil, an empty list
// is an empty slice.
func strs(v any) []string {
	if v == nil {
		return nil
	}
	l := list(v)
	out := make([]string, len(l))
	for i, x := range l {
		out[i] = str(x)
	}
	return out
}
