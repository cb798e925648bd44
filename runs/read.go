package runs

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/neo4j"
	"github.com/kgjudge/kgjudge/matcher"
)

// RunScores is a stored run read back: its metadata, its tasks with their
// properties, and every sample's metrics recomputed from the stored
// verdicts (no judge is asked, no output file is read).
type RunScores struct {
	// Info is the run's stored metadata. A run stored without metadata
	// (by a kgjudge older than run metadata) has only Info.Name set, and
	// Info.Samples and Info.Tasks are derived from its samples.
	Info kgstore.RunInfo `json:"info"`
	// Protocol is the one the metrics were computed under (Read's proto).
	// A sample stored without a validity pass is scored under the code
	// protocol whatever proto says.
	Protocol matcher.Protocol `json:"protocol"`
	// N is the number of samples every task has in Tasks[i].Samples
	// (Info.Samples, at least 1).
	N int `json:"n"`
	// Tasks are the run's tasks (Info.Tasks), sorted by id, each with
	// exactly N samples.
	Tasks []TaskScores `json:"tasks"`
	// Missing lists the samples of Tasks that have no stored prediction
	// (they are in Tasks too, with Missing set), sorted.
	Missing []matcher.MissingSample `json:"missing"`
	// Unscored are stored predictions without verdicts (a judge failed on
	// them); they are neither in Tasks nor in Missing.
	Unscored []kgstore.SampleKey `json:"unscored,omitempty"`
	// Summary is avg@N and best@N as score computed them: missing samples
	// count 0 unless Info.Missing is "skip".
	Summary matcher.Summary `json:"summary"`
}

// TaskScores is one task of a run.
type TaskScores struct {
	TaskID string `json:"task_id"`
	// Subset and Language are the stored task's ("" when unknown).
	Subset   string `json:"subset,omitempty"`
	Language string `json:"language,omitempty"`
	// Samples are sorted by sample index: the run's N sample indices
	// (those the run has, then the lowest free indices from 0 up for the
	// ones it lacks).
	Samples []SampleScores `json:"samples"`
}

// SampleScores is one sample of a task: scored from the store, or missing.
type SampleScores struct {
	Sample int `json:"sample_idx"`
	// Missing is set for a sample without a prediction: every metric is
	// 0 and Item is nil.
	Missing bool `json:"missing,omitempty"`
	// Metrics holds the six matcher.MetricKeys (triplet_precision,
	// triplet_recall, triplet_f1, node_precision, node_recall, node_f1),
	// rounded to 4 decimals as matcher.Score gives them; all 0 when
	// Missing.
	Metrics map[string]float64 `json:"metrics"`
	// Item is the full scored sample (claims with their verdicts, parse
	// report, unjudged counts); nil when Missing.
	Item *matcher.Item `json:"item,omitempty"`
}

