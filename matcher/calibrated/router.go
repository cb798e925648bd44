// Package calibrated plugs the calibrated offline judge (matcher/calibrate)
// into the LLM judge as its router (llmjudge.Router): claims the model is
// sure about are decided without a call, the uncertain middle goes to the
// LLM.
package calibrated

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/llmjudge"
	"github.com/kgjudge/kgjudge/matcher/calibrate"
	"github.com/kgjudge/kgjudge/plan"
)

// Unsure is the probability the router reports, with the model's own
// thresholds, for a claim they leave to the LLM: strictly between any Low
// and High the thresholds give (Routing).
const Unsure = 0.5

// Router scores claims with a calibrated model.
//
// With the model's thresholds (Raw false) it applies each pass's
// cross-validated thresholds itself (calibrate.Routes: chosen so that
// routed claims agree with the recorded judge on every training sample)
// and reports Unsure for a claim they leave open, so that one
// llmjudge.Routing (Routing) serves both passes. With Raw it reports the
// model's probability of every claim and the caller's Low/High decide.
// The deterministic tier's claims are sure (P = 1) either way.
type Router struct {
	Model *calibrate.Model
	Opt   calibrate.Options
	Raw   bool
	name  string
}

// New returns a router over m (nil: the shipped weights).
func New(m *calibrate.Model, o calibrate.Options, raw bool) (*Router, error) {
	if m == nil {
		m = calibrate.Default()
	}
	b, err := m.Marshal()
	if err != nil {
		return nil, fmt.Errorf("calibrated: %w", err)
	}
	sum := sha256.Sum256(b)
	r := &Router{Model: m, Opt: o, Raw: raw}
	rt := r.routes()
	mode := fmt.Sprintf("coverage [%.2f, %.2f] validity [%.2f, %.2f]", rt.Coverage.Low, rt.Coverage.High, rt.Validity.Low, rt.Validity.High)
	if raw {
		mode = "raw p"
	}
	r.name = fmt.Sprintf("calibrated/1 weights %s, %s", hex.EncodeToString(sum[:6]), mode)
	return r, nil
}

// routes are the model's thresholds (none: route only the tier's claims).
func (r *Router) routes() calibrate.Routes {
	if r.Model.Route != nil {
		return *r.Model.Route
	}
	none := calibrate.Route{Low: 0, High: 1}
	return calibrate.Routes{Coverage: none, Validity: none}
}

// Routing is the llmjudge routing with the model's thresholds: Low and
// High bracket Unsure and every pass's own thresholds.
func (r *Router) Routing() *llmjudge.Routing {
	rt := r.routes()
	low := math.Max(rt.Coverage.Low, rt.Validity.Low)
	high := math.Min(rt.Coverage.High, rt.Validity.High)
	return &llmjudge.Routing{Router: r, Low: math.Min(low, Unsure-0.01), High: math.Max(high, Unsure+0.01)}
}

// Name implements llmjudge.Router: the weights' hash and the thresholds.
func (r *Router) Name() string { return r.name }

// Score implements llmjudge.Router. It featurizes the sample (both
// passes, as the offline judge does) on every call.
func (r *Router) Score(ctx context.Context, task *kg.Task, pred *kg.Prediction, pass plan.Pass, claims []int) ([]llmjudge.RouteScore, error) {
	s, err := calibrate.Featurize(ctx, task, pred, r.Opt)
	if err != nil {
		return nil, err
	}
	cov, val := r.Model.Decide(s)
	ds, route := cov, r.routes().Coverage
	if pass == plan.Validity {
		ds, route = val, r.routes().Validity
	}
	out := make([]llmjudge.RouteScore, len(claims))
	for k, c := range claims {
		if c < 0 || c >= len(ds) {
			return nil, fmt.Errorf("calibrated: %s claim %d of %d", pass, c, len(ds))
		}
		d := ds[c]
		switch {
		case d.Tier:
			out[k] = llmjudge.RouteScore{P: 1, Support: append([]int{}, d.Support...)}
		case r.Raw:
			out[k] = llmjudge.RouteScore{P: d.Prob}
			if d.Covered {
				out[k].Support = append([]int{}, d.Support...)
			}
		default:
			out[k] = llmjudge.RouteScore{P: Unsure}
			if ok, covered := route.Decides(d.Prob); ok {
				out[k].P = d.Prob
				if covered {
					out[k].Support = append([]int{}, d.Support...)
				}
			}
		}
	}
	return out, nil
}
