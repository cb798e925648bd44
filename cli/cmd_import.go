package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/kgjudge/kgjudge/runs"
	ucli "github.com/urfave/cli/v2"
)

type importOptions struct {
	Evals     string
	GT        string
	Map       string
	Run       string
	Model     string
	Framework string
	Notes     string
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
appearance, language "zh" when the triples hold CJK text, else "en" (unless the store already
holds the task with the same triples, from a task file: then that task is kept and used).
Records go into the embedded store (--store; :memory: keeps nothing) and, with --neo4j,
into Neo4j too. Importing a run name again replaces the run: samples the new records do not
hold are removed. The run's metadata (model, framework, notes, N, task list) is stored too
(kgjudge runs list). Bad records are listed (exit 2); the good ones are imported.

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
			&ucli.StringFlag{Name: "notes", Usage: "free text, stored on the run", Destination: &o.Notes},
			&ucli.StringFlag{Name: "subset", Usage: "benchmark subset of these tasks (pro, daily), stored on the tasks (without it, a task keeps the subset stored earlier)", Destination: &o.Subset},
			&ucli.StringFlag{Name: "store", Usage: "store directory, or :memory:", Value: ".kgjudge", Destination: &o.Store, EnvVars: []string{"KGJUDGE_STORE"}},
		}, scoreNeo4jFlags(&o.Neo4j, &o.Neo4jConn)...),
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageError("kgjudge import", "import takes no arguments (got %q); use --evals", c.Args().Slice())
			}
			_, err := runImport(c.Context, o, c.App.Writer, c.App.ErrWriter)
			return err
		},
	}
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
		o.Run = runs.DefaultRunName(o.Evals)
	}
	if err := runs.CheckRunName(o.Run); err != nil {
		return userErrorf("--run: %w", err)
	}
	return nil
}

func runImport(ctx context.Context, o importOptions, stdout, stderr io.Writer) (*runs.ImportResult, error) {
	if err := validateImportArgs(&o); err != nil {
		return nil, err
	}
	store, err := openStore(ctx, o.Store)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	neo, err := openSync(ctx, o.Neo4j, o.Neo4jConn)
	if err != nil {
		return nil, err
	}
	defer neo.Close()
	res, err := runs.Import(ctx, runs.ImportConfig{
		Evals: o.Evals, GT: o.GT, Map: o.Map, Run: o.Run, Model: o.Model, Framework: o.Framework, Notes: o.Notes,
		Subset: o.Subset, Store: store, Neo4j: neo.writer(),
	})
	if err != nil {
		return nil, err
	}
	where := o.Store
	if neo != nil {
		where += " and Neo4j " + o.Neo4jConn.config().URI + " (namespace " + neo.store.Namespace() + ")"
	}
	fmt.Fprintf(stdout, "imported run %q: %d tasks, %d samples into %s\n", o.Run, len(res.Tasks), len(res.Items), where)
	if len(res.Removed) > 0 {
		fmt.Fprintf(stderr, "kgjudge: run %s: removed %d sample(s) of an earlier import or scoring that this import did not hold\n", o.Run, len(res.Removed))
	}
	for _, e := range res.Problems {
		fmt.Fprintf(stderr, "kgjudge: %v\n", e)
	}
	if len(res.Problems) > 0 {
		return res, &exitStatus{code: ExitInput, msg: fmt.Sprintf("%d input problem(s); the good records were imported (%d samples)", len(res.Problems), len(res.Items))}
	}
	return res, nil
}
