// Package cache owns the judge's persistent verdict cache: content-addressed
// keys, an append-only JSONL file that survives crashes, and the stats and
// prune maintenance functions. It must not decide anything or call a model;
// it stores decided claims and gives them back.
//
// Format: <dir>/verdicts.jsonl, one JSON Entry per line. A batch of entries
// is written with one write call and fsynced before Put returns, so a crash
// loses at most the batch being written; a torn last line is skipped on
// load (and a newline is added before the next append so it cannot swallow
// the next record). A line that parses but cannot be a decision (an unknown
// state or kind, a negative support index) is damaged: it is ignored (the
// claim is asked again) and reported by File.Problems and Stats.Damaged; a
// support index beyond the batch's candidates is caught where the number of
// candidates is known (decide.Cached). A later line with the same key
// supersedes an earlier one. Several runs may append to the same file;
// writers take the store directory's lock (package lock) so that Prune
// never runs while a run is using the directory.
package cache

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
	"sort"
	"sync"
	"time"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore/lock"
)

// FileName is the cache file inside the cache directory.
const FileName = "verdicts.jsonl"

// ErrMiss is returned (wrapped) in cache-only mode when a claim is not cached.
var ErrMiss = errors.New("not in the judge cache (cache-only mode)")

// KeyParts is everything a cached verdict depends on. A change in any part
// gives a different key.
type KeyParts struct {
	Endpoint   string   `json:"endpoint"` // host and path of the base URL, never the key
	Model      string   `json:"model"`
	Prompt     string   `json:"prompt"`   // prompt variant with its hash
	Decoding   string   `json:"decoding"` // canonical decoding settings
	Pass       string   `json:"pass"`
	Claim      string   `json:"claim"`
	Candidates []string `json:"candidates"` // in the order shown (local ids)
	// Format is KeyFormat; keys of an older format never match.
	Format string `json:"format,omitempty"`
}

// KeyFormat versions what a key is made of. Format 2 (kgjudge issue 14)
// leaves the endpoint out (Endpoint stays empty): a verdict depends on the
// model, the prompt, the decoding and what was shown, not on the URL, port
// or key it was asked through, so the same model behind another URL hits
// the cache. Format-1 keys (endpoint included, no format) never equal a
// format-2 key, so old entries are never misread; they stay until pruned.
const KeyFormat = "2"

// Key is the hex SHA-256 of the parts' JSON encoding.
func Key(p KeyParts) string {
	if p.Candidates == nil {
		p.Candidates = []string{}
	}
	b, _ := json.Marshal(p) // a struct of strings cannot fail
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Entry is one cached decision. Support holds local candidate ids (the
// order of KeyParts.Candidates).
type Entry struct {
	Key     string          `json:"key"`
	At      time.Time       `json:"at"`
	Model   string          `json:"model"`
	Prompt  string          `json:"prompt"`
	Pass    string          `json:"pass"`
	Mode    string          `json:"mode,omitempty"`
	State   kg.State        `json:"state"`
	Kind    kg.CoverageKind `json:"kind,omitempty"`
	Support []int           `json:"support"`
	Reason  string          `json:"reason,omitempty"`
}

// Store is where decisions are kept. Put must be durable when it returns.
type Store interface {
	Get(key string) (Entry, bool)
	Put(entries []Entry) error
	Close() error
}

// File is the JSONL Store. It is safe for concurrent use.
type File struct {
	mu   sync.Mutex
	f    *os.File
	path string
	m    map[string]Entry
	torn int
	// problems: see Problems.
	problems []string
	lock     *lock.Lock
}

var _ Store = (*File)(nil)

type scanResult struct {
	entries    map[string]Entry
	order      []string // keys in first-seen order
	lines      int
	torn       int
	damaged    int
	problems   []string // "line N: what", the first maxProblems of torn and damaged lines
	superseded int
	bytes      int64
	endsInLF   bool
}

// maxProblems bounds the problems kept per file: a file of a million bad
// lines says how many there are, and names the first few.
const maxProblems = 20

// Check says what makes e unusable as a decision, or nil. nCandidates < 0
// skips the support range check (the file alone does not know the batch).
func (e *Entry) Check(nCandidates int) error {
	switch {
	case e.Key == "":
		return errors.New(`no "key"`)
	case e.State != kg.Covered && e.State != kg.Uncovered:
		return fmt.Errorf("state %q is not covered or uncovered", e.State)
	}
	switch e.Kind {
	case kg.KindNone, kg.KindDirect, kg.KindSubsumption, kg.KindCollective, kg.KindCompositional, kg.KindRecorded:
	default:
		return fmt.Errorf("kind %q is not a coverage kind", e.Kind)
	}
	for _, s := range e.Support {
		if s < 0 || (nCandidates >= 0 && s >= nCandidates) {
			if nCandidates < 0 {
				return fmt.Errorf("support index %d is negative", s)
			}
			return fmt.Errorf("support index %d is out of range for %d candidate(s)", s, nCandidates)
		}
	}
	return nil
}

func scan(r io.Reader) (scanResult, error) {
	res := scanResult{entries: map[string]Entry{}, endsInLF: true}
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		res.bytes += int64(len(line))
		if len(line) > 0 {
			res.endsInLF = line[len(line)-1] == '\n'
			if t := bytes.TrimSpace(line); len(t) > 0 {
				res.lines++
				var e Entry
				if jerr := json.Unmarshal(t, &e); jerr != nil || e.Key == "" || e.State == "" {
					res.torn++
					if len(res.problems) < maxProblems {
						why := "not a cache entry (a torn write?)"
						if jerr != nil && !endsWithNL(line) {
							why = "cut off (a torn last write)"
						}
						res.problems = append(res.problems, fmt.Sprintf("line %d: %s: ignored", res.lines, why))
					}
				} else if cerr := e.Check(-1); cerr != nil {
					res.damaged++
					if len(res.problems) < maxProblems {
						res.problems = append(res.problems, fmt.Sprintf("line %d: damaged entry: %v: ignored, the claim is asked again", res.lines, cerr))
					}
				} else {
					if _, ok := res.entries[e.Key]; ok {
						res.superseded++
					} else {
						res.order = append(res.order, e.Key)
					}
					res.entries[e.Key] = e
				}
			}
		}
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return res, err
		}
	}
}

