package rules

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

type ruleCase struct {
	Name    string          `json:"name"`
	GT      kg.Triple       `json:"gt"`
	Pred    []kg.Triple     `json:"pred"`
	Covered bool            `json:"covered"`
	Kind    kg.CoverageKind `json:"kind"`
	Support []int           `json:"support"`
	Why     string          `json:"why"`
}

// TestCases runs testdata/cases.json: GT triple, predicted triples (all
// given as candidates), expected verdict, kind, support and why.
func TestCases(t *testing.T) {
	b, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []ruleCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	r := New(nil, nil)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			cands := make([]Indexed, len(c.Pred))
			for i, p := range c.Pred {
				cands[i] = Indexed{Index: i, Triple: p}
			}
			d := r.Cover(c.GT, cands, c.Pred)
			if d.Covered != c.Covered || d.Kind != c.Kind || (c.Covered && !reflect.DeepEqual(d.Support, c.Support)) {
				t.Errorf("got covered=%v kind=%q support=%v (%s); want %v %q %v: %s", d.Covered, d.Kind, d.Support, d.Reason, c.Covered, c.Kind, c.Support, c.Why)
			}
		})
	}
}
