package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/matcher"
)

type agreeOptions struct {
	RunA, RunB string
	Store      string
	Show       int
	JSON       bool
}

// Disagreement is one claim two runs decided differently.
type Disagreement struct {
	TaskID string    `json:"task_id"`
	Sample int       `json:"sample_idx"`
	Pass   string    `json:"pass"` // coverage | validity
	Index  int       `json:"index"`
	Claim  kg.Triple `json:"claim"`
	// A and B are each run's verdict: covered / uncovered in the coverage
	// pass, valid / invalid in the validity pass (the store keeps both
	// passes as covered / uncovered).
	A       string `json:"a"`
	B       string `json:"b"`
	ReasonA string `json:"reason_a,omitempty"`
	ReasonB string `json:"reason_b,omitempty"`
}

// GroupAgreement is agreement within one language (or "all").
type GroupAgreement struct {
	Group    string            `json:"group"`
	Samples  int               `json:"samples"`
	Coverage matcher.Agreement `json:"coverage"`
	Validity matcher.Agreement `json:"validity"`
}

// KindAgreement is, for the GT triples one run covered with a given kind,
// how many the other run covered too.
type KindAgreement struct {
	Run          string          `json:"run"`
	Kind         kg.CoverageKind `json:"kind"`
	Claims       int             `json:"claims"`
	OtherCovered int             `json:"other_covered"`
	Share        float64         `json:"share"`
}

// RunConsistency is one run's self-consistency (matcher.SelfConsistency).
type RunConsistency struct {
	Run string `json:"run"`
	matcher.SelfConsistency
}

// AgreeReport is what kgjudge agree prints.
type AgreeReport struct {
	RunA          string           `json:"run_a"`
	RunB          string           `json:"run_b"`
	Groups        []GroupAgreement `json:"groups"`
	Kinds         []KindAgreement  `json:"kinds"`
	Consistency   []RunConsistency `json:"self_consistency"`
	OnlyInA       []string         `json:"only_in_a"`
	OnlyInB       []string         `json:"only_in_b"`
	Disagreements []Disagreement   `json:"disagreements"`
}

func agreeCommand() *ucli.Command {
	var o agreeOptions
	return &ucli.Command{
		Name:      "agree",
		Usage:     "agreement between two runs' verdicts: Cohen's kappa, accuracy, precision and recall both ways per pass, language, subset and verdict kind; each run's self-consistency; the claims they disagree on",
		UsageText: "kgjudge agree RUN_A RUN_B [--store DIR] [--show N] [--json]",
		Description: `Compares the verdicts two runs stored for the same samples (e.g. an LLM judge against the
benchmark's recorded verdicts, scored with --judge replay --run recorded, or prefiltered against
reference batching). Claims either run left unjudged are counted apart, not compared.
P(B|A) and R(B|A) are run B's precision and recall with run A as the reference; P(A|B) and
R(A|B) the other way round. Covered GT triples are also counted by the kind each run gave them
(direct, subsumption, collective, compositional, recorded) with how many the other run covered.
Self-consistency: of the predicted triples a run's coverage pass cites as support of a covered GT
triple, the share its own validity pass marks invalid (the benchmark's recorded judge: 51% on
the repository's 11 fixtures).

EXAMPLES:
   kgjudge score --gt tasks/ --pred trajs/ --judge replay --run recorded
   kgjudge score --gt tasks/ --pred trajs/ --judge openai --run gpt41
   kgjudge agree recorded gpt41`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "store", Usage: "store directory", Value: ".kgjudge", Destination: &o.Store, EnvVars: []string{"KGJUDGE_STORE"}},
			&ucli.IntFlag{Name: "show", Usage: "disagreeing claims to print (all are in --json)", Value: 20, Destination: &o.Show},
			&ucli.BoolFlag{Name: "json", Usage: "print JSON", Destination: &o.JSON},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() != 2 {
				return usageError("kgjudge agree", "agree needs two run names (got %d)", c.NArg())
			}
			o.RunA, o.RunB = c.Args().Get(0), c.Args().Get(1)
			_, err := runAgree(c.Context, o, c.App.Writer)
			return err
		},
	}
}

