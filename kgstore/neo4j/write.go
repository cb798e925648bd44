package neo4j

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	driver "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
)

// Writer buffers graphs and commits them in large transactions of about
// Config.BatchRows rows each (triples, task nodes, verdicts), with UNWIND
// statements. A graph is never split across transactions, and a batch is cut
// where the task changes when it can. Up to Config.Parallel transactions run
// at once, but never two that touch the same task (a task's graphs, entities
// and samples), so a task's writes apply in the order they were made. Writes are
// idempotent: every task, prediction and verdict set carries a content hash,
// and one whose hash is unchanged is skipped, so syncing twice changes
// nothing. A Writer is safe for concurrent use; call Flush (or Close) to
// commit what is buffered.
type Writer struct {
	s *Store

	mu      sync.Mutex // guards pending and rows
	pending []*unit
	rows    int

	fl       sync.Mutex // guards the commits in flight and their outcome
	cond     *sync.Cond
	inflight []*flight // transactions in flight
	err      error     // the first failed commit: the Writer is broken
	stats    Stats
}

// Stats counts what a Writer committed.
type Stats struct {
	Tasks, Predictions, VerdictSets int // graphs written (changed or new)
	Unchanged                       int // graphs skipped: same content already stored
	Triples                         int // triples written (GT and predicted)
	Transactions                    int
}

// NewWriter returns a buffering writer on s.
func (s *Store) NewWriter() *Writer {
	w := &Writer{s: s}
	w.cond = sync.NewCond(&w.fl)
	return w
}

// flight is a transaction in flight and the tasks it writes.
type flight struct{ tasks map[string]bool }

// taskOf is the task a unit writes under ("" for run properties, which touch
// only the run node).
func taskOf(u *unit) string {
	switch u.kind {
	case kindTask, kindTaskProps:
		return u.id
	case kindRunProps:
		return ""
	}
	return u.sk.TaskID
}

type unitKind int

const (
	kindTask unitKind = iota
	kindPred
	kindVerdicts
	kindSampleProps
	kindRunProps
	kindTaskProps
)

type unit struct {
	kind  unitKind
	key   string // node key: task, sample or run
	id    string // task id (task units), run name (run props)
	sk    kgstore.SampleKey
	task  *kg.Task
	pred  *kg.Prediction
	verd  *verdictsRec
	props map[string]any
	hash  string
	rows  int
}

// verdictsRec is how a verdict set is kept on its Sample node (property
// verdicts, JSON): both lists without omitempty, so nil and empty survive.
type verdictsRec struct {
	Coverage []kg.Verdict  `json:"coverage"`
	Validity []kg.Validity `json:"validity"`
}

func decodeVerdicts(s string) (verdictsRec, error) {
	var r verdictsRec
	err := json.Unmarshal([]byte(s), &r)
	return r, err
}

func hashOf(parts ...string) string {
	h := sha256.New()
	h.Write([]byte(modelVersion))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// PutTask buffers a task.
func (w *Writer) PutTask(ctx context.Context, t kg.Task) error {
	u, err := w.s.taskUnit(t)
	if err != nil {
		return err
	}
	return w.add(ctx, u)
}

// PutPrediction buffers a predicted graph.
func (w *Writer) PutPrediction(ctx context.Context, key kgstore.SampleKey, p kg.Prediction) error {
	u, err := w.s.predUnit(key, p)
	if err != nil {
		return err
	}
	return w.add(ctx, u)
}

// PutVerdicts buffers a verdict set.
func (w *Writer) PutVerdicts(ctx context.Context, v kgstore.Verdicts) error {
	u, err := w.s.verdictUnit(v)
	if err != nil {
		return err
	}
	return w.add(ctx, u)
}

// reserved are the properties the store manages; SetXProps refuses them.
var reserved = map[string]bool{
	"key": true, "ns": true, "id": true, "name": true, "run": true, "task": true, "sample": true,
	"loaded": true, "predicted": true, "judged": true, "hash": true, "hash_pred": true, "hash_verdicts": true,
	"verdicts": true, "nodes_nil": true, "triples_nil": true, "has_info": true,
}

func checkProps(props map[string]any) error {
	for k := range props {
		if reserved[k] {
			return fmt.Errorf("neo4j: property %q is managed by the store", k)
		}
	}
	return nil
}

// SetSampleProps buffers properties for a sample's node (metrics, for
// instance); they are merged into what is there. A nil value removes a
// property.
func (w *Writer) SetSampleProps(ctx context.Context, key kgstore.SampleKey, props map[string]any) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := checkProps(props); err != nil {
		return err
	}
	return w.add(ctx, &unit{kind: kindSampleProps, key: w.s.sampleKey(key), sk: key, props: props, rows: 1})
}

