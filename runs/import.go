package runs

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"time"
	"unicode"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/neo4j"
	"github.com/kgjudge/kgjudge/matcher"
)

// ImportConfig is an import of recorded runs. Store (and Neo4j) are the
// caller's to open and close.
type ImportConfig struct {
	// Evals are the records: a file or directory of reference eval JSON or
	// trajectory JSONL whose lines end with the eval keys.
	Evals string
	// GT and Map, optional: task files the records must agree with (else
	// the tasks are rebuilt from the records) and a qid map.
	GT, Map string
	Run     string
	// Model, Framework and Notes are stored on the run.
	Model, Framework, Notes string
	// Subset is stored on the imported tasks when set.
	Subset string
	Store  kgstore.Store
	Neo4j  *neo4j.Writer
	// Now stamps the run metadata (time.Now when nil).
	Now func() time.Time
}

// ImportResult is what an import stored. Problems are the records that could
// not be imported (the good ones were).
type ImportResult struct {
	Tasks []string
	Items []matcher.Item
	Keys  []kgstore.SampleKey
	// Removed are the samples an earlier import or scoring of the run
	// stored that this import did not; they were deleted.
	Removed  []kgstore.SampleKey
	Info     kgstore.RunInfo
	Problems []error
}

// Import stores the ground truth, predicted graph and recorded verdicts of
// every sample of cfg.Evals, judging nothing; metrics are recomputed from the
// verdicts (paper protocol, which reproduces the published numbers) and,
// with Neo4j, written on each Sample next to the published ones.
func Import(ctx context.Context, cfg ImportConfig) (*ImportResult, error) {
	o := cfg
	var problems []error
	evals, err := ingest.ReadEvals(ctx, o.Evals)
	if err != nil {
		var fe *ingest.FileErrors
		if !errors.As(err, &fe) {
			return nil, asInput(err)
		}
		problems = append(problems, fe.Errs...)
	}
	if len(evals) == 0 {
		return nil, inputErrorf("--evals: no evaluation records found in %s", o.Evals)
	}

	// Tasks: from --gt, or rebuilt from the records.
	var tasks []kg.Task
	var mapping map[string]string
	if o.GT != "" {
		tasks, err = ingest.ReadTasks(o.GT)
		if err != nil {
			var fe *ingest.FileErrors
			if !errors.As(err, &fe) {
				return nil, asInput(err)
			}
			problems = append(problems, fe.Errs...)
		}
		if o.Map != "" {
			if mapping, err = ingest.ReadMap(o.Map); err != nil {
				return nil, asInput(err)
			}
		}
	} else {
		var bad []error
		tasks, bad = tasksFromEvals(evals)
		problems = append(problems, bad...)
		// A task rebuilt from records knows only its triples: when the
		// store holds the same ground truth (from a task file), keep that
		// (node list, aliases, final query, language, subset).
		sk := sink{store: cfg.Store, neo: cfg.Neo4j}
		for i := range tasks {
			stored, ok, err := sk.storedTask(ctx, tasks[i].ID)
			if err != nil {
				return nil, err
			}
			if ok && sameTriples(stored.Triples, tasks[i].Triples) {
				stored.Source = tasks[i].Source
				tasks[i] = stored
			}
		}
	}
	taskByID := map[string]*kg.Task{}
	var ids []string
	for i := range tasks {
		taskByID[tasks[i].ID] = &tasks[i]
		ids = append(ids, tasks[i].ID)
	}

	// Match records to tasks the way predictions are matched.
	keys := make([]kg.Prediction, len(evals))
	for i, e := range evals {
		keys[i] = kg.Prediction{QID: e.QID, SampleIdx: e.SampleIdx, Source: e.Source}
	}
	if err := ingest.MatchTasks(keys, ids, mapping); err != nil {
		var me *ingest.MatchError
		if !errors.As(err, &me) {
			return nil, err
		}
		problems = append(problems, &InputError{Err: err})
	}
	var good []ingest.Eval
	var goodIDs []string
	for i := range evals {
		if keys[i].TaskID != "" {
			good = append(good, evals[i])
			goodIDs = append(goodIDs, keys[i].TaskID)
		}
	}
	replay, err := matcher.NewReplay(good, ids, mapping)
	if err != nil {
		return nil, &InputError{Err: err}
	}

	sink := sink{store: cfg.Store, neo: cfg.Neo4j}
	res := &ImportResult{}
	used := map[string]bool{}
	for _, id := range goodIDs {
		used[id] = true
	}
	for _, id := range ids {
		if !used[id] {
			continue // --gt may hold more tasks than the records cover
		}
		if o.Subset != "" {
			taskByID[id].Subset = o.Subset
		}
		if taskByID[id].Subset == "" {
			// Never erase what an earlier command stored.
			sub, err := sink.storedSubset(ctx, id)
			if err != nil {
				return nil, err
			}
			taskByID[id].Subset = sub
		}
		if err := sink.putTask(ctx, *taskByID[id]); err != nil {
			return nil, err
		}
		res.Tasks = append(res.Tasks, id)
	}
	for i := range good {
		e := &good[i]
		task := taskByID[goodIDs[i]]
		pred, err := predictionFromEval(e, task.ID)
		if err != nil {
			problems = append(problems, &InputError{Err: err})
			continue
		}
		j, err := replay.Judge(ctx, task, &pred)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			problems = append(problems, &InputError{Err: err})
			continue
		}
		proto := matcher.ProtocolPaper
		if j.Validity == nil {
			proto = matcher.ProtocolCode
		}
		item, err := matcher.Score(task, &pred, j, proto)
		if err != nil {
			problems = append(problems, &InputError{Err: err})
			continue
		}
		key := kgstore.SampleKey{Run: o.Run, TaskID: task.ID, Sample: e.SampleIdx}
		if err := sink.putPrediction(ctx, key, pred); err != nil {
			return nil, err
		}
		if err := sink.putVerdicts(ctx, kgstore.Verdicts{Key: key, Coverage: j.Coverage, Validity: j.Validity}); err != nil {
			return nil, err
		}
		props := ItemProps(&item)
		for k, v := range publishedProps(e) {
			props[k] = v
		}
		if err := sink.setSampleProps(ctx, key, props); err != nil {
			return nil, err
		}
		res.Items = append(res.Items, item)
		res.Keys = append(res.Keys, key)
	}
	if err := sink.flush(ctx); err != nil {
		return nil, err
	}
	// The store keeps exactly this import of the run.
	keep := map[kgstore.SampleKey]bool{}
	indices := map[int]bool{}
	for _, k := range res.Keys {
		keep[k] = true
		indices[k.Sample] = true
	}
	if res.Removed, err = sink.removeStale(ctx, o.Run, keep); err != nil {
		return nil, err
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	runTasks := append([]string{}, res.Tasks...)
	sort.Strings(runTasks)
	res.Info = kgstore.RunInfo{
		Name: o.Run, Model: o.Model, Framework: o.Framework, Subset: o.Subset, Notes: o.Notes, Source: o.Evals,
		Samples: max(1, len(indices)), Missing: string(MissingZero), Protocol: string(matcher.ProtocolPaper), Judge: "recorded",
		Tasks: runTasks, Scored: now().UTC().Truncate(time.Second),
	}
	if err := sink.putRun(ctx, res.Info); err != nil {
		return nil, err
	}
	if err := sink.flush(ctx); err != nil {
		return nil, err
	}
	res.Problems = problems
	return res, nil
}