// Read reads run name back from store and scores every stored sample from
// its verdicts under proto (matcher.Score; no Neo4j, no judge). The task
// set and N come from the run's metadata, and every (task, sample) of that
// grid without a prediction is a zero-filled SampleScores with Missing set.
// A run the store does not know is an *InputError wrapping
// kgstore.ErrNotFound.
func Read(ctx context.Context, store kgstore.Store, name string, proto matcher.Protocol) (*RunScores, error) {
	info, err := store.Run(ctx, name)
	hasInfo := err == nil
	if err != nil && !errors.Is(err, kgstore.ErrNotFound) {
		return nil, fmt.Errorf("store: %w", err)
	}
	if !hasInfo {
		info = kgstore.RunInfo{Name: name}
	}
	keys, err := store.Samples(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if !hasInfo && len(keys) == 0 {
		return nil, &InputError{Err: fmt.Errorf("run %q: %w", name, kgstore.ErrNotFound)}
	}

	rs := &RunScores{Info: info, Protocol: proto}
	tasks := map[string]*kg.Task{}
	task := func(id string) (*kg.Task, error) {
		if t, ok := tasks[id]; ok {
			return t, nil
		}
		t, err := store.Task(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("store: run %q: %w", name, err)
		}
		tasks[id] = &t
		return &t, nil
	}
	scored := map[string]map[int]*matcher.Item{}
	seenIdx := map[int]bool{}
	var indices []int
	for _, k := range keys {
		t, err := task(k.TaskID)
		if err != nil {
			return nil, err
		}
		p, err := store.Prediction(ctx, k)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		v, err := store.Verdicts(ctx, k)
		if errors.Is(err, kgstore.ErrNotFound) {
			rs.Unscored = append(rs.Unscored, k)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		it, err := scoreStored(t, &p, v, proto)
		if err != nil {
			return nil, fmt.Errorf("run %q: %s sample %d: %w", name, k.TaskID, k.Sample, err)
		}
		if scored[k.TaskID] == nil {
			scored[k.TaskID] = map[int]*matcher.Item{}
		}
		scored[k.TaskID][k.Sample] = &it
		if !seenIdx[k.Sample] {
			seenIdx[k.Sample] = true
			indices = append(indices, k.Sample)
		}
	}

	// The grid: the run's tasks by N sample indices.
	ids := info.Tasks
	if ids == nil {
		for id := range scored {
			ids = append(ids, id)
		}
	}
	ids = append([]string(nil), ids...)
	sort.Strings(ids)
	n := info.Samples
	if n < len(indices) {
		n = len(indices)
	}
	if n < 1 {
		n = 1
	}
	if rs.Info.Samples == 0 {
		rs.Info.Samples = n
	}
	if rs.Info.Tasks == nil {
		rs.Info.Tasks = ids
	}
	for i := 0; len(indices) < n; i++ {
		if !seenIdx[i] {
			seenIdx[i] = true
			indices = append(indices, i)
		}
	}
	sort.Ints(indices)
	rs.N = n

	var items []matcher.Item
	for _, id := range ids {
		t, err := task(id)
		if err != nil {
			return nil, err
		}
		ts := TaskScores{TaskID: id, Subset: t.Subset, Language: t.Language}
		for _, i := range indices {
			it := scored[id][i]
			if it == nil {
				ts.Samples = append(ts.Samples, SampleScores{Sample: i, Missing: true, Metrics: zeroMetrics()})
				rs.Missing = append(rs.Missing, matcher.MissingSample{TaskID: id, Sample: i})
				continue
			}
			ts.Samples = append(ts.Samples, SampleScores{Sample: i, Metrics: itemMetrics(it), Item: it})
			items = append(items, *it)
		}
		rs.Tasks = append(rs.Tasks, ts)
	}
	rs.Summary = matcher.SummarizeWith(items, matcher.SummaryOptions{Missing: rs.Missing, ZeroFill: info.Missing != string(MissingSkip)})
	rs.Summary.Run = name
	rs.Summary.Protocol = proto
	if info.Judge != "" {
		rs.Summary.Judge = info.Judge
	}
	return rs, nil
}

// scoreStored scores a stored sample from its verdicts; the code protocol
// is used when there is no validity pass.
func scoreStored(t *kg.Task, p *kg.Prediction, v kgstore.Verdicts, proto matcher.Protocol) (matcher.Item, error) {
	judge := ""
	for _, c := range v.Coverage {
		if c.Judge != "" {
			judge = c.Judge
			break
		}
	}
	if proto == matcher.ProtocolPaper && v.Validity == nil {
		proto = matcher.ProtocolCode
	}
	return matcher.Score(t, p, kg.Judgement{Judge: judge, Coverage: v.Coverage, Validity: v.Validity}, proto)
}

func zeroMetrics() map[string]float64 {
	m := make(map[string]float64, len(matcher.MetricKeys))
	for _, k := range matcher.MetricKeys {
		m[k] = 0
	}
	return m
}

func itemMetrics(it *matcher.Item) map[string]float64 {
	return map[string]float64{
		"triplet_precision": it.TripletPrecision, "triplet_recall": it.TripletRecall, "triplet_f1": it.TripletF1,
		"node_precision": it.NodePrecision, "node_recall": it.NodeRecall, "node_f1": it.NodeF1,
	}
}

// RunListing is one line of `kgjudge runs list`.
type RunListing struct {
	Info kgstore.RunInfo `json:"info"`
	// HasInfo is false for a run stored without metadata.
	HasInfo bool `json:"has_info"`
	// Stored counts the run's stored predictions, over StoredTasks tasks.
	Stored      int `json:"stored_samples"`
	StoredTasks int `json:"stored_tasks"`
}

// List describes every run of store, sorted by name.
func List(ctx context.Context, store kgstore.Store) ([]RunListing, error) {
	names, err := store.Runs(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	out := make([]RunListing, 0, len(names))
	for _, name := range names {
		l := RunListing{Info: kgstore.RunInfo{Name: name}}
		info, err := store.Run(ctx, name)
		switch {
		case err == nil:
			l.Info, l.HasInfo = info, true
		case !errors.Is(err, kgstore.ErrNotFound):
			return nil, fmt.Errorf("store: %w", err)
		}
		keys, err := store.Samples(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		l.Stored = len(keys)
		seen := map[string]bool{}
		for _, k := range keys {
			seen[k.TaskID] = true
		}
		l.StoredTasks = len(seen)
		out = append(out, l)
	}
	return out, nil
}

// Delete removes run name's predictions, verdicts and metadata from store
// and, when neo is set, from Neo4j. A run neither knows is an
// *InputError.
func Delete(ctx context.Context, store kgstore.Store, neo *neo4j.Writer, name string) error {
	known := false
	for _, s := range []kgstore.Store{store, neoStore(neo)} {
		if s == nil {
			continue
		}
		names, err := s.Runs(ctx)
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		for _, n := range names {
			known = known || n == name
		}
	}
	if !known {
		return inputErrorf("run %q: %w", name, kgstore.ErrNotFound)
	}
	if err := store.DeleteRun(ctx, name); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if neo != nil {
		if err := neo.DeleteRun(ctx, name); err != nil {
			return fmt.Errorf("neo4j: %w", err)
		}
	}
	return nil
}

func neoStore(w *neo4j.Writer) kgstore.Store {
	if w == nil {
		return nil
	}
	return w.Store()
}
