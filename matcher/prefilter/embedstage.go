package prefilter

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/kgjudge/kgjudge/embed"
	"github.com/kgjudge/kgjudge/kg"
)

// The embedding stage (Options.Embedder). Every GT triple is embedded as a
// query and every predicted triple as a passage ("head relation tail");
// for each GT triple the predicted triples nearest by cosine join its pool
// and, by rank, earn a bonus on the triple score (optionally also the GT
// triples nearest to each predicted triple: ReverseK), and the nearest
// few are kept among the claim's candidates whatever their score (Keep
// for coverage, ReverseKeep for the validity candidates). Ranks, not a
// fixed cosine cut: with e5 unrelated short texts score about 0.84 and
// translations 0.85-0.90, so only the order within one claim's row says
// anything. The other stages' scores
// are untouched, so with the stage off every candidate is what it was.

// Embedder gives one unit vector per text (embed.Client implements it).
type Embedder interface {
	Embed(ctx context.Context, role embed.Role, texts []string) ([][]float32, error)
}

// Embedding-stage defaults (see EmbedParams), chosen leave-one-sample-out
// over the 11 recorded fixtures from a grid of 64 settings
// (TestEmbedParamsLeaveOneOut): 10 of the 11 folds chose exactly these,
// the 11th (p070 held out) chose ReverseK 2 without ReverseKeep.
const (
	// DefaultEmbedK is how many nearest predicted triples of a GT triple
	// join its pool, with a bonus by rank.
	DefaultEmbedK = 8
	// DefaultEmbedReverseK is how many nearest GT triples of a predicted
	// triple it joins the pool of (0: none).
	DefaultEmbedReverseK = 0
	// DefaultEmbedWeight is the bonus of the nearest neighbour; the r-th
	// (0-based) of K earns DefaultEmbedWeight * (1 - r/K).
	DefaultEmbedWeight = 1.0
	// DefaultEmbedKeep and DefaultEmbedReverseKeep: see EmbedParams.Keep.
	DefaultEmbedKeep        = 0
	DefaultEmbedReverseKeep = 1
)

// EmbedParams tune the embedding stage; zero fields take the defaults, a
// negative count turns that part off.
type EmbedParams struct {
	K, ReverseK int
	Weight      float64
	// Keep is how many nearest predicted triples of a GT triple are kept
	// among its candidates whatever their score, displacing the
	// lowest-ranked at the cap (default DefaultEmbedKeep; < 0: none);
	// ReverseKeep the same for the GT triples nearest to a predicted
	// triple (validity; default DefaultEmbedReverseKeep; < 0: none).
	Keep, ReverseKeep int
}

func (p EmbedParams) withDefaults() EmbedParams {
	if p.K <= 0 {
		p.K = DefaultEmbedK
	}
	if p.ReverseK < 0 {
		p.ReverseK = 0
	} else if p.ReverseK == 0 {
		p.ReverseK = DefaultEmbedReverseK
	}
	if p.Weight <= 0 {
		p.Weight = DefaultEmbedWeight
	}
	if p.Keep < 0 {
		p.Keep = 0
	} else if p.Keep == 0 {
		p.Keep = DefaultEmbedKeep
	}
	if p.ReverseKeep < 0 {
		p.ReverseKeep = 0
	} else if p.ReverseKeep == 0 {
		p.ReverseKeep = DefaultEmbedReverseKeep
	}
	return p
}

// embedStage is one sample's nearest neighbours: per GT triple (by its
// exact value), the bonus of each predicted triple proposed for it.
type embedStage struct {
	bonus map[kg.Triple]map[int]float64
	// row: GT triple -> its row of sim; sim: cosines, GT x predicted,
	// rounded to 1e-4 (as reported in Candidate.Cosine).
	row map[kg.Triple]int
	sim [][]float64
	// keepPred: per GT row, the Keep nearest predicted triples; keepGT:
	// per predicted triple, the Keep nearest GT rows.
	keepPred, keepGT [][]int
}

// TripleText is how a triple is written for the embedder.
func TripleText(t kg.Triple) string { return t.Head + " " + t.Relation + " " + t.Tail }

