package prefilter

import (
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

// TestLooseForms: surface variants the Canon key keeps apart are matched
// as one name (English and Chinese), ranked first among distractors, and
// tagged with how they matched; the deterministic tier ignores them.
func TestLooseForms(t *testing.T) {
	distractors := []kg.Triple{
		{Head: "Grand Canyon", Relation: "located in", Tail: "Arizona"},
		{Head: "腾讯", Relation: "总部", Tail: "深圳"},
		{Head: "Eiffel Tower", Relation: "height", Tail: "330 m"},
		{Head: "长江", Relation: "长度", Tail: "6300公里"},
	}
	cases := []struct {
		name    string
		gt      kg.Triple
		pred    kg.Triple
		wantWhy string
	}{
		{"Latin/CJK spacing", kg.Triple{Head: "GitHub 仓库", Relation: "托管", Tail: "开源代码"}, kg.Triple{Head: "GitHub仓库", Relation: "用途", Tail: "代码托管"}, "head:loose"},
		{"digit/CJK spacing", kg.Triple{Head: "宝武钢铁", Relation: "年产能", Tail: "35 万吨"}, kg.Triple{Head: "中国宝武", Relation: "产能", Tail: "35万吨"}, "tail:loose"},
		{"NP abbreviation", kg.Triple{Head: "Yosemite National Park", Relation: "established", Tail: "1890"}, kg.Triple{Head: "Yosemite NP", Relation: "founded", Tail: "October 1, 1890"}, "head:loose"},
		{"university short name", kg.Triple{Head: "Melbourne University", Relation: "founded", Tail: "1853"}, kg.Triple{Head: "Melbourne Uni", Relation: "established", Tail: "founded in 1853 by an Act"}, "head:loose"},
		{"unit carried by the relation", kg.Triple{Head: "Burj Khalifa", Relation: "height", Tail: "828 m"}, kg.Triple{Head: "哈利法塔", Relation: "height_m", Tail: "828"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			task := &kg.Task{ID: "t", Triples: []kg.GTTriple{{Triple: tc.gt}}}
			pred := &kg.Prediction{QID: "t", TaskID: "t", Triples: append(append([]kg.Triple{}, distractors...), tc.pred)}
			res, err := Build(t.Context(), task, pred, Options{})
			if err != nil {
				t.Fatal(err)
			}
			c := res.GT[0].Candidates
			want := len(distractors)
			if len(c) == 0 || c[0].Index != want {
				t.Fatalf("candidates %+v, want P-%d first", c, want)
			}
			if tc.wantWhy != "" && c[0].Why != tc.wantWhy {
				t.Errorf("why %q, want %q", c[0].Why, tc.wantWhy)
			}
			if r := res.GT[0].Resolved; r != nil && tc.wantWhy == "" {
				t.Errorf("a unit dropped on one side was resolved without a judge: %+v", r)
			}
		})
	}
}

// TestUnitMatch: a number with its unit matches the bare number, and a
// relation carrying the unit matches the one without.
func TestUnitMatch(t *testing.T) {
	s := &sample{idf: newIDF()}
	if m := s.matchEntity(newText("828 m", nil), newText("828", nil)); m.score != 0.8 || m.why != "unit" {
		t.Errorf("828 m / 828: %+v, want 0.8 unit", m)
	}
	if m := s.matchEntity(newText("828 m", nil), newText("829", nil)); m.score != 0 {
		t.Errorf("828 m / 829: %+v, want no match", m)
	}
	if r := s.relMatch(newText("height", nil), newText("height_m", nil)); r != 0.9 {
		t.Errorf("height / height_m: %v, want 0.9", r)
	}
}

func TestLooseKeys(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want []string
		num  string
	}{
		{"github 仓库", []string{"github仓库"}, ""},
		{"35 万吨", []string{"35万吨"}, "35"},
		{"yosemite np", []string{"yosemite national park"}, ""},
		{"828 m", nil, "828"},
		{"828 apples", nil, ""},
		{"np", nil, ""}, // a lone abbreviation is no name
	} {
		got := looseKeys(tc.key)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("looseKeys(%q) = %q, want %q", tc.key, got, tc.want)
		}
		if n := numberCore(tc.key); n != tc.num {
			t.Errorf("numberCore(%q) = %q, want %q", tc.key, n, tc.num)
		}
	}
	if r := relationCore("height m"); r != "height" {
		t.Errorf("relationCore(height m) = %q", r)
	}
}
