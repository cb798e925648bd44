// Package rundiff compares two scored runs on their shared tasks: per-task
// deltas, the claims whose verdict flipped, and the paired difference with
// its 95% interval, which decides whether a drop is real or noise (the CI
// gate of `kgjudge diff --fail-if-drop`). It reads runset runs; it never
// judges or rescores.
package rundiff

import (
	"fmt"
	"math"
	"sort"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/runset"
	"github.com/kgjudge/kgjudge/stats"
)

// Options shape a comparison.
type Options struct {
	// Metric compared (default triplet_f1), avg@N per task.
	Metric string
	// Skip leaves missing samples out instead of scoring them 0.
	Skip bool
	// FailIfDrop, when > 0, is the largest drop of B below A (a fraction:
	// 0.02 is 2 points of F1) that passes; a larger one fails when the
	// interval of the difference excludes 0.
	FailIfDrop float64
}

// TaskDelta is one shared task's avg@N in both runs.
type TaskDelta struct {
	TaskID string  `json:"task_id"`
	A      float64 `json:"a"`
	B      float64 `json:"b"`
	Delta  float64 `json:"delta"`
}

// Flip is a claim whose verdict changed from A to B: a GT triple (coverage)
// or a predicted triple (validity) of the same sample, with the same text
// in both runs.
type Flip struct {
	TaskID string      `json:"task_id"`
	Sample int         `json:"sample"`
	Pass   runset.Pass `json:"pass"`
	Index  int         `json:"index"`
	Text   string      `json:"text"`
	From   kg.State    `json:"from"`
	To     kg.State    `json:"to"`
}

// Difference is the paired difference B - A over the shared tasks.
type Difference struct {
	Shared int     `json:"shared_tasks"`
	MeanA  float64 `json:"mean_a"`
	MeanB  float64 `json:"mean_b"`
	Delta  float64 `json:"delta"`
	Low    float64 `json:"ci_low"`
	High   float64 `json:"ci_high"`
	HasCI  bool    `json:"has_ci"`
	P      float64 `json:"p"`
}

// Result is a comparison.
type Result struct {
	A        string           `json:"a"`
	B        string           `json:"b"`
	Metric   string           `json:"metric"`
	Protocol matcher.Protocol `json:"protocol"`
	Missing  string           `json:"missing"`
	Diff     Difference       `json:"difference"`
	// Tasks are the shared tasks, the largest drop first.
	Tasks []TaskDelta `json:"tasks"`
	OnlyA []string    `json:"only_a"`
	OnlyB []string    `json:"only_b"`
	Flips []Flip      `json:"flips"`
	// FlipCounts counts flips by pass and direction ("coverage
	// covered->uncovered", ...).
	FlipCounts map[string]int `json:"flip_counts"`
	FailIfDrop float64        `json:"fail_if_drop,omitempty"`
	// Failed: B is worse than A by more than FailIfDrop and the interval
	// excludes 0.
	Failed bool `json:"failed"`
	// Verdict says in words what the gate decided.
	Verdict string `json:"verdict"`
}

