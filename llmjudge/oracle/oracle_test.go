package oracle

import (
	"errors"
	"slices"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/plan"
)

func tr(h string) kg.Triple { return kg.Triple{Head: h, Relation: "r", Tail: "t"} }

func TestAnswerShowsOnlyWhatTheCallShows(t *testing.T) {
	task := &kg.Task{ID: "t", Triples: []kg.GTTriple{{Triple: tr("g0")}, {Triple: tr("g1")}, {Triple: tr("g2")}}}
	pred := &kg.Prediction{Triples: []kg.Triple{tr("p0"), tr("p1"), tr("p2")}}
	rec := kg.Judgement{
		Coverage: []kg.Verdict{
			{GTIndex: 0, State: kg.Covered, Support: []int{1, 2}},
			{GTIndex: 1, State: kg.Uncovered, Support: []int{0}}, // the reference keeps supports of uncovered claims
			{GTIndex: 2, State: kg.Covered, Support: []int{}},
		},
		Validity: []kg.Validity{{PredIndex: 0, State: kg.Covered, Support: []int{2}}, {PredIndex: 1, State: kg.Uncovered}, {PredIndex: 2, State: kg.Uncovered}},
	}
	o := New([]Sample{{Task: task, Pred: pred, Recorded: rec}})
	s := func(ts ...kg.Triple) []string {
		var out []string
		for _, x := range ts {
			out = append(out, x.String())
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		pass    plan.Pass
		claims  []string
		cands   []string
		covered []bool
		support [][]int
	}{
		{"support shown", plan.Coverage, s(tr("g0")), s(tr("p0"), tr("p2")), []bool{true}, [][]int{{1}}},
		{"support not shown", plan.Coverage, s(tr("g0")), s(tr("p0")), []bool{false}, [][]int{{}}},
		{"recorded uncovered stays uncovered", plan.Coverage, s(tr("g1")), s(tr("p0")), []bool{false}, [][]int{{}}},
		{"recorded covered without supports", plan.Coverage, s(tr("g2")), s(tr("p1")), []bool{true}, [][]int{{0}}},
		{"validity", plan.Validity, s(tr("p0"), tr("p1")), s(tr("g1"), tr("g2")), []bool{true, false}, [][]int{{1}, {}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs, err := o.Answer(tc.pass, tc.claims, tc.cands)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range vs {
				if v.Covered != tc.covered[i] || !slices.Equal(v.Support, tc.support[i]) {
					t.Errorf("claim %d: %+v, want covered %v support %v", i, v, tc.covered[i], tc.support[i])
				}
			}
		})
	}
	if _, err := o.Answer(plan.Coverage, s(tr("g0")), s(tr("elsewhere"))); !errors.Is(err, ErrUnknown) {
		t.Fatalf("a candidate of no sample: %v", err)
	}
}
