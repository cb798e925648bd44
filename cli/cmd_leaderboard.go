package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/leaderboard"
	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/runset"
)

// runSource says where runs are read from: output directories (the
// default) or, with Store, a store's runs by name.
type runSource struct {
	Store    string
	GT       string
	Meta     string
	Protocol string
}

func runSourceFlags(s *runSource) []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "store", Usage: "read the runs from this store (RUN is a run name; none: every run) instead of output directories", Destination: &s.Store},
		&ucli.StringFlag{Name: "gt", Usage: "ground-truth task file or directory: task subset, language and domain, and the tasks a run must cover (a task it lacks scores 0)", Destination: &s.GT, EnvVars: []string{"KGJUDGE_GT"}},
		&ucli.StringFlag{Name: "meta", Usage: "run properties: CSV/TSV with run (or name), model, framework columns, or a JSON array of such objects", Destination: &s.Meta},
		&ucli.StringFlag{Name: "protocol", Usage: "paper | code (output directories: must be what they were scored with; --store: recomputed under it; default paper)", Destination: &s.Protocol, EnvVars: []string{"KGJUDGE_PROTOCOL"}},
	}
}

// load reads the runs named by args with their task and run properties.
func (s runSource) load(ctx context.Context, args []string) (runset.Set, error) {
	var set runset.Set
	var proto matcher.Protocol
	if s.Protocol != "" {
		p, err := matcher.ParseProtocol(s.Protocol)
		if err != nil {
			return set, &UserError{Err: fmt.Errorf("--protocol: %w", err)}
		}
		proto = p
	}
	if s.Store != "" {
		if proto == "" {
			proto = matcher.ProtocolPaper
		}
		st, err := openStore(ctx, s.Store)
		if err != nil {
			return set, err
		}
		defer st.Close()
		rs, tasks, err := runset.ReadStore(ctx, st, args, proto)
		if err != nil {
			return set, asUser(err)
		}
		if len(rs) == 0 {
			return set, userErrorf("store %s has no scored run", s.Store)
		}
		set.Runs, set.Tasks = rs, tasks
	} else {
		if len(args) == 0 {
			return set, userErrorf("give output directories of kgjudge score (or a folder of them), or --store DIR")
		}
		rs, err := runset.ReadPaths(args)
		if err != nil {
			return set, asUser(err)
		}
		for _, r := range rs {
			if proto != "" && r.Protocol != proto {
				return set, userErrorf("%s was scored under the %s protocol, not %s: rescore it with --protocol %s, or read it from the store (--store DIR --protocol %s), which recomputes",
					r.Source, r.Protocol, proto, proto, proto)
			}
		}
		set.Runs = rs
	}
	if s.GT != "" {
		tasks, ids, err := runset.ReadTasks(s.GT)
		if err != nil {
			return set, &UserError{Err: fmt.Errorf("--gt: %w", err)}
		}
		if set.Tasks == nil {
			set.Tasks = map[string]runset.Task{}
		}
		for id, t := range tasks {
			set.Tasks[id] = t
		}
		set.Universe = ids
	}
	if s.Meta != "" {
		meta, err := runset.ReadMeta(s.Meta)
		if err != nil {
			return set, asUser(err)
		}
		runset.ApplyMeta(set.Runs, meta)
	}
	return set, nil
}

func asUser(err error) error {
	var ie *runset.InputError
	if errors.As(err, &ie) {
		return &UserError{Err: err}
	}
	return err
}

type leaderboardOptions struct {
	Source    runSource
	By        string
	Format    string
	Missing   string
	Metric    string
	Bootstrap bool
	Title     string
}

