package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/matcher"
)

func TestAgreeRecordedVsOffline(t *testing.T) {
	gt, pred, verdicts, _ := fixtureLayout(t)
	// The task files carry their subset (a kgjudge extension key).
	for name, subset := range map[string]string{"d001": "daily", "p012": "pro", "p041": "pro"} {
		path := filepath.Join(gt, name+".json")
		var task map[string]any
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &task); err != nil {
			t.Fatal(err)
		}
		task["subset"] = subset
		if b, err = json.Marshal(task); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
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
	// Validity verdicts read valid / invalid, in the report and the text.
	nVal := 0
	for _, d := range rep.Disagreements {
		ok := map[string]bool{"covered": true, "uncovered": true}
		if d.Pass == "validity" {
			nVal++
			ok = map[string]bool{"valid": true, "invalid": true}
		}
		if !ok[d.A] || !ok[d.B] {
			t.Errorf("%s disagreement %s#%d %d: a=%q b=%q", d.Pass, d.TaskID, d.Sample, d.Index, d.A, d.B)
		}
	}
	if nVal == 0 {
		t.Fatal("no validity disagreement between recorded and offline: the check above checked nothing")
	}
	var all2 bytes.Buffer
	if _, err := runAgree(t.Context(), agreeOptions{RunA: "recorded", RunB: "offline", Store: store, Show: 1 << 20}, &all2); err != nil {
		t.Fatal(err)
	}
	nLines := 0
	for _, line := range strings.Split(all2.String(), "\n") {
		if strings.Contains(line, " validity ") && strings.Contains(line, "recorded=") {
			nLines++
			if strings.Contains(line, "covered") || !strings.Contains(line, "valid") {
				t.Errorf("validity line says covered/uncovered: %q", line)
			}
		}
	}
	if nLines != nVal {
		t.Errorf("%d validity lines printed, %d disagreements", nLines, nVal)
	}
	var names []string
	samples := map[string]int{}
	for _, g := range rep.Groups {
		names = append(names, g.Group)
		samples[g.Group] = g.Samples
	}
	// d001 is zh/daily, p012 en/pro, p041 zh/pro.
	if strings.Join(names, ",") != "all,language en,language zh,subset daily,subset pro" ||
		samples["all"] != 3 || samples["language zh"] != 2 || samples["subset pro"] != 2 || samples["subset daily"] != 1 {
		t.Errorf("groups %v, samples %v", names, samples)
	}
	var pro, en, zh int
	for _, g := range rep.Groups {
		switch g.Group {
		case "subset pro":
			pro = g.Coverage.N
		case "language en":
			en = g.Coverage.N
		case "language zh":
			zh = g.Coverage.N
		}
	}
	if pro != 397+313 || en+zh != all.Coverage.N {
		t.Errorf("coverage claims: pro %d, en %d + zh %d vs all %d", pro, en, zh, all.Coverage.N)
	}
	if !strings.Contains(out.String(), "kappa") || !strings.Contains(out.String(), "first 5") || !strings.Contains(out.String(), "self-consistency") {
		t.Errorf("output:\n%s", out.String())
	}
	// Precision and recall per direction are the counts read both ways.
	if c := all.Coverage; c.BvsA.Recall != matcher.Round4(float64(c.BothYes)/float64(c.BothYes+c.OnlyA)) || c.AvsB.Recall != c.BvsA.Precision {
		t.Errorf("directions %+v", c)
	}
	// The recorded judge's self-consistency on d001, p012, p041 (counted
	// independently from eval.json): 45/80, 12/59 and 71/102 cited supports
	// marked invalid.
	if c := rep.Consistency[0]; c.Run != "recorded" || c.Cited != 80+59+102 || c.CitedInvalid != 45+12+71 {
		t.Errorf("recorded self-consistency %+v", c)
	}
	// Kinds: the recorded run's covered triples all have kind "recorded",
	// 346 of them.
	if k := rep.Kinds[0]; k.Run != "recorded" || k.Kind != "recorded" || k.Claims != 346 || k.OtherCovered != all.Coverage.BothYes {
		t.Errorf("kinds %+v", rep.Kinds)
	}
	// Flags may follow the run names, as users type them.
	var stdout, stderr bytes.Buffer
	if code := Main(t.Context(), []string{"kgjudge", "agree", "recorded", "offline", "--store", store, "--json"}, &stdout, &stderr); code != ExitOK {
		t.Fatalf("agree with trailing flags: exit %d\n%s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), `"run_b": "offline"`) {
		t.Errorf("agree --json output:\n%s", stdout.String())
	}
	if _, err := runAgree(t.Context(), agreeOptions{RunA: "recorded", RunB: "nope", Store: store}, &bytes.Buffer{}); exitCodeOf(err) != ExitInput {
		t.Errorf("unknown run: %v", err)
	}
}