// SetRunProps buffers properties for a run's node (model, framework, ...).
func (w *Writer) SetRunProps(ctx context.Context, run string, props map[string]any) error {
	if err := checkID("run", run); err != nil {
		return err
	}
	if err := checkProps(props); err != nil {
		return err
	}
	return w.add(ctx, &unit{kind: kindRunProps, key: w.s.runKey(run), id: run, props: props, rows: 1})
}

// SetTaskProps buffers properties for a task's node (subset, domain, ...).
func (w *Writer) SetTaskProps(ctx context.Context, taskID string, props map[string]any) error {
	if err := checkID("task id", taskID); err != nil {
		return err
	}
	if err := checkProps(props); err != nil {
		return err
	}
	return w.add(ctx, &unit{kind: kindTaskProps, key: w.s.taskKey(taskID), id: taskID, props: props, rows: 1})
}

func (w *Writer) add(ctx context.Context, u *unit) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, u)
	w.rows += u.rows
	if w.rows < w.s.cfg.BatchRows {
		return nil
	}
	// Keep the last task's units back unless they alone fill a batch: more
	// of them may follow, and a batch that ends where a task ends can be
	// written next to the following one.
	cut, tail := len(w.pending), 0
	last := taskOf(u)
	for cut > 0 && taskOf(w.pending[cut-1]) == last {
		cut--
		tail += w.pending[cut].rows
	}
	if cut == 0 || tail >= w.s.cfg.BatchRows {
		cut, tail = len(w.pending), 0
	}
	batch := w.pending[:cut:cut]
	w.pending = append([]*unit(nil), w.pending[cut:]...)
	w.rows = tail
	return w.dispatch(ctx, batch)
}

// Flush commits everything buffered and waits for every transaction in
// flight. It returns the first error of any commit.
func (w *Writer) Flush(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w.mu.Lock()
	for len(w.pending) > 0 {
		n, rows := 0, 0
		for n < len(w.pending) && (n == 0 || rows+w.pending[n].rows <= w.s.cfg.BatchRows) {
			rows += w.pending[n].rows
			n++
		}
		batch := w.pending[:n:n]
		w.pending = w.pending[n:]
		w.rows -= rows
		if err := w.dispatch(ctx, batch); err != nil {
			w.pending, w.rows = nil, 0
			w.mu.Unlock()
			return err
		}
	}
	w.pending = nil
	w.mu.Unlock()
	w.fl.Lock()
	defer w.fl.Unlock()
	for len(w.inflight) > 0 {
		w.cond.Wait()
	}
	return w.err
}

// Stats returns what was committed so far.
func (w *Writer) Stats() Stats {
	w.fl.Lock()
	defer w.fl.Unlock()
	return w.stats
}

// dispatch starts a transaction for units once a slot is free and no
// transaction in flight shares a task with it.
func (w *Writer) dispatch(ctx context.Context, units []*unit) error {
	f := &flight{tasks: map[string]bool{}}
	for _, u := range units {
		f.tasks[taskOf(u)] = true
	}
	conflict := func() bool {
		for _, other := range w.inflight {
			for t := range f.tasks {
				if other.tasks[t] {
					return true
				}
			}
		}
		return false
	}
	w.fl.Lock()
	for w.err == nil && (len(w.inflight) >= w.s.cfg.Parallel || conflict()) {
		w.cond.Wait()
	}
	if w.err != nil {
		err := w.err
		w.fl.Unlock()
		return err
	}
	w.inflight = append(w.inflight, f)
	w.fl.Unlock()
	go func() {
		st, err := w.s.writeTx(ctx, units)
		w.fl.Lock()
		defer w.fl.Unlock()
		for i, other := range w.inflight {
			if other == f {
				w.inflight = append(w.inflight[:i], w.inflight[i+1:]...)
				break
			}
		}
		if err != nil {
			if w.err == nil {
				w.err = err
			}
		} else {
			w.stats.Tasks += st.Tasks
			w.stats.Predictions += st.Predictions
			w.stats.VerdictSets += st.VerdictSets
			w.stats.Unchanged += st.Unchanged
			w.stats.Triples += st.Triples
			w.stats.Transactions += st.Transactions
		}
		w.cond.Broadcast()
	}()
	return nil
}

// ---------------------------------------------------------------- Store puts

// PutTask implements kgstore.Store: one transaction.
func (s *Store) PutTask(ctx context.Context, t kg.Task) error {
	u, err := s.taskUnit(t)
	if err != nil {
		return err
	}
	_, err = s.writeTx(ctx, []*unit{u})
	return err
}

// PutPrediction implements kgstore.Store: one transaction.
func (s *Store) PutPrediction(ctx context.Context, key kgstore.SampleKey, p kg.Prediction) error {
	u, err := s.predUnit(key, p)
	if err != nil {
		return err
	}
	_, err = s.writeTx(ctx, []*unit{u})
	return err
}

// PutVerdicts implements kgstore.Store: one transaction.
func (s *Store) PutVerdicts(ctx context.Context, v kgstore.Verdicts) error {
	u, err := s.verdictUnit(v)
	if err != nil {
		return err
	}
	_, err = s.writeTx(ctx, []*unit{u})
	return err
}

