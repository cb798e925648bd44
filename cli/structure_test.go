package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/hierarchy"
)

// TestStructureFromStoreMatchesSummary: the structure command, reading the
// run back from the store, reports what score wrote into summary.json.
func TestStructureFromStoreMatchesSummary(t *testing.T) {
	gt, pred, verdicts, _ := fixtureLayout(t)
	store := filepath.Join(t.TempDir(), "store")
	out := t.TempDir()
	if _, err := runScore(t.Context(), scoreOptions{GT: gt, Pred: pred, Judge: "replay", Verdicts: verdicts, Protocol: "paper",
		Store: store, Out: out, Run: "opus"}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	rr, err := runStructure(t.Context(), structureOptions{Run: "opus", Store: store, Protocol: "paper", Top: 10}, &stdout, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Structure hierarchy.RunReport `json:"structure"`
	}
	b, err := os.ReadFile(filepath.Join(out, "opus", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(rr)
	want, _ := json.Marshal(sum.Structure)
	if !bytes.Equal(got, want) {
		t.Errorf("structure from the store differs from summary.json's section")
	}
	// The fixtures' recorded verdicts: 110+70+166 covered GT triples over 460+397+313.
	covered, triples := 0, 0
	for _, c := range rr.CoverageByClass {
		covered += c.Covered
		triples += c.Triples
	}
	if covered != 110+70+166 || triples != 460+397+313 {
		t.Errorf("coverage by class sums to %d/%d", covered, triples)
	}
	if rr.Failures.ZeroF1 != 0 || rr.Samples != 3 {
		t.Errorf("failures %+v samples %d", rr.Failures, rr.Samples)
	}
	for _, want := range []string{"triple class", "GT recall [95% CI]", "pred invalid [95% CI]", "bibliographic, unasked", "GT flatness", "invalid predictions by type", "whole-output failures"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if _, err := runStructure(t.Context(), structureOptions{Run: "nope", Store: store, Protocol: "paper"}, &bytes.Buffer{}, &bytes.Buffer{}); exitCodeOf(err) != ExitInput || !strings.Contains(err.Error(), "opus") {
		t.Errorf("unknown run: %v (should list the runs)", err)
	}
}
