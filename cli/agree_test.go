package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func TestAgreeRecordedVsOffline(t *testing.T) {
	gt, pred, verdicts, _ := fixtureLayout(t)
	store := filepath.Join(t.TempDir(), "store")
	for _, run := range []struct{ name, judge string }{{"recorded", "replay"}, {"again", "replay"}, {"offline", "offline"}} {
		o := scoreOptions{GT: gt, Pred: pred, Judge: run.judge, Protocol: "paper", Store: store, Out: t.TempDir(), Run: run.name}
		if run.judge == "replay" {
			o.Verdicts = verdicts
		}
		if _, err := runScore(t.Context(), o, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
	}
	same, err := runAgree(t.Context(), agreeOptions{RunA: "recorded", RunB: "again", Store: store}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if all := same.Groups[0]; all.Coverage.Kappa != 1 || all.Validity.Kappa != 1 || all.Coverage.N != 460+397+313 || len(same.Disagreements) != 0 {
		t.Errorf("a run against itself: %+v, %d disagreements", all, len(same.Disagreements))
	}
	var out bytes.Buffer
	rep, err := runAgree(t.Context(), agreeOptions{RunA: "recorded", RunB: "offline", Store: store, Show: 5}, &out)
	if err != nil {
		t.Fatal(err)
	}
	all := rep.Groups[0]
	// The recorded judge covered 110+70+166 GT triples and found 98+52+37 predicted triples valid.
	if all.Coverage.BothYes+all.Coverage.OnlyA != 346 || all.Validity.BothYes+all.Validity.OnlyA != 98+52+37 {
		t.Errorf("recorded yes counts: coverage %+v validity %+v", all.Coverage, all.Validity)
	}
	dis := 0
	for _, d := range rep.Disagreements {
		if d.Pass == "coverage" {
			dis++
		}
	}
	if dis != all.Coverage.OnlyA+all.Coverage.OnlyB || dis == 0 {
		t.Errorf("%d coverage disagreements listed, counts say %d", dis, all.Coverage.OnlyA+all.Coverage.OnlyB)
	}
	if len(rep.Groups) != 3 || rep.Groups[1].Group != "language en" || rep.Groups[2].Group != "language zh" || rep.Groups[2].Samples != 2 {
		t.Errorf("groups %+v", rep.Groups)
	}
	if !strings.Contains(out.String(), "kappa") || !strings.Contains(out.String(), "first 5") {
		t.Errorf("output:\n%s", out.String())
	}
	if _, err := runAgree(t.Context(), agreeOptions{RunA: "recorded", RunB: "nope", Store: store}, &bytes.Buffer{}); exitCodeOf(err) != ExitInput {
		t.Errorf("unknown run: %v", err)
	}
}
