// Package matcher turns judge verdicts into the benchmark's metrics and holds
// the judges that need no network (replay, offline). It does not read files
// or talk to a store: callers hand it tasks, predictions and verdicts.
package matcher

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/kgjudge/kgjudge/kg"
)

// Protocol names how precision is computed (FORMATS.md §4).
type Protocol string

const (
	// ProtocolPaper counts predicted triples judged valid in a validity pass:
	// how every published number was computed.
	ProtocolPaper Protocol = "paper"
	// ProtocolCode counts distinct supporting predicted indices of the
	// coverage pass: the public evaluator's code.
	ProtocolCode Protocol = "code"
)

// ParseProtocol validates a protocol name from the command line.
func ParseProtocol(s string) (Protocol, error) {
	switch Protocol(s) {
	case ProtocolPaper, ProtocolCode:
		return Protocol(s), nil
	}
	return "", fmt.Errorf("unknown protocol %q (want %q or %q)", s, ProtocolPaper, ProtocolCode)
}

// Round4 rounds to 4 decimals exactly as Python's round(x, 4) does: correctly
// rounded from the double's exact decimal value, ties to even. The published
// numbers depend on it (F1 is computed from rounded P and R).
func Round4(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 4, 64), 64)
	return v
}

// F1 is the harmonic mean of P and R, 0 when both are 0.
func F1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// The reference record's parts are kg's, named here for the metrics'
// readers.
type (
	NodeDetails     = kg.NodeDetails
	GTRecord        = kg.GTRecord
	CoverageDetails = kg.CoverageDetails
	PredRecord      = kg.PredRecord
	ValidityDetails = kg.ValidityDetails
)

// IndexProblem is kg.IndexProblem, named here for the metrics' readers.
type IndexProblem = kg.IndexProblem

// Unjudged counts claims no judge decided, per pass.
type Unjudged struct {
	Coverage int `json:"coverage"`
	Validity int `json:"validity"`
}

// Total is the number of unjudged claims in both passes.
func (u Unjudged) Total() int { return u.Coverage + u.Validity }

// Item is the result for one (task, sample): the reference's per-sample keys
// followed by kgjudge's additions.
type Item struct {
	kg.Record

	Protocol      Protocol       `json:"protocol"`
	Judge         string         `json:"judge"`
	ParseReport   kg.ParseReport `json:"parse_report"`
	Unjudged      Unjudged       `json:"unjudged"`
	IndexProblems []IndexProblem `json:"index_problems,omitempty"`
	// Structure is the hierarchy analysis of the sample, added downstream.
	Structure any `json:"structure,omitempty"`
	// Estimate is a calibrated judge's expected triplet P/R/F1 with 95%
	// intervals (matcher/calibrate), next to the thresholded ones above.
	Estimate *kg.Estimate `json:"estimate,omitempty"`

	calibration *kg.Calibration
}

// Calibration is what the item's estimate was calibrated on (nil for an
// item without one, and for items read back from files, which do not carry
// it); SetCalibration puts it back on an item read from a memo.
func (it *Item) Calibration() *kg.Calibration { return it.calibration }

// SetCalibration sets what Calibration returns.
func (it *Item) SetCalibration(c *kg.Calibration) { it.calibration = c }

// Judgement is kg.Judgement, named here for the metrics' callers.
type Judgement = kg.Judgement

