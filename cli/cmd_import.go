package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"unicode"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/matcher"
)

type importOptions struct {
	Evals     string
	GT        string
	Map       string
	Run       string
	Model     string
	Framework string
	Subset    string
	Store     string
	Neo4j     bool
	Neo4jConn neo4jOptions
}

func importCommand() *ucli.Command {
	var o importOptions
	return &ucli.Command{
		Name:      "import",
		Usage:     "import reference eval outputs / trajectory JSONL (graphs and recorded verdicts) into the store",
		UsageText: "kgjudge import --evals PATH [--gt PATH] [--run NAME] [--store DIR] [--neo4j] [options]",
		Description: `Reads the benchmark's recorded evaluations (--evals: per-sample eval JSON files or trajectory
JSONL whose lines end with the eval keys, a file or a directory) and stores, for each sample,
the ground truth, the predicted graph and the judge's verdicts, without judging anything:
   GT triples         coverage_details.per_gt_triple[].gt_triple, in gt_index order
                      (or the task files of --gt, which the records must agree with)
   predicted triples  validity_details.per_pred_triple[].pred_triple, in pred_index order
   coverage verdicts  covered + supporting_pred_indices
   validity verdicts  valid + supporting_gt_indices
Metrics are recomputed from those verdicts (paper protocol; they reproduce the published
numbers) and, with --neo4j, written on each Sample node next to the published ones.
Without --gt, tasks are rebuilt from the records: node ids n0, n1, ... in order of first
appearance, language "zh" when the triples hold CJK text, else "en".
Records go into the embedded store (--store; :memory: keeps nothing) and, with --neo4j,
into Neo4j too. Bad records are listed (exit 2); the good ones are imported.

EXAMPLES:
   kgjudge import --evals results/eval/opus --run opus --model "Claude Opus 4.6" --neo4j
   kgjudge import --evals data/trajs/pro/ --gt tasks/ --subset pro --run opus --neo4j`,
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "evals", Usage: "eval records: a file or directory of eval JSON / trajectory JSONL", Required: true, Destination: &o.Evals},
			&ucli.StringFlag{Name: "gt", Usage: "ground-truth task file or directory (default: rebuilt from the records)", Destination: &o.GT, EnvVars: []string{"KGJUDGE_GT"}},
			&ucli.StringFlag{Name: "map", Usage: "file mapping record qids to task ids (with --gt)", Destination: &o.Map},
			&ucli.StringFlag{Name: "run", Usage: "run name (default: the base name of --evals)", Destination: &o.Run},
			&ucli.StringFlag{Name: "model", Usage: "model name, stored on the run", Destination: &o.Model},
			&ucli.StringFlag{Name: "framework", Usage: "agent framework, stored on the run", Destination: &o.Framework},
			&ucli.StringFlag{Name: "subset", Usage: "benchmark subset of these tasks (pro, daily), stored on the tasks", Destination: &o.Subset},
			&ucli.StringFlag{Name: "store", Usage: "store directory, or :memory:", Value: ".kgjudge", Destination: &o.Store, EnvVars: []string{"KGJUDGE_STORE"}},
		}, scoreNeo4jFlags(&o.Neo4j, &o.Neo4jConn)...),
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return userErrorf("import takes no arguments (got %q); use --evals", c.Args().Slice())
			}
			_, err := runImport(c.Context, o, c.App.Writer, c.App.ErrWriter)
			return err
		},
	}
}

// importResult is what an import stored, for tests.
type importResult struct {
	Tasks []string
	Items []matcher.Item
	Keys  []kgstore.SampleKey
}

func validateImportArgs(o *importOptions) error {
	for flag, p := range map[string]string{"--evals": o.Evals, "--gt": o.GT, "--map": o.Map} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			return userErrorf("%s: %w", flag, err)
		}
	}
	if o.Map != "" && o.GT == "" {
		return userErrorf("--map needs --gt (without task files, records keep their own qids)")
	}
	if o.Run == "" {
		o.Run = strings.TrimSuffix(filepath.Base(filepath.Clean(o.Evals)), filepath.Ext(o.Evals))
	}
	if strings.ContainsAny(o.Run, "/\\") || o.Run == "" || o.Run == "." {
		return userErrorf("--run: %q is not a usable run name", o.Run)
	}
	return nil
}

