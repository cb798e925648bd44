// Package plan owns how a sample's claims are cut into judge batches: the
// Planner seam, the reference planner (5 batches, whole list as candidates)
// and a simple whole-graph planner. A prefiltering planner lives elsewhere
// and implements Planner. This package must not call a model or read files.
package plan

import (
	"context"
	"fmt"
	"sort"

	"github.com/kgjudge/kgjudge/kg"
)

// Pass is the judge pass a batch belongs to.
type Pass string

const (
	// Coverage: claims are GT triple indices, candidates predicted indices.
	Coverage Pass = "coverage"
	// Validity: claims are predicted indices, candidates GT triple indices.
	Validity Pass = "validity"
)

// Batch is one judge call's worth of claims and the candidates shown with
// them. Candidates are the union of the claims' candidates, in ascending
// index order; the judge sees them under local ids 0..len-1. A batch with
// no candidates is decided without a call: its claims are not covered
// (not valid), because the planner found nothing that could support them.
type Batch struct {
	Pass       Pass
	Claims     []int
	Candidates []int
}

// Planner cuts a sample into batches. Plan returns the batches of both
// passes (the judge skips validity batches when it runs no validity pass).
// It must be deterministic: the same task and prediction give the same
// batches in the same order.
type Planner interface {
	Name() string
	Plan(ctx context.Context, task *kg.Task, pred *kg.Prediction) ([]Batch, error)
}

// Resolution is a claim a planner decided without a judge (kgjudge's
// deterministic tier): covered (coverage pass) or valid (validity pass),
// with the kind and the supporting indices.
type Resolution struct {
	Pass    Pass
	Claim   int
	Kind    kg.CoverageKind
	Support []int
	Reason  string
}

// Resolver is a Planner that decides some claims itself. A resolved claim
// must be in no batch; the judge records it as decided, without a call.
type Resolver interface {
	Planner
	PlanResolved(ctx context.Context, task *kg.Task, pred *kg.Prediction) ([]Batch, []Resolution, error)
}

// CheckResolved checks resolutions against a checked plan: in range, each
// claim at most once, and in no batch.
func CheckResolved(batches []Batch, res []Resolution, nGT, nPred int) error {
	planned := map[Pass]map[int]bool{Coverage: {}, Validity: {}}
	for _, b := range batches {
		for _, c := range b.Claims {
			planned[b.Pass][c] = true
		}
	}
	seen := map[Pass]map[int]bool{Coverage: {}, Validity: {}}
	for i, r := range res {
		n := nGT
		switch r.Pass {
		case Coverage:
		case Validity:
			n = nPred
		default:
			return fmt.Errorf("resolution %d: unknown pass %q", i, r.Pass)
		}
		if r.Claim < 0 || r.Claim >= n {
			return fmt.Errorf("resolution %d (%s): claim %d out of range [0,%d)", i, r.Pass, r.Claim, n)
		}
		if planned[r.Pass][r.Claim] || seen[r.Pass][r.Claim] {
			return fmt.Errorf("resolution %d (%s): claim %d is also batched or resolved twice", i, r.Pass, r.Claim)
		}
		seen[r.Pass][r.Claim] = true
	}
	return nil
}

// ReferenceBatches is the reference evaluator's batch count.
const ReferenceBatches = 5

// Split cuts n items into at most k contiguous parts of nearly equal size,
// the larger parts first: the reference evaluator's split.
func Split(n, k int) [][2]int {
	if n <= 0 || k <= 0 {
		return nil
	}
	k = min(k, n)
	q, r := n/k, n%k
	var out [][2]int
	at := 0
	for i := 0; i < k; i++ {
		size := q
		if i < r {
			size++
		}
		out = append(out, [2]int{at, at + size})
		at += size
	}
	return out
}

func seq(a, b int) []int {
	out := make([]int, 0, b-a)
	for i := a; i < b; i++ {
		out = append(out, i)
	}
	return out
}