func runAgree(ctx context.Context, o agreeOptions, w io.Writer) (*AgreeReport, error) {
	store, err := openStore(ctx, o.Store)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	judged := func(run string) (map[[2]string]kgstore.SampleKey, error) {
		keys, err := store.Samples(ctx, run)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		if len(keys) == 0 {
			runs, _ := store.Runs(ctx)
			return nil, userErrorf("store %s has no run %q (runs: %v)", o.Store, run, runs)
		}
		out := map[[2]string]kgstore.SampleKey{}
		for _, k := range keys {
			out[[2]string{k.TaskID, strconv.Itoa(k.Sample)}] = k
		}
		return out, nil
	}
	ka, err := judged(o.RunA)
	if err != nil {
		return nil, err
	}
	kb, err := judged(o.RunB)
	if err != nil {
		return nil, err
	}
	rep := &AgreeReport{RunA: o.RunA, RunB: o.RunB, OnlyInA: []string{}, OnlyInB: []string{}, Disagreements: []Disagreement{}}
	var common [][2]string
	for k := range ka {
		if _, ok := kb[k]; ok {
			common = append(common, k)
		} else {
			rep.OnlyInA = append(rep.OnlyInA, k[0]+"#"+k[1])
		}
	}
	for k := range kb {
		if _, ok := ka[k]; !ok {
			rep.OnlyInB = append(rep.OnlyInB, k[0]+"#"+k[1])
		}
	}
	sort.Strings(rep.OnlyInA)
	sort.Strings(rep.OnlyInB)
	sort.Slice(common, func(i, j int) bool {
		if common[i][0] != common[j][0] {
			return common[i][0] < common[j][0]
		}
		a, _ := strconv.Atoi(common[i][1])
		b, _ := strconv.Atoi(common[j][1])
		return a < b
	})

	groups := map[string]*GroupAgreement{}
	kinds := map[[2]string]*KindAgreement{}
	consA, consB := RunConsistency{Run: o.RunA}, RunConsistency{Run: o.RunB}
	for _, k := range common {
		va, err := store.Verdicts(ctx, ka[k])
		if errors.Is(err, kgstore.ErrNotFound) {
			continue
		} else if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		vb, err := store.Verdicts(ctx, kb[k])
		if errors.Is(err, kgstore.ErrNotFound) {
			continue
		} else if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		task, err := store.Task(ctx, ka[k].TaskID)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		pred, err := store.Prediction(ctx, ka[k])
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		s, dis := compareSample(&task, &pred, ka[k].Sample, va, vb)
		rep.Disagreements = append(rep.Disagreements, dis...)
		countKinds(kinds, o.RunA, va.Coverage, vb.Coverage)
		countKinds(kinds, o.RunB, vb.Coverage, va.Coverage)
		consA.AddSample(va.Coverage, va.Validity)
		consB.AddSample(vb.Coverage, vb.Validity)
		// A sample counts once in "all", once under its language and once
		// under its subset.
		for _, name := range []string{"all", "language " + orUnknown(task.Language), "subset " + orUnknown(task.Subset)} {
			g, ok := groups[name]
			if !ok {
				g = &GroupAgreement{Group: name}
				groups[name] = g
			}
			g.Samples++
			g.Coverage.Merge(s.Coverage)
			g.Validity.Merge(s.Validity)
		}
	}
	if groups["all"] == nil {
		return rep, userErrorf("runs %q and %q have no judged sample in common", o.RunA, o.RunB)
	}
	var names []string
	for n := range groups {
		names = append(names, n)
	}
	// "all" first, then languages, then subsets.
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == "all") != (names[j] == "all") {
			return names[i] == "all"
		}
		return names[i] < names[j]
	})
	for _, n := range names {
		g := groups[n]
		g.Coverage.Finish()
		g.Validity.Finish()
		rep.Groups = append(rep.Groups, *g)
	}
	all := rep.Groups[0]
	var kk [][2]string
	for k := range kinds {
		kk = append(kk, k)
	}
	sort.Slice(kk, func(i, j int) bool {
		if (kk[i][0] == o.RunA) != (kk[j][0] == o.RunA) {
			return kk[i][0] == o.RunA
		}
		return kk[i][1] < kk[j][1]
	})
	rep.Kinds = []KindAgreement{}
	for _, k := range kk {
		ka := kinds[k]
		ka.Share = matcher.Round4(float64(ka.OtherCovered) / float64(ka.Claims))
		rep.Kinds = append(rep.Kinds, *ka)
	}
	rep.Consistency = []RunConsistency{consA, consB}

	if o.JSON {
		return rep, printJSON(w, rep)
	}
	fmt.Fprintf(w, "%s vs %s · %d sample(s) in common", o.RunA, o.RunB, all.Samples)
	if len(rep.OnlyInA)+len(rep.OnlyInB) > 0 {
		fmt.Fprintf(w, " (%d only in %s, %d only in %s)", len(rep.OnlyInA), o.RunA, len(rep.OnlyInB), o.RunB)
	}
	fmt.Fprintln(w)
	tb := &table{}
	tb.add("group", "pass", "claims", "agree", "accuracy", "kappa", "P(B|A)", "R(B|A)", "P(A|B)", "R(A|B)", "only A", "only B", "unjudged")
	for _, g := range rep.Groups {
		for _, p := range []struct {
			name string
			a    matcher.Agreement
		}{{"coverage", g.Coverage}, {"validity", g.Validity}} {
			if p.a.N+p.a.Skipped == 0 {
				continue
			}
			tb.add(g.Group, p.name, strconv.Itoa(p.a.N), strconv.Itoa(p.a.Agree), f4(p.a.Acc), f4(p.a.Kappa),
				f4(p.a.BvsA.Precision), f4(p.a.BvsA.Recall), f4(p.a.AvsB.Precision), f4(p.a.AvsB.Recall),
				strconv.Itoa(p.a.OnlyA), strconv.Itoa(p.a.OnlyB), strconv.Itoa(p.a.Skipped))
		}
	}
	tb.write(w)
	fmt.Fprintln(w, "(P(B|A), R(B|A): B's precision and recall taken against A as the reference; P(A|B), R(A|B) the other way round)")
	if len(rep.Kinds) > 0 {
		fmt.Fprintln(w, "\ncovered GT triples by verdict kind, and how many the other run covered too:")
		tk := &table{}
		tk.add("run", "kind", "claims", "other covered", "share")
		for _, k := range rep.Kinds {
			tk.add(k.Run, orUnknown(string(k.Kind)), strconv.Itoa(k.Claims), strconv.Itoa(k.OtherCovered), f4(k.Share))
		}
		tk.write(w)
	}
	fmt.Fprintln(w, "\nself-consistency: supports cited by the coverage pass that the same run's validity pass marks invalid")
	for _, c := range rep.Consistency {
		if c.Cited == 0 {
			fmt.Fprintf(w, "  %s: no cited support with a validity verdict\n", c.Run)
			continue
		}
		fmt.Fprintf(w, "  %s: %d of %d cited supports invalid (%.1f%%)\n", c.Run, c.CitedInvalid, c.Cited, 100*c.Share)
	}
	if n := len(rep.Disagreements); n > 0 && o.Show > 0 {
		fmt.Fprintf(w, "\n%d disagreement(s)", n)
		if n > o.Show {
			fmt.Fprintf(w, ", first %d (all in --json)", o.Show)
		}
		fmt.Fprintln(w, ":")
		for i, d := range rep.Disagreements {
			if i == o.Show {
				break
			}
			fmt.Fprintf(w, "  %s#%d %s %d %s: %s=%s %s=%s\n", d.TaskID, d.Sample, d.Pass, d.Index, d.Claim, o.RunA, d.A, o.RunB, d.B)
		}
	}
	return rep, nil
}

