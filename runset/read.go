package runset

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/matcher"
)

// InputError is a problem with what the user gave (a path, a file).
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErrorf(format string, args ...any) error {
	return &InputError{Err: fmt.Errorf(format, args...)}
}

// outSummary is the part of summary.json a run is read back from.
type outSummary struct {
	Run        string           `json:"run"`
	Protocol   matcher.Protocol `json:"protocol"`
	Judge      string           `json:"judge"`
	NumSamples int              `json:"num_samples"`
	// Missing are the samples the run lacks; they score 0 (or are left
	// out with Skip), as the run's own avg@N counted them.
	Missing []matcher.MissingSample `json:"missing"`
}

// itemFile skips the item's structure report, which no leaderboard reads.
type itemFile struct {
	matcher.Item
	Structure json.RawMessage `json:"structure,omitempty"`
}

// IsOutDir reports whether dir holds a scored run (OUT/summary.json).
func IsOutDir(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "summary.json"))
	return err == nil && !fi.IsDir()
}

// ReadOutDir reads one run from kgjudge score's output directory:
// OUT/summary.json (run name, protocol, judge, N) and OUT/items/*.json.
func ReadOutDir(dir string) (Run, error) {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return Run{}, inputErrorf("%s: not a kgjudge output directory: %w", dir, err)
	}
	var s outSummary
	if err := json.Unmarshal(b, &s); err != nil {
		return Run{}, inputErrorf("%s: %w", filepath.Join(dir, "summary.json"), err)
	}
	if s.Run == "" {
		s.Run = filepath.Base(filepath.Clean(dir))
	}
	r := Run{Name: s.Run, Model: s.Run, Protocol: s.Protocol, Judge: s.Judge, N: s.NumSamples, Source: dir}
	files, err := filepath.Glob(filepath.Join(dir, "items", "*.json"))
	if err != nil {
		return Run{}, err
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return Run{}, fmt.Errorf("%s: %w", f, err)
		}
		var it itemFile
		if err := json.Unmarshal(b, &it); err != nil {
			return Run{}, inputErrorf("%s: %w", f, err)
		}
		if it.QID == "" {
			return Run{}, inputErrorf("%s: no qid", f)
		}
		r.Samples = append(r.Samples, SampleFromItem(&it.Item))
	}
	for _, m := range s.Missing {
		r.Samples = append(r.Samples, Sample{TaskID: m.TaskID, Index: m.Sample, Missing: true})
	}
	SortSamples(r.Samples)
	for i := 1; i < len(r.Samples); i++ {
		a, b := r.Samples[i-1], r.Samples[i]
		if a.TaskID == b.TaskID && a.Index == b.Index {
			return Run{}, inputErrorf("%s: two item files for %s sample %d", dir, a.TaskID, a.Index)
		}
	}
	return r, nil
}

// SortSamples orders samples by task, then sample number.
func SortSamples(s []Sample) {
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].TaskID != s[j].TaskID {
			return s[i].TaskID < s[j].TaskID
		}
		return s[i].Index < s[j].Index
	})
}

// ReadPaths reads runs from paths that are output directories or parents of
// output directories (OUT/RUN/summary.json), in the order given, children
// in name order. Two runs of the same name are an error.
func ReadPaths(paths []string) ([]Run, error) {
	var out []Run
	seen := map[string]string{}
	add := func(dir string) error {
		r, err := ReadOutDir(dir)
		if err != nil {
			return err
		}
		if prev, dup := seen[r.Name]; dup {
			return inputErrorf("run %q is in both %s and %s (rename one with score --run)", r.Name, prev, dir)
		}
		seen[r.Name] = dir
		out = append(out, r)
		return nil
	}
	for _, p := range paths {
		if IsOutDir(p) {
			if err := add(p); err != nil {
				return nil, err
			}
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, inputErrorf("%s: %w", p, err)
		}
		n := 0
		for _, e := range entries {
			if d := filepath.Join(p, e.Name()); e.IsDir() && IsOutDir(d) {
				if err := add(d); err != nil {
					return nil, err
				}
				n++
			}
		}
		if n == 0 {
			return nil, inputErrorf("%s: no summary.json in it or in any folder under it", p)
		}
	}
	return out, nil
}

