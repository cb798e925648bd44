package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/hierarchy"
	"github.com/kgjudge/kgjudge/hierarchy/llmclass"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/llmjudge/transport"
	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/stats"
)

type structureOptions struct {
	Run      string
	Store    string
	Protocol string
	Top      int
	JSON     bool
	// The LLM class pass (off when ClassifyLLM is empty).
	ClassifyLLM string
	LLMURL      string
	LLMModel    string
	LLMTimeout  time.Duration
	LLMAttempts int
	LLMNoCache  bool
	// completer replaces the OpenAI client (tests).
	completer transport.Completer
}

func structureCommand() *ucli.Command {
	var o structureOptions
	return &ucli.Command{
		Name:      "structure",
		Usage:     "explain a scored run: relation classes, depth and flatness, coverage by class, invalid predictions, whole-output failures",
		UsageText: "kgjudge structure --run NAME [--store DIR] [--json] [--classify-llm weak|contestable|all --llm-url URL --llm-model NAME]",
		Description: `Reads a run's tasks, predictions and verdicts from the store (written by kgjudge score) and
reports why it scored as it did: every relation of the GT and predicted graphs classified as
factual, organizational, bibliographic, subjective or meta (with the reason); structure side by
side (depth, branching, entity-to-entity share, components, flatness); GT recall per class and
per depth level; validity per class; the invalid-prediction taxonomy and the table of relation
types by invalidity rate; and whole-output failures (empty, malformed, truncated, schema
misaligned) with the zero-F1 samples they caused. The same sections are in summary.json.

Classes come from rules and a lexicon (no model, no network). --classify-llm asks a chat model
(any OpenAI-compatible endpoint; key from OPENAI_API_KEY) about the triples the rules decide
weakly: "weak" sends the triples no class term, value or structure decided, "contestable" adds
organizational and value-decided ones, "all" sends every triple. A triple the model gives no
valid class keeps the rules' class and is counted as unjudged in the report. Complete replies
are kept in STORE/class-cache.jsonl, so asking again about the same run costs nothing.

EXAMPLES:
   kgjudge score --gt examples/gt --pred examples/pred --run demo
   kgjudge structure --run demo
   kgjudge structure --run demo --store .kgjudge --json > structure.json
   kgjudge structure --run demo --classify-llm weak   # endpoint, model and key: KGJUDGE_JUDGE_URL, KGJUDGE_JUDGE_MODEL, OPENAI_API_KEY`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "run", Usage: "run name (as given to kgjudge score --run)", Required: true, Destination: &o.Run},
			&ucli.StringFlag{Name: "store", Usage: "store directory, or :memory:", Value: ".kgjudge", Destination: &o.Store, EnvVars: []string{"KGJUDGE_STORE"}},
			&ucli.StringFlag{Name: "protocol", Usage: "paper | code (for the F1 that decides zero-F1 samples)", Value: string(matcher.ProtocolPaper), Destination: &o.Protocol, EnvVars: []string{"KGJUDGE_PROTOCOL"}},
			&ucli.IntFlag{Name: "top", Usage: "rows of the invalidity table to print", Value: 15, Destination: &o.Top},
			&ucli.BoolFlag{Name: "json", Usage: "print the report as JSON", Destination: &o.JSON},
			&ucli.StringFlag{Name: "classify-llm", Category: "LLM class pass", Usage: "ask a chat model about the triples the rules decide weakly: weak | contestable | all (default: off, rules only)", Destination: &o.ClassifyLLM, EnvVars: []string{"KGJUDGE_CLASSIFY_LLM"}},
			&ucli.StringFlag{Name: "llm-url", Category: "LLM class pass", Usage: "OpenAI-compatible base URL, with /v1 (key from OPENAI_API_KEY)", Destination: &o.LLMURL, EnvVars: []string{"KGJUDGE_JUDGE_URL", "OPENAI_BASE_URL"}},
			&ucli.StringFlag{Name: "llm-model", Category: "LLM class pass", Usage: "chat model name", Destination: &o.LLMModel, EnvVars: []string{"KGJUDGE_JUDGE_MODEL"}},
			&ucli.DurationFlag{Name: "llm-timeout", Category: "LLM class pass", Usage: "per-request timeout", Value: 3 * time.Minute, Destination: &o.LLMTimeout},
			&ucli.IntFlag{Name: "llm-attempts", Category: "LLM class pass", Usage: "HTTP attempts per request (retries back off and honour Retry-After)", Value: 5, Destination: &o.LLMAttempts},
			&ucli.BoolFlag{Name: "llm-no-cache", Category: "LLM class pass", Usage: "ask again instead of reusing the complete replies kept in STORE/class-cache.jsonl", Destination: &o.LLMNoCache},
		},
		Action: func(c *ucli.Context) error {
			_, err := runStructure(c.Context, o, c.App.Writer, c.App.ErrWriter)
			return err
		},
	}
}

