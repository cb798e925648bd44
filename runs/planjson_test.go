package runs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestWritePlanJSONMatchesWriteJSON: the item-at-a-time encoder writes the
// bytes WriteJSON writes, for a real plan (two fixtures, with the oracle's
// scores and an embedding block), an empty one and one without items.
func TestWritePlanJSONMatchesWriteJSON(t *testing.T) {
	in, evals := fixtureInputs(t, []string{"d001", "p012"})
	real, err := Plan(t.Context(), in, PlanConfig{Oracle: evals, Embedding: map[string]any{"enabled": false, "note": "<off> & \"quoted\""}})
	if err != nil {
		t.Fatal(err)
	}
	var nilEmbedding *struct{ X int }
	for _, tc := range []struct {
		name string
		out  *PlanOutput
	}{
		{"fixtures", real},
		{"no items", &PlanOutput{Items: []PlanItem{}}},
		{"nil items, typed nil embedding", &PlanOutput{Embedding: nilEmbedding}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := encodeJSON("plan", tc.out)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "plan.json")
			if err := WritePlanJSON(path, tc.out); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Fatalf("differs at byte %d of %d/%d: got %q, want %q", i, len(got), len(want), got[max(0, i-40):min(len(got), i+40)], want[max(0, i-40):min(len(want), i+40)])
			}
		})
	}
}