// Compare compares run b with run a.
func Compare(a, b runset.Run, o Options) (*Result, error) {
	if o.Metric == "" {
		o.Metric = "triplet_f1"
	}
	if _, ok := (runset.Metrics{}).Get(o.Metric); !ok {
		return nil, fmt.Errorf("unknown metric %q", o.Metric)
	}
	if o.FailIfDrop < 0 || o.FailIfDrop >= 1 {
		return nil, fmt.Errorf("--fail-if-drop %v: give a fraction of the metric in [0, 1), e.g. 0.02 for 2 points", o.FailIfDrop)
	}
	if a.Protocol != b.Protocol {
		return nil, fmt.Errorf("%s was scored under the %s protocol and %s under %s: the scores are not comparable", a.Name, a.Protocol, b.Name, b.Protocol)
	}
	res := &Result{A: a.Name, B: b.Name, Metric: o.Metric, Protocol: a.Protocol, Missing: "zero",
		FailIfDrop: o.FailIfDrop, OnlyA: []string{}, OnlyB: []string{}, Flips: []Flip{}, FlipCounts: map[string]int{}}
	if o.Skip {
		res.Missing = "skip"
	}
	xa, xb := taskMeans(a, o), taskMeans(b, o)
	for t := range xa {
		if _, ok := xb[t]; !ok {
			res.OnlyA = append(res.OnlyA, t)
		}
	}
	for t, vb := range xb {
		va, ok := xa[t]
		if !ok {
			res.OnlyB = append(res.OnlyB, t)
			continue
		}
		res.Tasks = append(res.Tasks, TaskDelta{TaskID: t, A: r4(va), B: r4(vb), Delta: r4(vb - va)})
	}
	sort.Strings(res.OnlyA)
	sort.Strings(res.OnlyB)
	if len(res.Tasks) == 0 {
		return nil, fmt.Errorf("%s and %s share no task (%d and %d tasks): nothing to compare", a.Name, b.Name, len(xa), len(xb))
	}
	sort.Slice(res.Tasks, func(i, j int) bool {
		di, dj := res.Tasks[i].B-res.Tasks[i].A, res.Tasks[j].B-res.Tasks[j].A
		if di != dj {
			return di < dj
		}
		return res.Tasks[i].TaskID < res.Tasks[j].TaskID
	})
	pd := stats.PairedDiff(xa, xb)
	sa, sb := map[string]float64{}, map[string]float64{}
	for _, t := range res.Tasks {
		sa[t.TaskID], sb[t.TaskID] = xa[t.TaskID], xb[t.TaskID]
	}
	res.Diff = Difference{Shared: pd.Shared, MeanA: r4(meanOf(sa)), MeanB: r4(meanOf(sb)), Delta: r4(pd.Mean),
		Low: r4(pd.Low), High: r4(pd.High), HasCI: pd.HasCI, P: sig4(pd.P)}
	res.Flips = flips(a, b)
	for _, f := range res.Flips {
		res.FlipCounts[fmt.Sprintf("%s %s->%s", f.Pass, f.From, f.To)]++
	}

	drop := -pd.Mean
	switch {
	case o.FailIfDrop == 0:
		res.Verdict = "no gate (--fail-if-drop not set)"
	case drop > o.FailIfDrop && pd.ExcludesZero():
		res.Failed = true
		res.Verdict = fmt.Sprintf("FAIL: %s is %.2f points below %s (more than %.2f) and the 95%% interval [%.2f, %.2f] excludes 0",
			b.Name, 100*drop, a.Name, 100*o.FailIfDrop, 100*pd.Low, 100*pd.High)
	case drop > o.FailIfDrop:
		res.Verdict = fmt.Sprintf("pass: %s is %.2f points below %s, but the 95%% interval %s contains 0 (noise at %d tasks)",
			b.Name, 100*drop, a.Name, ciWords(pd), pd.Shared)
	default:
		res.Verdict = fmt.Sprintf("pass: the change is %+.2f points (allowed drop %.2f)", 100*pd.Mean, 100*o.FailIfDrop)
	}
	return res, nil
}

func ciWords(p stats.Paired) string {
	if !p.HasCI {
		return "(none: one shared task)"
	}
	return fmt.Sprintf("[%.2f, %.2f]", 100*p.Low, 100*p.High)
}

// taskMeans is each task's avg@N of the metric, missing samples scored 0
// up to the run's N unless skip.
func taskMeans(r runset.Run, o Options) map[string]float64 {
	sum, cnt := map[string]float64{}, map[string]int{}
	n := r.N
	for _, s := range r.Samples {
		if s.Missing && o.Skip {
			continue
		}
		v, _ := s.Metrics.Get(o.Metric)
		if s.Missing {
			v = 0
		}
		sum[s.TaskID] += v
		cnt[s.TaskID]++
		n = max(n, cnt[s.TaskID])
	}
	out := map[string]float64{}
	for t, s := range sum {
		d := cnt[t]
		if !o.Skip {
			d = n
		}
		out[t] = s / float64(d)
	}
	return out
}

func flips(a, b runset.Run) []Flip {
	type key struct {
		task   string
		sample int
	}
	byKey := map[key]*runset.Sample{}
	for i := range a.Samples {
		s := &a.Samples[i]
		byKey[key{s.TaskID, s.Index}] = s
	}
	type ckey struct {
		pass  runset.Pass
		index int
	}
	var out []Flip
	for i := range b.Samples {
		sb := &b.Samples[i]
		sa := byKey[key{sb.TaskID, sb.Index}]
		if sa == nil {
			continue
		}
		claims := map[ckey]runset.Claim{}
		for _, c := range sa.Claims {
			claims[ckey{c.Pass, c.Index}] = c
		}
		for _, c := range sb.Claims {
			prev, ok := claims[ckey{c.Pass, c.Index}]
			// A predicted triple of another prediction is another claim.
			if !ok || prev.Text != c.Text || prev.State == c.State {
				continue
			}
			out = append(out, Flip{TaskID: sb.TaskID, Sample: sb.Index, Pass: c.Pass, Index: c.Index, Text: c.Text, From: prev.State, To: c.State})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		x, y := out[i], out[j]
		if x.TaskID != y.TaskID {
			return x.TaskID < y.TaskID
		}
		if x.Sample != y.Sample {
			return x.Sample < y.Sample
		}
		if x.Pass != y.Pass {
			return x.Pass < y.Pass
		}
		return x.Index < y.Index
	})
	if out == nil {
		out = []Flip{}
	}
	return out
}

func meanOf(m map[string]float64) float64 {
	var xs []float64
	for _, v := range m {
		xs = append(xs, v)
	}
	return stats.ClusterMeanCI([][]float64{xs}).Mean
}

func r4(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	if v := matcher.Round4(x); v != 0 {
		return v
	}
	return 0
}

func sig4(x float64) float64 {
	if x == 0 {
		return 0
	}
	e := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*e) / e
}
