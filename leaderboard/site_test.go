package leaderboard

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/runset"
)

// The shape of the benchmark site's leaderboard.json, as the issue gives it.
const siteExample = `{"title": "VibeSearchBench", "metric": "Triplet F1 (%)",
 "frameworks": [{"id": "react", "label": "ReAct"}, {"id": "openclaw", "label": "OpenClaw"}],
 "models": [{"name": "Claude Opus 4.6",
   "react": {"pro": {"p": 28.15, "r": 33.47, "f1": 29.79}, "daily": {"p": 40.1, "r": 38.2, "f1": 38.9}, "avg": {"p": 34.13, "r": 35.84, "f1": 34.35}},
   "openclaw": {"pro": {"p": 20.5, "r": 25.25, "f1": 21.8}}}]}`

// Reading the site's file and writing it back changes nothing but spacing.
func TestSiteRoundTripsTheShape(t *testing.T) {
	s, err := ReadSite(strings.NewReader(siteExample))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Models) != 1 || len(s.Models[0].Frameworks) != 2 || s.Models[0].Frameworks[1].Framework != "openclaw" {
		t.Fatalf("%+v", s)
	}
	if f := s.Models[0].Frameworks[0]; f.Pro.F1 != 29.79 || f.Avg.R != 35.84 {
		t.Errorf("react: %+v", f)
	}
	var out bytes.Buffer
	if err := WriteSite(&out, s); err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal([]byte(siteExample), &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("round trip changed the content:\n%s", out.String())
	}
	// Framework keys keep their order: the file is diffable.
	if i, j := strings.Index(out.String(), `"react": {`), strings.Index(out.String(), `"openclaw": {`); i < 0 || j < i {
		t.Errorf("framework order lost:\n%s", out.String())
	}
}

// BuildSite computes the figures: percent, 2 decimals, macro over tasks;
// avg is the mean of the pro and daily figures.
func TestBuildSite(t *testing.T) {
	tasks := map[string]runset.Task{
		"p1": {ID: "p1", Subset: "pro"}, "p2": {ID: "p2", Subset: "pro"},
		"d1": {ID: "d1", Subset: "daily"},
	}
	mk := func(name, model, fw string, f1 ...float64) runset.Run {
		r := run(name)
		r.Model, r.Framework = model, fw
		for i, id := range []string{"p1", "p2", "d1"} {
			r.Samples = append(r.Samples, sample(id, 0, f1[i]))
		}
		return r
	}
	set := runset.Set{Tasks: tasks, Runs: []runset.Run{
		mk("opus-react", "Claude Opus 4.6", "react", 0.3, 0.2815, 0.4),
		mk("opus-claw", "Claude Opus 4.6", "openclaw", 0.1, 0.2, 0.3),
		mk("gpt-react", "GPT-5", "react", 0.5, 0.5, 0.5),
	}}
	s, err := BuildSite(set, "bench", false)
	if err != nil {
		t.Fatal(err)
	}
	if s.Metric != SiteMetric || s.Title != "bench" || len(s.Frameworks) != 2 || s.Frameworks[0] != (SiteFramework{"openclaw", "OpenClaw"}) || s.Frameworks[1] != (SiteFramework{"react", "ReAct"}) {
		t.Errorf("header: %+v", s)
	}
	if len(s.Models) != 2 || s.Models[0].Name != "Claude Opus 4.6" || s.Models[1].Name != "GPT-5" {
		t.Fatalf("models: %+v", s.Models)
	}
	react := s.Models[0].Frameworks[1]
	if react.Framework != "react" {
		t.Fatalf("%+v", s.Models[0])
	}
	// pro F1 = (0.3 + 0.2815)/2 = 0.29075 -> 29.07 or 29.08 by the double;
	// P = F1 + 0.1, R = F1 - 0.1 (the test's sample()).
	if f := react.Pro.F1; f != 29.08 && f != 29.07 {
		t.Errorf("pro f1 %v", f)
	}
	if react.Daily.F1 != 40 || react.Daily.P != 50 || react.Daily.R != 30 {
		t.Errorf("daily %+v", react.Daily)
	}
	if want := round2((react.Pro.F1 + react.Daily.F1) / 2); react.Avg.F1 != want {
		t.Errorf("avg f1 %v, want the mean of the shown figures %v", react.Avg.F1, want)
	}
	var a, b bytes.Buffer
	if err := WriteSite(&a, s); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSite(bytes.NewReader(a.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteSite(&b, back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) || !reflect.DeepEqual(s, back) {
		t.Errorf("write, read, write differs:\n%s\n%s", a.String(), b.String())
	}

	t.Run("needs subsets", func(t *testing.T) {
		bad := set
		bad.Tasks = map[string]runset.Task{}
		if _, err := BuildSite(bad, "", false); err == nil || !strings.Contains(err.Error(), "subset") {
			t.Errorf("no subsets: %v", err)
		}
	})
	t.Run("needs frameworks", func(t *testing.T) {
		bad := runset.Set{Tasks: tasks, Runs: []runset.Run{mk("x", "X", "", 0, 0, 0)}}
		if _, err := BuildSite(bad, "", false); err == nil || !strings.Contains(err.Error(), "framework") {
			t.Errorf("no framework: %v", err)
		}
	})
}
