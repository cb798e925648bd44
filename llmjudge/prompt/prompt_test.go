package prompt

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/plan"
)

func batch(pass plan.Pass, lang string) Batch {
	return Batch{Pass: pass, Lang: lang,
		Claims:     []Claim{{Label: 0, Triple: kg.Triple{Head: "北京大学", Relation: "所在城市", Tail: "北京"}}, {Label: 1, Triple: kg.Triple{Head: "A", Relation: "r", Tail: "B"}}},
		Candidates: []kg.Triple{{Head: "Peking University", Relation: "located in", Tail: "Beijing"}, {Head: "A", Relation: "r", Tail: "B"}, {Head: "x", Relation: "y", Tail: "z"}},
	}
}

func TestRenderShowsClaimsAndCandidates(t *testing.T) {
	for _, tc := range []struct {
		style Style
		pass  plan.Pass
		lang  string
		want  []string
	}{
		{Default, plan.Coverage, "en", []string{`GT-0: "北京大学" --[所在城市]--> "北京"`, `P-2: "x" --[y]--> "z"`, "2 claims: GT-0, GT-1", `"kind"`}},
		{Default, plan.Coverage, "zh", []string{"共 2 条", `P-0: "Peking University"`}},
		{Default, plan.Validity, "en", []string{`P-1: "A" --[r]--> "B"`, `GT-2: "x"`, `"valid"`}},
		{Reference, plan.Coverage, "en", []string{`"results"`, `"index": 0`, "supporting_pred_indices"}},
	} {
		r, err := Render(tc.style, batch(tc.pass, tc.lang), "")
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.System+r.User, w) {
				t.Errorf("%s/%s/%s: prompt lacks %q", tc.style, tc.pass, tc.lang, w)
			}
		}
		if !strings.Contains(r.System+r.User, "JSON") || len(r.Schema) == 0 || !strings.Contains(r.Variant, "@") {
			t.Errorf("%+v", r.Variant)
		}
	}
	r, _ := Render(Default, batch(plan.Coverage, "en"), "GT-1: missing")
	if !strings.Contains(r.User, "previous answer") {
		t.Fatal("feedback not rendered")
	}
}

// TestFixedPrefixIsStable: in the kgjudge style every call of a variant
// sends byte-identical system text (the cacheable prefix) and the triples
// only in the user message, so a provider's prompt cache can reuse it.
func TestFixedPrefixIsStable(t *testing.T) {
	for _, pass := range []plan.Pass{plan.Coverage, plan.Validity} {
		for _, lang := range []string{"en", "zh"} {
			a, err := Render(Default, batch(pass, lang), "")
			if err != nil {
				t.Fatal(err)
			}
			small := batch(pass, lang)
			small.Claims, small.Candidates = small.Claims[:1], small.Candidates[:1]
			b, err := Render(Default, small, "GT-0: missing")
			if err != nil {
				t.Fatal(err)
			}
			if a.System != b.System {
				t.Errorf("%s/%s: the system message depends on the batch", pass, lang)
			}
			if strings.Contains(a.System, `"x" --[y]--> "z"`) {
				t.Errorf("%s/%s: batch triples leaked into the fixed prefix", pass, lang)
			}
			if len(a.System) < 2*len(a.User)/3 && len(a.User) < 300 {
				t.Errorf("%s/%s: the fixed instructions are not in the system message (%d vs %d bytes)", pass, lang, len(a.System), len(a.User))
			}
		}
	}
}

func TestHashesDistinctAndStable(t *testing.T) {
	v := Variants(Default)
	if len(v) != 4 {
		t.Fatalf("variants %v", v)
	}
	first, again := SetHash(Default), SetHash(Default)
	if first == SetHash(Reference) || first != again {
		t.Fatal("set hashes")
	}
	a, _ := VariantHash(Default, plan.Coverage, "en")
	b, _ := VariantHash(Default, plan.Coverage, "zh-CN")
	if a == b || !strings.HasPrefix(b, "kgjudge/coverage/zh@") {
		t.Fatalf("%s %s", a, b)
	}
}

