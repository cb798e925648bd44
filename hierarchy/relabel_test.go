package hierarchy

import (
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

// TestRelabelAskedFor: a class the LLM pass gives has no lexicon concept, so a
// predicted triple is asked for when the GT has any triple of that class.
func TestRelabelAskedFor(t *testing.T) {
	gt := []kg.Triple{{Head: "Topic", Relation: "paper", Tail: "A Paper"}, {Head: "A Paper", Relation: "venue", Tail: "POPL"}}
	pred := []kg.Triple{{Head: "Thing", Relation: "said", Tail: "something"}}
	ctx := NewGraphContext(pred, gt)
	base := ClassifyTriple(pred[0], ctx)
	bib := ctx.Relabel(base, Bibliographic, EvidenceLLM, "llm")
	if bib.AskedFor == nil || !*bib.AskedFor || bib.Concept != "" {
		t.Errorf("bibliographic with GT bibliographic triples: %+v, want asked for", bib)
	}
	subj := ctx.Relabel(base, Subjective, EvidenceLLM, "llm")
	if subj.AskedFor == nil || *subj.AskedFor || !strings.Contains(subj.Reason, "no GT subjective triple at all") {
		t.Errorf("subjective with none in the GT: %+v, want not asked for", subj)
	}
	if fa := ctx.Relabel(base, Factual, EvidenceLLM, "llm"); fa.AskedFor != nil || fa.HeadKind != base.HeadKind || fa.TailKind != base.TailKind {
		t.Errorf("factual: %+v", fa)
	}
}

func TestPassSelection(t *testing.T) {
	cases := []struct {
		c                  Classification
		weak, contest, all bool
	}{
		{Classification{Class: Factual, Evidence: EvidenceDefault}, true, true, true},
		{Classification{Class: Organizational, Evidence: EvidenceLexicon}, false, true, true},
		{Classification{Class: Factual, Evidence: EvidenceValue}, false, true, true},
		{Classification{Class: Bibliographic, Evidence: EvidenceLexicon}, false, false, true},
		{Classification{Class: Meta, Evidence: EvidenceStructure}, false, false, true},
	}
	for _, name := range PassSelections() {
		sel, err := PassSelection(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range cases {
			want := map[string]bool{"weak": tc.weak, "contestable": tc.contest, "all": tc.all}[name]
			if got := sel(tc.c); got != want {
				t.Errorf("%s(%s by %s) = %v, want %v", name, tc.c.Class, tc.c.Evidence, got, want)
			}
		}
	}
	if _, err := PassSelection("some"); err == nil || !strings.Contains(err.Error(), "weak, contestable, all") {
		t.Errorf("unknown selection: %v", err)
	}
}