// Reference plans exactly as the reference evaluator: the GT triples in
// five contiguous batches, each shown the whole predicted list; validity
// mirrors it (predicted triples in five batches, each with the whole GT list).
type Reference struct{}

var _ Planner = Reference{}

// Name implements Planner.
func (Reference) Name() string { return "reference" }

// Plan implements Planner.
func (Reference) Plan(ctx context.Context, task *kg.Task, pred *kg.Prediction) ([]Batch, error) {
	return chunked(ctx, task, pred, func(n int) [][2]int { return Split(n, ReferenceBatches) })
}

// WholeGraph shows every batch the whole candidate list and cuts the claims
// into batches of Size (0: 40).
type WholeGraph struct {
	Size int
}

var _ Planner = WholeGraph{}

// Name implements Planner.
func (w WholeGraph) Name() string { return fmt.Sprintf("whole-graph/%d", w.size()) }

func (w WholeGraph) size() int {
	if w.Size <= 0 {
		return 40
	}
	return w.Size
}

// Plan implements Planner.
func (w WholeGraph) Plan(ctx context.Context, task *kg.Task, pred *kg.Prediction) ([]Batch, error) {
	return chunked(ctx, task, pred, func(n int) [][2]int {
		var out [][2]int
		for a := 0; a < n; a += w.size() {
			out = append(out, [2]int{a, min(a+w.size(), n)})
		}
		return out
	})
}

func chunked(ctx context.Context, task *kg.Task, pred *kg.Prediction, cut func(int) [][2]int) ([]Batch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	nGT, nPred := len(task.Triples), len(pred.Triples)
	var out []Batch
	for _, r := range cut(nGT) {
		out = append(out, Batch{Pass: Coverage, Claims: seq(r[0], r[1]), Candidates: seq(0, nPred)})
	}
	for _, r := range cut(nPred) {
		out = append(out, Batch{Pass: Validity, Claims: seq(r[0], r[1]), Candidates: seq(0, nGT)})
	}
	return out, nil
}

// Check verifies a plan against its sample: every index in range, no claim
// twice in one pass, candidates ascending and distinct. It returns the
// claims of each pass that no batch covers (sorted), which the judge
// reports as unjudged.
func Check(batches []Batch, nGT, nPred int) (missing map[Pass][]int, err error) {
	seen := map[Pass]map[int]bool{Coverage: {}, Validity: {}}
	for bi, b := range batches {
		nClaims, nCand := nGT, nPred
		switch b.Pass {
		case Coverage:
		case Validity:
			nClaims, nCand = nPred, nGT
		default:
			return nil, fmt.Errorf("batch %d: unknown pass %q", bi, b.Pass)
		}
		if len(b.Claims) == 0 {
			return nil, fmt.Errorf("batch %d (%s): no claims", bi, b.Pass)
		}
		for _, c := range b.Claims {
			if c < 0 || c >= nClaims {
				return nil, fmt.Errorf("batch %d (%s): claim %d out of range [0,%d)", bi, b.Pass, c, nClaims)
			}
			if seen[b.Pass][c] {
				return nil, fmt.Errorf("batch %d (%s): claim %d planned twice", bi, b.Pass, c)
			}
			seen[b.Pass][c] = true
		}
		for i, c := range b.Candidates {
			if c < 0 || c >= nCand {
				return nil, fmt.Errorf("batch %d (%s): candidate %d out of range [0,%d)", bi, b.Pass, c, nCand)
			}
			if i > 0 && c <= b.Candidates[i-1] {
				return nil, fmt.Errorf("batch %d (%s): candidates not ascending and distinct at %d", bi, b.Pass, i)
			}
		}
	}
	missing = map[Pass][]int{}
	for _, p := range []Pass{Coverage, Validity} {
		n := nGT
		if p == Validity {
			n = nPred
		}
		for i := 0; i < n; i++ {
			if !seen[p][i] {
				missing[p] = append(missing[p], i)
			}
		}
		sort.Ints(missing[p])
	}
	return missing, nil
}
