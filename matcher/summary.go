package matcher

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/matcher/calibrate"
)

// MetricKeys are the six per-sample metrics, in the reference's order.
var MetricKeys = []string{"node_precision", "node_recall", "node_f1", "triplet_precision", "triplet_recall", "triplet_f1"}

func (it *Item) metric(k string) float64 {
	switch k {
	case "node_precision":
		return it.NodePrecision
	case "node_recall":
		return it.NodeRecall
	case "node_f1":
		return it.NodeF1
	case "triplet_precision":
		return it.TripletPrecision
	case "triplet_recall":
		return it.TripletRecall
	case "triplet_f1":
		return it.TripletF1
	}
	panic("matcher: unknown metric " + k)
}

// TaskScore is one task's avg@N and best@N over its samples.
type TaskScore struct {
	TaskID     string             `json:"task_id"`
	Samples    int                `json:"samples"`
	BestSample int                `json:"best_sample"`
	Avg        map[string]float64 `json:"avg"`
	Best       map[string]float64 `json:"best"`
	// Missing counts the zero-filled samples among Samples.
	Missing int `json:"missing,omitempty"`
}

// Summary aggregates items the way the reference does: per task, the mean
// over samples (avg@N) and the sample with the highest triplet F1 (best@N,
// first on ties); then the mean over tasks, rounded to 4 decimals.
type Summary struct {
	NumQueries int
	NumSamples int
	Avg        map[string]float64
	Best       map[string]float64
	Tasks      []TaskScore

	// kgjudge's additions.
	Protocol      Protocol
	Judge         string
	Run           string
	ParseReports  map[kg.ParseStatus]int
	Unjudged      Unjudged
	UnjudgedItems int
	IndexProblems int
	// Missing lists the samples the run lacks (zero-filled or skipped, as
	// SummaryOptions said), sorted by task and sample.
	Missing []MissingSample
	// Failed lists inputs that could not be scored (bad files, unmatched
	// predictions); they are not part of the means.
	Failed []string
	// Estimate is the calibrated judge's estimate (nil for other judges):
	// the mean over tasks of each task's mean expected triplet P/R/F1, with
	// 95% intervals, and what the model was calibrated on.
	Estimate *RunEstimate
	// Sections are further reports computed downstream (e.g. the hierarchy
	// analysis), written after the fixed keys in the order given.
	Sections []Section
}

// RunEstimate is a run's calibrated estimate (summary.json "estimate").
type RunEstimate struct {
	// Text is the one-line reading: "offline estimate F1 0.27 [0.22, 0.31],
	// calibrated on 11 recorded samples, CV kappa 0.51 / 0.54".
	Text        string          `json:"text"`
	Samples     int             `json:"samples"`
	AvgTriplet  kg.Estimate     `json:"avg_triplet"`
	Calibration *kg.Calibration `json:"calibration"`
}

// Section is a named block of summary.json added by another package.
type Section struct {
	Key   string
	Value any
}

// MissingSample is a sample a run should have and has not: its task has no
// prediction, or fewer samples than the run's N.
type MissingSample struct {
	TaskID string `json:"task_id"`
	Sample int    `json:"sample_idx"`
}

// SummaryOptions says how samples a run lacks are counted.
type SummaryOptions struct {
	// Missing are the samples the run lacks (listed in the summary either
	// way).
	Missing []MissingSample
	// ZeroFill counts each missing sample as a sample whose every metric
	// is 0, as the reference does; otherwise missing samples are left out
	// of the means (and a task with none present is not counted).
	ZeroFill bool
}

// Summarize aggregates items. Items are grouped by QID (the task id).
func Summarize(items []Item) Summary { return SummarizeWith(items, SummaryOptions{}) }