func runImport(ctx context.Context, o importOptions, stdout, stderr io.Writer) (*importResult, error) {
	if err := validateImportArgs(&o); err != nil {
		return nil, err
	}
	var problems []error
	evals, err := ingest.ReadEvals(ctx, o.Evals)
	if err != nil {
		var fe *ingest.FileErrors
		if !errors.As(err, &fe) {
			return nil, wrapInput(err)
		}
		problems = append(problems, fe.Errs...)
	}
	if len(evals) == 0 {
		return nil, userErrorf("--evals: no evaluation records found in %s", o.Evals)
	}

	// Tasks: from --gt, or rebuilt from the records.
	var tasks []kg.Task
	var mapping map[string]string
	if o.GT != "" {
		tasks, err = ingest.ReadTasks(o.GT)
		if err != nil {
			var fe *ingest.FileErrors
			if !errors.As(err, &fe) {
				return nil, wrapInput(err)
			}
			problems = append(problems, fe.Errs...)
		}
		if o.Map != "" {
			if mapping, err = ingest.ReadMap(o.Map); err != nil {
				return nil, wrapInput(err)
			}
		}
	} else {
		var bad []error
		tasks, bad = tasksFromEvals(evals)
		problems = append(problems, bad...)
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
		problems = append(problems, &UserError{Err: err})
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
		return nil, &UserError{Err: err}
	}

	store, err := openStore(ctx, o.Store)
	if err != nil {
		return nil, err
	}
	if store, err = withNeo4j(ctx, store, o.Neo4j, o.Neo4jConn); err != nil {
		return nil, err
	}
	defer store.Close()
	res := &importResult{}
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
		if err := store.PutTask(ctx, *taskByID[id]); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		res.Tasks = append(res.Tasks, id)
	}
	sync, _ := store.(*syncStore)
	if sync != nil {
		props := map[string]any{}
		if o.Model != "" {
			props["model"] = o.Model
		}
		if o.Framework != "" {
			props["framework"] = o.Framework
		}
		if len(props) > 0 {
			if err := sync.w.SetRunProps(ctx, o.Run, props); err != nil {
				return nil, err
			}
		}
	}

	for i := range good {
		e := &good[i]
		task := taskByID[goodIDs[i]]
		pred, err := predictionFromEval(e, task.ID)
		if err != nil {
			problems = append(problems, &UserError{Err: err})
			continue
		}
		j, err := replay.Judge(ctx, task, &pred)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			problems = append(problems, &UserError{Err: err})
			continue
		}
		proto := matcher.ProtocolPaper
		if j.Validity == nil {
			proto = matcher.ProtocolCode
		}
		item, err := matcher.Score(task, &pred, j, proto)
		if err != nil {
			problems = append(problems, &UserError{Err: err})
			continue
		}
		key := kgstore.SampleKey{Run: o.Run, TaskID: task.ID, Sample: e.SampleIdx}
		if err := store.PutPrediction(ctx, key, pred); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		if err := store.PutVerdicts(ctx, kgstore.Verdicts{Key: key, Coverage: j.Coverage, Validity: j.Validity}); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		if sync != nil {
			props := itemProps(&item)
			for k, v := range publishedProps(e) {
				props[k] = v
			}
			if err := sync.w.SetSampleProps(ctx, key, props); err != nil {
				return nil, err
			}
		}
		res.Items = append(res.Items, item)
		res.Keys = append(res.Keys, key)
	}
	if err := flushStore(ctx, store); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	where := o.Store
	if sync != nil {
		where += " and Neo4j " + o.Neo4jConn.config().URI + " (namespace " + sync.neo.Namespace() + ")"
	}
	fmt.Fprintf(stdout, "imported run %q: %d tasks, %d samples into %s\n", o.Run, len(res.Tasks), len(res.Items), where)
	for _, e := range problems {
		fmt.Fprintf(stderr, "kgjudge: %v\n", e)
	}
	if len(problems) > 0 {
		return res, &exitStatus{code: ExitInput, msg: fmt.Sprintf("%d input problem(s); the good records were imported (%d samples)", len(problems), len(res.Items))}
	}
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
			bad = append(bad, &UserError{Err: err})
			continue
		}
		if j, ok := at[t.ID]; ok {
			if !reflect.DeepEqual(out[j].Triples, t.Triples) {
				bad = append(bad, userErrorf("%s: the ground truth of %q differs from the one in %s", e.Source, t.ID, out[j].Source))
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
