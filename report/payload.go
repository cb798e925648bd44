package report

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/leaderboard"
	"github.com/kgjudge/kgjudge/matcher"
)

// overview is the part of the payload the first page needs; task details
// are separate blobs, decoded only when a task is opened, so a report of
// thousands of samples opens as fast as a small one.
type overview struct {
	Title           string               `json:"title"`
	Runs            []runView            `json:"runs"`
	Leaderboards    []*leaderboard.Board `json:"leaderboards"`
	ModelBySubset   *leaderboard.Board   `json:"model_by_subset,omitempty"`
	LeaderboardNote string               `json:"leaderboard_note,omitempty"`
	Tasks           []taskSummary        `json:"tasks"`
}

type runView struct {
	Name          string                 `json:"name"`
	Info          [][2]string            `json:"info"`
	Protocol      string                 `json:"protocol"`
	Judge         string                 `json:"judge"`
	NumQueries    int                    `json:"num_queries"`
	NumSamples    int                    `json:"num_samples"`
	Avg           map[string]float64     `json:"avg"`
	Best          map[string]float64     `json:"best"`
	Unjudged      matcher.Unjudged       `json:"unjudged"`
	UnjudgedItems int                    `json:"unjudged_items"`
	Parse         map[kg.ParseStatus]int `json:"parse"`
	Failed        []string               `json:"failed"`
	// Missing counts the samples the run lacks (summary.json "missing").
	Missing   int `json:"missing"`
	Structure any `json:"structure,omitempty"`
	// Consistency is the judge's self-consistency over the run's samples
	// with both passes (nil without a validity pass).
	Consistency *matcher.SelfConsistency `json:"self_consistency,omitempty"`
	// Estimate is the calibrated judge's one-line estimate, if any.
	Estimate string `json:"estimate,omitempty"`
}

// taskSummary is one row of the tasks table: per run, the task's avg@N.
type taskSummary struct {
	ID       string                `json:"id"`
	Subset   string                `json:"subset,omitempty"`
	Language string                `json:"language,omitempty"`
	GT       int                   `json:"gt"`
	Runs     map[string]*taskScore `json:"runs"`
}

type taskScore struct {
	Samples int     `json:"samples"`
	P       float64 `json:"p"`
	R       float64 `json:"r"`
	F1      float64 `json:"f1"`
	BestF1  float64 `json:"best_f1"`
	Missing int     `json:"missing,omitempty"`
}

// taskDetail is one task's blob: the GT graph once, and per run and sample
// the predicted triples and every verdict, as compact arrays.
type taskDetail struct {
	ID    string                  `json:"id"`
	GT    [][3]string             `json:"gt"`
	Nodes []string                `json:"nodes"`
	Runs  map[string][]sampleView `json:"runs"`
}

type sampleView struct {
	Sample int         `json:"sample"`
	P      float64     `json:"p"`
	R      float64     `json:"r"`
	F1     float64     `json:"f1"`
	Judge  string      `json:"judge"`
	Parse  string      `json:"parse"`
	Pred   [][3]string `json:"pred"`
	// Cov per GT triple: state, kind, judge, reason, supports, candidates.
	Cov []claimView `json:"cov"`
	// Val per predicted triple (paper protocol only).
	Val []claimView `json:"val,omitempty"`
	// GTClass and PredClass are each triple's relation class, as the
	// hierarchy analysis of the sample classified its relation ("" when
	// the item has no structure report).
	GTClass   []string `json:"gt_class,omitempty"`
	PredClass []string `json:"pred_class,omitempty"`
}

// claimView is one verdict: [state, kind, judge, reason, support, shown,
// probability (null unless a calibrated judge gave one)].
type claimView [7]any

// sampleRef is one run's sample of a task, filled into the task's detail
// when its blob is written.
type sampleRef struct {
	run string
	s   *Sample
}