func endsWithNL(b []byte) bool { return len(b) > 0 && b[len(b)-1] == '\n' }

// Open opens (creating) the cache in dir and loads it. It holds dir's lock
// (shared: other runs may append beside it, Prune may not) until Close; a
// Prune in progress makes it fail with a *lock.HeldError.
func Open(dir string) (*File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("judge cache: %w", err)
	}
	lk, err := lock.Acquire(dir, lock.Shared, "use the judge cache")
	if err != nil {
		return nil, fmt.Errorf("judge cache: %w", err)
	}
	c, err := open(dir)
	if err != nil {
		lk.Release()
		return nil, err
	}
	c.lock = lk
	return c, nil
}

func open(dir string) (*File, error) {
	path := filepath.Join(dir, FileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("judge cache: %w", err)
	}
	res, err := scan(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("judge cache %s: %w", path, err)
	}
	if !res.endsInLF {
		if _, err := f.Write([]byte("\n")); err != nil {
			f.Close()
			return nil, fmt.Errorf("judge cache %s: %w", path, err)
		}
	}
	c := &File{f: f, path: path, m: res.entries, torn: res.torn + res.damaged}
	for _, p := range res.problems {
		c.problems = append(c.problems, path+" "+p)
	}
	if n := res.torn + res.damaged - len(res.problems); n > 0 {
		c.problems = append(c.problems, fmt.Sprintf("%s: %d more bad line(s) ignored", path, n))
	}
	return c, nil
}

// Problems lists what Open found wrong in the file (torn and damaged lines,
// each ignored), one message per line naming the file and line; and the
// entries found damaged on use (Damaged). Empty for a sound file.
func (c *File) Problems() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.problems...)
}

// Damaged drops the entry under key, found unusable on use (why), so that
// it is asked again and the new decision supersedes it, and records the
// problem for Problems.
func (c *File) Damaged(key string, why error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; !ok {
		return
	}
	delete(c.m, key)
	c.problems = append(c.problems, fmt.Sprintf("%s: entry %.16s: damaged: %v: ignored, the claim is asked again", c.path, key, why))
}

// Path is the cache file.
func (c *File) Path() string { return c.path }

// Len is the number of distinct keys loaded or written.
func (c *File) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// Get implements Store.
func (c *File) Get(key string) (Entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	return e, ok
}

// Put implements Store: one write and one fsync per call.
func (c *File) Put(entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	var buf bytes.Buffer
	for _, e := range entries {
		if e.Support == nil {
			e.Support = []int{}
		}
		b, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("judge cache: encode entry: %w", err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return fmt.Errorf("judge cache %s: closed", c.path)
	}
	if _, err := c.f.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("judge cache %s: %w", c.path, err)
	}
	if err := c.f.Sync(); err != nil {
		return fmt.Errorf("judge cache %s: fsync: %w", c.path, err)
	}
	for _, e := range entries {
		c.m[e.Key] = e
	}
	return nil
}

// Close implements Store.
func (c *File) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f = nil
	if lerr := c.lock.Release(); err == nil {
		err = lerr
	}
	return err
}

// PromptCount is how many entries a (model, prompt) has.
type PromptCount struct {
	Model   string `json:"model"`
	Prompt  string `json:"prompt"`
	Entries int    `json:"entries"`
}

