package runs

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kg"
)

// RunSpec is one run of a scoring command: its name, what produced it, and
// where its predictions are.
type RunSpec struct {
	Name      string `json:"name"`
	Model     string `json:"model,omitempty"`
	Framework string `json:"framework,omitempty"`
	// Path is a prediction file or directory.
	Path string `json:"path"`
	// Subset, when set, limits the run to the tasks of that subset and
	// labels the tasks it predicts that have none.
	Subset string `json:"subset,omitempty"`
	Notes  string `json:"notes,omitempty"`
}

// CheckRunName says whether name can name a run (it becomes a directory
// under the output directory).
func CheckRunName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x1f") || strings.HasPrefix(name, ".") {
		return fmt.Errorf("%q is not a usable run name (it names a directory: no slash, no leading dot)", name)
	}
	return nil
}

// DefaultRunName is the run name of predictions at path: its base name
// without extension.
func DefaultRunName(path string) string {
	base := filepath.Base(filepath.Clean(path))
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// runsFileKeys are the columns of a CSV/TSV runs file, in order.
var runsFileKeys = []string{"name", "model", "framework", "path", "subset", "notes"}

// ReadRunsFile reads a runs manifest (--runs FILE): JSON, either an array of
// runs or {"runs": [...]}, each {"name", "model", "framework", "path",
// "subset", "notes"} with path required; or, for a .csv or .tsv file, a
// header row naming those columns (path required, the others optional)
// and one run per row. Relative paths are relative to the manifest's
// directory; a run without a name takes DefaultRunName(path). Names must be
// unique and usable, paths must exist; every problem is reported with the
// file, the run (or line) and what is wrong.
func ReadRunsFile(path string) ([]RunSpec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &InputError{Err: fmt.Errorf("--runs: %w", err)}
	}
	var specs []RunSpec
	var where []string // how to name each run in an error
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv", ".tsv":
		specs, where, err = readRunsTable(b, strings.EqualFold(filepath.Ext(path), ".tsv"))
	default:
		specs, err = readRunsJSON(b)
		for i := range specs {
			where = append(where, fmt.Sprintf("run %d", i+1))
		}
	}
	if err != nil {
		return nil, &InputError{Err: fmt.Errorf("--runs %s: %w", path, err)}
	}
	if len(specs) == 0 {
		return nil, inputErrorf("--runs %s: no runs", path)
	}
	dir := filepath.Dir(path)
	seen := map[string]string{}
	var problems []string
	for i := range specs {
		sp := &specs[i]
		if sp.Path == "" {
			problems = append(problems, fmt.Sprintf("%s: no \"path\"", where[i]))
			continue
		}
		if !filepath.IsAbs(sp.Path) {
			sp.Path = filepath.Join(dir, sp.Path)
		}
		if _, err := os.Stat(sp.Path); err != nil {
			problems = append(problems, fmt.Sprintf("%s: path: %v", where[i], err))
		}
		if sp.Name == "" {
			sp.Name = DefaultRunName(sp.Path)
		}
		if err := CheckRunName(sp.Name); err != nil {
			problems = append(problems, fmt.Sprintf("%s: name: %v", where[i], err))
		}
		if prev, ok := seen[sp.Name]; ok {
			problems = append(problems, fmt.Sprintf("%s: run name %q is also used by %s", where[i], sp.Name, prev))
		}
		seen[sp.Name] = where[i]
	}
	if len(problems) > 0 {
		return nil, inputErrorf("--runs %s: %s", path, strings.Join(problems, "; "))
	}
	return specs, nil
}

func readRunsJSON(b []byte) ([]RunSpec, error) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		var wrapped struct {
			Runs json.RawMessage `json:"runs"`
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&wrapped); err != nil {
			return nil, fmt.Errorf("want {\"runs\": [...]} or an array of runs: %w", err)
		}
		b = wrapped.Runs
	}
	var specs []RunSpec
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&specs); err != nil {
		return nil, fmt.Errorf("want an array of {name, model, framework, path, subset, notes}: %w", err)
	}
	return specs, nil
}

func readRunsTable(b []byte, tsv bool) ([]RunSpec, []string, error) {
	r := csv.NewReader(bytes.NewReader(b))
	if tsv {
		r.Comma = '\t'
		r.LazyQuotes = true
	}
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("header: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		known := false
		for _, k := range runsFileKeys {
			known = known || h == k
		}
		if !known {
			return nil, nil, fmt.Errorf("line 1: unknown column %q (want %s)", h, strings.Join(runsFileKeys, ", "))
		}
		col[h] = i
	}
	if _, ok := col["path"]; !ok {
		return nil, nil, errors.New("line 1: no \"path\" column")
	}
	var specs []RunSpec
	var where []string
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		line, _ := r.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) > len(header) {
			return nil, nil, fmt.Errorf("line %d: %d fields, the header has %d", line, len(rec), len(header))
		}
		get := func(k string) string {
			if i, ok := col[k]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		specs = append(specs, RunSpec{Name: get("name"), Model: get("model"), Framework: get("framework"), Path: get("path"), Subset: get("subset"), Notes: get("notes")})
		where = append(where, fmt.Sprintf("line %d", line))
	}
	return specs, where, nil
}