// buildPayload builds the overview and, per task, the detail's GT part and
// the samples that fill it (fill): a task's samples are loaded only while
// its blob is written.
func buildPayload(in Input) (overview, []taskDetail, [][]sampleRef) {
	ov := overview{Title: in.Title, Leaderboards: in.Leaderboards, ModelBySubset: in.ModelBySubset, LeaderboardNote: in.LeaderboardNote, Runs: []runView{}, Tasks: []taskSummary{}}
	if ov.Leaderboards == nil {
		ov.Leaderboards = []*leaderboard.Board{}
	}
	tasks := append([]kg.Task(nil), in.Tasks...)
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].ID < tasks[j].ID })
	at := map[string]int{}
	details := make([]taskDetail, len(tasks))
	refs := make([][]sampleRef, len(tasks))
	for i := range tasks {
		t := &tasks[i]
		at[t.ID] = i
		d := taskDetail{ID: t.ID, Nodes: t.NodeNames(), Runs: map[string][]sampleView{}}
		for _, x := range t.Triples {
			d.GT = append(d.GT, [3]string{x.Head, x.Relation, x.Tail})
		}
		details[i] = d
		ov.Tasks = append(ov.Tasks, taskSummary{ID: t.ID, Subset: t.Subset, Language: t.Language, GT: len(t.Triples), Runs: map[string]*taskScore{}})
	}
	for _, r := range in.Runs {
		s := r.Summary
		rv := runView{Name: r.Name, Protocol: string(s.Protocol), Judge: s.Judge, NumQueries: s.NumQueries, NumSamples: s.NumSamples,
			Avg: s.Avg, Best: s.Best, Unjudged: s.Unjudged, UnjudgedItems: s.UnjudgedItems, Parse: s.ParseReports, Failed: s.Failed,
			Structure: r.Structure, Missing: len(s.Missing)}
		if s.Estimate != nil {
			rv.Estimate = s.Estimate.Text
		}
		rv.Consistency = r.Consistency
		if rv.Consistency == nil {
			rv.Consistency = selfConsistency(r.Samples)
		}
		if rv.Failed == nil {
			rv.Failed = []string{}
		}
		if rv.Avg == nil {
			rv.Avg, rv.Best = map[string]float64{}, map[string]float64{}
		}
		rv.Info = [][2]string{}
		keys := make([]string, 0, len(r.Info))
		for k := range r.Info {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			rv.Info = append(rv.Info, [2]string{k, r.Info[k]})
		}
		ov.Runs = append(ov.Runs, rv)
		for _, ts := range s.Tasks {
			i, ok := at[ts.TaskID]
			if !ok {
				continue
			}
			ov.Tasks[i].Runs[r.Name] = &taskScore{Samples: ts.Samples, P: ts.Avg["triplet_precision"], R: ts.Avg["triplet_recall"],
				F1: ts.Avg["triplet_f1"], BestF1: ts.Best["triplet_f1"], Missing: ts.Missing}
		}
		for k := range r.Samples {
			smp := &r.Samples[k]
			id := smp.TaskID
			if smp.Item != nil {
				id = smp.Item.QID
			}
			if i, ok := at[id]; ok {
				refs[i] = append(refs[i], sampleRef{run: r.Name, s: smp})
			}
		}
	}
	return ov, details, refs
}

// fill adds a task's samples to its detail, loading those not in memory.
func fill(d *taskDetail, refs []sampleRef) error {
	d.Runs = map[string][]sampleView{}
	for _, ref := range refs {
		it, pred := ref.s.Item, ref.s.Pred
		if it == nil {
			if ref.s.Load == nil {
				return fmt.Errorf("run %s: task %s sample %d: neither the item nor a way to load it", ref.run, d.ID, ref.s.Index)
			}
			var err error
			if it, pred, err = ref.s.Load(); err != nil {
				return err
			}
		}
		sv := sampleOf(it, pred)
		sv.GTClass = relationClasses(it.Structure, "gt", d.GT)
		sv.PredClass = relationClasses(it.Structure, "pred", sv.Pred)
		d.Runs[ref.run] = append(d.Runs[ref.run], sv)
	}
	for _, v := range d.Runs {
		sort.Slice(v, func(a, b int) bool { return v[a].Sample < v[b].Sample })
	}
	return nil
}