func (s *Store) taskUnit(t kg.Task) (*unit, error) {
	if err := checkID("task id", t.ID); err != nil {
		return nil, err
	}
	t.Source = ""
	return &unit{kind: kindTask, key: s.taskKey(t.ID), id: t.ID, task: &t,
		hash: hashOf(fmt.Sprintf("%#v", t) + s.classVersion()), rows: 1 + len(t.Triples) + len(t.Nodes)}, nil
}

func (s *Store) predUnit(key kgstore.SampleKey, p kg.Prediction) (*unit, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	p.Source = ""
	return &unit{kind: kindPred, key: s.sampleKey(key), sk: key, pred: &p,
		hash: hashOf(fmt.Sprintf("%#v", p) + s.classVersion()), rows: 1 + len(p.Triples)}, nil
}

func (s *Store) verdictUnit(v kgstore.Verdicts) (*unit, error) {
	if err := checkKey(v.Key); err != nil {
		return nil, err
	}
	rec := &verdictsRec{Coverage: v.Coverage, Validity: v.Validity}
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("neo4j: encode verdicts: %w", err)
	}
	return &unit{kind: kindVerdicts, key: s.sampleKey(v.Key), sk: v.Key, verd: rec,
		props: map[string]any{"verdicts": string(b)},
		hash:  hashOf(string(b)), rows: 1 + len(v.Coverage) + len(v.Validity)}, nil
}

// ---------------------------------------------------------------- the transaction

// txRunner runs statements of one transaction, skipping empty row lists.
type txRunner struct {
	ctx   context.Context
	tx    driver.ManagedTransaction
	trace bool
}

func (r txRunner) exec(q string, params map[string]any) error {
	start := time.Now()
	res, err := r.tx.Run(r.ctx, q, params)
	if err != nil {
		return err
	}
	_, err = res.Consume(r.ctx)
	if r.trace {
		n := 0
		if rows, ok := params["rows"].([]map[string]any); ok {
			n = len(rows)
		} else if keys, ok := params["keys"].([]string); ok {
			n = len(keys)
		}
		fmt.Fprintf(os.Stderr, "neo4j: %6d rows %8.3fs %s\n", n, time.Since(start).Seconds(), short(strings.Join(strings.Fields(q), " ")))
	}
	return err
}

func short(s string) string {
	if len(s) > 70 {
		return s[:70]
	}
	return s
}

func (r txRunner) rows(q string, rows []map[string]any) error {
	if len(rows) == 0 {
		return nil
	}
	return r.exec(q, map[string]any{"rows": rows})
}

func (r txRunner) keys(q string, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	return r.exec(q, map[string]any{"keys": keys})
}

func (r txRunner) collect(q string, params map[string]any) ([]*driver.Record, error) {
	res, err := r.tx.Run(r.ctx, q, params)
	if err != nil {
		return nil, err
	}
	return res.Collect(r.ctx)
}

// dedupe keeps the last unit per (kind, key); property units are merged in
// order.
func dedupe(units []*unit) []*unit {
	type k struct {
		kind unitKind
		key  string
	}
	at := map[k]int{}
	var out []*unit
	for _, u := range units {
		kk := k{u.kind, u.key}
		i, seen := at[kk]
		switch {
		case !seen:
			at[kk] = len(out)
			c := *u
			if u.props != nil && u.kind >= kindSampleProps {
				c.props = map[string]any{}
				for pk, pv := range u.props {
					c.props[pk] = pv
				}
			}
			out = append(out, &c)
		case u.kind >= kindSampleProps:
			for pk, pv := range u.props {
				out[i].props[pk] = pv
			}
		default:
			out[i] = u
		}
	}
	return out
}

func (s *Store) writeTx(ctx context.Context, units []*unit) (Stats, error) {
	if err := ctx.Err(); err != nil {
		return Stats{}, err
	}
	units = dedupe(units)
	sess := s.session(ctx, driver.AccessModeWrite)
	defer sess.Close(ctx)
	var st Stats
	start := time.Now()
	defer func() {
		if s.cfg.Trace {
			fmt.Fprintf(os.Stderr, "neo4j: transaction of %d units: %.3fs\n", len(units), time.Since(start).Seconds())
		}
	}()
	_, err := sess.ExecuteWrite(ctx, func(tx driver.ManagedTransaction) (any, error) {
		st = Stats{Transactions: 1}
		return nil, s.write(txRunner{ctx, tx, s.cfg.Trace}, units, &st)
	})
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return Stats{}, cerr
		}
		return Stats{}, fmt.Errorf("neo4j write: %w", err)
	}
	return st, nil
}