// Stats describes a cache directory.
type Stats struct {
	Path       string `json:"path"`
	Bytes      int64  `json:"bytes"`
	Lines      int    `json:"lines"`
	Entries    int    `json:"entries"`
	Superseded int    `json:"superseded"`
	Torn       int    `json:"torn"`
	// Damaged lines parse but cannot be a decision (see Entry.Check).
	Damaged int `json:"damaged"`
	// Problems name the first torn and damaged lines.
	Problems []string      `json:"problems,omitempty"`
	Oldest   time.Time     `json:"oldest,omitzero"`
	Newest   time.Time     `json:"newest,omitzero"`
	ByPrompt []PromptCount `json:"by_prompt"`
}

func readDir(dir string) (scanResult, string, error) {
	path := filepath.Join(dir, FileName)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return scanResult{entries: map[string]Entry{}, endsInLF: true}, path, nil
	}
	if err != nil {
		return scanResult{}, path, fmt.Errorf("judge cache: %w", err)
	}
	defer f.Close()
	res, err := scan(f)
	if err != nil {
		return res, path, fmt.Errorf("judge cache %s: %w", path, err)
	}
	return res, path, nil
}

// ReadStats reads the cache in dir (a missing cache is empty).
func ReadStats(dir string) (Stats, error) {
	res, path, err := readDir(dir)
	if err != nil {
		return Stats{}, err
	}
	st := Stats{Path: path, Bytes: res.bytes, Lines: res.lines, Entries: len(res.entries),
		Superseded: res.superseded, Torn: res.torn, Damaged: res.damaged, Problems: res.problems, ByPrompt: []PromptCount{}}
	counts := map[[2]string]int{}
	for _, e := range res.entries {
		counts[[2]string{e.Model, e.Prompt}]++
		if st.Oldest.IsZero() || e.At.Before(st.Oldest) {
			st.Oldest = e.At
		}
		if e.At.After(st.Newest) {
			st.Newest = e.At
		}
	}
	for k, n := range counts {
		st.ByPrompt = append(st.ByPrompt, PromptCount{Model: k[0], Prompt: k[1], Entries: n})
	}
	sort.Slice(st.ByPrompt, func(i, j int) bool {
		a, b := st.ByPrompt[i], st.ByPrompt[j]
		if a.Model != b.Model {
			return a.Model < b.Model
		}
		return a.Prompt < b.Prompt
	})
	return st, nil
}

// PruneOptions says what Prune drops. Prune always drops torn and damaged
// lines and superseded duplicates.
type PruneOptions struct {
	// Before drops entries written before it (zero: keep all ages).
	Before time.Time
	// KeepPrompts, when not empty, drops entries whose prompt is not listed
	// (e.g. keep only the current prompt variants).
	KeepPrompts []string
	// Model, when not empty, limits Before and KeepPrompts to this model.
	Model string
}

// PruneResult says what Prune did.
type PruneResult struct {
	Kept        int   `json:"kept"`
	Removed     int   `json:"removed"`
	Torn        int   `json:"torn"`
	Damaged     int   `json:"damaged"`
	Superseded  int   `json:"superseded"`
	BytesBefore int64 `json:"bytes_before"`
	BytesAfter  int64 `json:"bytes_after"`
}

// Prune rewrites the cache in dir without what opts drops: it writes a new
// file, fsyncs it and renames it over the old one. It holds dir's lock
// exclusively: while a judge uses the cache it fails with a
// *lock.HeldError naming the run's process, and nothing is changed.
func Prune(dir string, opts PruneOptions) (PruneResult, error) {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return PruneResult{}, nil // no cache: nothing to prune
	}
	lk, err := lock.Acquire(dir, lock.Exclusive, "prune the judge cache")
	if err != nil {
		return PruneResult{}, fmt.Errorf("judge cache: %w", err)
	}
	defer lk.Release()
	res, path, err := readDir(dir)
	if err != nil {
		return PruneResult{}, err
	}
	out := PruneResult{Torn: res.torn, Damaged: res.damaged, Superseded: res.superseded, BytesBefore: res.bytes}
	if res.lines == 0 {
		return out, nil
	}
	keep := map[string]bool{}
	for _, p := range opts.KeepPrompts {
		keep[p] = true
	}
	var buf bytes.Buffer
	for _, k := range res.order {
		e := res.entries[k]
		drop := false
		if opts.Model == "" || opts.Model == e.Model {
			if !opts.Before.IsZero() && e.At.Before(opts.Before) {
				drop = true
			}
			if len(keep) > 0 && !keep[e.Prompt] {
				drop = true
			}
		}
		if drop {
			out.Removed++
			continue
		}
		b, err := json.Marshal(e)
		if err != nil {
			return out, fmt.Errorf("judge cache: encode entry: %w", err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
		out.Kept++
	}
	tmp := path + ".prune.tmp"
	if err := writeSync(tmp, buf.Bytes()); err != nil {
		return out, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return out, fmt.Errorf("judge cache: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	out.BytesAfter = int64(buf.Len())
	return out, nil
}

func writeSync(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("judge cache: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("judge cache: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("judge cache: %w", err)
	}
	return f.Close()
}
