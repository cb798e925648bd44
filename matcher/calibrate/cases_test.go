package calibrate_test

import (
	"encoding/json"
	"os"
	"sort"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/matcher/calibrate"
)

type missCase struct {
	Class   string              `json:"class"`
	Lang    string              `json:"lang"`
	Name    string              `json:"name"`
	Aliases map[string][]string `json:"aliases"`
	GT      []kg.Triple         `json:"gt"`
	Pred    []kg.Triple         `json:"pred"`
	Covered bool                `json:"covered"`
	Feature string              `json:"feature"`
	Min     float64             `json:"min"`
}

// TestMissClasses runs testdata/cases.json: one case or more per miss class
// of the issue (alias and abbreviation, spacing, compositional, reified
// yes/no and count, a unit or qualifier in the relation, category heads,
// inverse, numeric format, list membership, cross-lingual), in English and
// Chinese. Each names the feature that must carry it and the shipped
// model's verdict on the first GT triple.
func TestMissClasses(t *testing.T) {
	b, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []missCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	m := calibrate.Default()
	fi := map[string]int{}
	for i, n := range calibrate.FeatureNames {
		fi[n] = i
	}
	langs := map[string]map[string]bool{}
	for _, c := range cases {
		t.Run(c.Class+"/"+c.Lang+"/"+c.Name, func(t *testing.T) {
			task := &kg.Task{ID: "case"}
			for _, g := range c.GT {
				task.Triples = append(task.Triples, kg.GTTriple{Triple: g})
			}
			names := make([]string, 0, len(c.Aliases))
			for n := range c.Aliases {
				names = append(names, n)
			}
			sort.Strings(names)
			for i, n := range names {
				task.Nodes = append(task.Nodes, kg.Node{ID: "n" + string(rune('0'+i)), Name: n, Aliases: c.Aliases[n]})
			}
			pred := &kg.Prediction{QID: "case", TaskID: "case", Triples: c.Pred}
			s, err := calibrate.Featurize(t.Context(), task, pred, calibrate.Options{})
			if err != nil {
				t.Fatal(err)
			}
			cov, _ := m.Decide(s)
			x := s.Coverage[0].X
			if c.Feature != "" {
				j, ok := fi[c.Feature]
				if !ok {
					t.Fatalf("unknown feature %q", c.Feature)
				}
				if x[j] < c.Min {
					t.Errorf("feature %s = %.3f, want >= %.2f", c.Feature, x[j], c.Min)
				}
			}
			if cov[0].Covered != c.Covered {
				t.Errorf("covered = %v (%s), want %v", cov[0].Covered, cov[0].Reason, c.Covered)
			}
		})
		if langs[c.Class] == nil {
			langs[c.Class] = map[string]bool{}
		}
		langs[c.Class][c.Lang] = true
	}
	for _, class := range []string{"alias", "spacing", "compositional", "reified", "relation", "category", "inverse", "numeric", "other_entity"} {
		if !langs[class]["en"] || !langs[class]["zh"] {
			t.Errorf("miss class %s needs cases in English and Chinese (has %v)", class, langs[class])
		}
	}
}
