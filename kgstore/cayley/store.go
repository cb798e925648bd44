package cayley

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/cayleygraph/cayley/graph"
	_ "github.com/cayleygraph/cayley/graph/memstore" // ":memory:" backend
	"github.com/cayleygraph/cayley/graph/refs"
	_ "github.com/cayleygraph/cayley/writer" // registers the "single" quad writer
	"github.com/cayleygraph/quad"

	"github.com/kgjudge/kgjudge/internal/ordered"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/lock"
)

// Memory is the path that opens a store held in memory only.
const Memory = ":memory:"

// DefaultPath is the store directory the CLI uses when none is given.
const DefaultPath = ".kgjudge"

var _ kgstore.Store = (*Store)(nil)

// Store is a kgstore.Store over a Cayley quadstore. It is safe for
// concurrent use; writes are serialised.
type Store struct {
	mu     sync.RWMutex
	qs     graph.QuadStore
	qw     graph.QuadWriter
	closed bool
	// deltas counts the quad changes applied by the last Put (for tests).
	deltas int
	// file is the bbolt file, whose reads may panic on a damaged file (see
	// guard); empty for other backends.
	file string
	// lock is the store directory's lock (nil in memory), held until Close.
	lock *lock.Lock
	// recent keeps the decoded triples of the last few predictions
	// Neighbors read: the prefilter asks for the neighbours of hundreds of
	// entities of one sample in a row, and each would decode its record.
	recent recentTriples
	// classifier gives the class kept on every written triple (nil: none;
	// see SetClassifier and classes.go).
	classifier kgstore.Classifier
}

// recentTriples is a small cache of decoded prediction records, by label,
// oldest dropped first. Its size bounds it: it never grows with a run.
type recentTriples struct {
	mu    sync.Mutex
	order []quad.IRI
	m     map[quad.IRI][]kg.Triple
}

const recentSize = 8

func (c *recentTriples) get(label quad.IRI) ([]kg.Triple, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ts, ok := c.m[label]
	return ts, ok
}

func (c *recentTriples) put(label quad.IRI, ts []kg.Triple) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[quad.IRI][]kg.Triple{}
	}
	if _, ok := c.m[label]; !ok {
		if len(c.order) == recentSize {
			delete(c.m, c.order[0])
			c.order = c.order[1:]
		}
		c.order = append(c.order, label)
	}
	c.m[label] = ts
}

func (c *recentTriples) drop(label quad.IRI) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[label]; !ok {
		return
	}
	delete(c.m, label)
	for i, l := range c.order {
		if l == label {
			c.order = append(c.order[:i:i], c.order[i+1:]...)
			break
		}
	}
}

// Open opens (creating if needed) the store at path: Memory for an
// in-memory store, otherwise a directory. An existing directory is opened
// with the backend it was written with (bbolt or leveldb); a new one gets
// DefaultBackend.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == Memory {
		return OpenBackend(ctx, MemStore, "")
	}
	return OpenBackend(ctx, detectBackend(path), path)
}

// OpenBackend opens the store at path with a named backend (BBolt, LevelDB
// or MemStore), creating the directory if needed.
func OpenBackend(ctx context.Context, backend, path string) (*Store, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name, ok := registered[backend]
	if !ok {
		return nil, fmt.Errorf("kgstore/cayley: unknown backend %q", backend)
	}
	if name == "memstore" {
		return openBackend(name, "")
	}
	if path == "" {
		return nil, errors.New("kgstore/cayley: empty store path")
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, fmt.Errorf("kgstore/cayley: create store %s: %w", path, err)
	}
	// The directory's lock first: a second writer is told who holds the
	// store (pid and command) instead of bbolt's bare timeout.
	lk, err := lock.Acquire(path, lock.Exclusive, "open the store")
	if err != nil {
		return nil, fmt.Errorf("kgstore/cayley: %w", err)
	}
	s, err := openBackend(name, path)
	if err != nil {
		lk.Release()
		return nil, err
	}
	s.lock = lk
	return s, nil
}

