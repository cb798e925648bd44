package runs

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kg"
)

// A run's predictions are read twice: LoadBatch reads every file once (to
// report every input problem up front and to match the samples to the
// tasks) and keeps of each sample only its metadata and a predRef; the
// worker that judges a sample reads its triples again from the file and
// drops them once the sample is committed. So what a run holds does not
// grow with its triples (measured: ~0.23 MB a sample held whole).

// predKey names a prediction among a run's: its source (file, or file and
// line), its qid and its sample index. Two predictions with the same key
// are duplicates, and only the first is scored (Inputs.Samples).
type predKey struct {
	source, qid string
	sample      int
}

// predRef is where a prediction's triples are: the file, the prediction's
// place among the file's, how many the file held, and the triples' hash,
// which says whether the file still holds them.
type predRef struct {
	file     string
	ord, n   int
	hash     [32]byte
	nTriples int
}

func keyOf(p *kg.Prediction) predKey { return predKey{p.Source, p.QID, p.SampleIdx} }

// triplesHash hashes the triples with each string length-prefixed (no
// separator can make two lists hash alike).
func triplesHash(ts []kg.Triple) [32]byte {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	put := func(s string) {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
	h.Write(n[:binary.PutUvarint(n[:], uint64(len(ts)))])
	for _, t := range ts {
		put(t.Head)
		put(t.Relation)
		put(t.Tail)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// predRefs say where the triples of a run's predictions are; a
// prediction without one holds its triples.
type predRefs map[predKey]predRef

// lighten keeps refs to a file's predictions and drops their triples.
func lighten(refs *predRefs, file string, ps []kg.Prediction) {
	if *refs == nil {
		*refs = predRefs{}
	}
	for k := range ps {
		p := &ps[k]
		if _, dup := (*refs)[keyOf(p)]; !dup {
			(*refs)[keyOf(p)] = predRef{file: file, ord: k, n: len(ps), hash: triplesHash(p.Triples), nTriples: len(p.Triples)}
		}
		p.Triples = nil
	}
}

func (r *RunInputs) lighten(file string, ps []kg.Prediction) { lighten(&r.refs, file, ps) }

// ChangedInputError says a prediction file changed between LoadBatch's
// read and the judging of one of its samples: the command stops rather
// than score something it did not check.
type ChangedInputError struct {
	File, What string
}

func (e *ChangedInputError) Error() string {
	return fmt.Sprintf("%s changed while the command ran (%s); score again", e.File, e.What)
}

// fileCache holds a file's predictions, read again, while samples of it
// are still to be judged: a file of many samples is read once, not once a
// sample, and dropped when its last sample has been read from it.
type fileCache struct {
	mu    sync.Mutex
	files map[string]*cachedFile
}

type cachedFile struct {
	ready chan struct{}
	preds []kg.Prediction
	err   error
	left  int // samples still to take from it
}

func newFileCache() *fileCache { return &fileCache{files: map[string]*cachedFile{}} }

// want says one more sample will be taken from file.
func (c *fileCache) want(file string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.files[file]
	if f == nil {
		f = &cachedFile{}
		c.files[file] = f
	}
	f.left++
}

// take returns file's predictions, read once for all its wanted samples.
func (c *fileCache) take(ctx context.Context, file string) ([]kg.Prediction, error) {
	c.mu.Lock()
	f := c.files[file]
	if f == nil { // not wanted: read for this one sample
		f = &cachedFile{left: 1}
		c.files[file] = f
	}
	load := f.ready == nil
	if load {
		f.ready = make(chan struct{})
	}
	c.mu.Unlock()
	if load {
		f.preds, f.err = ingest.ReadPredictionFile(ctx, file)
		close(f.ready)
	} else {
		select {
		case <-f.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	c.mu.Lock()
	if f.left--; f.left <= 0 && c.files[file] == f {
		delete(c.files, file)
	}
	c.mu.Unlock()
	return f.preds, f.err
}

// prediction returns p with its triples, read again from its file when the
// batch dropped them, checked against what the first read found.
func (r *RunInputs) prediction(ctx context.Context, c *fileCache, p *kg.Prediction) (*kg.Prediction, error) {
	return r.refs.prediction(ctx, c, p)
}

// want tells c of every sample that will be read again.
func (refs predRefs) want(c *fileCache, samples []*kg.Prediction) {
	for _, p := range samples {
		if ref, ok := refs[keyOf(p)]; ok {
			c.want(ref.file)
		}
	}
}

func (refs predRefs) prediction(ctx context.Context, c *fileCache, p *kg.Prediction) (*kg.Prediction, error) {
	ref, ok := refs[keyOf(p)]
	if !ok {
		return p, nil
	}
	ps, err := c.take(ctx, ref.file)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &ChangedInputError{File: ref.file, What: "it no longer reads: " + err.Error()}
	}
	if len(ps) != ref.n {
		return nil, &ChangedInputError{File: ref.file, What: fmt.Sprintf("%d predictions, %d when first read", len(ps), ref.n)}
	}
	q := &ps[ref.ord]
	if keyOf(q) != keyOf(p) || len(q.Triples) != ref.nTriples || triplesHash(q.Triples) != ref.hash {
		return nil, &ChangedInputError{File: ref.file, What: fmt.Sprintf("task %s sample %d: its triples differ from the first read", p.TaskID, p.SampleIdx)}
	}
	full := *p
	full.Triples = q.Triples
	return &full, nil
}