func TestParseContract(t *testing.T) {
	b := batch(plan.Coverage, "en")
	cases := []struct {
		name     string
		content  string
		answers  int
		problems map[int]string
	}{
		{"good", `{"verdicts":[{"claim":0,"covered":true,"kind":"direct","support":[0],"reason":"alias"},{"claim":1,"covered":false,"kind":"none","support":[],"reason":"no"}]}`, 2, nil},
		{"missing", `{"verdicts":[{"claim":0,"covered":true,"kind":"direct","support":[0],"reason":"x"}]}`, 1, map[int]string{1: "missing"}},
		{"out of range", `{"verdicts":[{"claim":0,"covered":true,"kind":"direct","support":[3],"reason":"x"},{"claim":1,"covered":false,"kind":"none","support":[],"reason":"x"}]}`, 1, map[int]string{0: "not among"}},
		{"covered without kind", `{"verdicts":[{"claim":0,"covered":true,"kind":"none","support":[0]},{"claim":1,"covered":false,"kind":"none","support":[]}]}`, 1, map[int]string{0: "without a kind"}},
		{"covered without support", `{"verdicts":[{"claim":0,"covered":true,"kind":"direct","support":[]},{"claim":1,"covered":false,"kind":"none","support":[]}]}`, 1, map[int]string{0: "without supporting"}},
		{"string verdict", `{"verdicts":[{"claim":0,"covered":"yes","kind":"direct","support":[0]},{"claim":1,"covered":false,"kind":"none","support":[]}]}`, 1, map[int]string{0: "not a boolean"}},
		{"conflict", `{"verdicts":[{"claim":0,"covered":true,"kind":"direct","support":[0]},{"claim":0,"covered":false,"kind":"none","support":[]},{"claim":1,"covered":false,"kind":"none","support":[]}]}`, 1, map[int]string{0: "conflicting"}},
		{"malformed", `{"verdicts":[{"claim":0,`, 0, map[int]string{0: "malformed", 1: "malformed"}},
		{"prose and fence", "<think>hmm {</think>Sure.\n```json\n" + `{"verdicts":[{"claim":0,"covered":true,"kind":"Direct","support":[0, 0],"reason":"a"},{"claim":1,"covered":true,"kind":"direct","support":[1],"reason":"b"}]}` + "\n```", 2, nil},
		{"unasked id ignored", `{"verdicts":[{"claim":0,"covered":false,"kind":"none","support":[]},{"claim":1,"covered":false,"kind":"none","support":[]},{"claim":7,"covered":false,"kind":"none","support":[]}]}`, 2, nil},
	}
	for _, tc := range cases {
		r := Parse(Default, b, tc.content)
		if len(r.Answers) != tc.answers || len(r.Problems) != len(tc.problems) {
			t.Errorf("%s: %d answers, problems %v", tc.name, len(r.Answers), r.Problems)
			continue
		}
		for l, w := range tc.problems {
			if !strings.Contains(r.Problems[l], w) {
				t.Errorf("%s: problem %d = %q, want %q", tc.name, l, r.Problems[l], w)
			}
		}
	}
	r := Parse(Default, b, cases[8].content)
	if !reflect.DeepEqual(r.Answers[0].Support, []int{0}) || r.Answers[0].Kind != kg.KindDirect {
		t.Fatalf("%+v", r.Answers[0])
	}
	// Reference shape keeps supports of uncovered claims, as the reference does.
	r = Parse(Reference, b, `{"results":[{"index":0,"covered":false,"supporting_pred_indices":[2]},{"index":1,"covered":true,"supporting_pred_indices":[1]}]}`)
	if len(r.Answers) != 2 || !reflect.DeepEqual(r.Answers[0].Support, []int{2}) {
		t.Fatalf("%+v", r)
	}
	// Validity.
	r = Parse(Default, batch(plan.Validity, "zh"), `{"verdicts":[{"claim":0,"valid":true,"support":[2],"reason":"x"},{"claim":1,"valid":false,"support":[1],"reason":"y"}]}`)
	if len(r.Answers) != 2 || !r.Answers[0].Covered || len(r.Answers[1].Support) != 0 {
		t.Fatalf("%+v", r)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`{"verdicts":[{"claim":0,"covered":true,"kind":"direct","support":[0]}]}`)
	f.Add("```json\n{}\n```")
	f.Fuzz(func(t *testing.T, s string) {
		b := batch(plan.Coverage, "en")
		r := Parse(Default, b, s)
		if len(r.Answers)+len(r.Problems) != len(b.Claims) {
			t.Fatalf("every claim must get an answer or a problem: %+v", r)
		}
		for _, a := range r.Answers {
			for _, id := range a.Support {
				if id < 0 || id >= len(b.Candidates) {
					t.Fatalf("support %d out of range", id)
				}
			}
		}
	})
}