// Batch is the ground truth of one scoring command and the predictions of
// each of its runs, matched to the tasks.
type Batch struct {
	// GT holds the tasks, the qid map and the problems of the ground truth
	// (its Preds are empty).
	GT   *Inputs
	Runs []*RunInputs
}

// RunInputs are one run's predictions.
type RunInputs struct {
	Spec  RunSpec
	Preds []kg.Prediction
	// Problems are the run's bad files and unmatched or duplicate
	// predictions.
	Problems []error
	// Judge, when set, judges this run instead of ScoreConfig.Judge (the
	// replay judge reads each run's own recorded verdicts).
	Judge kg.Judge
	// refs say where the triples of Preds are, which LoadBatch dropped
	// (lazy.go); a prediction without one holds its triples.
	refs predRefs
}

// Prediction returns p, one of r.Preds, with its triples (read again from
// its file when LoadBatch dropped them; a file that changed since is a
// *ChangedInputError).
func (r *RunInputs) Prediction(ctx context.Context, p *kg.Prediction) (*kg.Prediction, error) {
	return r.prediction(ctx, newFileCache(), p)
}

// Samples returns the run's matched predictions, each (task, sample) once,
// in input order.
func (r *RunInputs) Samples() []*kg.Prediction {
	return (&Inputs{Preds: r.Preds}).Samples()
}

// LoadBatch reads the ground truth once and each run's predictions, and
// matches them. It fails only when nothing can be read at all (a missing
// path, a bad map); bad files are Problems. Of each prediction it keeps
// the metadata and where its triples are, not the triples (Preds[i].Triples
// is nil): Score reads them again, checked by hash, as it judges the
// sample; other callers use RunInputs.Prediction.
func LoadBatch(ctx context.Context, gt, mapFile string, specs []RunSpec) (*Batch, error) {
	return LoadBatchMapped(ctx, gt, mapFile, specs, nil)
}

// LoadBatchMapped is LoadBatch with extra qid -> task mappings, used where
// the map file has none (a lone prediction file replayed with its eval
// record takes the record's task).
func LoadBatchMapped(ctx context.Context, gt, mapFile string, specs []RunSpec, extra map[string]string) (*Batch, error) {
	b := &Batch{GT: &Inputs{}}
	var err error
	if b.GT.Tasks, err = ingest.ReadTasks(gt); err != nil {
		var fe *ingest.FileErrors
		if !errors.As(err, &fe) {
			return nil, asInput(err)
		}
		b.GT.Problems = append(b.GT.Problems, fe.Errs...)
	}
	if len(b.GT.Tasks) == 0 && len(b.GT.Problems) == 0 {
		return nil, inputErrorf("--gt %s: no task file found (want *.json task files with task_id and triples; docs/FORMATS.md §1)", gt)
	}
	// ReadTasks takes no context: a signal during it is caught here.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if mapFile != "" {
		if b.GT.Mapping, err = ingest.ReadMap(mapFile); err != nil {
			return nil, asInput(err)
		}
	}
	for q, id := range extra {
		if _, ok := b.GT.Mapping[q]; !ok {
			if b.GT.Mapping == nil {
				b.GT.Mapping = map[string]string{}
			}
			b.GT.Mapping[q] = id
		}
	}
	b.GT.TaskByID = make(map[string]*kg.Task, len(b.GT.Tasks))
	for i := range b.GT.Tasks {
		b.GT.TaskByID[b.GT.Tasks[i].ID] = &b.GT.Tasks[i]
		b.GT.IDs = append(b.GT.IDs, b.GT.Tasks[i].ID)
	}
	names := map[string]bool{}
	for _, sp := range specs {
		if err := CheckRunName(sp.Name); err != nil {
			return nil, &InputError{Err: err}
		}
		if names[sp.Name] {
			return nil, inputErrorf("run %q is given twice", sp.Name)
		}
		names[sp.Name] = true
		ri := &RunInputs{Spec: sp}
		// Each file's triples are hashed and dropped as it is read; the
		// worker that judges a sample reads them again.
		err := ingest.ReadPredictionsEach(ctx, sp.Path, func(file string, ps []kg.Prediction) {
			ri.lighten(file, ps)
			ri.Preds = append(ri.Preds, ps...)
		})
		if err != nil {
			var fe *ingest.FileErrors
			if !errors.As(err, &fe) {
				return nil, asInput(fmt.Errorf("run %s: %w", sp.Name, err))
			}
			ri.Problems = append(ri.Problems, fe.Errs...)
		}
		if err := ingest.MatchTasks(ri.Preds, b.GT.IDs, b.GT.Mapping); err != nil {
			var me *ingest.MatchError
			if !errors.As(err, &me) {
				return nil, err
			}
			ri.Problems = append(ri.Problems, err)
		}
		b.Runs = append(b.Runs, ri)
	}
	return b, nil
}