// openBackend opens a registered Cayley backend by name (the benchmarks
// compare several).
func openBackend(name, path string) (*Store, error) {
	open := func(fn func() error) error { return fn() }
	if name == backendBBolt {
		// Cayley reads its metadata right after bbolt opens the file.
		open = func(fn func() error) error { return protect(filepath.Join(path, boltFile), fn) }
	}
	if name != "memstore" {
		err := open(func() error { return graph.InitQuadStore(name, path, nil) })
		if errors.Is(err, kgstore.ErrDamaged) {
			return nil, err
		}
		if err != nil && !errors.Is(err, graph.ErrDatabaseExists) {
			return nil, fmt.Errorf("kgstore/cayley: init %s store %s: %w", name, path, err)
		}
	}
	var qs graph.QuadStore
	err := open(func() error {
		var err error
		qs, err = graph.NewQuadStore(name, path, graph.Options{cayleykvNoBloom: true})
		return err
	})
	if errors.Is(err, kgstore.ErrDamaged) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("kgstore/cayley: open %s store %s: %w", name, path, err)
	}
	qw, err := graph.NewQuadWriter("single", qs, graph.Options{"ignore_duplicate": true, "ignore_missing": true})
	if err != nil {
		qs.Close()
		return nil, fmt.Errorf("kgstore/cayley: quad writer for %s: %w", path, err)
	}
	st := &Store{qs: qs, qw: qw}
	if name == backendBBolt || name == "bolt" {
		st.file = filepath.Join(path, boltFile)
	}
	return st, nil
}

// Close closes the quadstore. Later calls fail.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	err := s.qw.Close()
	if cerr := s.qs.Close(); err == nil {
		err = cerr
	}
	if cerr := s.lock.Release(); err == nil {
		err = cerr
	}
	return err
}

var errClosed = errors.New("store is closed")

func (s *Store) check(ctx context.Context) error {
	if s.closed {
		return errClosed
	}
	return ctx.Err()
}

// filter restricts a scan to quads whose direction Dir is the value V; it
// is checked on store references, before any quad is resolved, so scanning a
// node shared by many graphs stays cheap.
type filter struct {
	Dir quad.Direction
	V   quad.Value
}

// resolver turns store references into values for one operation, caching
// both ways: the subject, predicate and label of a graph's quads repeat, and
// each uncached look-up is a point read in the kv backends.
type resolver struct {
	qs    graph.QuadStore
	names map[any]quad.Value
	refs  map[quad.Value]graph.Ref
}

func (s *Store) resolver() *resolver {
	return &resolver{qs: s.qs, names: map[any]quad.Value{}, refs: map[quad.Value]graph.Ref{}}
}

func (r *resolver) ref(v quad.Value) (graph.Ref, error) {
	if ref, ok := r.refs[v]; ok {
		return ref, nil
	}
	ref, err := r.qs.ValueOf(v)
	if err != nil {
		return nil, err
	}
	r.refs[v] = ref
	return ref, nil
}

func (r *resolver) quad(ref graph.Ref) (quad.Quad, error) {
	var q quad.Quad
	for _, d := range quad.Directions {
		vr, err := r.qs.QuadDirection(ref, d)
		if err != nil {
			return q, err
		}
		if vr == nil {
			continue
		}
		k := refs.ToKey(vr)
		v, ok := r.names[k]
		if !ok {
			if v, err = r.qs.NameOf(vr); err != nil {
				return q, err
			}
			r.names[k] = v
		}
		q.Set(d, v)
	}
	return q, nil
}