func runStructure(ctx context.Context, o structureOptions, stdout, stderr io.Writer) (*hierarchy.RunReport, error) {
	proto, err := matcher.ParseProtocol(o.Protocol)
	if err != nil {
		return nil, &UserError{Err: fmt.Errorf("--protocol: %w", err)}
	}
	store, err := openStore(ctx, o.Store)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	keys, err := store.Samples(ctx, o.Run)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if len(keys) == 0 {
		runs, _ := store.Runs(ctx)
		return nil, userErrorf("store %s has no run %q (runs: %v)", o.Store, o.Run, runs)
	}
	pass, summary, err := o.llmPass()
	if err != nil {
		return nil, err
	}
	if pass != nil && pass.Cache != nil {
		defer pass.Cache.Close()
	}
	var prog *progress
	if pass != nil {
		prog = newProgressVerb(stderr, len(keys), "classifying", "classified")
	}
	var samples []hierarchy.SampleResult
	for _, k := range keys {
		task, err := store.Task(ctx, k.TaskID)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		pred, err := store.Prediction(ctx, k)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		v, err := store.Verdicts(ctx, k)
		if errors.Is(err, kgstore.ErrNotFound) {
			continue // stored but never judged (the run stopped early)
		}
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		p := proto
		if p == matcher.ProtocolPaper && v.Validity == nil {
			p = matcher.ProtocolCode
		}
		item, err := matcher.Score(&task, &pred, matcher.Judgement{Judge: "stored", Coverage: v.Coverage, Validity: v.Validity}, p)
		if err != nil {
			return nil, err
		}
		var gtCls, predCls []hierarchy.Classification
		if pass != nil {
			gt := hierarchy.GTTriples(task)
			// A problem names its sample and graph.
			add := func(side string, st llmclass.Stats) {
				for i, p := range st.Problems {
					st.Problems[i] = fmt.Sprintf("%s sample %d %s %s", k.TaskID, k.Sample, side, p)
				}
				summary.Add(st)
			}
			var st llmclass.Stats
			if gtCls, st, err = pass.Classify(ctx, gt, nil); err != nil {
				return nil, err
			}
			add("gt", st)
			if predCls, st, err = pass.Classify(ctx, pred.Triples, gt); err != nil {
				return nil, err
			}
			add("pred", st)
			prog.step(k.TaskID, k.Sample)
		}
		samples = append(samples, hierarchy.SampleResult{
			Report: hierarchy.AnalyzeClassified(task, pred, v.Coverage, v.Validity, gtCls, predCls), Parse: pred.Report, TripletF1: item.TripletF1,
		})
	}
	if prog != nil {
		prog.done()
	}
	rr := hierarchy.Aggregate(samples)
	rr.LLMClasses = summary
	if o.JSON {
		b, err := json.MarshalIndent(rr, "", "  ")
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(stdout, "%s\n", b)
		return &rr, nil
	}
	fmt.Fprintf(stdout, "run %s · %d sample(s) · store %s\n", o.Run, rr.Samples, o.Store)
	if s := rr.LLMClasses; s != nil {
		fmt.Fprintf(stdout, "classes: rules, then %s on the %s triples: %d of %d triples asked in %d request(s) (%d from the cache, %d+%d tokens spent), %d changed, %d unjudged (kept the rules' class)\n",
			s.Model, s.Selection, s.Selected, s.Triples, s.Requests, s.Cached, s.PromptTokens, s.CompletionTokens, s.Changed, s.Unjudged)
		for _, p := range s.Problems {
			fmt.Fprintf(stdout, "  llm problem: %s\n", p)
		}
		if s.MoreProblems > 0 {
			fmt.Fprintf(stdout, "  ... %d more llm problems (see --json)\n", s.MoreProblems)
		}
	}
	fmt.Fprintln(stdout)
	printStructure(stdout, &rr, o.Top, false)
	return &rr, nil
}

// llmPass builds the LLM class pass the options ask for; nil when off.
func (o structureOptions) llmPass() (*llmclass.Pass, *hierarchy.LLMClassSummary, error) {
	if o.ClassifyLLM == "" || o.ClassifyLLM == "off" {
		return nil, nil, nil
	}
	sel, err := hierarchy.PassSelection(o.ClassifyLLM)
	if err != nil {
		return nil, nil, &UserError{Err: fmt.Errorf("--classify-llm: %w", err)}
	}
	c := o.completer
	if c == nil {
		if o.LLMURL == "" || o.LLMModel == "" {
			return nil, nil, userErrorf("--classify-llm %s needs --llm-url and --llm-model (or KGJUDGE_JUDGE_URL and KGJUDGE_JUDGE_MODEL)", o.ClassifyLLM)
		}
		c = transport.NewOpenAI(o.LLMURL, os.Getenv("OPENAI_API_KEY"), o.LLMModel, nil)
	}
	c = transport.Timeout{Next: c, D: o.LLMTimeout}
	c = &transport.Retry{Next: c, MaxAttempts: o.LLMAttempts}
	// A fixed seed: same model, same replies where the server honours it.
	seed := 20261205
	p := &llmclass.Pass{Completer: c, Model: o.LLMModel, Select: sel, Seed: &seed}
	if !o.LLMNoCache && o.Store != ":memory:" {
		if p.Cache, err = llmclass.OpenCache(filepath.Join(o.Store, "class-cache.jsonl")); err != nil {
			return nil, nil, &UserError{Err: err}
		}
	}
	return p, &hierarchy.LLMClassSummary{Selection: o.ClassifyLLM, Model: o.LLMModel}, nil
}