func coverageByIndex(vs []kg.Verdict) map[int]kg.Verdict {
	m := make(map[int]kg.Verdict, len(vs))
	for _, v := range vs {
		m[v.GTIndex] = v
	}
	return m
}

func validityByIndex(vs []kg.Validity) map[int]kg.Validity {
	m := make(map[int]kg.Validity, len(vs))
	for _, v := range vs {
		m[v.PredIndex] = v
	}
	return m
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// compareSample compares two runs' verdicts on one sample.
func compareSample(task *kg.Task, pred *kg.Prediction, sample int, va, vb kgstore.Verdicts) (GroupAgreement, []Disagreement) {
	var g GroupAgreement
	var dis []Disagreement
	covA, covB := coverageByIndex(va.Coverage), coverageByIndex(vb.Coverage)
	for i, gt := range task.Triples {
		a, b := covA[i], covB[i]
		g.Coverage.Add(a.State, b.State)
		if matcher.Decided(a.State) && matcher.Decided(b.State) && a.State != b.State {
			dis = append(dis, Disagreement{TaskID: task.ID, Sample: sample, Pass: "coverage", Index: i,
				Claim: gt.Triple, A: string(a.State), B: string(b.State), ReasonA: a.Reason, ReasonB: b.Reason})
		}
	}
	if va.Validity != nil && vb.Validity != nil {
		valA, valB := validityByIndex(va.Validity), validityByIndex(vb.Validity)
		for i, p := range pred.Triples {
			a, b := valA[i], valB[i]
			g.Validity.Add(a.State, b.State)
			if matcher.Decided(a.State) && matcher.Decided(b.State) && a.State != b.State {
				dis = append(dis, Disagreement{TaskID: task.ID, Sample: sample, Pass: "validity", Index: i,
					Claim: p, A: validityLabel(a.State), B: validityLabel(b.State), ReasonA: a.Reason, ReasonB: b.Reason})
			}
		}
	}
	return g, dis
}

// countKinds adds, for each GT triple run x covered, its kind and whether
// run y covered it too.
func countKinds(m map[[2]string]*KindAgreement, run string, x, y []kg.Verdict) {
	other := coverageByIndex(y)
	for _, v := range x {
		if v.State != kg.Covered {
			continue
		}
		k := [2]string{run, string(v.Kind)}
		ka, ok := m[k]
		if !ok {
			ka = &KindAgreement{Run: run, Kind: v.Kind}
			m[k] = ka
		}
		ka.Claims++
		if other[v.GTIndex].State == kg.Covered {
			ka.OtherCovered++
		}
	}
}

// validityLabel names a validity verdict as a person reads it: a predicted
// triple is valid or invalid, not covered.
func validityLabel(s kg.State) string {
	switch s {
	case kg.Covered:
		return "valid"
	case kg.Uncovered:
		return "invalid"
	}
	return string(s)
}