const (
	qTaskHashes   = `UNWIND $keys AS k MATCH (t:Task {key: k}) RETURN k, t.hash`
	qSampleHashes = `UNWIND $keys AS k MATCH (s:Sample {key: k}) RETURN k, s.hash_pred, s.hash_verdicts, s.judged`

	qEnsureSamples = `
UNWIND $rows AS r
MERGE (run:Run {key: r.rk}) ON CREATE SET run.ns = r.ns, run.name = r.run
MERGE (t:Task {key: r.tk}) ON CREATE SET t.ns = r.ns, t.id = r.task, t.loaded = false
MERGE (s:Sample {key: r.sk}) ON CREATE SET s.ns = r.ns, s.run = r.run, s.task = r.task, s.sample = r.sample, s.predicted = false, s.judged = false
MERGE (s)-[:OF_RUN]->(run)
MERGE (s)-[:OF_TASK]->(t)`

	qDeleteTaskNodes   = `UNWIND $keys AS k MATCH (:Task {key: k})-[r:HAS_NODE]->() DELETE r`
	qDeleteRels        = `UNWIND $keys AS k MATCH ()-[r:REL {graph: k}]->() DELETE r`
	qDeleteTaskTriples = `UNWIND $keys AS k MATCH (:Task {key: k})-[:HAS_TRIPLE]->(x) DETACH DELETE x`
	qDeletePredTriples = `UNWIND $keys AS k MATCH (:Sample {key: k})-[:HAS_TRIPLE]->(x) DETACH DELETE x`

	qUpsertTasks = `UNWIND $rows AS r MERGE (t:Task {key: r.key}) SET t += r.p`
	qSetSamples  = `UNWIND $rows AS r MATCH (s:Sample {key: r.key}) SET s += r.p`
	qEntities    = `
UNWIND $rows AS r
MERGE (e:Entity {key: r.key}) ON CREATE SET e.ns = r.ns, e.task = r.task, e.name = r.name, e.norm = r.norm`
	qTaskNodes = `
UNWIND $rows AS r
MATCH (t:Task {key: r.key})
UNWIND r.nodes AS n
MATCH (e:Entity {key: n.e})
CREATE (t)-[x:HAS_NODE {pos: n.pos, id: n.id}]->(e)
SET x.aliases = n.aliases`
	qGTTriples = `
UNWIND $rows AS r
MATCH (g:Task {key: r.key})
UNWIND r.triples AS x
MATCH (h:Entity {key: x.h})
MATCH (o:Entity {key: x.t})
CREATE (n:Triple:GT {key: x.p.key, ns: x.p.ns, task: x.p.task, index: x.p.index,
  head: x.p.head, relation: x.p.relation, tail: x.p.tail, head_id: x.p.head_id, tail_id: x.p.tail_id,
  weight: x.p.weight, stage: x.p.stage, kind: x.p.kind, class: x.p.class})
CREATE (g)-[:HAS_TRIPLE]->(n), (n)-[:HEAD]->(h), (n)-[:TAIL]->(o),
  (h)-[:REL {relation: x.r.relation, class: x.r.class, source: x.r.source, graph: x.r.graph, task: x.r.task, index: x.r.index}]->(o)`
	qPredTriples = `
UNWIND $rows AS r
MATCH (g:Sample {key: r.key})
UNWIND r.triples AS x
MATCH (h:Entity {key: x.h})
MATCH (o:Entity {key: x.t})
CREATE (n:Triple:Pred {key: x.p.key, ns: x.p.ns, run: x.p.run, task: x.p.task, sample: x.p.sample, index: x.p.index,
  head: x.p.head, relation: x.p.relation, tail: x.p.tail, class: x.p.class, valid: x.p.valid, valid_judge: x.p.valid_judge})
CREATE (g)-[:HAS_TRIPLE]->(n), (n)-[:HEAD]->(h), (n)-[:TAIL]->(o),
  (h)-[:REL {relation: x.r.relation, class: x.r.class, source: x.r.source, graph: x.r.graph, task: x.r.task,
    run: x.r.run, sample: x.r.sample, index: x.r.index}]->(o)`
	qSweepEntities = `
UNWIND $rows AS r
MATCH (e:Entity {ns: r.ns, task: r.task})
WHERE NOT (e)--()
DELETE e`

	qJudgedOfTasks = `
UNWIND $keys AS k
MATCH (:Task {key: k})<-[:OF_TASK]-(s:Sample) WHERE s.judged
RETURN s.key, s.run, s.task, s.sample, s.verdicts`
	qJudgedSamples = `
UNWIND $keys AS k
MATCH (s:Sample {key: k}) WHERE s.judged
RETURN s.key, s.run, s.task, s.sample, s.verdicts`
	qUnlinkJudged = `UNWIND $keys AS k MATCH (:Sample {key: k})-[j:JUDGED]->() DELETE j`
	qUnlinkPred   = `
UNWIND $keys AS k
MATCH (s:Sample {key: k})
CALL { WITH s MATCH (s)-[:HAS_TRIPLE]->(:Pred)<-[c:COVERED_BY]-() DELETE c }
CALL { WITH s MATCH (s)-[:HAS_TRIPLE]->(:Pred)-[v:SUPPORTED_BY]->() DELETE v }
CALL { WITH s MATCH (s)-[:HAS_TRIPLE]->(p:Pred) WHERE p.valid IS NOT NULL REMOVE p.valid, p.valid_judge }`
	qJudged = `
UNWIND $rows AS q
MATCH (s:Sample {key: q.s})
UNWIND q.items AS r
MATCH (g:Triple {key: r.g})
CREATE (s)-[:JUDGED {pos: r.p.pos, state: r.p.state, covered: r.p.covered, kind: r.p.kind, judge: r.p.judge, reason: r.p.reason}]->(g)`
	qCoveredBy = `
UNWIND $rows AS r
MATCH (g:Triple {key: r.g})
MATCH (p:Triple {key: r.x})
CREATE (g)-[:COVERED_BY {state: r.p.state, kind: r.p.kind, judge: r.p.judge, run: r.p.run, sample: r.p.sample, pos: r.p.pos}]->(p)`
	qValid = `
UNWIND $rows AS r
MATCH (p:Triple {key: r.x})
SET p.valid = r.state, p.valid_judge = r.judge`
	qSupportedBy = `
UNWIND $rows AS r
MATCH (p:Triple {key: r.x})
MATCH (g:Triple {key: r.g})
CREATE (p)-[:SUPPORTED_BY {state: r.p.state, judge: r.p.judge, run: r.p.run, sample: r.p.sample, pos: r.p.pos}]->(g)`

	qRunProps = `
UNWIND $rows AS r
MERGE (run:Run {key: r.key}) ON CREATE SET run.ns = r.ns, run.name = r.name
SET run += r.p`
	qTaskProps = `
UNWIND $rows AS r
MERGE (t:Task {key: r.key}) ON CREATE SET t.ns = r.ns, t.id = r.id, t.loaded = false
SET t += r.p`
)