// printStructure renders a run's structural report; top limits the
// invalidity table. brief prints only the class table and the failures (the
// score command's view).
func printStructure(w io.Writer, rr *hierarchy.RunReport, top int, brief bool) {
	pct := func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }
	var tb *table
	if !brief {
		tb = &table{}
		tb.add("structure (mean)", "GT", "pred")
		for _, r := range rr.Structure {
			tb.add(r.Metric, strconv.FormatFloat(r.GT, 'f', 2, 64), strconv.FormatFloat(r.Pred, 'f', 2, 64))
		}
		tb.write(w)
		fmt.Fprintln(w)
	}
	// Rates with their pooled 95% Wilson interval (hierarchy.ClassSummary;
	// the per-sample t interval is in the JSON).
	ci := func(iv stats.Interval) string {
		if !iv.Defined {
			return "-"
		}
		return fmt.Sprintf("%s [%s, %s]", pct(iv.Estimate), pct(iv.Low), pct(iv.High))
	}
	tb = &table{}
	tb.add("triple class", "GT share", "GT recall [95% CI]", "pred share", "pred invalid [95% CI]")
	for _, c := range rr.ClassSummary {
		tb.add(string(c.Class), pct(c.GTShare), fmt.Sprintf("%s (%d/%d)", ci(c.GTRecallPooled), c.GTCovered, c.GTTriples),
			pct(c.PredShare), fmt.Sprintf("%s (%d/%d)", ci(c.InvalidRatePooled), c.PredInvalid, c.PredTriples))
	}
	for _, a := range rr.AskedSplit {
		if a.Class != hierarchy.Bibliographic || a.Triples == 0 {
			continue
		}
		name := "  bibliographic, unasked"
		if a.Asked {
			name = "  bibliographic, asked"
		}
		tb.add(name, "", "", "", fmt.Sprintf("%s (%d/%d)", ci(a.InvalidRatePooled), a.Invalid, a.Triples))
	}
	tb.write(w)

	if len(rr.SampleShapes) > 0 && !brief {
		fmt.Fprintln(w)
		tb = &table{}
		tb.add("sample", "GT depth", "pred depth", "GT flatness", "pred flatness")
		for _, s := range rr.SampleShapes {
			tb.add(fmt.Sprintf("%s #%d", s.TaskID, s.SampleIdx), strconv.Itoa(s.GTDepth), strconv.Itoa(s.PredDepth),
				strconv.FormatFloat(s.GTFlatness, 'f', 3, 64), strconv.FormatFloat(s.PredFlatness, 'f', 3, 64))
		}
		tb.write(w)
	}

	if len(rr.CoverageByLevel) > 0 && !brief {
		fmt.Fprintln(w)
		tb = &table{}
		tb.add("GT depth level", "triples", "covered", "recall")
		for _, l := range rr.CoverageByLevel {
			name := strconv.Itoa(l.Level)
			if l.Level < 0 {
				name = "unreached"
			}
			tb.add(name, strconv.Itoa(l.Triples), strconv.Itoa(l.Covered), pct(l.Recall))
		}
		tb.write(w)
	}

	if top > 0 && len(rr.InvalidTypes) > 0 && !brief {
		fmt.Fprintln(w)
		tb = &table{}
		tb.add("invalid predictions by type", "class", "asked for", "count", "invalid", "rate")
		for i, t := range rr.InvalidTypes {
			if i == top {
				break
			}
			asked := "-"
			if t.AskedFor != nil {
				asked = strconv.FormatBool(*t.AskedFor)
			}
			tb.add(t.Type, string(t.Class), asked, strconv.Itoa(t.Count), strconv.Itoa(t.Invalid), pct(t.Rate))
		}
		tb.write(w)
	}

	f := rr.Failures
	fmt.Fprintf(w, "\nwhole-output failures: %d empty, %d malformed, %d truncated, %d schema-misaligned, %d salvaged; %d zero-F1 sample(s)",
		f.Empty, f.Malformed, f.Truncated, f.Misaligned, f.Salvaged, f.ZeroF1)
	if len(f.ZeroF1ByCause) > 0 {
		fmt.Fprint(w, " (")
		for i, c := range f.ZeroF1ByCause {
			if i > 0 {
				fmt.Fprint(w, ", ")
			}
			fmt.Fprintf(w, "%s %d", c.Cause, c.Samples)
		}
		fmt.Fprint(w, ")")
	}
	fmt.Fprintln(w)
}