// SummarizeWith aggregates items and, per o, the samples the run lacks.
func SummarizeWith(items []Item, o SummaryOptions) Summary {
	s := Summary{Avg: map[string]float64{}, Best: map[string]float64{}, ParseReports: map[kg.ParseStatus]int{}}
	for _, st := range kg.ParseStatuses {
		s.ParseReports[st] = 0
	}
	// A slot is one counted sample: a scored item, or (zero-filled) a
	// missing sample, whose metrics are all 0.
	type slot struct {
		idx int
		it  *Item
	}
	byTask := map[string][]slot{}
	missingOf := map[string]int{}
	var order []string
	for i := range items {
		it := &items[i]
		if _, ok := byTask[it.QID]; !ok {
			order = append(order, it.QID)
		}
		byTask[it.QID] = append(byTask[it.QID], slot{it.SampleIdx, it})
		s.ParseReports[it.ParseReport.Status]++
		s.Unjudged.Coverage += it.Unjudged.Coverage
		s.Unjudged.Validity += it.Unjudged.Validity
		if it.Unjudged.Total() > 0 {
			s.UnjudgedItems++
		}
		s.IndexProblems += len(it.IndexProblems)
		if s.Judge == "" {
			s.Judge, s.Protocol = it.Judge, it.Protocol
		}
	}
	s.Missing = append([]MissingSample{}, o.Missing...)
	sort.Slice(s.Missing, func(a, b int) bool {
		if s.Missing[a].TaskID != s.Missing[b].TaskID {
			return s.Missing[a].TaskID < s.Missing[b].TaskID
		}
		return s.Missing[a].Sample < s.Missing[b].Sample
	})
	if o.ZeroFill {
		for _, m := range s.Missing {
			if _, ok := byTask[m.TaskID]; !ok {
				order = append(order, m.TaskID)
			}
			byTask[m.TaskID] = append(byTask[m.TaskID], slot{m.Sample, nil})
			missingOf[m.TaskID]++
		}
	}
	metric := func(sl slot, k string) float64 {
		if sl.it == nil {
			return 0
		}
		return sl.it.metric(k)
	}
	sort.Strings(order)
	sumAvg := map[string]float64{}
	sumBest := map[string]float64{}
	for _, id := range order {
		samples := byTask[id]
		sort.SliceStable(samples, func(a, b int) bool { return samples[a].idx < samples[b].idx })
		ts := TaskScore{TaskID: id, Samples: len(samples), Missing: missingOf[id], Avg: map[string]float64{}, Best: map[string]float64{}}
		best := samples[0]
		for _, sl := range samples[1:] {
			if metric(sl, "triplet_f1") > metric(best, "triplet_f1") {
				best = sl
			}
		}
		ts.BestSample = best.idx
		for _, k := range MetricKeys {
			var sum float64
			for _, sl := range samples {
				sum += metric(sl, k)
			}
			avg := sum / float64(len(samples))
			ts.Avg[k] = Round4(avg)
			ts.Best[k] = metric(best, k)
			sumAvg[k] += avg
			sumBest[k] += metric(best, k)
		}
		if len(samples) > s.NumSamples {
			s.NumSamples = len(samples)
		}
		s.Tasks = append(s.Tasks, ts)
	}
	s.NumQueries = len(order)
	for _, k := range MetricKeys {
		if s.NumQueries > 0 {
			s.Avg[k] = Round4(sumAvg[k] / float64(s.NumQueries))
			s.Best[k] = Round4(sumBest[k] / float64(s.NumQueries))
		} else {
			s.Avg[k], s.Best[k] = 0, 0
		}
	}
	if s.NumSamples == 0 {
		s.NumSamples = 1
	}
	est := make(map[string][]*Item, len(byTask))
	calibrated := false
	for i := range items {
		calibrated = calibrated || items[i].Estimate != nil
	}
	for id, samples := range byTask {
		for _, sl := range samples {
			// A zero-filled missing sample scores 0 with certainty.
			if sl.it == nil && calibrated {
				sl.it = &Item{Estimate: &kg.Estimate{}}
			}
			if sl.it != nil {
				est[id] = append(est[id], sl.it)
			}
		}
	}
	s.Estimate = estimateRun(order, est)
	return s
}

// estimateRun averages the items' estimates like avg@N: per task over its
// samples, then over tasks. Nil when no item has one.
func estimateRun(order []string, byTask map[string][]*Item) *RunEstimate {
	var tasks []kg.Estimate
	var info *kg.Calibration
	n := 0
	for _, id := range order {
		var es []kg.Estimate
		for _, it := range byTask[id] {
			if it.Estimate != nil {
				es = append(es, *it.Estimate)
				if info == nil {
					info = it.calibration
				}
			}
		}
		if len(es) > 0 {
			tasks = append(tasks, calibrate.Mean(es))
			n += len(es)
		}
	}
	if len(tasks) == 0 {
		return nil
	}
	r := &RunEstimate{Samples: n, AvgTriplet: calibrate.Mean(tasks)}
	r.SetCalibration(info)
	return r
}

// SetCalibration names what the estimate's judge was calibrated on (items
// read back from files do not carry it) and rewrites the one-line reading.
func (r *RunEstimate) SetCalibration(info *kg.Calibration) {
	r.Calibration = info
	f := r.AvgTriplet.F1
	r.Text = fmt.Sprintf("offline estimate F1 %.2f [%.2f, %.2f]", f.Expected, f.Low, f.High)
	if info != nil {
		r.Text += fmt.Sprintf(", calibrated on %d recorded samples, CV kappa %.2f (coverage) / %.2f (validity)", len(info.Labels), info.CoverageCVKappa, info.ValidityCVKappa)
	}
}

