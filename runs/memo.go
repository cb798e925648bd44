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
const memoFormat = "2"

const (
	memoSamplesFile = "samples.jsonl"
	memoBlobsFile   = "blobs"
	memoStoredFile  = "stored.json"
)

// Memo is the rescore memo of a judge whose verdicts are a function of its
// inputs (the offline judge): per sample, keyed by the hash of everything
// the judgement and the item depend on (the judge's configuration, the
// protocol, the GT task's and the prediction's content), the judgement and
// the hierarchy analysis. A rescore takes a sample's from here instead of
// judging and analysing it again, and writes nothing to the store for a
// sample the store already holds as this memo last wrote it. A changed
// input, model or kgjudge binary changes the key: those samples are
// judged again. Configuration that bears on some samples only (an alias
// file's entries) is not in the configuration but in the scope
// (OpenMemoScoped): each sample's key holds the fingerprint its scope
// gives, so a changed entry judges again exactly the samples whose
// fingerprint it is in.
//
// It lives next to the store (STORE/offline-memo/): samples.jsonl, one
// line per judged sample, appended as samples commit, with what the
// summary needs of the sample (its item less the per-claim records, its
// analysis); blobs, the sample's item file as written and its judgement,
// at the offsets the line gives (a rescore copies the item file's bytes
// and decodes the judgement only when the store needs it again); and
// stored.json, what the store held of each run when a scoring finished.
// Memory holds an index by key, not the entries. Safe for concurrent use.
type Memo struct {
	dir    string
	config string
	scope  MemoScope

	mu        sync.Mutex
	f, blobs  *os.File
	size      int64 // of samples.jsonl
	blobsSize int64
	index     map[string]memoRef
	stored    map[string]*memoRun
	hits      int
}

type memoRef struct{ off, n int64 }

// memoLine is one line of samples.jsonl (key and format first: the index
// is built from them alone).
type memoLine struct {
	Key    string `json:"key"`
	Format string `json:"format"`
	Task   string `json:"task_id"`
	Sample int    `json:"sample_idx"`
	// Item is the item less its per-claim records (slimItem), Calibration
	// its calibration, Report its analysis less the per-triple classes.
	Item        matcher.Item     `json:"item"`
	Calibration *kg.Calibration  `json:"calibration,omitempty"`
	Report      hierarchy.Report `json:"report"`
	// ItemFile and Judgement are byte ranges of blobs.
	ItemFile  [2]int64 `json:"item_file"`
	Judgement [2]int64 `json:"judgement"`
}

// memoEntry is a sample as the memo gives it back.
type memoEntry struct {
	item     matcher.Item // slim, with its calibration
	rep      hierarchy.Report
	itemFile []byte
	// judgement is the range of the judgement in blobs (Memo.judgement).
	judgement [2]int64
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

// MemoScope fingerprints the part of the judge's configuration that can
// bear on one sample (cli's alias-file scope: the entries relevant to the
// sample's strings). It must be a function of the task and the prediction
// alone, safe for concurrent use, and the judge must be unable to tell
// apart two configurations that give a sample the same fingerprint.
type MemoScope func(task *kg.Task, p *kg.Prediction) string

// OpenMemoScoped is OpenMemo with a scope whose fingerprint is part of
// every sample's key (nil: none).
func OpenMemoScoped(dir, config string, scope MemoScope) (*Memo, error) {
	m, err := OpenMemo(dir, config)
	if m != nil {
		m.scope = scope
	}
	return m, err
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
	blobs, err := os.OpenFile(filepath.Join(dir, memoBlobsFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("rescore memo: %w", err)
	}
	bst, err := blobs.Stat()
	if err != nil {
		f.Close()
		blobs.Close()
		return nil, fmt.Errorf("rescore memo: %w", err)
	}
	m := &Memo{dir: dir, config: config, f: f, blobs: blobs, blobsSize: bst.Size(), index: map[string]memoRef{}, stored: map[string]*memoRun{}}
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
				m.closeFiles()
				return nil, fmt.Errorf("rescore memo %s: %w", path, rerr)
			}
			break
		}
	}
	// A torn last line (not indexed) is ended, so the next starts clean.
	m.size = off
	if !lastLineEnd(f, off) {
		if _, err := f.WriteAt([]byte("\n"), off); err != nil {
			m.closeFiles()
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
	err := m.blobs.Sync()
	if serr := m.f.Sync(); err == nil {
		err = serr
	}
	if cerr := m.closeFiles(); err == nil {
		err = cerr
	}
	return err
}

func (m *Memo) closeFiles() error {
	err := m.f.Close()
	if cerr := m.blobs.Close(); err == nil {
		err = cerr
	}
	m.f, m.blobs = nil, nil
	return err
}

// Hits is how many samples this memo answered since it was opened.
func (m *Memo) Hits() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.hits
}