// write runs one transaction's statements. It may run again on a transient
// error (deadlock), so it changes nothing outside st.
func (s *Store) write(r txRunner, units []*unit, st *Stats) error {
	var taskKeys, sampleKeys []string
	for _, u := range units {
		switch u.kind {
		case kindTask:
			taskKeys = append(taskKeys, u.key)
		case kindPred, kindVerdicts:
			sampleKeys = append(sampleKeys, u.key)
		}
	}
	// 1. What is already there.
	taskHash := map[string]string{}
	if len(taskKeys) > 0 {
		recs, err := r.collect(qTaskHashes, map[string]any{"keys": taskKeys})
		if err != nil {
			return err
		}
		for _, rec := range recs {
			taskHash[str(rec.Values[0])] = str(rec.Values[1])
		}
	}
	predHash, verdHash, judged := map[string]string{}, map[string]string{}, map[string]bool{}
	if len(sampleKeys) > 0 {
		recs, err := r.collect(qSampleHashes, map[string]any{"keys": sampleKeys})
		if err != nil {
			return err
		}
		for _, rec := range recs {
			k := str(rec.Values[0])
			predHash[k], verdHash[k], judged[k] = str(rec.Values[1]), str(rec.Values[2]), boolOf(rec.Values[3])
		}
	}

	// 2. Sort the units: changed graphs, replaced graphs, property updates.
	var tasks, preds, verds []*unit
	var replacedTasks, replacedPreds []string
	sweep := map[string]bool{}
	ensure := map[string]*unit{}
	var ensureOrder []string
	needSample := func(u *unit) {
		if ensure[u.key] == nil {
			ensure[u.key] = u
			ensureOrder = append(ensureOrder, u.key)
		}
	}
	var sampleProps, runProps, taskProps []map[string]any
	for _, u := range units {
		switch u.kind {
		case kindTask:
			old := taskHash[u.key]
			if old == u.hash {
				st.Unchanged++
				continue
			}
			if old != "" {
				replacedTasks = append(replacedTasks, u.key)
				sweep[u.id] = true
			}
			tasks = append(tasks, u)
		case kindPred:
			old := predHash[u.key]
			if old == u.hash {
				st.Unchanged++
				continue
			}
			if old != "" {
				replacedPreds = append(replacedPreds, u.key)
				sweep[u.sk.TaskID] = true
			}
			preds = append(preds, u)
			needSample(u)
		case kindVerdicts:
			if verdHash[u.key] == u.hash {
				st.Unchanged++
				continue
			}
			verds = append(verds, u)
			needSample(u)
		case kindSampleProps:
			needSample(u)
			sampleProps = append(sampleProps, map[string]any{"key": u.key, "p": u.props})
		case kindRunProps:
			runProps = append(runProps, map[string]any{"key": u.key, "ns": s.ns, "name": u.id, "p": u.props})
		case kindTaskProps:
			taskProps = append(taskProps, map[string]any{"key": u.key, "ns": s.ns, "id": u.id, "p": u.props})
		}
	}

	// 3. Sample, run and task nodes the samples hang off.
	var ensureRows []map[string]any
	for _, k := range ensureOrder {
		u := ensure[k]
		ensureRows = append(ensureRows, map[string]any{
			"rk": s.runKey(u.sk.Run), "tk": s.taskKey(u.sk.TaskID), "sk": u.key,
			"ns": s.ns, "run": u.sk.Run, "task": u.sk.TaskID, "sample": u.sk.Sample,
		})
	}
	if err := r.rows(qEnsureSamples, ensureRows); err != nil {
		return err
	}

	// 4. Remove the graphs being replaced.
	for _, q := range []string{qDeleteTaskNodes, qDeleteRels, qDeleteTaskTriples} {
		if err := r.keys(q, replacedTasks); err != nil {
			return err
		}
	}
	for _, q := range []string{qDeleteRels, qDeletePredTriples} {
		if err := r.keys(q, replacedPreds); err != nil {
			return err
		}
	}

	// 5. New graphs: node properties, entities, triples.
	ents := newEntityRows(s)
	var taskRows, taskNodeRows, gtRows []map[string]any
	for _, u := range tasks {
		t := u.task
		taskRows = append(taskRows, map[string]any{"key": u.key, "p": taskNodeProps(s.ns, t, u.hash)})
		nodes := make([]map[string]any, len(t.Nodes))
		for i, n := range t.Nodes {
			var aliases any
			if n.Aliases != nil {
				aliases = n.Aliases
			}
			nodes[i] = map[string]any{"pos": i, "id": n.ID, "e": ents.add(t.ID, n.Name), "aliases": aliases}
		}
		if len(nodes) > 0 {
			taskNodeRows = append(taskNodeRows, map[string]any{"key": u.key, "nodes": nodes})
		}
		graph := make([]kg.Triple, len(t.Triples))
		for i, x := range t.Triples {
			graph[i] = x.Triple
		}
		class := s.classes(graph)
		triples := make([]map[string]any, len(t.Triples))
		for i, x := range t.Triples {
			p := map[string]any{
				"key": tripleKey(u.key, i), "ns": s.ns, "task": t.ID, "index": i,
				"head": x.Head, "relation": x.Relation, "tail": x.Tail,
				"head_id": x.HeadID, "tail_id": x.TailID, "weight": x.Weight, "stage": x.Stage, "kind": x.Kind,
				"class": class[i],
			}
			triples[i] = map[string]any{"h": ents.add(t.ID, x.Head), "t": ents.add(t.ID, x.Tail), "p": p,
				"r": map[string]any{"relation": x.Relation, "class": class[i], "source": "GT", "graph": u.key, "task": t.ID, "index": i}}
		}
		if len(triples) > 0 {
			gtRows = append(gtRows, map[string]any{"key": u.key, "triples": triples})
		}
		st.Tasks++
		st.Triples += len(triples)
	}
	// Verdict sets written with their prediction: validity goes straight
	// onto the new triples.
	fresh, folded := map[string]bool{}, map[string]bool{}
	verdOf := map[string]*verdictsRec{}
	for _, u := range verds {
		verdOf[u.key] = u.verd
	}
	var predRows, predTripleRows []map[string]any
	for _, u := range preds {
		fresh[u.key] = true
		validity := map[int]kg.Validity{}
		if v := verdOf[u.key]; v != nil {
			folded[u.key] = true
			for _, x := range v.Validity {
				validity[x.PredIndex] = x
			}
		}
		p, k := u.pred, u.sk
		predRows = append(predRows, map[string]any{"key": u.key, "p": predProps(p, u.hash)})
		class := s.classes(p.Triples)
		triples := make([]map[string]any, len(p.Triples))
		for i, x := range p.Triples {
			props := map[string]any{
				"key": tripleKey(u.key, i), "ns": s.ns, "run": k.Run, "task": k.TaskID, "sample": k.Sample, "index": i,
				"head": x.Head, "relation": x.Relation, "tail": x.Tail, "class": class[i],
			}
			if v, ok := validity[i]; ok {
				props["valid"], props["valid_judge"] = string(v.State), nonEmpty(v.Judge)
			}
			triples[i] = map[string]any{"h": ents.add(k.TaskID, x.Head), "t": ents.add(k.TaskID, x.Tail), "p": props,
				"r": map[string]any{"relation": x.Relation, "class": class[i], "source": "Pred", "graph": u.key,
					"task": k.TaskID, "run": k.Run, "sample": k.Sample, "index": i}}
		}
		if len(triples) > 0 {
			predTripleRows = append(predTripleRows, map[string]any{"key": u.key, "triples": triples})
		}
		st.Predictions++
		st.Triples += len(triples)
	}
	for _, step := range []struct {
		q    string
		rows []map[string]any
	}{
		{qUpsertTasks, taskRows},
		{qSetSamples, predRows},
		{qEntities, ents.rows},
		{qTaskNodes, taskNodeRows},
		{qGTTriples, gtRows},
		{qPredTriples, predTripleRows},
	} {
		if err := r.rows(step.q, step.rows); err != nil {
			return err
		}
	}
	if len(sweep) > 0 {
		var rows []map[string]any
		for task := range sweep {
			rows = append(rows, map[string]any{"ns": s.ns, "task": task})
		}
		if err := r.rows(qSweepEntities, rows); err != nil {
			return err
		}
	}

	// 6. Verdict sets, then the verdict relationships of every sample whose
	// verdicts, prediction or ground truth changed.
	var verdRows []map[string]any
	link := map[string]linkSet{}
	var linkOrder []string
	addLink := func(sk string, key kgstore.SampleKey, rec verdictsRec, relink bool) {
		if _, ok := link[sk]; !ok {
			linkOrder = append(linkOrder, sk)
		}
		link[sk] = linkSet{key: key, rec: rec, relink: relink}
	}
	for _, u := range verds {
		verdRows = append(verdRows, map[string]any{"key": u.key, "p": map[string]any{
			"judged": true, "verdicts": u.props["verdicts"], "hash_verdicts": u.hash, "judges": judges(u.verd),
		}})
		addLink(u.key, u.sk, *u.verd, false)
		st.VerdictSets++
	}
	if err := r.rows(qSetSamples, verdRows); err != nil {
		return err
	}
	var relinkSamples []string
	for _, u := range preds {
		if _, ok := link[u.key]; !ok && judged[u.key] {
			relinkSamples = append(relinkSamples, u.key)
		}
	}
	var changedTasks []string
	for _, u := range tasks {
		changedTasks = append(changedTasks, u.key)
	}
	for _, q := range []struct {
		q    string
		keys []string
	}{{qJudgedSamples, relinkSamples}, {qJudgedOfTasks, changedTasks}} {
		if len(q.keys) == 0 {
			continue
		}
		recs, err := r.collect(q.q, map[string]any{"keys": q.keys})
		if err != nil {
			return err
		}
		for _, rec := range recs {
			sk := str(rec.Values[0])
			if _, ok := link[sk]; ok {
				continue
			}
			v, err := decodeVerdicts(str(rec.Values[4]))
			if err != nil {
				return fmt.Errorf("verdicts of %q: %w", sk, err)
			}
			addLink(sk, kgstore.SampleKey{Run: str(rec.Values[1]), TaskID: str(rec.Values[2]), Sample: num(rec.Values[3])}, v, true)
		}
	}
	if err := s.link(r, link, linkOrder, judged, fresh, folded); err != nil {
		return err
	}

	// 7. Properties.
	for _, step := range []struct {
		q    string
		rows []map[string]any
	}{{qSetSamples, sampleProps}, {qRunProps, runProps}, {qTaskProps, taskProps}} {
		if err := r.rows(step.q, step.rows); err != nil {
			return err
		}
	}
	return nil
}

