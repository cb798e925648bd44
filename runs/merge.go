package runs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kgjudge/kgjudge/hierarchy"
	"github.com/kgjudge/kgjudge/matcher"
)

// MergeResult is what Merge wrote.
type MergeResult struct {
	Run     string
	Shards  int
	Tasks   int
	Samples int
	Summary matcher.Summary
}

// shardOut is one shard's outputs as Merge reads them.
type shardOut struct {
	dir     string
	info    ShardInfo
	keys    []string
	raw     map[string]json.RawMessage
	failed  []string
	items   map[string][]byte
	decoded map[SampleRef]mergedItem
}

type mergedItem struct {
	matcher.Item
	Structure hierarchy.Report `json:"structure"`
	file      string
}

// summaryKeys are the keys of summary.json that Summarize computes; every
// other key is a section.
var summaryKeys = map[string]bool{"num_queries": true, "num_samples": true, "protocol": true, "judge": true, "run": true,
	"parse_reports": true, "unjudged": true, "index_problems": true, "failed_inputs": true, "tasks": true,
	"missing": true, "estimate": true, "input_warnings": true}

// Merge combines the output directories of the shards of one run (each
// with shard.json, summary.json and items/) into out: the item files are
// copied byte for byte, summary.json is recomputed from them (the
// reference keys, per-task scores, parse and unjudged counts, the structure
// report, aggregated in the unsharded run's input order), so that out is
// byte-identical to the unsharded run's outputs. Every shard 1..n must be
// given once, all split from the same ground truth, with the same run,
// judge, protocol and manifest; any other summary section must be the same
// in every shard and is copied. failed_inputs lists the input problems
// once, then each shard's failed samples, shard by shard.
func Merge(dirs []string, out string) (*MergeResult, error) {
	if len(dirs) == 0 {
		return nil, inputErrorf("merge: no shard output directories")
	}
	var shards []*shardOut
	for _, d := range dirs {
		s, err := readShard(d)
		if err != nil {
			return nil, err
		}
		shards = append(shards, s)
	}
	sort.SliceStable(shards, func(i, j int) bool { return shards[i].info.Shard < shards[j].info.Shard })
	first := shards[0]
	n := first.info.Of
	seen := map[int]string{}
	for _, s := range shards {
		if s.info.Of != n || s.info.TasksDigest != first.info.TasksDigest {
			return nil, inputErrorf("merge: %s is shard %d/%d of %d tasks (digest %.12s), %s is %d/%d of %d tasks (digest %.12s): not one split",
				first.dir, first.info.Shard, n, first.info.AllTasks, first.info.TasksDigest, s.dir, s.info.Shard, s.info.Of, s.info.AllTasks, s.info.TasksDigest)
		}
		if prev, dup := seen[s.info.Shard]; dup {
			return nil, inputErrorf("merge: shard %d/%d given twice (%s and %s)", s.info.Shard, n, prev, s.dir)
		}
		seen[s.info.Shard] = s.dir
		for _, k := range []string{"run", "protocol", "judge"} {
			if !bytes.Equal(s.raw[k], first.raw[k]) {
				return nil, inputErrorf("merge: %s has %s %s, %s has %s: not shards of one run", first.dir, k, first.raw[k], s.dir, s.raw[k])
			}
		}
		if err := sameSections(first, s); err != nil {
			return nil, err
		}
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if _, ok := seen[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return nil, inputErrorf("merge: shard %s missing (have %d of %d)", strings.Join(missing, ", "), len(shards), n)
	}

	all := map[SampleRef]mergedItem{}
	files := map[string][]byte{}
	for _, s := range shards {
		for ref, it := range s.decoded {
			if _, dup := all[ref]; dup {
				return nil, inputErrorf("merge: %s sample %d is in two shards", ref.Task, ref.Sample)
			}
			all[ref] = it
			files[it.file] = s.items[it.file]
		}
	}
	var items []matcher.Item
	var structure []hierarchy.SampleResult
	placed := map[SampleRef]bool{}
	for _, ref := range first.info.Order {
		if it, ok := all[ref]; ok && !placed[ref] {
			placed[ref] = true
			items = append(items, it.Item)
			structure = append(structure, hierarchy.SampleResult{Report: it.Structure, Parse: it.ParseReport, TripletF1: it.TripletF1})
		}
	}
	if len(placed) != len(all) {
		return nil, inputErrorf("merge: %d item file(s) are not samples of the run's inputs (shard.json order)", len(all)-len(placed))
	}
	sort.SliceStable(items, func(a, b int) bool {
		if items[a].QID != items[b].QID {
			return items[a].QID < items[b].QID
		}
		return items[a].SampleIdx < items[b].SampleIdx
	})

	// Missing samples are the shards' together (each lists its own tasks'),
	// zero-filled when the shards were (their task rows count them).
	var missingSamples []matcher.MissingSample
	zero := false
	var warnings []string
	seenWarn := map[string]bool{}
	for _, s := range shards {
		var m []matcher.MissingSample
		json.Unmarshal(s.raw["missing"], &m)
		missingSamples = append(missingSamples, m...)
		var rows []matcher.TaskScore
		json.Unmarshal(s.raw["tasks"], &rows)
		for _, r := range rows {
			zero = zero || r.Missing > 0
		}
		var ws []string
		json.Unmarshal(s.raw["input_warnings"], &ws)
		for _, w := range ws {
			if !seenWarn[w] {
				seenWarn[w] = true
				warnings = append(warnings, w)
			}
		}
	}
	sort.Strings(warnings)
	sum := matcher.SummarizeWith(items, matcher.SummaryOptions{Missing: missingSamples, ZeroFill: zero})
	if sum.Estimate != nil {
		var e matcher.RunEstimate
		if json.Unmarshal(first.raw["estimate"], &e) == nil {
			sum.Estimate.SetCalibration(e.Calibration)
		}
	}
	var run, judge string
	var proto matcher.Protocol
	json.Unmarshal(first.raw["run"], &run)
	json.Unmarshal(first.raw["judge"], &judge)
	json.Unmarshal(first.raw["protocol"], &proto)
	sum.Run, sum.Judge, sum.Protocol = run, judge, proto
	lp := first.info.LoadProblems
	sum.Failed = append(sum.Failed, first.failed[:min(lp, len(first.failed))]...)
	for _, s := range shards {
		if len(s.failed) > lp {
			sum.Failed = append(sum.Failed, s.failed[lp:]...)
		}
	}
	for _, k := range first.keys {
		if summaryKeys[k] || strings.HasPrefix(k, "avg@") || strings.HasPrefix(k, "best@") {
			continue
		}
		if k == "structure" {
			sum.Sections = append(sum.Sections, matcher.Section{Key: k, Value: hierarchy.Aggregate(structure)})
			continue
		}
		if k == "input_warnings" {
			continue
		}
		sum.Sections = append(sum.Sections, matcher.Section{Key: k, Value: first.raw[k]})
	}

	if len(warnings) > 0 {
		sum.Sections = append(sum.Sections, matcher.Section{Key: "input_warnings", Value: warnings})
	}
	itemsDir := filepath.Join(out, "items")
	if err := os.MkdirAll(itemsDir, 0o755); err != nil {
		return nil, fmt.Errorf("output: %w", err)
	}
	var names []string
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(itemsDir, name), files[name], 0o644); err != nil {
			return nil, fmt.Errorf("output: %w", err)
		}
	}
	if err := WriteJSON(filepath.Join(out, "summary.json"), sum); err != nil {
		return nil, err
	}
	return &MergeResult{Run: run, Shards: n, Tasks: sum.NumQueries, Samples: len(items), Summary: sum}, nil
}

