package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/leaderboard"
	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/report"
	"github.com/kgjudge/kgjudge/runset"
)

type reportOptions struct {
	Store string
	Out   string
	HTML  string
	MD    string
	Title string
	// By lists the leaderboards shown, each a --by of kgjudge leaderboard
	// (default: one per dimension run, model, framework, subset, language).
	By        []string
	GT        string
	Meta      string
	Missing   string
	Bootstrap bool
}

// reportBoards are the leaderboards a report shows by default: the issue's
// model, framework, subset and language, after the runs themselves.
var reportBoards = []string{"run", "model", "framework", "subset", "language"}

func reportCommand() *ucli.Command {
	var o reportOptions
	return &ucli.Command{
		Name:      "report",
		Usage:     "write one offline HTML file (and/or Markdown) showing scored runs: leaderboard, tasks, drill-down, side by side",
		UsageText: "kgjudge report RUN [RUN...] [--store DIR] [--out DIR] --html FILE [--md FILE] [--by DIMS ...] [--gt PATH] [--meta FILE]",
		Description: `Reads scored runs back and writes a report that opens from disk with no network:
an overview (leaderboards with 95% intervals clustered by task and paired differences,
Holm-corrected, as kgjudge leaderboard computes them; a chart of F1 by model x subset; the
runs' avg@N and best@N; the judge's self-consistency; charts of recall by relation class and
depth, validity by class, the invalid-prediction taxonomy, whole-output failures, unjudged,
missing and failed counts, manifests), a sortable and filterable table of tasks x runs with
deltas against a chosen baseline, and per task and
sample the GT graph coloured by verdict (click a GT triple for its supporting predicted
triples, the verdict's kind, reason and judge, and the candidates the judge was shown), the
predicted triples with their validity, and two runs side by side on the same GT with the
claims whose verdict differs highlighted.

A RUN is an output directory of kgjudge score (with summary.json and items/), or a run name
looked up under --out (OUT/RUN, or OUT itself when its summary.json names that run). The
ground truth and, for code-protocol runs, the predicted triples are read from --store.
Same runs, same bytes.

Leaderboards: one per --by (repeatable; each is a --by of kgjudge leaderboard, such as
model,subset; default: run, model, framework, subset and language, one board each). A run's
model and framework come from --meta, else the store (score --model/--framework or the runs
file), else the model is the run name; a task's subset and language from --gt, else the store.
A sample a run lacks (summary.json "missing") scores 0 (--missing skip leaves it out).

EXAMPLES:
   kgjudge score --gt examples/gt --pred examples/pred --run demo --store .kgjudge --out kgjudge-out
   kgjudge report demo --store .kgjudge --out kgjudge-out --html kgjudge-out/report.html --md kgjudge-out/report.md`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "store", Usage: "store directory the runs were scored into", Value: ".kgjudge", Destination: &o.Store, EnvVars: []string{"KGJUDGE_STORE"}},
			&ucli.StringFlag{Name: "out", Usage: "output directory under which run names are looked up", Value: "kgjudge-out", Destination: &o.Out, EnvVars: []string{"KGJUDGE_OUT"}},
			&ucli.StringFlag{Name: "html", Usage: "write the HTML report to FILE", Destination: &o.HTML},
			&ucli.StringFlag{Name: "md", Usage: "write a Markdown report to FILE", Destination: &o.MD},
			&ucli.StringFlag{Name: "title", Usage: "report title", Value: "kgjudge report", Destination: &o.Title},
			&ucli.StringSliceFlag{Name: "by", Usage: "a leaderboard grouped by any of " + strings.Join(leaderboard.Dimensions, ",") + " (repeatable; default: one each by " + strings.Join(reportBoards, ", ") + ")"},
			&ucli.StringFlag{Name: "gt", Usage: "ground-truth task file or directory for the leaderboards: task subset, language and domain, and the tasks every run must cover (a task it lacks scores 0)", Destination: &o.GT, EnvVars: []string{"KGJUDGE_GT"}},
			&ucli.StringFlag{Name: "meta", Usage: "run properties for the leaderboards: CSV/TSV with run (or name), model, framework columns, or a JSON array of such objects", Destination: &o.Meta},
			&ucli.StringFlag{Name: "missing", Usage: "zero (a missing sample scores 0, as the reference) | skip", Value: "zero", Destination: &o.Missing},
			&ucli.BoolFlag{Name: "bootstrap", Usage: "add cluster bootstrap intervals to the leaderboards (2000 resamples of the tasks, fixed seed)", Destination: &o.Bootstrap},
		},
		Action: func(c *ucli.Context) error {
			o.By = c.StringSlice("by")
			_, err := runReport(c.Context, o, c.Args().Slice(), c.App.Writer)
			return err
		},
	}
}

