package hierarchy

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

type labelled struct {
	rel, lang, source string
	class             Class
	why               string
}

func readLabelled(t *testing.T) []labelled {
	t.Helper()
	fh, err := os.Open(filepath.Join("testdata", "labelled_relations.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []labelled
	sc := bufio.NewScanner(fh)
	for n := 1; sc.Scan(); n++ {
		if n == 1 {
			continue // header
		}
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 5 {
			t.Fatalf("labelled_relations.tsv:%d: %d fields", n, len(f))
		}
		out = append(out, labelled{f[0], f[1], f[2], Class(f[3]), f[4]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestClassifyLexicon(t *testing.T) {
	for _, tc := range []struct {
		rel     string
		want    Class
		concept string
	}{
		{"pages", Bibliographic, "pages"},
		{"volume/pages", Bibliographic, "volume"},
		{"DOI", Bibliographic, "doi"},
		{"arXiv id", Bibliographic, "identifier"},
		{"期刊卷页", Bibliographic, "pages"},
		{"发表期刊", Bibliographic, "venue"},
		{"publication_year", Bibliographic, "year"},
		{"significance", Subjective, "significance"},
		{"core contribution", Subjective, "contribution"},
		{"历史意义", Subjective, "significance"},
		{"贡献者", Factual, ""},
		{"default_contribution_rate", Factual, ""},
		{"average nudge impact", Factual, ""},
		{"contains_subdimension", Organizational, "dimension"},
		{"part of", Organizational, "part of"},
		{"member of", Organizational, "member"},
		{"包含", Organizational, "contains"},
		{"属于", Organizational, "part of"},
		{"所属公司", Factual, ""},
		{"是否为亚洲公司品牌", Meta, "criteria"},
		{"founded", Factual, ""},
		{"citation count", Bibliographic, "citation"},
		{"evaluations completed", Factual, ""},
		{"academic journal median treatment arm sample", Factual, ""},
	} {
		t.Run(tc.rel, func(t *testing.T) {
			got := Classify(tc.rel, nil)
			if got.Class != tc.want || got.Concept != tc.concept {
				t.Errorf("Classify(%q) = %s/%q (%s), want %s/%q", tc.rel, got.Class, got.Concept, got.Reason, tc.want, tc.concept)
			}
			if got.Reason == "" {
				t.Error("empty reason")
			}
		})
	}
}

func TestClassifyStructureAndAsked(t *testing.T) {
	gt := []kg.Triple{
		{Head: "Topic", Relation: "covers_dimension", Tail: "Dim A"},
		{Head: "Topic", Relation: "covers_dimension", Tail: "Dim B"},
		{Head: "Topic", Relation: "covers_dimension", Tail: "Dim C"},
		{Head: "Dim A", Relation: "key_paper", Tail: "Paper 1"},
		{Head: "Dim B", Relation: "key_paper", Tail: "Paper 2"},
		{Head: "Dim C", Relation: "key_person", Tail: "Person"},
		{Head: "Paper 1", Relation: "published_in", Tail: "Journal X"},
		{Head: "Paper 2", Relation: "published_in", Tail: "Journal Y"},
		{Head: "Paper 1", Relation: "author", Tail: "Person"},
		{Head: "Person", Relation: "born", Tail: "1950"},
	}
	pred := []kg.Triple{
		{Head: "Paper 1", Relation: "journal", Tail: "Journal X"},
		{Head: "Paper 1", Relation: "pages", Tail: "1-10"},
		{Head: "Paper 1", Relation: "peer reviewed?", Tail: "Yes"},
	}
	gctx := NewGraphContext(gt, nil)
	pctx := NewGraphContext(pred, gt)
	for _, tc := range []struct {
		name  string
		rel   string
		ctx   *GraphContext
		want  Class
		asked *bool
		ev    Evidence
	}{
		{"dimension child is organizational", "key_paper", gctx, Organizational, nil, EvidenceStructure},
		{"root relation is organizational", "covers_dimension", gctx, Organizational, nil, EvidenceLexicon},
		{"attribute stays factual", "born", gctx, Factual, nil, EvidenceDefault},
		{"asked-for venue", "journal", pctx, Bibliographic, ptr(true), EvidenceLexicon},
		{"unasked pages", "pages", pctx, Bibliographic, ptr(false), EvidenceLexicon},
		{"yes/no tail", "peer reviewed?", pctx, Meta, ptr(false), EvidenceStructure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Classify(tc.rel, tc.ctx)
			if got.Class != tc.want || got.Evidence != tc.ev {
				t.Fatalf("Classify(%q) = %s by %s (%s), want %s by %s", tc.rel, got.Class, got.Evidence, got.Reason, tc.want, tc.ev)
			}
			if (got.AskedFor == nil) != (tc.asked == nil) || (got.AskedFor != nil && *got.AskedFor != *tc.asked) {
				t.Errorf("AskedFor = %v, want %v (%s)", deref(got.AskedFor), deref(tc.asked), got.Reason)
			}
		})
	}
	if got, want := strings.Join(gctx.CategoryNodes(), ","), "Dim A,Dim B,Dim C,Topic"; got != want {
		t.Errorf("CategoryNodes = %s, want %s", got, want)
	}
}

func TestParseLexiconErrors(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"fields", "meta\tx\n"},
		{"class", "nonsense\tx\ty\n"},
		{"empty term", "meta\tx\t...\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseLexicon([]byte(tc.in)); err == nil {
				t.Error("want error")
			}
		})
	}
	if len(DefaultLexicon().Entries()) < 100 {
		t.Error("default lexicon too small")
	}
}

func ptr(b bool) *bool { return &b }

func deref(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}
