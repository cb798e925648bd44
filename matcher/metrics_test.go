package matcher

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

func TestRound4MatchesPython(t *testing.T) {
	// Expected values printed by CPython 3.11 round(x, 4).
	for _, tc := range []struct{ in, want float64 }{
		{0.12345, 0.1235}, {0.00005, 0.0001}, {1.00005, 1.0001}, {0.23915, 0.2392},
		{2.0 / 3, 0.6667}, {0.5 / 3, 0.1667}, {110.0 / 460, 0.2391}, {0.26265, 0.2626},
		{0.99995, 1.0}, {0.00015625, 0.0002}, {0, 0},
	} {
		if got := Round4(tc.in); got != tc.want {
			t.Errorf("Round4(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func tr(h, r, t string) kg.Triple { return kg.Triple{Head: h, Relation: r, Tail: t} }

func smallTask() *kg.Task {
	return &kg.Task{
		ID:    "t1",
		Nodes: []kg.Node{{ID: "a", Name: "A"}, {ID: "b", Name: "B"}, {ID: "c", Name: "C"}, {ID: "d", Name: "Unused"}},
		Triples: []kg.GTTriple{
			{Triple: tr("A", "r", "B")},
			{Triple: tr("A", "s", "C")},
			{Triple: tr("B", "r", "C")},
			{Triple: tr("C", "r", "A")},
		},
	}
}

func smallPred() *kg.Prediction {
	return &kg.Prediction{QID: "t1", Triples: []kg.Triple{
		tr("A", "r", "B"), tr("A", "s", "C"), tr("X", "y", "Z"), tr("A", "q", ""),
	}, Report: kg.ParseReport{Status: kg.ParseClean, Triples: 4}}
}

func TestScoreProtocols(t *testing.T) {
	cov := []kg.Verdict{
		{GTIndex: 0, State: kg.Covered, Support: []int{0}},
		{GTIndex: 1, State: kg.Covered, Support: []int{1, 0}},
		{GTIndex: 2, State: kg.Uncovered, Support: []int{3}}, // support without coverage still counts (code)
		{GTIndex: 3, State: kg.Unjudged},
	}
	val := []kg.Validity{
		{PredIndex: 0, State: kg.Covered}, {PredIndex: 1, State: kg.Uncovered},
		{PredIndex: 2, State: kg.Uncovered}, {PredIndex: 3, State: kg.Unjudged},
	}
	for _, tc := range []struct {
		proto    Protocol
		p, r, f  float64
		np, nr   float64
		unjudged Unjudged
	}{
		// code: supports {0,1,3} of 4 -> 0.75; recall 2/4.
		{ProtocolCode, 0.75, 0.5, 0.6, 0.6, 3.0 / 4, Unjudged{Coverage: 1}},
		// paper: 1 valid of 4.
		{ProtocolPaper, 0.25, 0.5, Round4(F1(0.25, 0.5)), 0.4, 3.0 / 4, Unjudged{Coverage: 1, Validity: 1}},
	} {
		t.Run(string(tc.proto), func(t *testing.T) {
			it, err := Score(smallTask(), smallPred(), Judgement{Judge: "test", Coverage: cov, Validity: val}, tc.proto)
			if err != nil {
				t.Fatal(err)
			}
			if it.TripletPrecision != tc.p || it.TripletRecall != tc.r || it.TripletF1 != tc.f {
				t.Errorf("P/R/F = %v/%v/%v, want %v/%v/%v", it.TripletPrecision, it.TripletRecall, it.TripletF1, tc.p, tc.r, tc.f)
			}
			// Pred nodes: A, B, C, X, Z = 5. Code: triples 0,1,3 -> A,B,C = 3 -> 0.6.
			// Paper: triple 0 -> A,B -> 0.4. GT nodes: 4 (incl. unused), recalled A,B,C = 3.
			if it.NodePrecision != tc.np {
				t.Errorf("node precision %v, want %v", it.NodePrecision, tc.np)
			}
			if it.NodeRecall != tc.nr {
				t.Errorf("node recall %v, want %v", it.NodeRecall, tc.nr)
			}
			if it.Unjudged != tc.unjudged {
				t.Errorf("unjudged %+v, want %+v", it.Unjudged, tc.unjudged)
			}
			if it.NodeDetails.TotalGTNodes != 4 || it.NodeDetails.TotalPredNodes != 5 {
				t.Errorf("node totals %+v", it.NodeDetails)
			}
		})
	}
}

func TestScoreOutOfRangeNotCounted(t *testing.T) {
	cov := []kg.Verdict{
		{GTIndex: 0, State: kg.Covered, Support: []int{0, 4, -1, 99}},
		{GTIndex: 1, State: kg.Uncovered}, {GTIndex: 2, State: kg.Uncovered}, {GTIndex: 3, State: kg.Uncovered},
		{GTIndex: 7, State: kg.Covered},
	}
	it, err := Score(smallTask(), smallPred(), Judgement{Judge: "test", Coverage: cov}, ProtocolCode)
	if err != nil {
		t.Fatal(err)
	}
	if it.TripletPrecision != 0.25 {
		t.Errorf("precision %v: out-of-range indices must not count", it.TripletPrecision)
	}
	if len(it.IndexProblems) != 4 {
		t.Fatalf("index problems %+v, want 4 (4, -1, 99, gt_index 7)", it.IndexProblems)
	}
	if got := it.Coverage.PerGTTriple[0].SupportingPredIndices; len(got) != 1 || got[0] != 0 {
		t.Errorf("kept support %v", got)
	}
}

func TestScoreMissingVerdictIsUnjudged(t *testing.T) {
	it, err := Score(smallTask(), smallPred(), Judgement{Judge: "test", Coverage: []kg.Verdict{{GTIndex: 0, State: kg.Covered}}}, ProtocolCode)
	if err != nil {
		t.Fatal(err)
	}
	if it.Unjudged.Coverage != 3 || it.Coverage.PerGTTriple[3].State != kg.Unjudged {
		t.Errorf("unjudged %+v / %+v", it.Unjudged, it.Coverage.PerGTTriple[3])
	}
}

func TestScorePaperNeedsValidity(t *testing.T) {
	_, err := Score(smallTask(), smallPred(), Judgement{Judge: "x", Coverage: nil}, ProtocolPaper)
	if err == nil || !strings.Contains(err.Error(), "validity") {
		t.Fatalf("err = %v", err)
	}
}

func TestScoreEmptyPrediction(t *testing.T) {
	it, err := Score(smallTask(), &kg.Prediction{QID: "t1", Report: kg.ParseReport{Status: kg.ParseEmpty}}, Judgement{Judge: "x"}, ProtocolPaper)
	if err != nil {
		t.Fatal(err)
	}
	if it.TripletF1 != 0 || it.NumPredTriples != 0 || it.Coverage != nil {
		t.Errorf("empty prediction must score zeros with no details: %+v", it)
	}
}

func TestSummarizeAvgBest(t *testing.T) {
	items := []Item{
		{Record: kg.Record{QID: "b", SampleIdx: 0, TripletF1: 0.2, TripletPrecision: 0.1}},
		{Record: kg.Record{QID: "b", SampleIdx: 1, TripletF1: 0.4, TripletPrecision: 0.3}},
		{Record: kg.Record{QID: "a", SampleIdx: 0, TripletF1: 0.5, TripletPrecision: 0.5}, Unjudged: Unjudged{Coverage: 2}},
		{Record: kg.Record{QID: "a", SampleIdx: 1, TripletF1: 0.5, TripletPrecision: 0.7}}, // tie: first sample wins
	}
	s := Summarize(items)
	if s.NumQueries != 2 || s.NumSamples != 2 {
		t.Fatalf("queries/samples %d/%d", s.NumQueries, s.NumSamples)
	}
	// avg: a=0.5, b=0.3 -> 0.4; best: a=0.5 (sample 0), b=0.4 -> 0.45.
	if s.Avg["triplet_f1"] != 0.4 || s.Best["triplet_f1"] != 0.45 {
		t.Errorf("avg/best f1 %v/%v", s.Avg["triplet_f1"], s.Best["triplet_f1"])
	}
	// best precision: a sample 0 (0.5), b sample 1 (0.3) -> 0.4
	if s.Best["triplet_precision"] != 0.4 {
		t.Errorf("best precision %v (ties must pick the first sample)", s.Best["triplet_precision"])
	}
	if s.Unjudged.Coverage != 2 || s.UnjudgedItems != 1 {
		t.Errorf("unjudged %+v items %d", s.Unjudged, s.UnjudgedItems)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), `{"avg@2_node_precision":0,"best@2_node_precision":0,`) || !strings.Contains(string(b), `"num_queries":2,"num_samples":2`) {
		t.Errorf("summary JSON keys: %s", b)
	}
}

func TestOfflineJudge(t *testing.T) {
	task := smallTask()
	pred := &kg.Prediction{Triples: []kg.Triple{tr(" a ", "R", "b!"), tr("A", "s", "C."), tr("Xavier Unrelated", "colour", "purple")}}
	j, err := Offline{}.Judge(t.Context(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	// The deterministic tier decides the normalised exact triples; the
	// model decides the rest, each with a probability and its threshold.
	for i := 0; i < 2; i++ {
		if v := j.Coverage[i]; v.State != kg.Covered || !strings.HasPrefix(v.Reason, "deterministic tier") {
			t.Errorf("GT %d: %s (%s), want covered by the deterministic tier", i, v.State, v.Reason)
		}
	}
	for i, v := range j.Coverage[2:] {
		if !strings.Contains(v.Reason, "threshold") || j.CoverageProb[i+2] < 0 || j.CoverageProb[i+2] > 1 {
			t.Errorf("GT %d: reason %q prob %v", i+2, v.Reason, j.CoverageProb[i+2])
		}
	}
	if j.Validity[2].State != kg.Uncovered || j.Validity[0].State != kg.Covered {
		t.Errorf("validity %+v", j.Validity)
	}
	if j.Estimate == nil || j.Calibration == nil || len(j.Calibration.Labels) == 0 {
		t.Errorf("estimate %+v calibration %+v", j.Estimate, j.Calibration)
	}
}

// TestSummaryRoundTrip: a summary.json read back writes the same bytes.
func TestSummaryRoundTrip(t *testing.T) {
	items := []Item{
		{Record: kg.Record{QID: "b", SampleIdx: 0, TripletF1: 0.2, TripletPrecision: 0.1}},
		{Record: kg.Record{QID: "a", SampleIdx: 1, TripletF1: 0.5, TripletPrecision: 0.7}, Unjudged: Unjudged{Validity: 1}},
	}
	s := Summarize(items)
	s.Run, s.Judge, s.Protocol, s.Failed = "r", "offline", ProtocolPaper, []string{"x: bad"}
	s.Sections = []Section{{Key: "manifest", Value: map[string]string{"judge": "offline"}}, {Key: "structure", Value: []int{1, 2}}}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, err := json.Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(b2) {
		t.Errorf("round trip differs:\n%s\n%s", b, b2)
	}
	if back.UnjudgedItems != s.UnjudgedItems || back.Avg["triplet_f1"] != s.Avg["triplet_f1"] {
		t.Errorf("read back %+v", back)
	}
}