// key hashes what a sample's judgement and item depend on; taskHash is the
// hash of task's content (taskContentHash).
func (m *Memo) key(taskHash string, task *kg.Task, p *kg.Prediction, proto matcher.Protocol) (string, error) {
	pb, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("rescore memo: encode %s sample %d: %w", p.TaskID, p.SampleIdx, err)
	}
	var scope string
	if m.scope != nil {
		scope = m.scope(task, p)
	}
	h := sha256.New()
	for _, s := range []string{memoFormat, m.config, string(proto), taskHash, scope} {
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

// get returns the memoised entry of key.
func (m *Memo) get(key string) (memoEntry, bool) {
	m.mu.Lock()
	ref, ok := m.index[key]
	f, blobs := m.f, m.blobs
	m.mu.Unlock()
	if !ok || f == nil {
		return memoEntry{}, false
	}
	b := make([]byte, ref.n)
	if _, err := f.ReadAt(b, ref.off); err != nil {
		return memoEntry{}, false
	}
	var ml memoLine
	if err := json.Unmarshal(b, &ml); err != nil || ml.Key != key {
		return memoEntry{}, false
	}
	e := memoEntry{item: ml.Item, rep: ml.Report, judgement: ml.Judgement}
	e.item.SetCalibration(ml.Calibration)
	if e.itemFile = readRange(blobs, ml.ItemFile); e.itemFile == nil {
		return memoEntry{}, false
	}
	m.mu.Lock()
	m.hits++
	m.mu.Unlock()
	return e, true
}

func readRange(f *os.File, r [2]int64) []byte {
	if r[1] < 0 || r[1] > 1<<31 {
		return nil
	}
	b := make([]byte, r[1])
	if _, err := f.ReadAt(b, r[0]); err != nil {
		return nil
	}
	return b
}

// judgement reads back the judgement of an entry (for a store that needs
// the sample written again).
func (m *Memo) judgement(e memoEntry) (kg.Judgement, error) {
	m.mu.Lock()
	blobs := m.blobs
	m.mu.Unlock()
	var j kg.Judgement
	b := readRange(blobs, e.judgement)
	if b == nil {
		return j, errors.New("rescore memo: judgement unreadable")
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return j, fmt.Errorf("rescore memo: judgement: %w", err)
	}
	return j, nil
}

// memoNew is a judged sample's entry, encoded by the worker and appended
// by put in commit order.
type memoNew struct {
	line      memoLine
	itemFile  []byte
	judgement []byte
}

// encodeMemo encodes a judged sample's entry, and returns the item and
// analysis as a rescore will read them back (decoded from the entry), so
// that a first scoring and a rescore summarise the same values.
func encodeMemo(key string, p *kg.Prediction, j kg.Judgement, it matcher.Item, rep hierarchy.Report, itemFile []byte) (*memoNew, matcher.Item, hierarchy.Report, error) {
	jb, err := json.Marshal(j)
	if err != nil {
		return nil, it, rep, fmt.Errorf("rescore memo: encode %s sample %d: %w", p.TaskID, p.SampleIdx, err)
	}
	rep.GTTriples, rep.PredTriples = nil, nil
	ml := memoLine{Key: key, Format: memoFormat, Task: p.TaskID, Sample: p.SampleIdx, Item: slimItem(it), Calibration: it.Calibration(), Report: rep}
	b, err := json.Marshal(ml)
	if err != nil {
		return nil, it, rep, fmt.Errorf("rescore memo: encode %s sample %d: %w", p.TaskID, p.SampleIdx, err)
	}
	var back memoLine
	if err := json.Unmarshal(b, &back); err != nil {
		return nil, it, rep, fmt.Errorf("rescore memo: decode %s sample %d: %w", p.TaskID, p.SampleIdx, err)
	}
	back.Item.SetCalibration(back.Calibration)
	return &memoNew{line: ml, itemFile: itemFile, judgement: jb}, back.Item, back.Report, nil
}

// put appends an entry (in commit order, so the files are the same for
// the same run).
func (m *Memo) put(n *memoNew) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.f == nil {
		return errors.New("rescore memo: closed")
	}
	if _, ok := m.index[n.line.Key]; ok {
		return nil
	}
	n.line.ItemFile = [2]int64{m.blobsSize, int64(len(n.itemFile))}
	n.line.Judgement = [2]int64{m.blobsSize + int64(len(n.itemFile)), int64(len(n.judgement))}
	line, err := json.Marshal(n.line)
	if err != nil {
		return fmt.Errorf("rescore memo: %w", err)
	}
	line = append(line, '\n')
	// The blobs first: a line never points past what was written.
	if _, err := m.blobs.WriteAt(append(append([]byte{}, n.itemFile...), n.judgement...), m.blobsSize); err != nil {
		return fmt.Errorf("rescore memo %s: %w", m.blobs.Name(), err)
	}
	if _, err := m.f.WriteAt(line, m.size); err != nil {
		return fmt.Errorf("rescore memo %s: %w", m.f.Name(), err)
	}
	m.blobsSize += int64(len(n.itemFile) + len(n.judgement))
	m.index[n.line.Key] = memoRef{m.size, int64(len(line))}
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
