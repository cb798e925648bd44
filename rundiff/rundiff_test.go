package rundiff

import (
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/runset"
)

func s(task string, idx int, f1 float64, claims ...runset.Claim) runset.Sample {
	return runset.Sample{TaskID: task, Index: idx, Metrics: runset.Metrics{TripletF1: f1}, Claims: claims}
}

func TestCompare(t *testing.T) {
	c := func(p runset.Pass, i int, text string, st kg.State) runset.Claim {
		return runset.Claim{Pass: p, Index: i, Text: text, State: st}
	}
	a := runset.Run{Name: "a", Protocol: matcher.ProtocolPaper, Samples: []runset.Sample{
		s("t1", 0, 0.5, c(runset.Coverage, 0, "x | r | y", kg.Covered), c(runset.Validity, 0, "p | q | r", kg.Covered)),
		s("t1", 1, 0.7),
		s("t2", 0, 0.4), s("t2", 1, 0.4),
		s("t3", 0, 0.9), s("t3", 1, 0.9),
		s("only-a", 0, 1),
	}}
	b := runset.Run{Name: "b", Protocol: matcher.ProtocolPaper, Samples: []runset.Sample{
		// The GT triple flipped; the predicted triple at index 0 is another
		// triple (another prediction): not a flip.
		s("t1", 0, 0.3, c(runset.Coverage, 0, "x | r | y", kg.Uncovered), c(runset.Validity, 0, "other | q | r", kg.Uncovered)),
		s("t1", 1, 0.5),
		// t2 lacks a sample: it scores 0 (N = 2).
		s("t2", 0, 0.4),
		s("t3", 0, 0.9), s("t3", 1, 0.9),
	}}
	r, err := Compare(a, b, Options{FailIfDrop: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if r.Diff.Shared != 3 || len(r.OnlyA) != 1 || len(r.OnlyB) != 0 {
		t.Fatalf("%+v", r.Diff)
	}
	// Per task: t1 0.6 -> 0.4, t2 0.4 -> 0.2, t3 0.9 -> 0.9; mean delta -0.1333.
	byID := map[string]TaskDelta{}
	for _, d := range r.Tasks {
		byID[d.TaskID] = d
	}
	if byID["t1"].Delta != -0.2 || byID["t2"].B != 0.2 || byID["t3"].Delta != 0 || r.Tasks[2].TaskID != "t3" {
		t.Errorf("tasks %+v (largest drop first)", r.Tasks)
	}
	if r.Diff.Delta != -0.1333 || r.Diff.MeanA != 0.6333 || r.Diff.MeanB != 0.5 {
		t.Errorf("diff %+v", r.Diff)
	}
	// A drop of 13 points, but on 3 tasks the interval contains 0.
	if r.Failed || !strings.Contains(r.Verdict, "contains 0") {
		t.Errorf("verdict %q", r.Verdict)
	}
	if len(r.Flips) != 1 || r.Flips[0].Text != "x | r | y" || r.Flips[0].From != kg.Covered || r.FlipCounts["coverage covered->uncovered"] != 1 {
		t.Errorf("flips %+v %v", r.Flips, r.FlipCounts)
	}
	skip, _ := Compare(a, b, Options{Skip: true})
	// Skipped, t2's one sample is its mean: (0.4 + 0.4 + 0.9)/3.
	if skip.Diff.MeanB != 0.5667 || skip.Missing != "skip" {
		t.Errorf("skip: %+v", skip.Diff)
	}

	code := b
	code.Protocol = matcher.ProtocolCode
	if _, err := Compare(a, code, Options{}); err == nil {
		t.Error("different protocols compared")
	}
	if _, err := Compare(a, runset.Run{Name: "c", Protocol: matcher.ProtocolPaper, Samples: []runset.Sample{s("zz", 0, 1)}}, Options{}); err == nil {
		t.Error("no shared task compared")
	}
}
