package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/report"
)

type reportOptions struct {
	Store string
	Out   string
	HTML  string
	MD    string
	Title string
}

func reportCommand() *ucli.Command {
	var o reportOptions
	return &ucli.Command{
		Name:      "report",
		Usage:     "write one offline HTML file (and/or Markdown) showing scored runs: leaderboard, tasks, drill-down, side by side",
		UsageText: "kgjudge report RUN [RUN...] [--store DIR] [--out DIR] --html FILE [--md FILE]",
		Description: `Reads scored runs back and writes a report that opens from disk with no network:
an overview (runs, leaderboard, charts of recall by relation class and depth, validity by
class, the invalid-prediction taxonomy, unjudged and failed counts, manifests), a sortable and
filterable table of tasks x runs with deltas against a chosen baseline, and per task and
sample the GT graph coloured by verdict (click a GT triple for its supporting predicted
triples, the verdict's kind, reason and judge, and the candidates the judge was shown), the
predicted triples with their validity, and two runs side by side on the same GT with the
claims whose verdict differs highlighted.

A RUN is an output directory of kgjudge score (with summary.json and items/), or a run name
looked up under --out (OUT/RUN, or OUT itself when its summary.json names that run). The
ground truth and, for code-protocol runs, the predicted triples are read from --store.
Same runs, same bytes.

EXAMPLES:
   kgjudge score --gt examples/gt --pred examples/pred --run demo --store .kgjudge --out kgjudge-out
   kgjudge report demo --store .kgjudge --out kgjudge-out --html kgjudge-out/report.html --md kgjudge-out/report.md`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "store", Usage: "store directory the runs were scored into", Value: ".kgjudge", Destination: &o.Store, EnvVars: []string{"KGJUDGE_STORE"}},
			&ucli.StringFlag{Name: "out", Usage: "output directory under which run names are looked up", Value: "kgjudge-out", Destination: &o.Out, EnvVars: []string{"KGJUDGE_OUT"}},
			&ucli.StringFlag{Name: "html", Usage: "write the HTML report to FILE", Destination: &o.HTML},
			&ucli.StringFlag{Name: "md", Usage: "write a Markdown report to FILE", Destination: &o.MD},
			&ucli.StringFlag{Name: "title", Usage: "report title", Value: "kgjudge report", Destination: &o.Title},
		},
		Action: func(c *ucli.Context) error {
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
	for _, a := range args {
		dir, err := runDir(a, o.Out)
		if err != nil {
			return nil, err
		}
		run, err := readRunOutputs(dir)
		if err != nil {
			return nil, err
		}
		for i := range run.Samples {
			it := run.Samples[i].Item
			if _, ok := tasks[it.QID]; !ok {
				tasks[it.QID] = taskFor(ctx, store, it)
			}
			if it.Validity == nil && store != nil {
				p, err := store.Prediction(ctx, kgstore.SampleKey{Run: run.Name, TaskID: it.QID, Sample: it.SampleIdx})
				if err == nil {
					run.Samples[i].Pred = &p
				}
			}
		}
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

// readRunOutputs reads a score output directory back: summary.json and every
// item file.
func readRunOutputs(dir string) (*report.Run, error) {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, userErrorf("report: %w", err)
	}
	var s matcher.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, userErrorf("report: %s: %w", filepath.Join(dir, "summary.json"), err)
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
		return nil, err
	}
	sort.Strings(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, userErrorf("report: %w", err)
		}
		var it matcher.Item
		if err := json.Unmarshal(b, &it); err != nil {
			return nil, userErrorf("report: %s: %w", f, err)
		}
		run.Samples = append(run.Samples, report.Sample{Item: &it})
	}
	sort.SliceStable(run.Samples, func(i, j int) bool {
		a, b := run.Samples[i].Item, run.Samples[j].Item
		if a.QID != b.QID {
			return a.QID < b.QID
		}
		return a.SampleIdx < b.SampleIdx
	})
	if len(run.Samples) == 0 {
		return nil, userErrorf("report: %s has no item files (items/*.json)", dir)
	}
	return run, nil
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