// Score computes one sample's metrics from a judgement under a protocol.
// Verdicts are matched to GT triples by GTIndex; a GT triple without a
// verdict is unjudged. Unjudged claims count as not covered / not valid.
func Score(task *kg.Task, pred *kg.Prediction, j Judgement, proto Protocol) (Item, error) {
	it := Item{
		Record:      kg.Record{QID: task.ID, SampleIdx: pred.SampleIdx},
		Protocol:    proto,
		Judge:       j.Judge,
		ParseReport: pred.Report,
	}
	nPred := len(pred.Triples)
	if nPred == 0 {
		// The reference makes no judge call and reports zeros.
		return it, nil
	}
	if proto == ProtocolPaper && j.Validity == nil {
		return it, fmt.Errorf("task %q sample %d: judge %q gave no validity pass, which the paper protocol needs (use --protocol code)", task.ID, pred.SampleIdx, j.Judge)
	}
	it.NumPredTriples = nPred
	it.IndexProblems = append(it.IndexProblems, j.Problems...)
	// The estimate's precision is the validity pass's: it is the paper
	// protocol's; under the code protocol no estimate is given.
	if proto == ProtocolPaper {
		it.Estimate, it.calibration = j.Estimate, j.Calibration
	}

	// Coverage pass.
	byGT := make(map[int]kg.Verdict, len(j.Coverage))
	for i, v := range j.Coverage {
		if v.GTIndex < 0 || v.GTIndex >= len(task.Triples) {
			it.IndexProblems = append(it.IndexProblems, IndexProblem{
				Where: fmt.Sprintf("coverage[%d].gt_index", i), Value: strconv.Itoa(v.GTIndex),
				Why: fmt.Sprintf("no GT triple %d (task has %d)", v.GTIndex, len(task.Triples)),
			})
			continue
		}
		if _, dup := byGT[v.GTIndex]; dup {
			return it, fmt.Errorf("task %q sample %d: two verdicts for GT triple %d", task.ID, pred.SampleIdx, v.GTIndex)
		}
		byGT[v.GTIndex] = v
	}
	cov := &CoverageDetails{TotalGTTriples: len(task.Triples), PerGTTriple: make([]GTRecord, len(task.Triples))}
	supporting := map[int]bool{}
	coveredNodes := map[string]bool{}
	for gi, gt := range task.Triples {
		v, ok := byGT[gi]
		if !ok {
			v = kg.Verdict{GTIndex: gi, State: kg.Unjudged, Reason: "no verdict"}
		}
		rec := GTRecord{GTIndex: gi, GTTriple: gt.Triple, State: v.State, Kind: v.Kind, Judge: v.Judge, Reason: v.Reason, SupportingPredIndices: []int{}, CandidatesShown: v.Shown}
		if ok && len(j.CoverageProb) == len(j.Coverage) {
			rec.Prob = probAt(j.CoverageProb, j.Coverage, gi)
		}
		for si, idx := range v.Support {
			if idx < 0 || idx >= nPred {
				it.IndexProblems = append(it.IndexProblems, IndexProblem{
					Where: fmt.Sprintf("per_gt_triple[%d].supporting_pred_indices[%d]", gi, si),
					Value: strconv.Itoa(idx),
					Why:   fmt.Sprintf("out of range: %d predicted triples", nPred),
				})
				continue
			}
			rec.SupportingPredIndices = append(rec.SupportingPredIndices, idx)
			// The reference counts supports of every GT triple, covered or not.
			supporting[idx] = true
		}
		switch v.State {
		case kg.Covered:
			rec.Covered = true
			cov.CoveredCount++
			coveredNodes[gt.Head] = true
			coveredNodes[gt.Tail] = true
		case kg.Unjudged:
			cov.Unjudged++
		case kg.Uncovered:
		default:
			return it, fmt.Errorf("task %q sample %d: GT triple %d has unknown state %q", task.ID, pred.SampleIdx, gi, v.State)
		}
		cov.PerGTTriple[gi] = rec
	}
	recall := 0.0
	if len(task.Triples) > 0 {
		recall = float64(cov.CoveredCount) / float64(len(task.Triples))
	}
	cov.TripletRecall = Round4(recall)
	it.Coverage = cov
	it.Unjudged.Coverage = cov.Unjudged

	// Precision and the predicted triples whose nodes count as precise.
	var preciseTriples map[int]bool
	var precision float64
	switch proto {
	case ProtocolCode:
		preciseTriples = supporting
		precision = float64(len(supporting)) / float64(nPred)
	case ProtocolPaper:
		val, valid, err := validity(task, pred, j, &it)
		if err != nil {
			return it, err
		}
		it.Validity = val
		it.Unjudged.Validity = val.Unjudged
		preciseTriples = valid
		precision = float64(val.ValidCount) / float64(nPred)
		val.TripletPrecision = Round4(precision)
	default:
		return it, fmt.Errorf("unknown protocol %q", proto)
	}
	it.TripletPrecision = Round4(precision)
	it.TripletRecall = cov.TripletRecall
	it.TripletF1 = Round4(F1(it.TripletPrecision, it.TripletRecall))

	// Node metrics.
	gtNodes := map[string]bool{}
	for _, n := range task.NodeNames() {
		gtNodes[n] = true
	}
	recalled := 0
	for n := range coveredNodes {
		if gtNodes[n] {
			recalled++
		}
	}
	predNodes := map[string]bool{}
	for _, t := range pred.Triples {
		if t.Head != "" {
			predNodes[t.Head] = true
		}
		if t.Tail != "" {
			predNodes[t.Tail] = true
		}
	}
	precise := map[string]bool{}
	for idx := range preciseTriples {
		t := pred.Triples[idx]
		if t.Head != "" {
			precise[t.Head] = true
		}
		if t.Tail != "" {
			precise[t.Tail] = true
		}
	}
	nd := &NodeDetails{
		TotalGTNodes:     len(gtNodes),
		RecalledGTNodes:  recalled,
		TotalPredNodes:   len(predNodes),
		PrecisePredNodes: len(precise),
	}
	if nd.TotalGTNodes > 0 {
		nd.NodeRecall = Round4(float64(recalled) / float64(nd.TotalGTNodes))
	}
	if nd.TotalPredNodes > 0 {
		nd.NodePrecision = Round4(float64(len(precise)) / float64(nd.TotalPredNodes))
	}
	nd.NodeF1 = Round4(F1(nd.NodePrecision, nd.NodeRecall))
	it.NodeDetails = nd
	it.NodePrecision, it.NodeRecall, it.NodeF1 = nd.NodePrecision, nd.NodeRecall, nd.NodeF1
	sort.SliceStable(it.IndexProblems, func(a, b int) bool { return it.IndexProblems[a].Where < it.IndexProblems[b].Where })
	return it, nil
}