func readShard(dir string) (*shardOut, error) {
	s := &shardOut{dir: dir, items: map[string][]byte{}, decoded: map[SampleRef]mergedItem{}, raw: map[string]json.RawMessage{}}
	b, err := os.ReadFile(filepath.Join(dir, "shard.json"))
	if err != nil {
		return nil, inputErrorf("merge: %s: no shard.json (was it scored with --shard i/n?): %w", dir, err)
	}
	if err := json.Unmarshal(b, &s.info); err != nil || s.info.Of < 1 {
		return nil, inputErrorf("merge: %s: bad shard.json: %v", filepath.Join(dir, "shard.json"), err)
	}
	b, err = os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, inputErrorf("merge: %s: %w", dir, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, inputErrorf("merge: %s/summary.json: not a JSON object", dir)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, inputErrorf("merge: %s/summary.json: %w", dir, err)
		}
		k := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, inputErrorf("merge: %s/summary.json key %s: %w", dir, k, err)
		}
		s.keys = append(s.keys, k)
		s.raw[k] = v
	}
	if err := json.Unmarshal(s.raw["failed_inputs"], &s.failed); err != nil {
		return nil, inputErrorf("merge: %s/summary.json failed_inputs: %w", dir, err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "items", "*.json"))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		var it mergedItem
		if err := json.Unmarshal(b, &it); err != nil {
			return nil, inputErrorf("merge: %s: %w", f, err)
		}
		it.file = filepath.Base(f)
		s.items[it.file] = b
		s.decoded[SampleRef{it.QID, it.SampleIdx}] = it
	}
	return s, nil
}

// sameSections checks that the sections merge copies are the same in both
// shards (compared as compact JSON).
func sameSections(a, b *shardOut) error {
	for _, k := range a.keys {
		if summaryKeys[k] || k == "structure" || strings.HasPrefix(k, "avg@") || strings.HasPrefix(k, "best@") {
			continue
		}
		var x, y bytes.Buffer
		json.Compact(&x, a.raw[k])
		json.Compact(&y, b.raw[k])
		if !bytes.Equal(x.Bytes(), y.Bytes()) {
			return inputErrorf("merge: summary section %q differs between %s and %s: merge cannot combine it", k, a.dir, b.dir)
		}
	}
	return nil
}
