// Package leaderboard ranks scored runs: avg@N and best@N of triplet and
// node precision, recall and F1 per group (run, model, framework, subset,
// language, domain), each with a 95% interval clustered by task, and paired
// differences between groups on their shared tasks (Holm-corrected). It
// reads a runset.Set and writes formats; it never judges or rescores.
package leaderboard

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/runset"
	"github.com/kgjudge/kgjudge/stats"
)

// Dimensions are the properties a leaderboard can group by.
var Dimensions = []string{"run", "model", "framework", "subset", "language", "domain"}

// Unknown stands for a blank property.
const Unknown = "unknown"

// Options shape a leaderboard.
type Options struct {
	// By lists the dimensions a row is keyed by (default: run).
	By []string
	// Skip leaves missing samples out instead of scoring them 0. The
	// reference scores a missing sample 0; skipping inflates a run that
	// failed on its hardest tasks.
	Skip bool
	// Bootstrap adds a cluster bootstrap interval (stats.BootstrapResamples
	// resamples of the tasks, seed stats.BootstrapSeed) to every figure.
	Bootstrap bool
	// Metric ranks the rows and is compared between them (default
	// triplet_f1, avg@N).
	Metric string
}

// ParseBy validates a --by list.
func ParseBy(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return []string{"run"}, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(strings.ToLower(p))
		ok := false
		for _, d := range Dimensions {
			ok = ok || d == p
		}
		if !ok {
			return nil, fmt.Errorf("unknown dimension %q (want any of %s)", p, strings.Join(Dimensions, ","))
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}

// Figure is one metric's mean over tasks with its intervals, as fractions
// rounded to 4 decimals.
type Figure struct {
	Mean float64 `json:"mean"`
	Low  float64 `json:"ci_low"`
	High float64 `json:"ci_high"`
	SE   float64 `json:"se"`
	// HasCI is false for a group of one task.
	HasCI     bool    `json:"has_ci"`
	BetweenSD float64 `json:"between_task_sd"`
	// WithinSD is the spread of one task's samples (avg@N) or of one
	// task's runs in the group (best@N).
	WithinSD float64 `json:"within_task_sd"`
	Boot     *Boot   `json:"bootstrap,omitempty"`
	exact    stats.ClusterMean
}

// Boot is a cluster bootstrap interval.
type Boot struct {
	Low  float64 `json:"ci_low"`
	High float64 `json:"ci_high"`
}

// Row is one group.
type Row struct {
	Group []string `json:"group"`
	Label string   `json:"label"`
	Runs  []string `json:"runs"`
	Tasks int      `json:"tasks"`
	// N is the most samples per task of the group's runs.
	N       int `json:"n"`
	Samples int `json:"samples"`
	// Missing counts the samples scored 0 because they had no prediction.
	Missing int               `json:"missing"`
	Avg     map[string]Figure `json:"avg"`
	Best    map[string]Figure `json:"best"`
	// byTask is the task's avg@N per metric, for paired differences.
	byTask map[string]map[string]float64
}

// Pair is the paired difference B - A of the ranking metric's avg@N on the
// tasks both rows have.
type Pair struct {
	A      string  `json:"a"`
	B      string  `json:"b"`
	Shared int     `json:"shared_tasks"`
	Delta  float64 `json:"delta"`
	Low    float64 `json:"ci_low"`
	High   float64 `json:"ci_high"`
	HasCI  bool    `json:"has_ci"`
	P      float64 `json:"p"`
	// HolmP is P adjusted over all the pairs shown (P itself for one pair).
	HolmP float64 `json:"p_holm"`
	// Significant is HolmP <= 0.05.
	Significant bool  `json:"significant"`
	Boot        *Boot `json:"bootstrap,omitempty"`
}

// Board is a computed leaderboard.
type Board struct {
	By       []string         `json:"by"`
	Protocol matcher.Protocol `json:"protocol"`
	Metric   string           `json:"metric"`
	Missing  string           `json:"missing"`
	// CI names how the intervals were computed.
	CI        string `json:"ci"`
	Bootstrap string `json:"bootstrap,omitempty"`
	Rows      []Row  `json:"rows"`
	Pairs     []Pair `json:"pairs"`
}

// unit is one run's samples of one task, zero-filled to N.
type unit struct {
	run     *runset.Run
	task    string
	samples []runset.Metrics
	missing int
}

// Build computes a leaderboard. Every run must have been scored under one
// protocol.
func Build(set runset.Set, o Options) (*Board, error) {
	if len(o.By) == 0 {
		o.By = []string{"run"}
	}
	if o.Metric == "" {
		o.Metric = "triplet_f1"
	}
	if _, ok := (runset.Metrics{}).Get(o.Metric); !ok {
		return nil, fmt.Errorf("unknown metric %q (want one of %s)", o.Metric, strings.Join(matcher.MetricKeys, ", "))
	}
	if len(set.Runs) == 0 {
		return nil, fmt.Errorf("no runs")
	}
	b := &Board{By: o.By, Metric: o.Metric, Missing: "zero",
		CI: "95% t interval of the mean of per-task means (SE = sd/sqrt(tasks), tasks-1 df)", Pairs: []Pair{}}
	if o.Skip {
		b.Missing = "skip"
	}
	if o.Bootstrap {
		b.Bootstrap = fmt.Sprintf("cluster bootstrap over tasks, %d resamples, seed %d, percentile interval", stats.BootstrapResamples, stats.BootstrapSeed)
	}
	for i := range set.Runs {
		p := set.Runs[i].Protocol
		if b.Protocol == "" {
			b.Protocol = p
		} else if p != b.Protocol {
			return nil, fmt.Errorf("run %s was scored under the %s protocol and run %s under %s: rescore one, or read both from the store with one --protocol",
				set.Runs[0].Name, b.Protocol, set.Runs[i].Name, p)
		}
	}

	type group struct {
		key    []string
		runs   map[string]bool
		units  map[string][]unit
		n      int
		nSampl int
		miss   int
	}
	groups := map[string]*group{}
	for i := range set.Runs {
		r := &set.Runs[i]
		for _, u := range units(r, set.Universe, o.Skip) {
			key := make([]string, len(o.By))
			for k, d := range o.By {
				key[k] = dimension(d, r, set.Tasks[u.task])
			}
			id := strings.Join(key, "\x00")
			g := groups[id]
			if g == nil {
				g = &group{key: key, runs: map[string]bool{}, units: map[string][]unit{}}
				groups[id] = g
			}
			g.runs[r.Name] = true
			g.units[u.task] = append(g.units[u.task], u)
			g.n = max(g.n, len(u.samples))
			g.nSampl += len(u.samples)
			g.miss += u.missing
		}
	}
	for _, g := range groups {
		row := Row{Group: g.key, Label: strings.Join(g.key, " / "), N: g.n, Samples: g.nSampl, Missing: g.miss,
			Avg: map[string]Figure{}, Best: map[string]Figure{}, byTask: map[string]map[string]float64{}}
		for name := range g.runs {
			row.Runs = append(row.Runs, name)
		}
		sort.Strings(row.Runs)
		var tasks []string
		for t := range g.units {
			tasks = append(tasks, t)
		}
		sort.Strings(tasks)
		row.Tasks = len(tasks)
		for _, k := range matcher.MetricKeys {
			var avg, best [][]float64
			row.byTask[k] = map[string]float64{}
			for _, t := range tasks {
				var a, bs []float64
				for _, u := range g.units[t] {
					for _, m := range u.samples {
						v, _ := m.Get(k)
						a = append(a, v)
					}
					v, _ := bestOf(u.samples).Get(k)
					bs = append(bs, v)
				}
				avg, best = append(avg, a), append(best, bs)
				row.byTask[k][t] = stats.ClusterMeanCI([][]float64{a}).Mean
			}
			row.Avg[k] = figure(avg, o.Bootstrap)
			row.Best[k] = figure(best, o.Bootstrap)
		}
		b.Rows = append(b.Rows, row)
	}
	sort.SliceStable(b.Rows, func(i, j int) bool {
		a, c := b.Rows[i].Avg[o.Metric].exact.Mean, b.Rows[j].Avg[o.Metric].exact.Mean
		if a != c {
			return a > c
		}
		return b.Rows[i].Label < b.Rows[j].Label
	})
	b.Pairs = pairs(b.Rows, o)
	return b, nil
}

// units zero-fills each task of a run to N samples (and, with a universe,
// adds the tasks the run lacks), unless skip.
func units(r *runset.Run, universe []string, skip bool) []unit {
	n := r.N
	byTask := map[string][]runset.Metrics{}
	flagged := map[string]int{}
	var order []string
	for _, s := range r.Samples {
		if s.Missing && skip {
			continue
		}
		if _, ok := byTask[s.TaskID]; !ok {
			order = append(order, s.TaskID)
		}
		m := s.Metrics
		if s.Missing {
			m = runset.Metrics{}
			flagged[s.TaskID]++
		}
		byTask[s.TaskID] = append(byTask[s.TaskID], m)
		n = max(n, len(byTask[s.TaskID]))
	}
	if !skip {
		for _, t := range universe {
			if _, ok := byTask[t]; !ok {
				byTask[t] = nil
				order = append(order, t)
			}
		}
	}
	sort.Strings(order)
	var out []unit
	for _, t := range order {
		u := unit{run: r, task: t, samples: byTask[t], missing: flagged[t]}
		if !skip {
			for len(u.samples) < n {
				u.samples = append(u.samples, runset.Metrics{})
				u.missing++
			}
		}
		if len(u.samples) > 0 {
			out = append(out, u)
		}
	}
	return out
}

// bestOf is the sample with the highest triplet F1, the first on ties (the
// reference's best@N: every metric comes from that one sample).
func bestOf(s []runset.Metrics) runset.Metrics {
	best := s[0]
	for _, m := range s[1:] {
		if m.TripletF1 > best.TripletF1 {
			best = m
		}
	}
	return best
}

func dimension(d string, r *runset.Run, t runset.Task) string {
	v := ""
	switch d {
	case "run":
		v = r.Name
	case "model":
		v = r.Model
	case "framework":
		v = r.Framework
	case "subset":
		v = t.Subset
	case "language":
		v = t.Language
	case "domain":
		v = t.Domain
	}
	if v == "" {
		return Unknown
	}
	return v
}

func figure(clusters [][]float64, boot bool) Figure {
	c := stats.ClusterMeanCI(clusters)
	f := Figure{Mean: r4(c.Mean), Low: r4(c.Low), High: r4(c.High), SE: r4(c.SE), HasCI: c.HasCI,
		BetweenSD: r4(c.BetweenSD), WithinSD: r4(c.WithinSD), exact: c}
	if boot && c.HasCI {
		x := make([]float64, 0, len(clusters))
		for _, cl := range clusters {
			if len(cl) > 0 {
				x = append(x, stats.ClusterMeanCI([][]float64{cl}).Mean)
			}
		}
		bs := stats.ClusterBootstrap(x, stats.BootstrapResamples, stats.BootstrapSeed)
		f.Boot = &Boot{Low: r4(bs.Low), High: r4(bs.High)}
	}
	return f
}

// pairs compares every two rows that share tasks, in rank order.
func pairs(rows []Row, o Options) []Pair {
	var out []Pair
	var ps []float64
	for i := range rows {
		for j := i + 1; j < len(rows); j++ {
			a, b := rows[i].byTask[o.Metric], rows[j].byTask[o.Metric]
			d := stats.PairedDiff(a, b)
			if d.Shared == 0 {
				continue
			}
			p := Pair{A: rows[i].Label, B: rows[j].Label, Shared: d.Shared, Delta: r4(d.Mean), Low: r4(d.Low), High: r4(d.High), HasCI: d.HasCI, P: sig4(d.P)}
			if o.Bootstrap && d.HasCI {
				bs := stats.PairedBootstrap(a, b, stats.BootstrapResamples, stats.BootstrapSeed)
				p.Boot = &Boot{Low: r4(bs.Low), High: r4(bs.High)}
			}
			out = append(out, p)
			ps = append(ps, d.P)
		}
	}
	for i, h := range stats.Holm(ps) {
		out[i].HolmP = sig4(h)
		out[i].Significant = h <= 0.05 && out[i].HasCI
	}
	if out == nil {
		out = []Pair{}
	}
	return out
}

func r4(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	v := matcher.Round4(x)
	if v == 0 {
		return 0 // no -0 in outputs
	}
	return v
}

// sig4 keeps 4 significant digits (a p-value of 3e-9 stays visible).
func sig4(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	return v
}