func runReport(ctx context.Context, o reportOptions, args []string, stdout io.Writer) (*report.Input, error) {
	if len(args) == 0 {
		return nil, userErrorf("report needs at least one RUN (an output directory of kgjudge score, or a run name under --out)")
	}
	if o.HTML == "" && o.MD == "" {
		return nil, userErrorf("report needs --html FILE and/or --md FILE")
	}
	skip, err := parseMissing(o.Missing)
	if err != nil {
		return nil, err
	}
	if len(o.By) == 0 {
		o.By = reportBoards
	}
	var bys [][]string
	for _, b := range o.By {
		by, err := leaderboard.ParseBy(b)
		if err != nil {
			return nil, &UserError{Err: fmt.Errorf("--by %s: %w", b, err)}
		}
		bys = append(bys, by)
	}
	in := &report.Input{Title: o.Title}
	var store kgstore.Store
	if o.Store != ":memory:" {
		if _, err := os.Stat(o.Store); err == nil {
			s, err := openStore(ctx, o.Store)
			if err != nil {
				return nil, err
			}
			defer s.Close()
			store = s
		}
	}
	tasks := map[string]kg.Task{}
	samples := map[string][]runset.Sample{}
	for _, a := range args {
		dir, err := runDir(a, o.Out)
		if err != nil {
			return nil, err
		}
		run, metrics, err := readRunOutputs(dir, func(it *matcher.Item) {
			if _, ok := tasks[it.QID]; !ok {
				tasks[it.QID] = taskFor(ctx, store, it)
			}
		})
		if err != nil {
			return nil, err
		}
		if store != nil {
			if info, err := store.Run(ctx, run.Name); err == nil {
				for k, v := range map[string]string{"model": info.Model, "framework": info.Framework, "subset": info.Subset, "notes": info.Notes} {
					if v != "" {
						run.Info[k] = v
					}
				}
			}
			// Items without a validity pass (code protocol) carry no
			// predicted triples: the store has them.
			name := run.Name
			for i := range run.Samples {
				load := run.Samples[i].Load
				run.Samples[i].Load = func() (*matcher.Item, *kg.Prediction, error) {
					it, _, err := load()
					if err != nil || it.Validity != nil {
						return it, nil, err
					}
					p, err := store.Prediction(ctx, kgstore.SampleKey{Run: name, TaskID: it.QID, Sample: it.SampleIdx})
					if err != nil {
						return it, nil, nil
					}
					return it, &p, nil
				}
			}
		}
		samples[run.Name] = metrics
		in.Runs = append(in.Runs, *run)
	}
	ids := make([]string, 0, len(tasks))
	for id := range tasks {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		in.Tasks = append(in.Tasks, tasks[id])
	}
	if err := reportLeaderboards(ctx, in, samples, store, o, bys, skip); err != nil {
		return nil, err
	}
	for _, w := range []struct {
		path  string
		write func(io.Writer, report.Input) error
	}{{o.HTML, report.WriteHTML}, {o.MD, report.WriteMarkdown}} {
		if w.path == "" {
			continue
		}
		if err := writeFileAtomic(w.path, func(f io.Writer) error { return w.write(f, *in) }); err != nil {
			return nil, err
		}
		fmt.Fprintf(stdout, "wrote %s\n", w.path)
	}
	return in, nil
}