// publishedProps are the metrics the record itself carries.
func publishedProps(e *ingest.Eval) map[string]any {
	p := map[string]any{
		"published_triplet_precision": e.TripletPrecision, "published_triplet_recall": e.TripletRecall, "published_triplet_f1": e.TripletF1,
		"published_node_precision": e.NodePrecision, "published_node_recall": e.NodeRecall, "published_node_f1": e.NodeF1,
		"source": e.Source,
	}
	if c := e.Coverage; c != nil {
		p["published_covered_count"] = c.CoveredCount
	}
	if v := e.Validity; v != nil {
		p["published_valid_count"] = v.ValidCount
	}
	return p
}

// predictionFromEval rebuilds the predicted graph from per_pred_triple.
func predictionFromEval(e *ingest.Eval, taskID string) (kg.Prediction, error) {
	p := kg.Prediction{QID: e.QID, TaskID: taskID, SampleIdx: e.SampleIdx, Source: e.Source}
	if e.Validity == nil || len(e.Validity.PerPredTriple) == 0 {
		if e.NumPredTriples > 0 {
			return p, fmt.Errorf("%s: %d predicted triples but no validity_details.per_pred_triple to read them from", e.Source, e.NumPredTriples)
		}
		p.Triples = []kg.Triple{}
		p.Report = kg.ParseReport{Status: kg.ParseEmpty, Method: "eval-record"}
		return p, nil
	}
	recs := e.Validity.PerPredTriple
	p.Triples = make([]kg.Triple, len(recs))
	seen := make([]bool, len(recs))
	for i, r := range recs {
		if r.PredIndex < 0 || r.PredIndex >= len(recs) || seen[r.PredIndex] {
			return p, fmt.Errorf("%s: validity_details.per_pred_triple[%d].pred_index %d is out of range or repeated (%d records)", e.Source, i, r.PredIndex, len(recs))
		}
		seen[r.PredIndex] = true
		p.Triples[r.PredIndex] = r.PredTriple
	}
	p.Report = kg.ParseReport{Status: kg.ParseClean, Method: "eval-record", Triples: len(p.Triples)}
	return p, nil
}

