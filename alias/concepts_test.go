package alias

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

func TestConceptsOf(t *testing.T) {
	c := BuiltinConcepts()
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"价格", []string{"price"}},
		{"参考价格", []string{"price"}},
		{"List Prices", []string{"price"}},
		{"priceless", nil},
		{"成立时间", []string{"founded"}},
		{"交通方式及时间", []string{"date", "duration", "transfer"}},
		{"Transfer & Duration", []string{"duration", "transfer"}},
		{"Age Restriction", []string{"age_policy"}},
		{"儿童政策", []string{"age_policy"}},
		{"publication_year", []string{"publication_year"}},
		{"发表年份", []string{"publication_year"}},
		{"developer", []string{"developer"}},
		{"开发商", []string{"developer"}},
		{"开发者", []string{"developer"}},
		{"所在地", []string{"location"}},
		{"时长", []string{"duration"}},
		{"", nil},
	} {
		if got := c.Of(tc.text); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Of(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestConceptVocabulary: every relation of the fixtures' GT graphs that has
// a concept in the table is reported, so gaps are visible.
func TestConceptVocabulary(t *testing.T) {
	c := BuiltinConcepts()
	for _, name := range []string{"d001", "p012", "p041"} {
		f := loadFixture(t, name)
		seen := map[string]bool{}
		n, hit := 0, 0
		for _, g := range f.eval.Coverage.PerGT {
			if seen[g.GT.Relation] {
				continue
			}
			seen[g.GT.Relation] = true
			n++
			if len(c.Of(g.GT.Relation)) > 0 {
				hit++
			}
		}
		t.Logf("%s: %d of %d distinct GT relations name a concept", name, hit, n)
	}
}

func TestParseConceptsErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"price\n", "x.tsv:1: want concept id"},
		{"# c\n\tcost\n", "x.tsv:2: empty concept id"},
		{"price\t | \n", "x.tsv:1: concept \"price\" has no terms"},
	} {
		_, err := ParseConcepts(strings.NewReader(tc.src), "x.tsv")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseConcepts(%q) error %v, want %q", tc.src, err, tc.want)
		}
	}
}

func TestLoadAliasFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aliases.tsv")
	src := "\uFEFF# team names\nalias\tBehavioural Insights Team\tBIT\tNudge Unit\n\nalias | White Plan | 怀特方案\nconcept\tprice\t身价\nconcept\tswap\tswap line\t互换\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ua, err := LoadAliasFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wantSets := [][]string{{"Behavioural Insights Team", "BIT", "Nudge Unit"}, {"White Plan", "怀特方案"}}
	if !reflect.DeepEqual(ua.Sets, wantSets) {
		t.Errorf("sets %q, want %q", ua.Sets, wantSets)
	}
	c := BuiltinConcepts().With(ua.Concepts)
	if got := c.Of("身价"); !reflect.DeepEqual(got, []string{"price"}) {
		t.Errorf("Of(身价) = %v", got)
	}
	if got := c.Of("互换额度"); !intersects(got, []string{"swap"}) {
		t.Errorf("Of(互换额度) = %v, want swap among them", got)
	}

	for _, tc := range []struct{ src, want string }{
		{"alias\tApple\tAPPLE\n", ":1: alias set needs at least two different names"},
		{"# x\nconcept\tprice\n", ":2: concept line needs an id and at least one term"},
		{"synonym\ta\tb\n", ":1: unknown line kind \"synonym\""},
	} {
		bad := filepath.Join(t.TempDir(), "bad.tsv")
		os.WriteFile(bad, []byte(tc.src), 0o644)
		_, err := LoadAliasFile(bad)
		if err == nil || !strings.Contains(err.Error(), bad+tc.want) {
			t.Errorf("LoadAliasFile(%q) error %v, want %q", tc.src, err, bad+tc.want)
		}
	}
}

func TestGTAliasSets(t *testing.T) {
	f := loadFixture(t, "p012")
	if sets := GTAliasSets(f.gt.Nodes); len(sets) != 0 {
		t.Errorf("fixture has no aliases, got %d sets", len(sets))
	}
}

// TestFirstHan: no rune below firstHan is of the scripts isHan accepts.
func TestFirstHan(t *testing.T) {
	for r := rune(0); r <= firstHan; r++ {
		han := unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
		if han != (r == firstHan) {
			t.Fatalf("%U: han %v", r, han)
		}
	}
}