func leaderboardCommand() *ucli.Command {
	var o leaderboardOptions
	return &ucli.Command{
		Name:      "leaderboard",
		Usage:     "rank scored runs: avg@N and best@N per group with 95% confidence intervals clustered by task, and paired differences",
		UsageText: "kgjudge leaderboard [RUN...] [--by model,framework,subset,language,domain] [--protocol paper|code] [--format table|json|csv|md|site]",
		Description: `RUN is an output directory of kgjudge score (OUT with summary.json and items/), or a folder
of them (OUT/RUN/...); with --store DIR, a run name of that store (none: every run).

Each row is a group of (run, task) pairs keyed by --by (default: run). A task's score is the
mean over its samples (avg@N) or its best sample by triplet F1 (best@N); a missing sample
scores 0, as the reference does (--missing skip leaves it out). The figure is the mean over
tasks, with a 95% interval clustered by task: SE = sd of the per-task means / sqrt(tasks), t
quantile with tasks-1 degrees of freedom (samples of one task are not independent). The spread
of one task's samples is reported as "sd within task". --bootstrap adds a cluster bootstrap
interval (2000 resamples of the tasks, fixed seed). Rows that share tasks are compared pairwise
on them (mean of the per-task differences with its 95% interval); with more than one pair the
p-values are Holm-corrected.

Formats: table (default; percentages), json and csv (fractions, 4 decimals), md (Markdown),
site (the benchmark site's leaderboard.json: per model and framework, avg@N triplet P/R/F1 of
the pro and daily subsets in percent, 2 decimals, and their mean; needs --meta frameworks and
task subsets).

Run and task properties: model and framework come from --meta (default: the model is the run
name); subset, language and domain from --gt (or the store with --store).

EXAMPLES:
   kgjudge leaderboard kgjudge-out/model-a kgjudge-out/model-b --gt examples/gt --by run,language
   kgjudge leaderboard --store .kgjudge --protocol code --format csv > board.csv
   kgjudge leaderboard kgjudge-out/model-a kgjudge-out/model-b --gt examples/gt --meta examples/leaderboard-meta.csv --by model --format md > leaderboard.md
(a directory holding several score outputs, such as kgjudge-out/, reads every run under it;
--format site writes the benchmark site's leaderboard.json and needs every task's subset, pro or daily)`,
		Flags: append(runSourceFlags(&o.Source),
			&ucli.StringFlag{Name: "by", Usage: "group rows by any of run,model,framework,subset,language,domain", Value: "run", Destination: &o.By},
			&ucli.StringFlag{Name: "format", Usage: strings.Join(leaderboard.Formats, " | "), Value: "table", Destination: &o.Format},
			&ucli.StringFlag{Name: "missing", Usage: "zero (a missing sample scores 0, as the reference) | skip", Value: "zero", Destination: &o.Missing},
			&ucli.StringFlag{Name: "metric", Usage: "the metric rows are ranked and compared by: " + strings.Join(matcher.MetricKeys, ", "), Value: "triplet_f1", Destination: &o.Metric},
			&ucli.BoolFlag{Name: "bootstrap", Usage: "add cluster bootstrap intervals (2000 resamples of the tasks, fixed seed)", Destination: &o.Bootstrap},
			&ucli.StringFlag{Name: "title", Usage: "title of --format site", Value: "kgjudge leaderboard", Destination: &o.Title},
		),
		Action: func(c *ucli.Context) error {
			return runLeaderboard(c.Context, o, c.Args().Slice(), c.App.Writer)
		},
	}
}

func runLeaderboard(ctx context.Context, o leaderboardOptions, args []string, stdout io.Writer) error {
	by, err := leaderboard.ParseBy(o.By)
	if err != nil {
		return &UserError{Err: fmt.Errorf("--by: %w", err)}
	}
	if !slices.Contains(leaderboard.Formats, o.Format) {
		return userErrorf("--format: unknown format %q (want %s)", o.Format, strings.Join(leaderboard.Formats, ", "))
	}
	skip, err := parseMissing(o.Missing)
	if err != nil {
		return err
	}
	if !slices.Contains(matcher.MetricKeys, o.Metric) {
		return userErrorf("--metric: unknown metric %q (want one of %s)", o.Metric, strings.Join(matcher.MetricKeys, ", "))
	}
	set, err := o.Source.load(ctx, args)
	if err != nil {
		return err
	}
	if o.Format == "site" {
		s, err := leaderboard.BuildSite(set, o.Title, skip)
		if err != nil {
			return &UserError{Err: fmt.Errorf("--format site: %w", err)}
		}
		return leaderboard.WriteSite(stdout, s)
	}
	b, err := leaderboard.Build(set, leaderboard.Options{By: by, Skip: skip, Bootstrap: o.Bootstrap, Metric: o.Metric})
	if err != nil {
		return &UserError{Err: err}
	}
	switch o.Format {
	case "json":
		return leaderboard.WriteJSON(stdout, b)
	case "csv":
		return leaderboard.WriteCSV(stdout, b)
	case "md":
		return leaderboard.WriteMarkdown(stdout, b)
	}
	return leaderboard.WriteTable(stdout, b)
}

func parseMissing(s string) (skip bool, err error) {
	switch s {
	case "", "zero":
		return false, nil
	case "skip":
		return true, nil
	}
	return false, userErrorf("--missing: want zero or skip, not %q", s)
}