type linkSet struct {
	key    kgstore.SampleKey
	rec    verdictsRec
	relink bool // read back from the store, not written in this transaction
}

// link (re)writes the verdict relationships of samples: JUDGED from the
// sample to each judged GT triple, COVERED_BY from a GT triple to each
// supporting predicted triple, SUPPORTED_BY from a predicted triple to each
// GT triple the validity pass cites, and valid on predicted triples.
// Indices out of range have no triple to point at and give no relationship
// (the verdict record on the sample keeps them).
//
// judged says which samples had verdicts before this transaction (only
// those can have relationships to remove); fresh, which samples' predicted
// triples were created in it (they have no relationships yet, and got their
// validity when created if folded says so).
func (s *Store) link(r txRunner, sets map[string]linkSet, order []string, judged, fresh, folded map[string]bool) error {
	if len(order) == 0 {
		return nil
	}
	var unlinkJudged, unlinkPred []string
	for _, sk := range order {
		// A relinked sample was judged before, though judged may not say so
		// (it was read for another reason): unlink anything that can exist.
		if judged[sk] || sets[sk].relink {
			unlinkJudged = append(unlinkJudged, sk)
			if !fresh[sk] {
				unlinkPred = append(unlinkPred, sk)
			}
		}
	}
	if err := r.keys(qUnlinkJudged, unlinkJudged); err != nil {
		return err
	}
	if err := r.keys(qUnlinkPred, unlinkPred); err != nil {
		return err
	}
	var judgedRows, coveredRows, validRows, supportRows []map[string]any
	for _, sk := range order {
		ls := sets[sk]
		tk := s.taskKey(ls.key.TaskID)
		var items []map[string]any
		for pos, v := range ls.rec.Coverage {
			if v.GTIndex < 0 {
				continue
			}
			gk := tripleKey(tk, v.GTIndex)
			items = append(items, map[string]any{"g": gk, "p": map[string]any{
				"pos": pos, "state": string(v.State), "covered": v.State == kg.Covered, "kind": nonEmpty(string(v.Kind)),
				"judge": nonEmpty(v.Judge), "reason": nonEmpty(v.Reason),
			}})
			seen := map[int]bool{}
			for _, i := range v.Support {
				if i < 0 || seen[i] {
					continue
				}
				seen[i] = true
				coveredRows = append(coveredRows, map[string]any{"g": gk, "x": tripleKey(sk, i), "p": map[string]any{
					"state": string(v.State), "kind": nonEmpty(string(v.Kind)), "judge": nonEmpty(v.Judge),
					"run": ls.key.Run, "sample": ls.key.Sample, "pos": pos,
				}})
			}
		}
		if len(items) > 0 {
			judgedRows = append(judgedRows, map[string]any{"s": sk, "items": items})
		}
		for pos, v := range ls.rec.Validity {
			if v.PredIndex < 0 {
				continue
			}
			xk := tripleKey(sk, v.PredIndex)
			if !folded[sk] {
				validRows = append(validRows, map[string]any{"x": xk, "state": string(v.State), "judge": nonEmpty(v.Judge)})
			}
			seen := map[int]bool{}
			for _, i := range v.Support {
				if i < 0 || seen[i] {
					continue
				}
				seen[i] = true
				supportRows = append(supportRows, map[string]any{"x": xk, "g": tripleKey(tk, i), "p": map[string]any{
					"state": string(v.State), "judge": nonEmpty(v.Judge), "run": ls.key.Run, "sample": ls.key.Sample, "pos": pos,
				}})
			}
		}
	}
	for _, step := range []struct {
		q    string
		rows []map[string]any
	}{{qJudged, judgedRows}, {qCoveredBy, coveredRows}, {qValid, validRows}, {qSupportedBy, supportRows}} {
		if err := r.rows(step.q, step.rows); err != nil {
			return err
		}
	}
	return nil
}