// reportLeaderboards computes the report's leaderboards with the
// leaderboard package, from the runs already read (items and the samples
// summary.json lists as missing), so the report and kgjudge leaderboard
// show the same numbers for the same runs.
func reportLeaderboards(ctx context.Context, in *report.Input, samples map[string][]runset.Sample, store kgstore.Store, o reportOptions, bys [][]string, skip bool) error {
	set := runset.Set{Tasks: map[string]runset.Task{}}
	for _, t := range in.Tasks {
		set.Tasks[t.ID] = runset.Task{ID: t.ID, Subset: t.Subset, Language: t.Language}
	}
	for _, r := range in.Runs {
		rs := runset.Run{Name: r.Name, Model: r.Name, Protocol: r.Summary.Protocol, Judge: r.Summary.Judge, N: r.Summary.NumSamples, Source: r.Name}
		if store != nil {
			if info, err := store.Run(ctx, r.Name); err == nil {
				if info.Model != "" {
					rs.Model = info.Model
				}
				rs.Framework = info.Framework
			}
		}
		rs.Samples = append(rs.Samples, samples[r.Name]...)
		for _, m := range r.Summary.Missing {
			rs.Samples = append(rs.Samples, runset.Sample{TaskID: m.TaskID, Index: m.Sample, Missing: true})
		}
		runset.SortSamples(rs.Samples)
		set.Runs = append(set.Runs, rs)
	}
	if o.GT != "" {
		tasks, ids, err := runset.ReadTasks(o.GT)
		if err != nil {
			return &UserError{Err: fmt.Errorf("--gt: %w", err)}
		}
		for id, t := range tasks {
			set.Tasks[id] = t
		}
		set.Universe = ids
	}
	if o.Meta != "" {
		meta, err := runset.ReadMeta(o.Meta)
		if err != nil {
			return asUser(err)
		}
		runset.ApplyMeta(set.Runs, meta)
	}
	for _, by := range append(bys, []string{"model", "subset"}) {
		b, err := leaderboard.Build(set, leaderboard.Options{By: by, Skip: skip, Bootstrap: o.Bootstrap})
		if err != nil {
			// Runs the leaderboard cannot rank together (scored under two
			// protocols) still get the rest of the report, which says why
			// the leaderboards are not there.
			in.Leaderboards, in.ModelBySubset = nil, nil
			in.LeaderboardNote = fmt.Sprintf("no leaderboard: %v", err)
			return nil
		}
		in.Leaderboards = append(in.Leaderboards, b)
	}
	in.ModelBySubset = in.Leaderboards[len(in.Leaderboards)-1]
	in.Leaderboards = in.Leaderboards[:len(in.Leaderboards)-1]
	return nil
}

// runDir resolves a RUN argument to an output directory.
func runDir(arg, out string) (string, error) {
	for _, d := range []string{arg, filepath.Join(out, arg), out} {
		b, err := os.ReadFile(filepath.Join(d, "summary.json"))
		if err != nil {
			continue
		}
		if d != out || d == arg {
			return d, nil
		}
		var s struct {
			Run string `json:"run"`
		}
		if json.Unmarshal(b, &s) == nil && s.Run == arg {
			return d, nil
		}
	}
	return "", userErrorf("report: no scored run %q: not an output directory with summary.json, and not found under --out %s", arg, out)
}

