package runs

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/kgjudge/kgjudge/hierarchy"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/matcher"
)

// MemoDir is the offline judge's rescore memo inside a store directory.
const MemoDir = "offline-memo"

// memoFormat versions the memo's lines and is part of every key.
const memoFormat = "1"

const (
	memoSamplesFile = "samples.jsonl"
	memoStoredFile  = "stored.json"
)

// Memo is the rescore memo of a judge whose verdicts are a function of its
// inputs (the offline judge): per sample, keyed by the hash of everything
// the judgement and the item depend on (the judge's configuration, the
// protocol, the GT task's and the prediction's content), the judgement and
// the hierarchy analysis. A rescore takes a sample's from here instead of
// judging and analysing it again, and writes nothing to the store for a
// sample the store already holds as this memo last wrote it. A changed
// input, alias file, model or kgjudge binary changes the key: those
// samples are judged again.
//
// It lives next to the store (STORE/offline-memo/): samples.jsonl, one
// line per judged sample, appended as samples commit (the file is read
// back by offset, so memory holds an index, not the judgements), and
// stored.json, what the store held of each run when a scoring finished.
// Safe for concurrent use.
type Memo struct {
	dir    string
	config string

	mu     sync.Mutex
	f      *os.File
	size   int64
	index  map[string]memoRef
	stored map[string]*memoRun
	hits   int
}

type memoRef struct{ off, n int64 }

// memoLine is one line of samples.jsonl.
type memoLine struct {
	Key       string           `json:"key"`
	Format    string           `json:"format"`
	Task      string           `json:"task_id"`
	Sample    int              `json:"sample_idx"`
	Judgement kg.Judgement     `json:"judgement"`
	Report    hierarchy.Report `json:"report"`
}

// memoRun is what the store held of a run after the last scoring that
// used the memo: the hash of its stored metadata, and per sample the memo
// key of what was written. It is trusted only while the store's metadata
// of the run still hashes the same (another command that finished on the
// run rewrote it).
type memoRun struct {
	Info    string            `json:"run_info"`
	Samples map[string]string `json:"samples"`
}

// OpenMemo opens (creating) the memo in dir for a judge configuration:
// config names everything besides the inputs that decides a judgement
// (judge, weights, lexicons, embedding model, kgjudge build); entries made
// under another configuration are never hits. A torn or foreign line is
// skipped (that sample is judged again).
func OpenMemo(dir, config string) (*Memo, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("rescore memo: %w", err)
	}
	path := filepath.Join(dir, memoSamplesFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("rescore memo: %w", err)
	}
	m := &Memo{dir: dir, config: config, f: f, index: map[string]memoRef{}, stored: map[string]*memoRun{}}
	br := bufio.NewReaderSize(f, 1<<20)
	var off int64
	for {
		line, rerr := br.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			var head struct {
				Key    string `json:"key"`
				Format string `json:"format"`
			}
			// Only the head is decoded here; a hit decodes its line.
			if json.Unmarshal(memoHead(line), &head) == nil && head.Format == memoFormat && head.Key != "" {
				m.index[head.Key] = memoRef{off, int64(len(line))}
			}
		}
		off += int64(len(line))
		if rerr != nil {
			if !errors.Is(rerr, io.EOF) {
				f.Close()
				return nil, fmt.Errorf("rescore memo %s: %w", path, rerr)
			}
			break
		}
	}
	// A torn last line (not indexed) is ended, so the next starts clean.
	m.size = off
	if !lastLineEnd(f, off) {
		if _, err := f.WriteAt([]byte("\n"), off); err != nil {
			f.Close()
			return nil, fmt.Errorf("rescore memo %s: %w", path, err)
		}
		m.size++
	}
	if b, err := os.ReadFile(filepath.Join(dir, memoStoredFile)); err == nil {
		// An unreadable file only costs the store writes it would save.
		_ = json.Unmarshal(b, &m.stored)
		if m.stored == nil {
			m.stored = map[string]*memoRun{}
		}
	}
	return m, nil
}

// memoHead is the start of a line that holds its key and format (written
// first), so the index is built without decoding the judgements.
func memoHead(line []byte) []byte {
	i := bytes.Index(line, []byte(`,"task_id"`))
	if i < 0 {
		return line
	}
	return append(append([]byte{}, line[:i]...), '}')
}

func lastLineEnd(f *os.File, size int64) bool {
	if size == 0 {
		return true
	}
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, size-1); err != nil {
		return true
	}
	return b[0] == '\n'
}

// Close syncs and closes the memo.
func (m *Memo) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.f == nil {
		return nil
	}
	err := m.f.Sync()
	if cerr := m.f.Close(); err == nil {
		err = cerr
	}
	m.f = nil
	return err
}

