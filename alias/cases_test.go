package alias

import (
	"context"
	"encoding/json"
	"os"
	"testing"
)

// matchCase is one entry of testdata/cases.json: a query against a small
// index and the hit that must come first, with why.
type matchCase struct {
	Name    string     `json:"name"`
	Kind    string     `json:"kind"` // entity | relation
	Query   string     `json:"query"`
	Indexed []string   `json:"indexed"`
	Aliases [][]string `json:"aliases"`
	Want    string     `json:"want"`
	How     How        `json:"how"`
	Why     string     `json:"why"`
	// QueryIsIndexed adds the query itself to the indexed strings.
	QueryIsIndexed bool `json:"query_is_indexed"`
}

func TestCases(t *testing.T) {
	raw, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []matchCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatalf("testdata/cases.json: %v", err)
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			indexed := c.Indexed
			if c.QueryIsIndexed {
				indexed = append([]string{c.Query}, indexed...)
			}
			var ents, rels []string
			search := (*Index).Entities
			switch c.Kind {
			case "entity":
				ents = indexed
			case "relation":
				rels, search = indexed, (*Index).Relations
			default:
				t.Fatalf("kind %q", c.Kind)
			}
			ix, err := Build(ctx, "", ents, rels, c.Aliases)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			hits, err := search(ix, ctx, c.Query, 5)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || hits[0].Text != c.Want || hits[0].How != c.How {
				t.Errorf("%q: hits %v; want top %q (%s): %s", c.Query, hits, c.Want, c.How, c.Why)
			}
		})
	}
}