// validity builds validity_details and the set of valid predicted indices.
func validity(task *kg.Task, pred *kg.Prediction, j Judgement, it *Item) (*ValidityDetails, map[int]bool, error) {
	nPred := len(pred.Triples)
	byPred := make(map[int]kg.Validity, len(j.Validity))
	for i, v := range j.Validity {
		if v.PredIndex < 0 || v.PredIndex >= nPred {
			it.IndexProblems = append(it.IndexProblems, IndexProblem{
				Where: fmt.Sprintf("validity[%d].pred_index", i), Value: strconv.Itoa(v.PredIndex),
				Why: fmt.Sprintf("no predicted triple %d (%d predicted)", v.PredIndex, nPred),
			})
			continue
		}
		if _, dup := byPred[v.PredIndex]; dup {
			return nil, nil, fmt.Errorf("task %q sample %d: two validity verdicts for predicted triple %d", task.ID, pred.SampleIdx, v.PredIndex)
		}
		byPred[v.PredIndex] = v
	}
	val := &ValidityDetails{TotalPredTriples: nPred, PerPredTriple: make([]PredRecord, nPred)}
	valid := map[int]bool{}
	for pi, t := range pred.Triples {
		v, ok := byPred[pi]
		if !ok {
			v = kg.Validity{PredIndex: pi, State: kg.Unjudged, Reason: "no verdict"}
		}
		rec := PredRecord{PredIndex: pi, PredTriple: t, State: v.State, Judge: v.Judge, Reason: v.Reason, SupportingGTIndices: []int{}, CandidatesShown: v.Shown}
		if ok && len(j.ValidityProb) == len(j.Validity) {
			rec.Prob = validityProbAt(j.ValidityProb, j.Validity, pi)
		}
		for si, idx := range v.Support {
			if idx < 0 || idx >= len(task.Triples) {
				it.IndexProblems = append(it.IndexProblems, IndexProblem{
					Where: fmt.Sprintf("per_pred_triple[%d].supporting_gt_indices[%d]", pi, si),
					Value: strconv.Itoa(idx),
					Why:   fmt.Sprintf("out of range: %d GT triples", len(task.Triples)),
				})
				continue
			}
			rec.SupportingGTIndices = append(rec.SupportingGTIndices, idx)
		}
		switch v.State {
		case kg.Covered:
			rec.Valid = true
			val.ValidCount++
			valid[pi] = true
		case kg.Unjudged:
			val.Unjudged++
		case kg.Uncovered:
		default:
			return nil, nil, fmt.Errorf("task %q sample %d: predicted triple %d has unknown state %q", task.ID, pred.SampleIdx, pi, v.State)
		}
		val.PerPredTriple[pi] = rec
	}
	return val, valid, nil
}

// probAt is the probability of GT triple gi's verdict (rounded to 4
// decimals), nil when the judge gave none.
func probAt(ps []float64, vs []kg.Verdict, gi int) *float64 {
	if gi < len(vs) && vs[gi].GTIndex == gi {
		p := Round4(ps[gi])
		return &p
	}
	for i, v := range vs {
		if v.GTIndex == gi {
			p := Round4(ps[i])
			return &p
		}
	}
	return nil
}

func validityProbAt(ps []float64, vs []kg.Validity, pi int) *float64 {
	if pi < len(vs) && vs[pi].PredIndex == pi {
		p := Round4(ps[pi])
		return &p
	}
	for i, v := range vs {
		if v.PredIndex == pi {
			p := Round4(ps[i])
			return &p
		}
	}
	return nil
}