// nonEmpty maps "" to nil, so that an empty string is no property at all.
func nonEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func judges(v *verdictsRec) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, c := range v.Coverage {
		if c.Judge != "" && !seen[c.Judge] {
			seen[c.Judge] = true
			out = append(out, c.Judge)
		}
	}
	for _, c := range v.Validity {
		if c.Judge != "" && !seen[c.Judge] {
			seen[c.Judge] = true
			out = append(out, c.Judge)
		}
	}
	return out
}

func taskNodeProps(ns string, t *kg.Task, hash string) map[string]any {
	var warnings any
	if t.Warnings != nil {
		warnings = t.Warnings
	}
	return map[string]any{
		"ns": ns, "id": t.ID, "language": t.Language, "subset": t.Subset, "final_query": t.FinalQuery, "warnings": warnings,
		"nodes_nil": t.Nodes == nil, "triples_nil": t.Triples == nil,
		"n_nodes": len(t.Nodes), "n_triples": len(t.Triples), "loaded": true, "hash": hash,
	}
}

func predProps(p *kg.Prediction, hash string) map[string]any {
	var notes any
	if p.Report.Notes != nil {
		notes = p.Report.Notes
	}
	return map[string]any{
		"predicted": true, "hash_pred": hash,
		"qid": p.QID, "pred_task_id": p.TaskID, "pred_sample_idx": p.SampleIdx,
		"parse_status": string(p.Report.Status), "parse_method": p.Report.Method,
		"parse_triples": p.Report.Triples, "parse_salvaged": p.Report.Salvaged,
		"parse_stringified": p.Report.Stringified, "parse_skipped": p.Report.Skipped, "parse_misaligned": p.Report.Misaligned, "parse_notes": notes,
		"triples_nil": p.Triples == nil, "n_pred_triples": len(p.Triples),
	}
}