// MarshalJSON writes the reference's keys first, in its order, then ours, so
// that summary.json is byte-stable and diffable against the reference output.
func (s Summary) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{")
	field := func(k string, v any) error {
		if b.Len() > 1 {
			b.WriteString(",")
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("summary key %s: %w", k, err)
		}
		b.Write(kb)
		b.WriteString(":")
		b.Write(vb)
		return nil
	}
	for _, k := range MetricKeys {
		if err := field(fmt.Sprintf("avg@%d_%s", s.NumSamples, k), s.Avg[k]); err != nil {
			return nil, err
		}
		if err := field(fmt.Sprintf("best@%d_%s", s.NumSamples, k), s.Best[k]); err != nil {
			return nil, err
		}
	}
	reports := make([]struct {
		Status kg.ParseStatus `json:"status"`
		Count  int            `json:"count"`
	}, 0, len(kg.ParseStatuses))
	for _, st := range kg.ParseStatuses {
		reports = append(reports, struct {
			Status kg.ParseStatus `json:"status"`
			Count  int            `json:"count"`
		}{st, s.ParseReports[st]})
	}
	failed := s.Failed
	if failed == nil {
		failed = []string{}
	}
	missing := s.Missing
	if missing == nil {
		missing = []MissingSample{}
	}
	tasks := s.Tasks
	if tasks == nil {
		tasks = []TaskScore{}
	}
	for _, kv := range []struct {
		k string
		v any
	}{
		{"num_queries", s.NumQueries},
		{"num_samples", s.NumSamples},
		{"missing", missing},
		{"protocol", s.Protocol},
		{"judge", s.Judge},
		{"run", s.Run},
		{"parse_reports", reports},
		{"unjudged", map[string]int{"coverage": s.Unjudged.Coverage, "validity": s.Unjudged.Validity, "items": s.UnjudgedItems}},
		{"index_problems", s.IndexProblems},
		{"failed_inputs", failed},
		{"tasks", tasks},
	} {
		if err := field(kv.k, kv.v); err != nil {
			return nil, err
		}
	}
	if s.Estimate != nil {
		if err := field("estimate", s.Estimate); err != nil {
			return nil, err
		}
	}
	for _, sec := range s.Sections {
		if err := field(sec.Key, sec.Value); err != nil {
			return nil, err
		}
	}
	b.WriteString("}")
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes (a summary.json), so that a
// report or a diff can read a run's outputs back; keys it does not know
// become Sections, in file order, with their raw JSON as Value.
func (s *Summary) UnmarshalJSON(data []byte) error {
	*s = Summary{Avg: map[string]float64{}, Best: map[string]float64{}, ParseReports: map[kg.ParseStatus]int{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("summary: not a JSON object")
	}
	raw := map[string]json.RawMessage{}
	var order []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("summary: %w", err)
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("summary key %s: %w", k, err)
		}
		raw[k] = v
		order = append(order, k)
	}
	one := func(k string, dst any) error {
		if v, ok := raw[k]; ok {
			if err := json.Unmarshal(v, dst); err != nil {
				return fmt.Errorf("summary key %s: %w", k, err)
			}
		}
		return nil
	}
	var unjudged struct{ Coverage, Validity, Items int }
	var reports []struct {
		Status kg.ParseStatus `json:"status"`
		Count  int            `json:"count"`
	}
	for _, f := range []struct {
		k   string
		dst any
	}{
		{"num_queries", &s.NumQueries}, {"num_samples", &s.NumSamples}, {"protocol", &s.Protocol}, {"judge", &s.Judge},
		{"run", &s.Run}, {"parse_reports", &reports}, {"unjudged", &unjudged}, {"index_problems", &s.IndexProblems},
		{"failed_inputs", &s.Failed}, {"tasks", &s.Tasks}, {"missing", &s.Missing},
	} {
		if err := one(f.k, f.dst); err != nil {
			return err
		}
	}
	s.Unjudged, s.UnjudgedItems = Unjudged{Coverage: unjudged.Coverage, Validity: unjudged.Validity}, unjudged.Items
	for _, r := range reports {
		s.ParseReports[r.Status] = r.Count
	}
	known := map[string]bool{"num_queries": true, "num_samples": true, "protocol": true, "judge": true, "run": true,
		"parse_reports": true, "unjudged": true, "index_problems": true, "failed_inputs": true, "tasks": true, "missing": true}
	for _, k := range MetricKeys {
		for _, m := range []struct {
			prefix string
			dst    map[string]float64
		}{{"avg", s.Avg}, {"best", s.Best}} {
			key := fmt.Sprintf("%s@%d_%s", m.prefix, s.NumSamples, k)
			known[key] = true
			var x float64
			if err := one(key, &x); err != nil {
				return err
			}
			m.dst[k] = x
		}
	}
	for _, k := range order {
		if !known[k] {
			s.Sections = append(s.Sections, Section{Key: k, Value: raw[k]})
		}
	}
	return nil
}
