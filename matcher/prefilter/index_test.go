package prefilter

import (
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

// indexCase is a sample where only the Bleve stage finds the predicted
// triple supporting GT triple 0: the names share no word, no variant and
// no alias key, so the token and variant indexes never retrieve it.
type indexCase struct {
	name    string
	gt      kg.Triple
	support kg.Triple
	aliases [][]string
	why     string // the supporting candidate's Why
}

// distractors keep the shared relation word common, so that the
// bag-of-words signal alone does not make a candidate.
var distractors = []kg.Triple{
	{Head: "Kinkaku-ji", Relation: "location", Tail: "Kita ward"},
	{Head: "Fushimi Inari Taisha", Relation: "location", Tail: "Fushimi ward"},
	{Head: "Ginkaku-ji", Relation: "location", Tail: "Sakyo ward"},
	{Head: "Amos Tversky", Relation: "field", Tail: "cognitive psychology"},
	{Head: "Richard Thaler", Relation: "field", Tail: "behavioral economics"},
	{Head: "Cass Sunstein", Relation: "field", Tail: "law"},
}

var indexCases = []indexCase{
	{
		name:    "user alias set, predicted name contains the other member",
		gt:      kg.Triple{Head: "Kiyomizu-dera", Relation: "location", Tail: "Higashiyama district on Mount Otowa"},
		support: kg.Triple{Head: "Kiyomizudera temple", Relation: "location", Tail: "東山区"},
		aliases: [][]string{{"Kiyomizu-dera", "Kiyomizudera"}},
		why:     "head:bleve:alias",
	},
	{
		name:    "typo in a one-word name",
		gt:      kg.Triple{Head: "Kahneman", Relation: "field", Tail: "judgment and decision-making"},
		support: kg.Triple{Head: "Kahnemann", Relation: "field", Tail: "心理学"},
		why:     "head:bleve:fuzzy",
	},
}

func candidateOf(t *testing.T, c indexCase, noIndex bool) *Candidate {
	t.Helper()
	task := &kg.Task{ID: "t", Triples: []kg.GTTriple{{Triple: c.gt}}}
	pred := &kg.Prediction{QID: "t", Triples: append([]kg.Triple{c.support}, distractors...)}
	res, err := Build(t.Context(), task, pred, Options{Aliases: c.aliases, NoIndex: noIndex})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range res.GT[0].Candidates {
		if x.Index == 0 {
			return &x
		}
	}
	return nil
}

// TestIndexFindsWhatTokensMiss: alias-set and typo matches that only the
// Bleve stage retrieves put the supporting triple among the candidates,
// tagged "bleve:"; without the stage (NoIndex) it is not there.
func TestIndexFindsWhatTokensMiss(t *testing.T) {
	for _, c := range indexCases {
		t.Run(c.name, func(t *testing.T) {
			if x := candidateOf(t, c, true); x != nil {
				t.Fatalf("NoIndex: support is a candidate (%+v); the case does not isolate the Bleve stage", *x)
			}
			x := candidateOf(t, c, false)
			if x == nil {
				t.Fatalf("support P-0 not a candidate of %v", c.gt)
			}
			if x.Why != c.why {
				t.Errorf("Why = %q, want %q", x.Why, c.why)
			}
		})
	}
}

// TestIndexStageOnFixtures measures the Bleve stage on the fixtures: it is
// queried for every GT entity, and turning it on loses no evidence and
// keeps the targets. It logs how many entity matches and candidates only
// the stage found (on these fixtures the token indexes already retrieve
// every hit the ranker keeps; see doc.go).
func TestIndexStageOnFixtures(t *testing.T) {
	for _, name := range fixtureNames {
		f := loadFixture(t, name)
		s, err := newSample(t.Context(), &f.task, &f.pred, Options{}.withDefaults())
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		hits, both := 0, 0
		for _, g := range f.task.Triples {
			for _, e := range []string{g.Head, g.Tail} {
				if seen[e] {
					continue
				}
				seen[e] = true
				m, err := s.entities(t.Context(), e)
				if err != nil {
					t.Fatal(err)
				}
				hs, err := s.ix.Entities(t.Context(), e, bleveK)
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range hs {
					hits++
					if x, ok := m[h.Text]; ok && !strings.HasPrefix(x.why, indexPrefix) {
						both++
					}
				}
			}
		}
		s.close()
		if hits == 0 {
			t.Errorf("%s: the Bleve stage returned no hit", name)
		}
		res, err := Build(t.Context(), &f.task, &f.pred, Options{})
		if err != nil {
			t.Fatal(err)
		}
		cands := 0
		for _, c := range res.GT {
			for _, x := range c.Candidates {
				if strings.Contains(x.Why, indexPrefix) {
					cands++
				}
			}
		}
		on := measure(t, f)
		off := measureWith(t, f, Options{NoIndex: true})
		t.Logf("%s: %d GT entities, %d Bleve hits (%d also token-index matches), %d entity matches and %d GT candidates only Bleve found | evidence any/all %.3f/%.3f (NoIndex %.3f/%.3f), volume %.3f (NoIndex %.3f)",
			name, len(seen), hits, both, s.indexOnly, cands, on.anyRate(), on.allRate(), off.anyRate(), off.allRate(), on.volume(), off.volume())
		if on.anyKept < off.anyKept || on.allKept < off.allKept {
			t.Errorf("%s: the Bleve stage lost evidence (any %d < %d or all %d < %d)", name, on.anyKept, off.anyKept, on.allKept, off.allKept)
		}
	}
}