// classes gives each triple of graph its class from the configured
// classifier ("" for all when there is none).
func (s *Store) classes(graph []kg.Triple) []string {
	if s.cfg.Classes == nil || len(graph) == 0 {
		return make([]string, len(graph))
	}
	out := s.cfg.Classes.Classify(graph)
	if len(out) != len(graph) {
		panic(fmt.Sprintf("neo4j: classifier gave %d classes for %d triples", len(out), len(graph)))
	}
	return out
}

// classVersion is hashed with every graph: a graph whose classes came from
// another lexicon is rewritten.
func (s *Store) classVersion() string {
	if s.cfg.Classes == nil {
		return ""
	}
	return s.cfg.Classes.Version()
}

// entityRows collects the distinct entities of a transaction.
type entityRows struct {
	s    *Store
	seen map[string]bool
	rows []map[string]any
}

func newEntityRows(s *Store) *entityRows { return &entityRows{s: s, seen: map[string]bool{}} }

func (e *entityRows) add(task, name string) string {
	k := e.s.entityKey(task, name)
	if !e.seen[k] {
		e.seen[k] = true
		e.rows = append(e.rows, map[string]any{"key": k, "ns": e.s.ns, "task": task, "name": name, "norm": kg.Normalize(name)})
	}
	return k
}
