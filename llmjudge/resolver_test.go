package llmjudge

import (
	"context"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/llmjudge/fakeopenai"
	"github.com/kgjudge/kgjudge/plan"
)

// resolvingPlanner decides GT claim 0 and predicted claim 0 itself and
// batches the rest over the whole graph.
type resolvingPlanner struct{ plan.WholeGraph }

func (resolvingPlanner) Name() string { return "resolving" }

func (p resolvingPlanner) PlanResolved(ctx context.Context, task *kg.Task, pred *kg.Prediction) ([]plan.Batch, []plan.Resolution, error) {
	all, err := p.WholeGraph.Plan(ctx, task, pred)
	if err != nil {
		return nil, nil, err
	}
	var out []plan.Batch
	for _, b := range all {
		var claims []int
		for _, c := range b.Claims {
			if c != 0 {
				claims = append(claims, c)
			}
		}
		if len(claims) > 0 {
			b.Claims = claims
			out = append(out, b)
		}
	}
	return out, []plan.Resolution{
		{Pass: plan.Coverage, Claim: 0, Kind: kg.KindDirect, Support: []int{0}, Reason: "same triple"},
		{Pass: plan.Validity, Claim: 0, Support: []int{0}, Reason: "same triple"},
	}, nil
}

func TestResolverClaimsAreDecidedWithoutACall(t *testing.T) {
	s := fakeopenai.New()
	defer s.Close()
	cfg := baseConfig(s)
	cfg.Batching, cfg.Planner = BatchingPrefilter, resolvingPlanner{plan.WholeGraph{Size: 4}}
	j := newJudge(t, cfg)
	task, pred := sample(12)
	got, err := j.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	checkCorrect(t, task, pred, got)
	if got.Coverage[0].Judge != DeterministicJudge || got.Coverage[0].Kind != kg.KindDirect || got.Validity[0].Judge != DeterministicJudge {
		t.Errorf("resolved verdicts %+v / %+v", got.Coverage[0], got.Validity[0])
	}
	first := task.Triples[0].Triple
	for _, c := range s.Calls() {
		for _, cl := range c.Claims {
			if strings.Contains(cl.Text, `"`+first.Head+`"`) {
				t.Errorf("resolved claim %s was sent to the judge", first)
			}
		}
	}
}

func TestCheckResolvedRejectsOverlap(t *testing.T) {
	batches := []plan.Batch{{Pass: plan.Coverage, Claims: []int{1, 2}, Candidates: []int{0}}}
	for _, tc := range []struct {
		name string
		res  []plan.Resolution
		ok   bool
	}{
		{"disjoint", []plan.Resolution{{Pass: plan.Coverage, Claim: 0}}, true},
		{"also batched", []plan.Resolution{{Pass: plan.Coverage, Claim: 2}}, false},
		{"twice", []plan.Resolution{{Pass: plan.Coverage, Claim: 0}, {Pass: plan.Coverage, Claim: 0}}, false},
		{"out of range", []plan.Resolution{{Pass: plan.Validity, Claim: 5}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := plan.CheckResolved(batches, tc.res, 3, 5); (err == nil) != tc.ok {
				t.Errorf("err = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}
