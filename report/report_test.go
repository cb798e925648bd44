package report

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/internal/fixtures"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/leaderboard"
	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/runset"
)

// recordedRun scores the old fixtures with their recorded verdicts (paper
// protocol) and returns the run and the verdicts per sample.
func recordedRun(t *testing.T) (Run, []kg.Task, [][2]any) {
	t.Helper()
	var r Run
	var tasks []kg.Task
	var verdicts [][2]any
	for _, name := range fixtures.Names() {
		f := fixtures.Load(t, name)
		cov, val := f.Recorded()
		it, err := matcher.Score(&f.Task, &f.Pred, kg.Judgement{Judge: "recorded", Coverage: cov, Validity: val}, matcher.ProtocolPaper)
		if err != nil {
			t.Fatal(err)
		}
		r.Samples = append(r.Samples, Sample{Item: &it})
		tasks = append(tasks, f.Task)
		verdicts = append(verdicts, [2]any{cov, val})
	}
	r.Name = "recorded"
	return r, tasks, verdicts
}

// The report's self-consistency, read from item records, is what
// matcher.SelfConsistency gives on the judge's verdicts themselves (what
// kgjudge agree reports), and it is absent without a validity pass.
func TestSelfConsistencyFromItems(t *testing.T) {
	r, _, verdicts := recordedRun(t)
	var want matcher.SelfConsistency
	for _, v := range verdicts {
		want.AddSample(v[0].([]kg.Verdict), v[1].([]kg.Validity))
	}
	got := selfConsistency(r.Samples)
	if got == nil || *got != want || want.Cited == 0 {
		t.Fatalf("self-consistency from items %+v, from verdicts %+v", got, want)
	}
	for i := range r.Samples {
		it := *r.Samples[i].Item
		it.Validity = nil
		r.Samples[i].Item = &it
	}
	if c := selfConsistency(r.Samples); c != nil {
		t.Errorf("code-protocol items (no validity pass) give self-consistency %+v, want none", c)
	}
}

func TestRelationClasses(t *testing.T) {
	triples := [][3]string{{"a", "located in", "b"}, {"a", "includes", "c"}, {"a", "unknown rel", "d"}}
	st := &ItemStructure{GT: GraphRelations{Relations: []RelationClass{
		{"located in", "factual"}, {"includes", "organizational"}, {"includes", "factual"}, {"includes", "organizational"}}}}
	generic := map[string]any{"gt": map[string]any{"relations": []any{
		map[string]any{"relation": "located in", "class": "factual"}, map[string]any{"relation": "includes", "class": "organizational"},
		map[string]any{"relation": "includes", "class": "factual"}}}}
	want := []string{"factual", "organizational/factual", ""}
	for name, s := range map[string]any{"typed": st, "generic": generic} {
		got := relationClasses(s, "gt", triples)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: classes %q, want %q", name, got, want)
		}
		if c := relationClasses(s, "pred", triples); c != nil {
			t.Errorf("%s: pred classes %q with no pred relations, want none", name, c)
		}
	}
	if c := relationClasses(nil, "gt", triples); c != nil {
		t.Errorf("no structure: %q", c)
	}
}

// The Markdown report carries each leaderboard exactly as kgjudge
// leaderboard --format md prints it, and the self-consistency table.
func TestMarkdownLeaderboards(t *testing.T) {
	r, tasks, _ := recordedRun(t)
	set := runset.Set{}
	rs := runset.Run{Name: r.Name, Model: r.Name, Protocol: matcher.ProtocolPaper, N: 1}
	for _, s := range r.Samples {
		rs.Samples = append(rs.Samples, runset.SampleFromItem(s.Item))
	}
	other := rs
	other.Name, other.Model = "copy", "copy"
	set.Runs = []runset.Run{rs, other}
	b, err := leaderboard.Build(set, leaderboard.Options{By: []string{"run"}})
	if err != nil {
		t.Fatal(err)
	}
	var md, want bytes.Buffer
	if err := WriteMarkdown(&md, Input{Title: "t", Tasks: tasks, Runs: []Run{r}, Leaderboards: []*leaderboard.Board{b}}); err != nil {
		t.Fatal(err)
	}
	if err := leaderboard.WriteMarkdown(&want, b); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	if !strings.Contains(out, "## Leaderboard by run\n\n"+want.String()) {
		t.Errorf("markdown lacks the leaderboard as leaderboard.WriteMarkdown writes it:\n%s\nwant:\n%s", out, want.String())
	}
	c := selfConsistency(r.Samples)
	row := "| recorded |  | " // judge is blank in this Run's summary
	if !strings.Contains(out, "## Judge self-consistency") || !strings.Contains(out, row+strconv.Itoa(c.Cited)+" | "+strconv.Itoa(c.CitedInvalid)+" | ") {
		t.Errorf("markdown lacks the self-consistency row (%d cited, %d invalid):\n%s", c.Cited, c.CitedInvalid, out)
	}
	var note bytes.Buffer
	if err := WriteMarkdown(&note, Input{Title: "t", Runs: []Run{r}, LeaderboardNote: "no leaderboard: two protocols"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(note.String(), "no leaderboard: two protocols") {
		t.Errorf("markdown lacks the note saying why there is no leaderboard:\n%s", note.String())
	}
}
