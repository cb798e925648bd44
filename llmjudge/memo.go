package llmjudge

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/llmjudge/cache"
)

// SampleMemoFile is the per-sample judgement memo inside the cache
// directory: one JSON line per fully decided sample, keyed by everything
// the judgement depends on (sampleKey). A rerun whose inputs are unchanged
// takes the judgement from here before planning, so it does no prefilter,
// prompt or cache-key work for that sample. A sample with an unjudged
// claim is never memoised (a rerun must ask again).
const SampleMemoFile = "samples.jsonl"

// memoFormat versions the memo lines and is part of every key.
const memoFormat = "1"

type memoLine struct {
	Key       string       `json:"key"`
	Format    string       `json:"format"`
	Task      string       `json:"task_id"`
	Sample    int          `json:"sample_idx"`
	Judgement kg.Judgement `json:"judgement"`
}

// memo is the in-memory index of SampleMemoFile; safe for concurrent use.
type memo struct {
	mu   sync.Mutex
	f    *os.File
	m    map[string]kg.Judgement
	hits int64
}

func openMemo(dir string) (*memo, error) {
	path := filepath.Join(dir, SampleMemoFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("judge cache: %w", err)
	}
	m := &memo{f: f, m: map[string]kg.Judgement{}}
	br := bufio.NewReaderSize(f, 1<<20)
	endsInLF := true
	for {
		line, rerr := br.ReadBytes('\n')
		if len(line) > 0 {
			endsInLF = line[len(line)-1] == '\n'
			var ml memoLine
			// A torn or foreign line is skipped: the sample is judged again.
			if t := bytes.TrimSpace(line); len(t) > 0 && json.Unmarshal(t, &ml) == nil && ml.Format == memoFormat && ml.Key != "" {
				m.m[ml.Key] = ml.Judgement
			}
		}
		if rerr != nil {
			break
		}
	}
	if !endsInLF {
		if _, err := f.Write([]byte("\n")); err != nil {
			f.Close()
			return nil, fmt.Errorf("judge cache %s: %w", path, err)
		}
	}
	return m, nil
}

func (m *memo) get(key string) (kg.Judgement, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	j, ok := m.m[key]
	if ok {
		m.hits++
	}
	return j, ok
}

func (m *memo) put(key string, task *kg.Task, pred *kg.Prediction, j kg.Judgement) error {
	b, err := json.Marshal(memoLine{Key: key, Format: memoFormat, Task: task.ID, Sample: pred.SampleIdx, Judgement: j})
	if err != nil {
		return fmt.Errorf("judge cache: encode sample memo: %w", err)
	}
	b = append(b, '\n')
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.f.Write(b); err != nil {
		return fmt.Errorf("judge cache %s: %w", m.f.Name(), err)
	}
	if err := m.f.Sync(); err != nil {
		return fmt.Errorf("judge cache %s: fsync: %w", m.f.Name(), err)
	}
	// Keep a decoded copy, so a hit gives what a rerun reading the file gives.
	var back memoLine
	if err := json.Unmarshal(b, &back); err == nil {
		m.m[key] = back.Judgement
	}
	return nil
}

func (m *memo) close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.f == nil {
		return nil
	}
	err := m.f.Close()
	m.f = nil
	return err
}

// sampleKey hashes everything a sample's judgement depends on: the judge
// (model, prompt set), the planner, the routing, the decoding, the passes,
// the cache key format, and the sample's language and triples. Never the
// endpoint (see cache.KeyFormat).
func (j *Judge) sampleKey(task *kg.Task, pred *kg.Prediction) string {
	h := sha256.New()
	w := func(s string) {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	w(memoFormat)
	w(cache.KeyFormat)
	w(j.name)
	w(j.planner.Name())
	w(j.cfg.PlanKey)
	w(j.decoding.String())
	w(strconv.FormatBool(j.cfg.NoValidity))
	w(strconv.Itoa(j.cfg.MaxReasks))
	if rt := j.cfg.Route; rt != nil {
		w(fmt.Sprintf("route %s %g %g", rt.Router.Name(), rt.Low, rt.High))
	}
	w(task.Language)
	w(strconv.Itoa(len(task.Triples)))
	for _, t := range task.Triples {
		w(t.Triple.String())
	}
	w(strconv.Itoa(len(pred.Triples)))
	for _, t := range pred.Triples {
		w(t.String())
	}
	return hex.EncodeToString(h.Sum(nil))
}

// complete says whether every claim of j was decided.
func complete(j kg.Judgement) bool {
	for _, v := range j.Coverage {
		if v.State == kg.Unjudged {
			return false
		}
	}
	for _, v := range j.Validity {
		if v.State == kg.Unjudged {
			return false
		}
	}
	return true
}