func sampleOf(it *matcher.Item, pred *kg.Prediction) sampleView {
	sv := sampleView{Sample: it.SampleIdx, P: it.TripletPrecision, R: it.TripletRecall, F1: it.TripletF1, Judge: it.Judge,
		Parse: string(it.ParseReport.Status), Pred: [][3]string{}, Cov: []claimView{}}
	if pred != nil {
		for _, t := range pred.Triples {
			sv.Pred = append(sv.Pred, [3]string{t.Head, t.Relation, t.Tail})
		}
	} else if it.Validity != nil {
		for _, p := range it.Validity.PerPredTriple {
			sv.Pred = append(sv.Pred, [3]string{p.PredTriple.Head, p.PredTriple.Relation, p.PredTriple.Tail})
		}
	}
	if c := it.Coverage; c != nil {
		for _, g := range c.PerGTTriple {
			sv.Cov = append(sv.Cov, claimView{string(g.State), string(g.Kind), g.Judge, g.Reason, ints(g.SupportingPredIndices), ints(g.CandidatesShown), g.Prob})
		}
	}
	if v := it.Validity; v != nil {
		for _, p := range v.PerPredTriple {
			sv.Val = append(sv.Val, claimView{string(p.State), "", p.Judge, p.Reason, ints(p.SupportingGTIndices), ints(p.CandidatesShown), p.Prob})
		}
	}
	return sv
}

// selfConsistency is matcher.SelfConsistency (what kgjudge agree reports)
// over a run's samples, read from their item records; nil when no sample
// has a validity pass.
func selfConsistency(samples []Sample) *matcher.SelfConsistency {
	var c matcher.SelfConsistency
	has := false
	for _, smp := range samples {
		if smp.Item != nil {
			has = AddConsistency(&c, smp.Item) || has
		}
	}
	if !has {
		return nil
	}
	return &c
}

// AddConsistency adds an item's verdicts to a run's self-consistency
// (matcher.SelfConsistency.AddSample on its records); false when the item
// has no validity pass, so nothing to compare.
func AddConsistency(c *matcher.SelfConsistency, it *matcher.Item) bool {
	if it.Coverage == nil || it.Validity == nil {
		return false
	}
	cov := make([]kg.Verdict, len(it.Coverage.PerGTTriple))
	for i, g := range it.Coverage.PerGTTriple {
		cov[i] = kg.Verdict{GTIndex: g.GTIndex, State: g.State, Support: g.SupportingPredIndices}
	}
	val := make([]kg.Validity, len(it.Validity.PerPredTriple))
	for i, p := range it.Validity.PerPredTriple {
		val[i] = kg.Validity{PredIndex: p.PredIndex, State: p.State}
	}
	c.AddSample(cov, val)
	return true
}

// relationClasses maps each triple to its relation's class from the item's
// structure report (hierarchy: per graph, a list of relations with their
// class): an *ItemStructure, or the report decoded as generic JSON; nil
// when the item has none.
func relationClasses(structure any, graph string, triples [][3]string) []string {
	var rels []RelationClass
	switch st := structure.(type) {
	case *ItemStructure:
		if st == nil {
			return nil
		}
		rels = st.GT.Relations
		if graph == "pred" {
			rels = st.Pred.Relations
		}
	case map[string]any:
		g, _ := st[graph].(map[string]any)
		list, _ := g["relations"].([]any)
		for _, r := range list {
			rm, _ := r.(map[string]any)
			name, _ := rm["relation"].(string)
			c, _ := rm["class"].(string)
			rels = append(rels, RelationClass{Relation: name, Class: c})
		}
	}
	if len(rels) == 0 {
		return nil
	}
	class := map[string]string{}
	for _, r := range rels {
		if prev, ok := class[r.Relation]; !ok {
			class[r.Relation] = r.Class
		} else if !strings.Contains("/"+prev+"/", "/"+r.Class+"/") {
			// One relation, several classes (the kinds of its heads and
			// tails decide): show them all.
			class[r.Relation] = prev + "/" + r.Class
		}
	}
	out := make([]string, len(triples))
	for i, t := range triples {
		out[i] = class[t[1]]
	}
	return out
}

func ints(x []int) []int {
	if x == nil {
		return []int{}
	}
	return x
}

// blob is a task detail as gzip + base64 (deterministic: no name, no time),
// decoded in the page with DecompressionStream.
func blob(d taskDetail) (string, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return "", err
	}
	if _, err := zw.Write(b); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}
