package llmjudge

import (
	"context"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/llmjudge/fakeopenai"
	"github.com/kgjudge/kgjudge/plan"
)

// exactRouter is a test router: sure (p=1) of a claim whose exact text
// is among the other side's triples, unsure (p=0.5) of the rest. It says
// nothing about the calibrated model's fidelity; it exercises the seam.
type exactRouter struct{}

func (exactRouter) Name() string { return "exact-test/1" }

func (exactRouter) Score(ctx context.Context, task *kg.Task, pred *kg.Prediction, pass plan.Pass, claims []int) ([]RouteScore, error) {
	gt := map[string]int{}
	for i, t := range task.Triples {
		gt[t.Triple.String()] = i
	}
	pr := map[string]int{}
	for i, t := range pred.Triples {
		pr[t.String()] = i
	}
	out := make([]RouteScore, len(claims))
	for k, c := range claims {
		out[k] = RouteScore{P: 0.5}
		if pass == plan.Coverage {
			if x, ok := pr[task.Triples[c].Triple.String()]; ok {
				out[k] = RouteScore{P: 1, Support: []int{x}}
			}
		} else if x, ok := gt[pred.Triples[c].String()]; ok {
			out[k] = RouteScore{P: 1, Support: []int{x}}
		}
	}
	return out, nil
}

func TestRoutingDecidesSureClaimsWithoutACall(t *testing.T) {
	task, pred := sample(12)
	run := func(rt *Routing) (kg.Judgement, *fakeopenai.Server, Manifest) {
		s := fakeopenai.New()
		t.Cleanup(s.Close)
		cfg := baseConfig(s)
		cfg.Route = rt
		j := newJudge(t, cfg)
		got, err := j.Judge(context.Background(), task, pred)
		if err != nil {
			t.Fatal(err)
		}
		return got, s, j.Manifest()
	}
	off, sOff, mOff := run(nil)
	on, sOn, m := run(&Routing{Router: exactRouter{}, Low: 0.1, High: 0.9})
	if mOff.Routing != nil {
		t.Fatal("routing off, yet the manifest has routing")
	}
	claimsSent := func(s *fakeopenai.Server) int {
		n := 0
		for _, c := range s.Calls() {
			n += len(c.Claims)
		}
		return n
	}
	routed := 0
	for i := range on.Coverage {
		if on.Coverage[i].State != off.Coverage[i].State {
			t.Errorf("GT %d: routed %s, model %s", i, on.Coverage[i].State, off.Coverage[i].State)
		}
		if on.Coverage[i].Judge == CalibratedJudge {
			routed++
			if on.Coverage[i].Kind != kg.KindCalibrated || on.Coverage[i].Reason != "calibrated p=1.0000" {
				t.Errorf("GT %d: %+v", i, on.Coverage[i])
			}
		}
	}
	for i := range on.Validity {
		if on.Validity[i].Judge == CalibratedJudge {
			routed++
		}
	}
	if routed == 0 || claimsSent(sOn) != claimsSent(sOff)-routed {
		t.Fatalf("routed %d claims; sent %d with routing, %d without", routed, claimsSent(sOn), claimsSent(sOff))
	}
	ri := m.Routing
	if ri == nil || ri.Router != "exact-test/1" || ri.Low != 0.1 || ri.High != 0.9 || ri.Positive != int64(routed) || ri.Negative != 0 ||
		ri.Share <= 0 || ri.Share >= 1 {
		t.Fatalf("manifest routing %+v (routed %d)", ri, routed)
	}
	// Thresholds that cannot work are refused.
	if err := (Config{Model: "m", Route: &Routing{Router: exactRouter{}, Low: 0.9, High: 0.1}}).Validate(); err == nil {
		t.Fatal("low >= high accepted")
	}
}
