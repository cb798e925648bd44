package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/runs"
)

type runsOptions struct {
	Store     string
	Format    string
	Protocol  string
	Neo4j     bool
	Neo4jConn neo4jOptions
}

func runsCommand() *ucli.Command {
	var o runsOptions
	storeFlag := &ucli.StringFlag{Name: "store", Usage: "store directory", Value: ".kgjudge", Destination: &o.Store, EnvVars: []string{"KGJUDGE_STORE"}}
	formatFlag := &ucli.StringFlag{Name: "format", Usage: "table | json | csv", Value: "table", Destination: &o.Format}
	return &ucli.Command{
		Name:  "runs",
		Usage: "list, show or delete the runs kept in the store",
		Description: `Every run that kgjudge score or kgjudge import stored: its metadata (model, framework, subset,
notes, N, judge, protocol, manifest, task list, when it was scored) and its samples. "show"
recomputes a run's per-task scores from the stored verdicts (no judge, no Neo4j); a sample of
the run's task list that has no prediction is missing and, unless the run was scored with
--missing skip, counts 0 in avg@N and best@N, as in summary.json. "rm" deletes a run's
predictions, verdicts and metadata (the tasks stay).

EXAMPLES:
   kgjudge runs list
   kgjudge runs show opus --format csv > opus.csv
   kgjudge runs rm demo-b --store .kgjudge`,
		Subcommands: []*ucli.Command{
			{
				Name:      "list",
				Usage:     "every run: model, framework, samples, tasks, judge, when scored",
				UsageText: "kgjudge runs list [--store DIR] [--format table|json|csv]",
				Flags:     []ucli.Flag{storeFlag, formatFlag},
				Action: func(c *ucli.Context) error {
					if c.NArg() > 0 {
						return userErrorf("runs list takes no arguments (got %q)", c.Args().Slice())
					}
					return runRunsList(c.Context, o, c.App.Writer)
				},
			},
			{
				Name:      "show",
				Usage:     "one run's per-task scores, recomputed from the stored verdicts",
				UsageText: "kgjudge runs show RUN [--store DIR] [--protocol paper|code] [--format table|json|csv]",
				Flags: []ucli.Flag{storeFlag, formatFlag,
					&ucli.StringFlag{Name: "protocol", Usage: "paper | code", Value: string(matcher.ProtocolPaper), Destination: &o.Protocol, EnvVars: []string{"KGJUDGE_PROTOCOL"}},
				},
				Action: func(c *ucli.Context) error {
					if c.NArg() != 1 {
						return userErrorf("runs show takes one run name (got %d arguments)", c.NArg())
					}
					_, err := runRunsShow(c.Context, o, c.Args().First(), c.App.Writer)
					return err
				},
			},
			{
				Name:      "rm",
				Usage:     "delete runs: their predictions, verdicts and metadata (and in Neo4j with --neo4j)",
				UsageText: "kgjudge runs rm RUN... [--store DIR] [--neo4j]",
				Flags:     append([]ucli.Flag{storeFlag}, scoreNeo4jFlags(&o.Neo4j, &o.Neo4jConn)...),
				Action: func(c *ucli.Context) error {
					if c.NArg() == 0 {
						return userErrorf("runs rm takes the names of the runs to delete")
					}
					return runRunsRm(c.Context, o, c.Args().Slice(), c.App.Writer)
				},
			},
		},
	}
}

func checkFormat(f string) error {
	switch f {
	case "table", "json", "csv":
		return nil
	}
	return userErrorf("--format: unknown format %q (want table, json or csv)", f)
}