func newEmbedStage(ctx context.Context, e Embedder, p EmbedParams, task *kg.Task, pred *kg.Prediction) (*embedStage, error) {
	p = p.withDefaults()
	st := &embedStage{bonus: map[kg.Triple]map[int]float64{}, row: map[kg.Triple]int{}}
	if len(task.Triples) == 0 || len(pred.Triples) == 0 {
		return st, nil
	}
	gt := make([]string, len(task.Triples))
	for i, t := range task.Triples {
		gt[i] = TripleText(t.Triple)
	}
	pr := make([]string, len(pred.Triples))
	for i, t := range pred.Triples {
		pr[i] = TripleText(t)
	}
	gv, err := e.Embed(ctx, embed.Query, gt)
	if err != nil {
		return nil, fmt.Errorf("prefilter: embedding %d GT triples: %w", len(gt), err)
	}
	pv, err := e.Embed(ctx, embed.Passage, pr)
	if err != nil {
		return nil, fmt.Errorf("prefilter: embedding %d predicted triples: %w", len(pr), err)
	}
	if len(gv) != len(gt) || len(pv) != len(pr) {
		return nil, fmt.Errorf("prefilter: embedder gave %d and %d vectors for %d and %d triples", len(gv), len(pv), len(gt), len(pr))
	}
	sim := make([][]float64, len(gv))
	for g := range gv {
		sim[g] = make([]float64, len(pv))
		for q := range pv {
			sim[g][q] = math.Round(embed.Cosine(gv[g], pv[q])*1e4) / 1e4
		}
	}
	bonus := make([]map[int]float64, len(gv))
	for g := range bonus {
		bonus[g] = map[int]float64{}
	}
	give := func(g, q, r, k int) {
		if b := p.Weight * (1 - float64(r)/float64(k)); b > bonus[g][q] {
			bonus[g][q] = round3(b)
		}
	}
	for g := range sim {
		for r, q := range nearest(len(pv), p.K, func(q int) float64 { return sim[g][q] }) {
			give(g, q, r, p.K)
		}
	}
	if p.ReverseK > 0 {
		for q := range pv {
			for r, g := range nearest(len(gv), p.ReverseK, func(g int) float64 { return sim[g][q] }) {
				give(g, q, r, p.ReverseK)
			}
		}
	}
	st.sim = sim
	if p.Keep > 0 {
		st.keepPred = make([][]int, len(gv))
		for g := range sim {
			st.keepPred[g] = nearest(len(pv), p.Keep, func(q int) float64 { return sim[g][q] })
		}
	}
	if p.ReverseKeep > 0 {
		st.keepGT = make([][]int, len(pv))
		for q := range pv {
			st.keepGT[q] = nearest(len(gv), p.ReverseKeep, func(g int) float64 { return sim[g][q] })
		}
	}
	for g, t := range task.Triples {
		if _, ok := st.row[t.Triple]; !ok {
			st.row[t.Triple] = g
		}
		m := st.bonus[t.Triple]
		if m == nil {
			st.bonus[t.Triple] = bonus[g]
			continue
		}
		for q, b := range bonus[g] { // a repeated GT triple: one pool for both
			m[q] = max(m[q], b)
		}
	}
	return st, nil
}

// nearest returns the k indices in [0, n) of highest score, best first,
// ties by index.
func nearest(n, k int, score func(int) float64) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool {
		sa, sb := score(idx[a]), score(idx[b])
		if sa != sb {
			return sa > sb
		}
		return idx[a] < idx[b]
	})
	return idx[:min(k, n)]
}

// embedPool adds the embedding neighbours of gt to pool.
func (s *sample) embedPool(gt kg.Triple, pool *candPool) {
	if s.emb == nil {
		return
	}
	for q := range s.emb.bonus[gt] {
		pool.add(q)
	}
}

// embedBonus is the rank bonus of predicted triple i for gt.
func (s *sample) embedBonus(gt kg.Triple, i int) float64 {
	if s.emb == nil {
		return 0
	}
	return s.emb.bonus[gt][i]
}

// embedCosine is the cosine of gt and predicted triple i (0 when off).
func (s *sample) embedCosine(gt kg.Triple, i int) float64 {
	if s.emb == nil {
		return 0
	}
	g, ok := s.emb.row[gt]
	if !ok {
		return 0
	}
	return s.emb.sim[g][i]
}

// nearestPred is the Keep nearest predicted triples of gt (nil when off).
func (s *sample) nearestPred(gt kg.Triple) []int {
	if s.emb == nil || s.emb.keepPred == nil {
		return nil
	}
	g, ok := s.emb.row[gt]
	if !ok {
		return nil
	}
	return s.emb.keepPred[g]
}

// nearestGT is the Keep nearest GT triples of predicted triple pi.
func (s *sample) nearestGT(pi int) []int {
	if s.emb == nil || s.emb.keepGT == nil {
		return nil
	}
	return s.emb.keepGT[pi]
}

// keepNearest makes sure the nearest neighbours are among the kept
// candidates (cut from the ranked list all): one missing takes its scored
// entry from all (or a bare one) and, at the cap max, the place of the
// lowest-ranked candidate that is not itself a nearest neighbour. The
// result stays sorted by score.
func (s *sample) keepNearest(kept, all []Candidate, near []int, max int, cos func(int) float64) []Candidate {
	if len(near) == 0 {
		return kept
	}
	in := map[int]bool{}
	for _, c := range kept {
		in[c.Index] = true
	}
	isNear := map[int]bool{}
	for _, i := range near {
		isNear[i] = true
	}
	byIndex := map[int]Candidate{}
	for _, c := range all {
		byIndex[c.Index] = c
	}
	out := append([]Candidate{}, kept...)
	for _, i := range near {
		if in[i] {
			continue
		}
		c, ok := byIndex[i]
		if !ok {
			c = Candidate{Index: i, Why: "embed:nearest", Cosine: cos(i)}
		}
		if len(out) >= max {
			drop := -1
			for j := len(out) - 1; j >= 0; j-- {
				if !isNear[out[j].Index] {
					drop = j
					break
				}
			}
			if drop < 0 {
				break
			}
			out = append(out[:drop], out[drop+1:]...)
		}
		out = append(out, c)
		in[i] = true
	}
	return sortCands(out)
}