// readRunOutputs reads a score output directory back: summary.json, and
// every item file once, passed to seen, counted into the run's
// self-consistency and its per-sample metrics (for the leaderboards), then
// let go: each sample reads its file again when the report writes its task,
// so that a large run is never held whole (a 200 x 4 x 3 report held 2.3 GB
// of items).
func readRunOutputs(dir string, seen func(*matcher.Item)) (*report.Run, []runset.Sample, error) {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, nil, userErrorf("report: %w", err)
	}
	var s matcher.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, nil, userErrorf("report: %s: %w", filepath.Join(dir, "summary.json"), err)
	}
	run := &report.Run{Name: s.Run, Summary: s, Info: map[string]string{"judge": s.Judge, "protocol": string(s.Protocol)}}
	if run.Name == "" {
		run.Name = filepath.Base(dir)
	}
	for _, sec := range s.Sections {
		raw, _ := sec.Value.(json.RawMessage)
		switch sec.Key {
		case "structure":
			var v any
			if err := json.Unmarshal(raw, &v); err == nil {
				run.Structure = v
			}
		case "manifest":
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err == nil {
				for k, v := range m {
					if str, ok := v.(string); ok {
						run.Info[k] = str
					} else if v != nil {
						vb, _ := json.Marshal(v)
						run.Info[k] = string(vb)
					}
				}
			}
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "items", "*.json"))
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(files)
	var cons matcher.SelfConsistency
	hasCons := false
	var metrics []runset.Sample
	for _, f := range files {
		it, err := readReportItem(f)
		if err != nil {
			return nil, nil, err
		}
		seen(it)
		hasCons = report.AddConsistency(&cons, it) || hasCons
		m := runset.SampleFromItem(it)
		m.Claims = nil // only diffs read them
		metrics = append(metrics, m)
		run.Samples = append(run.Samples, report.Sample{TaskID: it.QID, Index: it.SampleIdx, Load: func() (*matcher.Item, *kg.Prediction, error) {
			it, err := readReportItem(f)
			return it, nil, err
		}})
	}
	if hasCons {
		run.Consistency = &cons
	}
	sort.SliceStable(run.Samples, func(i, j int) bool {
		a, b := run.Samples[i], run.Samples[j]
		if a.TaskID != b.TaskID {
			return a.TaskID < b.TaskID
		}
		return a.Index < b.Index
	})
	if len(run.Samples) == 0 {
		return nil, nil, userErrorf("report: %s has no item files (items/*.json)", dir)
	}
	return run, metrics, nil
}

// readReportItem reads one item file, of its structure report only the
// relation classes: the whole report, as generic JSON, costs more memory
// than the verdicts.
func readReportItem(f string) (*matcher.Item, error) {
	b, err := os.ReadFile(f)
	if err != nil {
		return nil, userErrorf("report: %w", err)
	}
	var it struct {
		matcher.Item
		Structure *report.ItemStructure `json:"structure,omitempty"`
	}
	if err := json.Unmarshal(b, &it); err != nil {
		return nil, userErrorf("report: %s: %w", f, err)
	}
	if it.Structure != nil {
		it.Item.Structure = it.Structure
	}
	return &it.Item, nil
}

// taskFor is the ground truth of an item's task: from the store when it has
// it, else rebuilt from the item's GT triples.
func taskFor(ctx context.Context, store kgstore.Store, it *matcher.Item) kg.Task {
	if store != nil {
		if t, err := store.Task(ctx, it.QID); err == nil {
			return t
		}
	}
	t := kg.Task{ID: it.QID}
	if it.Coverage != nil {
		seen := map[string]bool{}
		for _, g := range it.Coverage.PerGTTriple {
			t.Triples = append(t.Triples, kg.GTTriple{Triple: g.GTTriple})
			for _, n := range []string{g.GTTriple.Head, g.GTTriple.Tail} {
				if !seen[n] {
					seen[n] = true
					t.Nodes = append(t.Nodes, kg.Node{ID: fmt.Sprintf("n%d", len(t.Nodes)), Name: n})
				}
			}
		}
	}
	return t
}

// writeFileAtomic writes a file through a temp file and a rename.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("output: %w", err)
	}
	if err := write(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}