// scan calls fn for every quad with value v in direction dir (by index
// where the backend has one) that passes the filters.
func (s *Store) scan(ctx context.Context, r *resolver, dir quad.Direction, v quad.Value, fn func(quad.Quad) error, filters ...filter) error {
	ref, err := r.ref(v)
	if err != nil || ref == nil {
		return err
	}
	want := make([]any, len(filters))
	for i, f := range filters {
		fr, err := r.ref(f.V)
		if err != nil || fr == nil {
			return err // nothing can match
		}
		want[i] = refs.ToKey(fr)
	}
	it := s.qs.QuadIterator(dir, ref).Iterate()
	defer it.Close()
next:
	for n := 0; it.Next(ctx); n++ {
		if n%512 == 511 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		qref := it.Result()
		for i, f := range filters {
			r, err := s.qs.QuadDirection(qref, f.Dir)
			if err != nil {
				return err
			}
			if r == nil || refs.ToKey(r) != want[i] {
				continue next
			}
		}
		q, err := r.quad(qref)
		if err != nil {
			return err
		}
		if err := fn(q); err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	return ctx.Err()
}

// subtree returns the quads of label whose subject is root or a node below
// it (an IRI starting with root#), walking from the root by subject: Cayley's
// kv backends index subjects and objects but not labels.
func (s *Store) subtree(ctx context.Context, label quad.Value, root quad.IRI) ([]quad.Quad, error) {
	var out []quad.Quad
	prefix := string(root) + "#"
	seen := map[quad.Value]bool{root: true}
	queue := []quad.Value{root}
	r := s.resolver()
	for len(queue) > 0 {
		subj := queue[0]
		queue = queue[1:]
		err := s.scan(ctx, r, quad.Subject, subj, func(q quad.Quad) error {
			out = append(out, q)
			// Entity nodes are not walked: their quads are the direct
			// edges, which graphQuads derives from the triple nodes.
			if o, ok := q.Object.(quad.IRI); ok && strings.HasPrefix(string(o), prefix) && !seen[o] && !isEntity(o) {
				seen[o] = true
				queue = append(queue, o)
			}
			return nil
		}, filter{quad.Label, label})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// graphQuads returns every quad of a task's or prediction's graph: the
// subtree of its root plus the direct entity edges its triple nodes imply.
func (s *Store) graphQuads(ctx context.Context, label quad.IRI) ([]quad.Quad, error) {
	quads, err := s.subtree(ctx, label, label)
	if err != nil {
		return nil, err
	}
	for _, q := range quads {
		if q.Subject != label {
			continue
		}
		switch q.Predicate {
		case pTripleRecords:
			ts, err := decodeTripleRecords(label, q.Object)
			if err != nil {
				return nil, err
			}
			return append(quads, recordEdges(label, ts)...), nil
		case pGTTripleRecords:
			gts, err := decodeGTTripleRecords(label, q.Object)
			if err != nil {
				return nil, err
			}
			ts := make([]kg.Triple, len(gts))
			for i, g := range gts {
				ts[i] = g.Triple
			}
			return append(quads, recordEdges(label, ts)...), nil
		}
	}
	return append(quads, directEdges(label, quads)...), nil
}

// replace turns the quads old into the quads new: one batch deleting
// old-new, then one batch adding new-old. (In one mixed batch Cayley's kv
// backends lost quads: a graph replaced by a smaller one sharing its nodes
// read back empty. So the two are not merged; if the second fails, the
// first is undone.)
// Quads in both are not touched.
func (s *Store) replace(ctx context.Context, old, new []quad.Quad) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	newSet := make(map[quad.Quad]struct{}, len(new))
	for _, q := range new {
		newSet[q] = struct{}{}
	}
	oldSet := make(map[quad.Quad]struct{}, len(old))
	del := graph.NewTransactionN(len(old))
	for _, q := range old {
		oldSet[q] = struct{}{}
		if _, keep := newSet[q]; !keep {
			del.RemoveQuad(q)
		}
	}
	add := graph.NewTransactionN(len(new))
	for _, q := range new {
		if _, have := oldSet[q]; !have {
			add.AddQuad(q) // the transaction drops repeats
		}
	}
	s.deltas = len(del.Deltas) + len(add.Deltas)
	if len(del.Deltas) > 0 {
		if err := s.qw.ApplyTransaction(del); err != nil {
			return fmt.Errorf("delete %d old quads: %w", len(del.Deltas), err)
		}
	}
	if len(add.Deltas) > 0 {
		if err := s.qw.ApplyTransaction(add); err != nil {
			// Put the old graph back rather than leave half of it.
			undo := graph.NewTransactionN(len(del.Deltas))
			for _, d := range del.Deltas {
				undo.AddQuad(d.Quad)
			}
			if uerr := s.qw.ApplyTransaction(undo); uerr != nil {
				return fmt.Errorf("add %d quads: %w (and restoring the old graph failed: %v)", len(add.Deltas), err, uerr)
			}
			return fmt.Errorf("add %d quads: %w", len(add.Deltas), err)
		}
	}
	return nil
}

// PutTask implements kgstore.Store: PutTasks of one task.
func (s *Store) PutTask(ctx context.Context, t kg.Task) (rerr error) {
	defer s.guard(&rerr)
	if err := s.putTasks(ctx, []kg.Task{t}); err != nil {
		return fmt.Errorf("kgstore/cayley: put task %q: %w", t.ID, err)
	}
	return nil
}

// Task implements kgstore.Store.
func (s *Store) Task(ctx context.Context, taskID string) (_ kg.Task, rerr error) {
	defer s.guard(&rerr)
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, err := s.task(ctx, taskID)
	if err != nil {
		return kg.Task{}, fmt.Errorf("kgstore/cayley: task %q: %w", taskID, err)
	}
	return t, nil
}

func (s *Store) task(ctx context.Context, taskID string) (kg.Task, error) {
	if err := s.check(ctx); err != nil {
		return kg.Task{}, err
	}
	label := gtLabel(taskID)
	quads, err := s.subtree(ctx, label, label)
	if err != nil {
		return kg.Task{}, err
	}
	return decodeTask(newGraph(quads), label)
}

// TaskIDs implements kgstore.Store.
func (s *Store) TaskIDs(ctx context.Context) (_ []string, rerr error) {
	defer s.guard(&rerr)
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(ctx); err != nil {
		return nil, fmt.Errorf("kgstore/cayley: task ids: %w", err)
	}
	var ids []string
	err := s.scan(ctx, s.resolver(), quad.Object, tTask, func(q quad.Quad) error {
		id, err := decodeRoot(q.Subject, gtPrefix)
		if err != nil {
			return err
		}
		ids = append(ids, id[0])
		return nil
	}, filter{quad.Predicate, pType})
	if err != nil {
		return nil, fmt.Errorf("kgstore/cayley: task ids: %w", err)
	}
	sort.Strings(ids)
	return ids, nil
}

// PutPrediction implements kgstore.Store. The prediction's own fields (QID,
// TaskID, SampleIdx) are kept as given, apart from key.
func (s *Store) PutPrediction(ctx context.Context, key kgstore.SampleKey, p kg.Prediction) (rerr error) {
	defer s.guard(&rerr)
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.check(ctx)
	if err == nil {
		s.recent.drop(predLabel(key))
		var old []quad.Quad
		old, err = s.graphQuads(ctx, predLabel(key))
		if err == nil {
			err = s.replace(ctx, old, append(encodePrediction(key, p), s.classQuads(predLabel(key), p.Triples)...))
		}
	}
	if err != nil {
		return fmt.Errorf("kgstore/cayley: put prediction %s: %w", keyString(key), err)
	}
	return nil
}

var _ kgstore.SampleWriter = (*Store)(nil)

// PutSample implements kgstore.SampleWriter: the prediction and the
// verdicts of key in one batch (one transaction, and one more only when an
// earlier version is deleted, see replace).
func (s *Store) PutSample(ctx context.Context, key kgstore.SampleKey, p kg.Prediction, v kgstore.Verdicts) error {
	if v.Key != key {
		return fmt.Errorf("kgstore/cayley: put sample %s: verdicts are for %s", keyString(key), keyString(v.Key))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.check(ctx)
	if err == nil {
		s.recent.drop(predLabel(key))
		var oldP, oldV []quad.Quad
		oldP, err = s.graphQuads(ctx, predLabel(key))
		if err == nil {
			oldV, err = s.subtree(ctx, verdictLabel(key.Run), verdictRoot(key))
		}
		if err == nil {
			add := append(encodePrediction(key, p), s.classQuads(predLabel(key), p.Triples)...)
			err = s.replace(ctx, append(oldP, oldV...), append(add, encodeVerdicts(v)...))
		}
	}
	if err != nil {
		return fmt.Errorf("kgstore/cayley: put sample %s: %w", keyString(key), err)
	}
	return nil
}

var _ kgstore.SamplesWriter = (*Store)(nil)

// PutSamples implements kgstore.SamplesWriter: every sample's prediction
// and verdicts in one batch (one bbolt transaction and sync, and one more
// only when earlier versions are deleted, see replace). Graphs of distinct
// samples share no quads, so the batch is their PutSamples one by one. The
// samples are encoded and classified before the write lock is taken, by a
// few goroutines: that work is a third of a replay run's store time, and
// the store's writer is a single goroutine.
func (s *Store) PutSamples(ctx context.Context, samples []kgstore.Sample) (rerr error) {
	defer s.guard(&rerr)
	for i := range samples {
		if sm := &samples[i]; sm.Verdicts.Key != sm.Key {
			return fmt.Errorf("kgstore/cayley: put sample %s: verdicts are for %s", keyString(sm.Key), keyString(sm.Verdicts.Key))
		}
	}
	c := s.currentClassifier()
	enc, err := encodeEach(len(samples), func(i int) ([]quad.Quad, error) {
		sm := &samples[i]
		q := append(encodePrediction(sm.Key, sm.Prediction), classQuadsOf(c, predLabel(sm.Key), sm.Prediction.Triples)...)
		return append(q, encodeVerdicts(sm.Verdicts)...), nil
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		err = s.check(ctx)
	}
	var old, new []quad.Quad
	for i := 0; err == nil && i < len(samples); i++ {
		sm := &samples[i]
		s.recent.drop(predLabel(sm.Key))
		var oldP, oldV []quad.Quad
		oldP, err = s.graphQuads(ctx, predLabel(sm.Key))
		if err == nil {
			oldV, err = s.subtree(ctx, verdictLabel(sm.Key.Run), verdictRoot(sm.Key))
		}
		old = append(append(old, oldP...), oldV...)
		new = append(new, enc[i]...)
	}
	if err == nil {
		err = s.replace(ctx, old, new)
	}
	if err != nil {
		return fmt.Errorf("kgstore/cayley: put %d samples: %w", len(samples), err)
	}
	return nil
}

// PutTasks implements kgstore.TasksWriter: the tasks' GT graphs in one
// batch (one transaction and sync; 200 tasks one by one spent 7 s of a
// replay run in commits, before any sample could be scored).
func (s *Store) PutTasks(ctx context.Context, tasks []kg.Task) (rerr error) {
	defer s.guard(&rerr)
	if err := s.putTasks(ctx, tasks); err != nil {
		return fmt.Errorf("kgstore/cayley: put %d tasks: %w", len(tasks), err)
	}
	return nil
}

// putTasks writes the tasks' GT graphs in one replace. The graphs are
// encoded and classified before the write lock is taken; a graph stored
// with the same content hash is these very quads and is skipped (a rescore
// reads one record per task instead of each whole graph).
func (s *Store) putTasks(ctx context.Context, tasks []kg.Task) error {
	c := s.currentClassifier()
	enc, err := encodeEach(len(tasks), func(i int) ([]quad.Quad, error) {
		t := tasks[i]
		q, err := encodeTask(t)
		if err != nil {
			return nil, fmt.Errorf("task %q: %w", t.ID, err)
		}
		return withContentHash(gtLabel(t.ID), append(q, classQuadsOf(c, gtLabel(t.ID), gtGraph(t))...)), nil
	})
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx); err != nil {
		return err
	}
	var old, new []quad.Quad
	for i, t := range tasks {
		root := gtLabel(t.ID)
		same, err := s.sameContent(ctx, root, enc[i][len(enc[i])-1].Object)
		if err != nil {
			return err
		}
		if same {
			continue
		}
		o, err := s.graphQuads(ctx, root)
		if err != nil {
			return err
		}
		old, new = append(old, o...), append(new, enc[i]...)
	}
	return s.replace(ctx, old, new)
}

// pContentHash is a GT graph's hash of its own quads (withContentHash).
var pContentHash = quad.IRI("kg:contentHash")

// withContentHash appends to a graph's quads the hash of them all, on its
// root: a later write of the same graph (same task, classifier and
// encoding) is recognised from that one record.
func withContentHash(root quad.IRI, quads []quad.Quad) []quad.Quad {
	h := sha256.New()
	for _, q := range quads {
		io.WriteString(h, q.String())
		h.Write([]byte{0})
	}
	return append(quads, quad.Quad{Subject: root, Predicate: pContentHash, Object: quad.String(hex.EncodeToString(h.Sum(nil))), Label: root})
}

// sameContent reports whether the graph at root is stored with content
// hash sum. Called with s.mu held.
func (s *Store) sameContent(ctx context.Context, root quad.IRI, sum quad.Value) (bool, error) {
	same := false
	err := s.scan(ctx, s.resolver(), quad.Subject, root, func(q quad.Quad) error {
		if q.Predicate == pContentHash && q.Object == sum {
			same = true
		}
		return nil
	}, filter{quad.Label, root})
	return same, err
}

// encodeEach returns enc(i) for every i < n, computed by a few goroutines
// (ordered.Each), and the first error in index order.
func encodeEach(n int, enc func(i int) ([]quad.Quad, error)) ([][]quad.Quad, error) {
	out := make([][]quad.Quad, n)
	var first error
	ordered.Each(context.Background(), n, func(_ context.Context, i int) ([]quad.Quad, error) {
		return enc(i)
	}, func(i int, q []quad.Quad, err error) bool {
		out[i], first = q, err
		return err == nil
	})
	if first != nil {
		return nil, first
	}
	return out, nil
}

func keyString(k kgstore.SampleKey) string {
	return fmt.Sprintf("run %q task %q sample %d", k.Run, k.TaskID, k.Sample)
}

// Prediction implements kgstore.Store.
func (s *Store) Prediction(ctx context.Context, key kgstore.SampleKey) (_ kg.Prediction, rerr error) {
	defer s.guard(&rerr)
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, err := func() (kg.Prediction, error) {
		if err := s.check(ctx); err != nil {
			return kg.Prediction{}, err
		}
		label := predLabel(key)
		quads, err := s.subtree(ctx, label, label)
		if err != nil {
			return kg.Prediction{}, err
		}
		return decodePrediction(newGraph(quads), label)
	}()
	if err != nil {
		return kg.Prediction{}, fmt.Errorf("kgstore/cayley: prediction %s: %w", keyString(key), err)
	}
	return p, nil
}

// Samples implements kgstore.Store.
func (s *Store) Samples(ctx context.Context, run string) (_ []kgstore.SampleKey, rerr error) {
	defer s.guard(&rerr)
	s.mu.RLock()
	defer s.mu.RUnlock()
	keys, err := s.samples(ctx, run)
	if err != nil {
		return nil, fmt.Errorf("kgstore/cayley: samples of run %q: %w", run, err)
	}
	return keys, nil
}

func (s *Store) samples(ctx context.Context, run string) ([]kgstore.SampleKey, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	var keys []kgstore.SampleKey
	err := s.scan(ctx, s.resolver(), quad.Object, quad.String(run), func(q quad.Quad) error {
		if l, ok := q.Subject.(quad.IRI); !ok || !strings.HasPrefix(string(l), predPrefix) {
			return nil // a verdict set of the run
		}
		k, err := decodeKeyIRI(q.Subject, predPrefix)
		if err != nil {
			return err
		}
		keys = append(keys, k)
		return nil
	}, filter{quad.Predicate, pRun})
	if err != nil {
		return nil, err
	}
	kgstore.SortKeys(keys)
	return keys, nil
}

// Runs implements kgstore.Store.
func (s *Store) Runs(ctx context.Context) (_ []string, rerr error) {
	defer s.guard(&rerr)
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(ctx); err != nil {
		return nil, fmt.Errorf("kgstore/cayley: runs: %w", err)
	}
	seen := map[string]bool{}
	var runs []string
	r := s.resolver()
	for _, c := range []struct {
		typ    quad.IRI
		prefix string
	}{{tPrediction, predPrefix}, {tVerdictSet, verdictPrefix}} {
		err := s.scan(ctx, r, quad.Object, c.typ, func(q quad.Quad) error {
			k, err := decodeKeyIRI(q.Subject, c.prefix)
			if err != nil {
				return err
			}
			if !seen[k.Run] {
				seen[k.Run] = true
				runs = append(runs, k.Run)
			}
			return nil
		}, filter{quad.Predicate, pType})
		if err != nil {
			return nil, fmt.Errorf("kgstore/cayley: runs: %w", err)
		}
	}
	err := s.runsWithInfo(ctx, r, func(run string) {
		if !seen[run] {
			seen[run] = true
			runs = append(runs, run)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("kgstore/cayley: runs: %w", err)
	}
	sort.Strings(runs)
	return runs, nil
}

// PutVerdicts implements kgstore.Store.
func (s *Store) PutVerdicts(ctx context.Context, v kgstore.Verdicts) (rerr error) {
	defer s.guard(&rerr)
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.check(ctx)
	if err == nil {
		var old []quad.Quad
		old, err = s.subtree(ctx, verdictLabel(v.Key.Run), verdictRoot(v.Key))
		if err == nil {
			err = s.replace(ctx, old, encodeVerdicts(v))
		}
	}
	if err != nil {
		return fmt.Errorf("kgstore/cayley: put verdicts %s: %w", keyString(v.Key), err)
	}
	return nil
}

// Verdicts implements kgstore.Store.
func (s *Store) Verdicts(ctx context.Context, key kgstore.SampleKey) (_ kgstore.Verdicts, rerr error) {
	defer s.guard(&rerr)
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, err := func() (kgstore.Verdicts, error) {
		if err := s.check(ctx); err != nil {
			return kgstore.Verdicts{}, err
		}
		root := verdictRoot(key)
		quads, err := s.subtree(ctx, verdictLabel(key.Run), root)
		if err != nil {
			return kgstore.Verdicts{}, err
		}
		return decodeVerdicts(newGraph(quads), root)
	}()
	if err != nil {
		return kgstore.Verdicts{}, fmt.Errorf("kgstore/cayley: verdicts %s: %w", keyString(key), err)
	}
	return v, nil
}

// Neighbors implements kgstore.Store. It walks from the entity node to the
// triple nodes of the predicted graph that use it as head or tail (which,
// unlike the direct edges, keep each triple's index and repeats).
func (s *Store) Neighbors(ctx context.Context, key kgstore.SampleKey, name string) (_ []kgstore.Edge, rerr error) {
	defer s.guard(&rerr)
	s.mu.RLock()
	defer s.mu.RUnlock()
	edges, err := s.neighbors(ctx, key, name)
	if err != nil {
		return nil, fmt.Errorf("kgstore/cayley: neighbors of %q in prediction %s: %w", name, keyString(key), err)
	}
	return edges, nil
}

func (s *Store) neighbors(ctx context.Context, key kgstore.SampleKey, name string) ([]kgstore.Edge, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	label := predLabel(key)
	ts, ok, err := s.recordTriples(ctx, label)
	if err != nil {
		return nil, err
	}
	if ok {
		edges := []kgstore.Edge{}
		for i, t := range ts {
			if t.Head == name || t.Tail == name {
				edges = append(edges, kgstore.Edge{Index: i, Triple: t})
			}
		}
		return edges, nil
	}
	return s.nodeNeighbors(ctx, label, name)
}

// recordTriples returns the triples of the prediction at label when they
// are stored as a record (ok), from the recent cache or the root's quads;
// ErrNotFound when there is no such prediction.
func (s *Store) recordTriples(ctx context.Context, label quad.IRI) (ts []kg.Triple, ok bool, err error) {
	if ts, ok := s.recent.get(label); ok {
		return ts, true, nil
	}
	found := false
	var rec quad.Value
	err = s.scan(ctx, s.resolver(), quad.Subject, label, func(q quad.Quad) error {
		found = true
		if q.Predicate == pTripleRecords {
			rec = q.Object
		}
		return nil
	}, filter{quad.Label, label})
	switch {
	case err != nil:
		return nil, false, err
	case !found:
		return nil, false, kgstore.ErrNotFound
	case rec == nil:
		return nil, false, nil // triple nodes (or no triples)
	}
	if ts, err = decodeTripleRecords(label, rec); err != nil {
		return nil, false, err
	}
	s.recent.put(label, ts)
	return ts, true, nil
}

// nodeNeighbors serves Neighbors for a prediction stored with triple nodes.
func (s *Store) nodeNeighbors(ctx context.Context, label quad.IRI, name string) ([]kgstore.Edge, error) {
	r := s.resolver()
	ref, err := r.ref(label)
	if err != nil {
		return nil, err
	}
	if ref == nil {
		return nil, kgstore.ErrNotFound
	}
	var triples []quad.Value
	seen := map[quad.Value]bool{}
	err = s.scan(ctx, r, quad.Object, entityIRI(label, name), func(q quad.Quad) error {
		if (q.Predicate == pHead || q.Predicate == pTail) && !seen[q.Subject] {
			seen[q.Subject] = true
			triples = append(triples, q.Subject)
		}
		return nil
	}, filter{quad.Label, label})
	if err != nil {
		return nil, err
	}
	edges := make([]kgstore.Edge, 0, len(triples))
	for _, t := range triples {
		var quads []quad.Quad
		err := s.scan(ctx, r, quad.Subject, t, func(q quad.Quad) error {
			quads = append(quads, q)
			return nil
		}, filter{quad.Label, label})
		if err != nil {
			return nil, err
		}
		g := newGraph(quads)
		e := kgstore.Edge{}
		if e.Index, err = g.num(t, pIndex); err != nil {
			return nil, err
		}
		if e.Triple, err = g.triple(t); err != nil {
			return nil, err
		}
		edges = append(edges, e)
	}
	sort.Slice(edges, func(i, j int) bool { return edges[i].Index < edges[j].Index })
	return edges, nil
}