func scoredAt(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func runRunsList(ctx context.Context, o runsOptions, w io.Writer) error {
	if err := checkFormat(o.Format); err != nil {
		return err
	}
	store, err := openStore(ctx, o.Store)
	if err != nil {
		return err
	}
	defer store.Close()
	list, err := runs.List(ctx, store)
	if err != nil {
		return err
	}
	if o.Format == "json" {
		return writeJSON(w, list)
	}
	rows := [][]string{{"run", "model", "framework", "subset", "N", "tasks", "stored samples", "judge", "protocol", "scored"}}
	for _, l := range list {
		i := l.Info
		tasks := strconv.Itoa(len(i.Tasks))
		if !l.HasInfo {
			tasks = strconv.Itoa(l.StoredTasks)
		}
		n := strconv.Itoa(i.Samples)
		if !l.HasInfo {
			n = ""
		}
		rows = append(rows, []string{i.Name, i.Model, i.Framework, i.Subset, n, tasks, strconv.Itoa(l.Stored), i.Judge, i.Protocol, scoredAt(i.Scored)})
	}
	if o.Format == "csv" {
		return writeCSV(w, rows)
	}
	if len(list) == 0 {
		fmt.Fprintf(w, "store %s holds no run\n", o.Store)
		return nil
	}
	tb := &table{rows: rows}
	tb.write(w)
	return nil
}

// runShow is `runs show --format json`.
type runShow struct {
	Run     kgstore.RunInfo `json:"run"`
	Summary matcher.Summary `json:"summary"`
}

func runRunsShow(ctx context.Context, o runsOptions, name string, w io.Writer) (*runs.RunScores, error) {
	if err := checkFormat(o.Format); err != nil {
		return nil, err
	}
	proto, err := matcher.ParseProtocol(o.Protocol)
	if err != nil {
		return nil, &UserError{Err: fmt.Errorf("--protocol: %w", err)}
	}
	store, err := openStore(ctx, o.Store)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	rs, err := runs.Read(ctx, store, name, proto)
	if err != nil {
		if runs.IsInputError(err) {
			known, _ := store.Runs(ctx)
			return nil, userErrorf("store %s has no run %q (runs: %q)", o.Store, name, known)
		}
		return nil, err
	}
	s := rs.Summary
	switch o.Format {
	case "json":
		return rs, writeJSON(w, runShow{Run: rs.Info, Summary: s})
	case "csv":
		rows := [][]string{{"task_id", "subset", "language", "samples", "missing"}}
		for _, k := range matcher.MetricKeys {
			rows[0] = append(rows[0], "avg_"+k)
		}
		for _, k := range matcher.MetricKeys {
			rows[0] = append(rows[0], "best_"+k)
		}
		for i, ts := range s.Tasks {
			row := []string{ts.TaskID, rs.Tasks[i].Subset, rs.Tasks[i].Language, strconv.Itoa(ts.Samples), strconv.Itoa(ts.Missing)}
			for _, k := range matcher.MetricKeys {
				row = append(row, f4(ts.Avg[k]))
			}
			for _, k := range matcher.MetricKeys {
				row = append(row, f4(ts.Best[k]))
			}
			rows = append(rows, row)
		}
		return rs, writeCSV(w, rows)
	}
	i := rs.Info
	fmt.Fprintf(w, "run %s", i.Name)
	for _, kv := range [][2]string{{"model", i.Model}, {"framework", i.Framework}, {"subset", i.Subset}, {"judge", i.Judge}, {"scored", scoredAt(i.Scored)}} {
		if kv[1] != "" {
			fmt.Fprintf(w, " · %s %s", kv[0], kv[1])
		}
	}
	fmt.Fprintf(w, " · protocol %s\n", rs.Protocol)
	if i.Notes != "" {
		fmt.Fprintf(w, "notes: %s\n", i.Notes)
	}
	fmt.Fprintln(w)
	tb := &table{}
	tb.add("task", "subset", "lang", "samples", "missing", "avg P", "avg R", "avg F1", "best F1", "avg node F1")
	for j, ts := range s.Tasks {
		tb.add(ts.TaskID, rs.Tasks[j].Subset, rs.Tasks[j].Language, strconv.Itoa(ts.Samples), strconv.Itoa(ts.Missing),
			f4(ts.Avg["triplet_precision"]), f4(ts.Avg["triplet_recall"]), f4(ts.Avg["triplet_f1"]), f4(ts.Best["triplet_f1"]), f4(ts.Avg["node_f1"]))
	}
	tb.write(w)
	fmt.Fprintf(w, "\n%d task(s), N = %d", s.NumQueries, rs.N)
	if len(rs.Missing) > 0 {
		how := "scored 0"
		if i.Missing == string(runs.MissingSkip) {
			how = "left out of the means"
		}
		fmt.Fprintf(w, ", %d sample(s) missing (%s)", len(rs.Missing), how)
	}
	if len(rs.Unscored) > 0 {
		fmt.Fprintf(w, ", %d stored prediction(s) without verdicts (not counted)", len(rs.Unscored))
	}
	fmt.Fprintln(w)
	tb = &table{}
	tb.add("", "P", "R", "F1", "node P", "node R", "node F1")
	for _, row := range []struct {
		name string
		m    map[string]float64
	}{{fmt.Sprintf("avg@%d", s.NumSamples), s.Avg}, {fmt.Sprintf("best@%d", s.NumSamples), s.Best}} {
		tb.add(row.name, f4(row.m["triplet_precision"]), f4(row.m["triplet_recall"]), f4(row.m["triplet_f1"]),
			f4(row.m["node_precision"]), f4(row.m["node_recall"]), f4(row.m["node_f1"]))
	}
	tb.write(w)
	return rs, nil
}

func runRunsRm(ctx context.Context, o runsOptions, names []string, w io.Writer) error {
	store, err := openStore(ctx, o.Store)
	if err != nil {
		return err
	}
	defer store.Close()
	neo, err := openSync(ctx, o.Neo4j, o.Neo4jConn)
	if err != nil {
		return err
	}
	defer neo.Close()
	for _, name := range names {
		if err := runs.Delete(ctx, store, neo.writer(), name); err != nil {
			if runs.IsInputError(err) {
				known, _ := store.Runs(ctx)
				return userErrorf("store %s has no run %q (runs: %q)", o.Store, name, known)
			}
			return err
		}
		where := o.Store
		if neo != nil {
			where += " and Neo4j (namespace " + neo.store.Namespace() + ")"
		}
		fmt.Fprintf(w, "deleted run %q from %s\n", name, where)
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func writeCSV(w io.Writer, rows [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.WriteAll(rows); err != nil {
		return fmt.Errorf("csv: %w", err)
	}
	return nil
}