// ReadStore reads runs back from a store, recomputing each sample's metrics
// from its verdicts under proto with matcher.Score (a run without a
// validity pass is read under the code protocol, as export does). No names
// means every run of the store.
func ReadStore(ctx context.Context, st kgstore.Store, names []string, proto matcher.Protocol) ([]Run, map[string]Task, error) {
	all, err := st.Runs(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("store: %w", err)
	}
	if len(names) == 0 {
		names = all
	}
	known := map[string]bool{}
	for _, r := range all {
		known[r] = true
	}
	tasks := map[string]*kg.Task{}
	meta := map[string]Task{}
	var out []Run
	for _, name := range names {
		if !known[name] {
			return nil, nil, inputErrorf("store has no run %q (runs: %s)", name, strings.Join(all, ", "))
		}
		keys, err := st.Samples(ctx, name)
		if err != nil {
			return nil, nil, fmt.Errorf("store: %w", err)
		}
		r := Run{Name: name, Model: name, Protocol: proto, Source: "store"}
		for _, key := range keys {
			t := tasks[key.TaskID]
			if t == nil {
				tk, err := st.Task(ctx, key.TaskID)
				if err != nil {
					return nil, nil, fmt.Errorf("store: task %s: %w", key.TaskID, err)
				}
				t = &tk
				tasks[key.TaskID] = t
				meta[t.ID] = Task{ID: t.ID, Subset: t.Subset, Language: t.Language}
			}
			p, err := st.Prediction(ctx, key)
			if err != nil {
				return nil, nil, fmt.Errorf("store: %s sample %d: %w", key.TaskID, key.Sample, err)
			}
			v, err := st.Verdicts(ctx, key)
			if errors.Is(err, kgstore.ErrNotFound) {
				// Stored but never judged (an interrupted run): not a score.
				continue
			}
			if err != nil {
				return nil, nil, fmt.Errorf("store: %s sample %d: %w", key.TaskID, key.Sample, err)
			}
			pr := proto
			if pr == matcher.ProtocolPaper && v.Validity == nil {
				pr = matcher.ProtocolCode
			}
			judge := ""
			for _, c := range v.Coverage {
				if c.Judge != "" {
					judge = c.Judge
					break
				}
			}
			it, err := matcher.Score(t, &p, kg.Judgement{Judge: judge, Coverage: v.Coverage, Validity: v.Validity}, pr)
			if err != nil {
				return nil, nil, fmt.Errorf("run %s: %w", name, err)
			}
			if r.Judge == "" {
				r.Judge = judge
			}
			r.Samples = append(r.Samples, SampleFromItem(&it))
		}
		SortSamples(r.Samples)
		out = append(out, r)
	}
	return out, meta, nil
}

// ReadTasks reads task properties from ground-truth files (a task file or a
// directory): language and subset as ingest reads them, and a "domain" key
// when the file has one. It also returns the task ids in order, the
// universe a run is expected to cover.
func ReadTasks(gt string) (map[string]Task, []string, error) {
	ts, err := ingest.ReadTasks(gt)
	if err != nil {
		return nil, nil, &InputError{Err: err}
	}
	out := map[string]Task{}
	var ids []string
	for _, t := range ts {
		m := Task{ID: t.ID, Subset: t.Subset, Language: t.Language}
		if t.Source != "" {
			if b, err := os.ReadFile(t.Source); err == nil {
				var d struct {
					Domain string `json:"domain"`
				}
				if json.Unmarshal(b, &d) == nil {
					m.Domain = d.Domain
				}
			}
		}
		out[t.ID] = m
		ids = append(ids, t.ID)
	}
	sort.Strings(ids)
	return out, ids, nil
}

// ReadMeta reads run properties: a CSV or TSV with a header naming "run"
// (or "name"), "model" and "framework" columns (others are ignored), or a
// JSON array of {"run"|"name", "model", "framework"} objects. The
// manifest of `score --runs` has these columns.
func ReadMeta(path string) (map[string]RunMeta, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, inputErrorf("--meta: %w", err)
	}
	out := map[string]RunMeta{}
	if t := strings.TrimSpace(string(b)); strings.HasPrefix(t, "[") {
		var rows []struct {
			Run, Name, Model, Framework string
		}
		if err := json.Unmarshal(b, &rows); err != nil {
			return nil, inputErrorf("%s: %w", path, err)
		}
		for i, r := range rows {
			name := r.Run
			if name == "" {
				name = r.Name
			}
			if name == "" {
				return nil, inputErrorf("%s: entry %d: no \"run\" or \"name\"", path, i+1)
			}
			out[name] = RunMeta{Model: r.Model, Framework: r.Framework}
		}
		return out, nil
	}
	cr := csv.NewReader(strings.NewReader(string(b)))
	if strings.Contains(strings.SplitN(string(b), "\n", 2)[0], "\t") {
		cr.Comma = '\t'
	}
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, inputErrorf("%s: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	nameCol, ok := col["run"]
	if !ok {
		if nameCol, ok = col["name"]; !ok {
			return nil, inputErrorf("%s line 1: no \"run\" or \"name\" column (header: %s)", path, strings.Join(head, ","))
		}
	}
	get := func(rec []string, k string) string {
		if i, ok := col[k]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, inputErrorf("%s: %w", path, err)
		}
		if nameCol >= len(rec) || strings.TrimSpace(rec[nameCol]) == "" {
			return nil, inputErrorf("%s line %d: no run name", path, line)
		}
		out[strings.TrimSpace(rec[nameCol])] = RunMeta{Model: get(rec, "model"), Framework: get(rec, "framework")}
	}
	return out, nil
}

// ApplyMeta sets the model and framework of the runs meta names; a run it
// does not name keeps its name as its model.
func ApplyMeta(rs []Run, meta map[string]RunMeta) {
	for i := range rs {
		if m, ok := meta[rs[i].Name]; ok {
			if m.Model != "" {
				rs[i].Model = m.Model
			}
			rs[i].Framework = m.Framework
		}
	}
}
