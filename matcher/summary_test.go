package matcher

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

// TestSummarizeZeroFillsMissing: the reference scores a sample it has no
// output for as 0. Task a has both of its 2 samples, task b only sample 0,
// task c none. By hand:
//
//	zero:  a = (0.5+0.3)/2 = 0.4, b = (0.6+0)/2 = 0.3, c = 0 -> avg@2 = 0.7/3 = 0.2333
//	       best: a 0.5, b 0.6, c 0                          -> best@2 = 1.1/3 = 0.3667
//	skip:  a = 0.4, b = 0.6 (c not counted)                  -> avg@2 = 0.5, best@2 = 0.55
func TestSummarizeZeroFillsMissing(t *testing.T) {
	items := []Item{
		{Record: kg.Record{QID: "a", SampleIdx: 0, TripletF1: 0.5, NodeF1: 0.2}},
		{Record: kg.Record{QID: "a", SampleIdx: 1, TripletF1: 0.3, NodeF1: 0.4}},
		{Record: kg.Record{QID: "b", SampleIdx: 0, TripletF1: 0.6, NodeF1: 0.8}},
	}
	missing := []MissingSample{{TaskID: "c", Sample: 1}, {TaskID: "b", Sample: 1}, {TaskID: "c", Sample: 0}}
	for _, tc := range []struct {
		zero                 bool
		queries              int
		avgF1, bestF1, avgN1 float64
	}{
		{true, 3, 0.2333, 0.3667, 0.3}, // node f1: a 0.3, b 0.4, c 0 -> 0.7/3
		{false, 2, 0.5, 0.55, 0.55},    // node f1: a 0.3, b 0.8 -> 0.55
	} {
		s := SummarizeWith(items, SummaryOptions{Missing: missing, ZeroFill: tc.zero})
		if s.NumQueries != tc.queries || s.NumSamples != 2 {
			t.Errorf("zero=%v: queries %d samples %d, want %d and 2", tc.zero, s.NumQueries, s.NumSamples, tc.queries)
		}
		if s.Avg["triplet_f1"] != tc.avgF1 || s.Best["triplet_f1"] != tc.bestF1 {
			t.Errorf("zero=%v: avg@2 F1 %v best@2 F1 %v, want %v and %v", tc.zero, s.Avg["triplet_f1"], s.Best["triplet_f1"], tc.avgF1, tc.bestF1)
		}
		if tc.zero && s.Avg["node_f1"] != 0.2333 || !tc.zero && s.Avg["node_f1"] != tc.avgN1 {
			t.Errorf("zero=%v: avg@2 node F1 %v", tc.zero, s.Avg["node_f1"])
		}
		// Listed either way, sorted.
		want := []MissingSample{{"b", 1}, {"c", 0}, {"c", 1}}
		if len(s.Missing) != 3 || s.Missing[0] != want[0] || s.Missing[1] != want[1] || s.Missing[2] != want[2] {
			t.Errorf("zero=%v: missing %+v, want %+v", tc.zero, s.Missing, want)
		}
		b, _ := json.Marshal(s)
		if !strings.Contains(string(b), `"num_samples":2,"missing":[{"task_id":"b","sample_idx":1},{"task_id":"c","sample_idx":0},{"task_id":"c","sample_idx":1}],"protocol"`) {
			t.Errorf("zero=%v: summary JSON: %s", tc.zero, b)
		}
		if tc.zero {
			if ts := s.Tasks[1]; ts.TaskID != "b" || ts.Samples != 2 || ts.Missing != 1 || ts.Avg["triplet_f1"] != 0.3 || ts.BestSample != 0 {
				t.Errorf("task b: %+v", ts)
			}
			if ts := s.Tasks[2]; ts.TaskID != "c" || ts.Samples != 2 || ts.Missing != 2 || ts.Best["triplet_f1"] != 0 {
				t.Errorf("task c: %+v", ts)
			}
		}
	}
	// Nothing missing: the summary is Summarize's, with an empty list.
	b, _ := json.Marshal(Summarize(items))
	if !strings.Contains(string(b), `"missing":[]`) {
		t.Errorf("no missing samples: %s", b)
	}
}