// tasksFromEvals rebuilds each task's ground truth from its records'
// per_gt_triple; records of one task must agree.
func tasksFromEvals(evals []ingest.Eval) ([]kg.Task, []error) {
	var out []kg.Task
	var bad []error
	at := map[string]int{}
	for i := range evals {
		e := &evals[i]
		if e.Coverage == nil || len(e.Coverage.PerGTTriple) == 0 {
			continue // nothing to rebuild from (a sample with no prediction); another record may have it
		}
		t, err := taskFromEval(e)
		if err != nil {
			bad = append(bad, &InputError{Err: err})
			continue
		}
		if j, ok := at[t.ID]; ok {
			if !reflect.DeepEqual(out[j].Triples, t.Triples) {
				bad = append(bad, inputErrorf("%s: the ground truth of %q differs from the one in %s", e.Source, t.ID, out[j].Source))
			}
			continue
		}
		at[t.ID] = len(out)
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, bad
}

func taskFromEval(e *ingest.Eval) (kg.Task, error) {
	recs := e.Coverage.PerGTTriple
	t := kg.Task{ID: e.QID, Source: e.Source, Language: "en", Triples: make([]kg.GTTriple, len(recs)), Nodes: []kg.Node{}}
	seen := make([]bool, len(recs))
	for i, r := range recs {
		if r.GTIndex < 0 || r.GTIndex >= len(recs) || seen[r.GTIndex] {
			return t, fmt.Errorf("%s: coverage_details.per_gt_triple[%d].gt_index %d is out of range or repeated (%d records)", e.Source, i, r.GTIndex, len(recs))
		}
		seen[r.GTIndex] = true
		t.Triples[r.GTIndex] = kg.GTTriple{Triple: r.GTTriple}
	}
	ids := map[string]string{}
	node := func(name string) string {
		if id, ok := ids[name]; ok {
			return id
		}
		id := fmt.Sprintf("n%d", len(t.Nodes))
		ids[name] = id
		t.Nodes = append(t.Nodes, kg.Node{ID: id, Name: name})
		return id
	}
	for i := range t.Triples {
		x := &t.Triples[i]
		x.HeadID, x.TailID = node(x.Head), node(x.Tail)
		if hasCJK(x.Head + x.Relation + x.Tail) {
			t.Language = "zh"
		}
	}
	return t, nil
}

func hasCJK(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// sameTriples says whether two ground truths state the same triples in the
// same order.
func sameTriples(a, b []kg.GTTriple) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Triple != b[i].Triple {
			return false
		}
	}
	return true
}