// Hits is how many samples this memo answered since it was opened.
func (m *Memo) Hits() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.hits
}

// key hashes what a sample's judgement and item depend on; taskHash is the
// hash of the task's content (taskContentHash).
func (m *Memo) key(taskHash string, p *kg.Prediction, proto matcher.Protocol) (string, error) {
	pb, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("rescore memo: encode %s sample %d: %w", p.TaskID, p.SampleIdx, err)
	}
	h := sha256.New()
	for _, s := range []string{memoFormat, m.config, string(proto), taskHash} {
		h.Write([]byte(strconv.Itoa(len(s)) + ":" + s))
	}
	h.Write(pb)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// taskContentHash hashes a task as the judge sees it (its file name, which
// decides nothing, is not in it).
func taskContentHash(t *kg.Task) (string, error) {
	b, err := json.Marshal(t)
	if err != nil {
		return "", fmt.Errorf("rescore memo: encode task %s: %w", t.ID, err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// get returns the memoised judgement and analysis of key.
func (m *Memo) get(key string) (kg.Judgement, hierarchy.Report, bool) {
	m.mu.Lock()
	ref, ok := m.index[key]
	f := m.f
	m.mu.Unlock()
	if !ok || f == nil {
		return kg.Judgement{}, hierarchy.Report{}, false
	}
	b := make([]byte, ref.n)
	if _, err := f.ReadAt(b, ref.off); err != nil {
		return kg.Judgement{}, hierarchy.Report{}, false
	}
	var ml memoLine
	if err := json.Unmarshal(b, &ml); err != nil || ml.Key != key {
		return kg.Judgement{}, hierarchy.Report{}, false
	}
	m.mu.Lock()
	m.hits++
	m.mu.Unlock()
	return ml.Judgement, ml.Report, true
}

// encode is the memo line of a judged sample, to be appended by put. The
// caller scores and analyses from the decoded copy (decodeMemo), so a first
// run and a rescore from the memo write the same bytes.
func encodeMemo(key string, p *kg.Prediction, j kg.Judgement, rep hierarchy.Report) ([]byte, error) {
	b, err := json.Marshal(memoLine{Key: key, Format: memoFormat, Task: p.TaskID, Sample: p.SampleIdx, Judgement: j, Report: rep})
	if err != nil {
		return nil, fmt.Errorf("rescore memo: encode %s sample %d: %w", p.TaskID, p.SampleIdx, err)
	}
	return append(b, '\n'), nil
}

func decodeMemo(b []byte) (kg.Judgement, hierarchy.Report, error) {
	var ml memoLine
	err := json.Unmarshal(b, &ml)
	return ml.Judgement, ml.Report, err
}

// put appends an encoded line (in commit order, so the file is the same
// for the same run).
func (m *Memo) put(key string, line []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.f == nil {
		return errors.New("rescore memo: closed")
	}
	if _, ok := m.index[key]; ok {
		return nil
	}
	if _, err := m.f.WriteAt(line, m.size); err != nil {
		return fmt.Errorf("rescore memo %s: %w", m.f.Name(), err)
	}
	m.index[key] = memoRef{m.size, int64(len(line))}
	m.size += int64(len(line))
	return nil
}

func memoSampleID(k kgstore.SampleKey) string {
	return k.TaskID + "\x1f" + strconv.Itoa(k.Sample)
}

// storedRun returns, per sample, the memo key the store holds for run
// when its stored metadata still hashes as recorded (nil otherwise).
func (m *Memo) storedRun(run, infoHash string) map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.stored[run]
	if r == nil || infoHash == "" || r.Info != infoHash {
		return nil
	}
	return r.Samples
}

// setStored records (samples non-nil) or forgets what the store holds of
// run, and writes stored.json at once: a scoring forgets a run before it
// writes any of its samples, so an interrupted one leaves nothing trusted.
func (m *Memo) setStored(run, infoHash string, samples map[string]string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, had := m.stored[run]
	if samples == nil {
		if !had {
			return nil
		}
		delete(m.stored, run)
	} else {
		m.stored[run] = &memoRun{Info: infoHash, Samples: samples}
	}
	b, err := json.Marshal(m.stored) // map keys sorted
	if err != nil {
		return fmt.Errorf("rescore memo: %w", err)
	}
	path := filepath.Join(m.dir, memoStoredFile)
	if err := writeFileAtomic(path, b); err != nil {
		return fmt.Errorf("rescore memo: %w", err)
	}
	return nil
}

// runInfoHash hashes a run's stored metadata ("" when it has none).
func runInfoHash(info kgstore.RunInfo) string {
	b, err := json.Marshal(info)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
