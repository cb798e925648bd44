package hierarchy

import (
	"sort"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/stats"
)

// SampleResult is one scored sample as the run-level report needs it.
type SampleResult struct {
	Report    Report
	Parse     kg.ParseReport
	TripletF1 float64
}

// CauseCount counts zero-F1 samples by what went wrong with the output.
type CauseCount struct {
	Cause   string `json:"cause"`
	Samples int    `json:"samples"`
}

// Failures are whole-output failures of a run: outputs that could not be
// read as a graph at all, or only in part, and the zero-F1 samples they
// caused (the paper counts 28 zero-F1 trajectories for one model).
type Failures struct {
	Samples    int `json:"samples"`
	Empty      int `json:"empty"`
	Malformed  int `json:"malformed"`
	Truncated  int `json:"truncated"`
	Salvaged   int `json:"salvaged"`
	Misaligned int `json:"schema_misaligned"`
	ZeroF1     int `json:"zero_f1"`
	// ZeroF1ByCause attributes each zero-F1 sample to its first failure in
	// the order empty, malformed, truncated, schema_misaligned, salvaged;
	// "none" means the output parsed cleanly and simply matched nothing.
	ZeroF1ByCause []CauseCount `json:"zero_f1_by_cause"`
}

// misaligned reports whether most of an output ignored the triple schema.
func misaligned(p kg.ParseReport) bool {
	items := p.Triples + p.Skipped
	return p.Misaligned > 0 && 2*p.Misaligned >= items
}

func failureCause(p kg.ParseReport) string {
	switch {
	case p.Status == kg.ParseEmpty:
		return "empty"
	case p.Status == kg.ParseMalformed:
		return "malformed"
	case p.Status == kg.ParseTruncated:
		return "truncated"
	case misaligned(p):
		return "schema_misaligned"
	case p.Status == kg.ParseSalvaged:
		return "salvaged"
	}
	return "none"
}

// RunReport is the structural view of a whole run: Report's sections summed
// over samples (rates recomputed from the sums, never averaged), structure
// metrics averaged, and the whole-output failures.
type RunReport struct {
	Samples         int               `json:"samples"`
	GTClasses       []ClassCount      `json:"gt_classes"`
	PredClasses     []ClassCount      `json:"pred_classes"`
	Structure       []StructureRow    `json:"structure"` // means over samples
	CoverageByClass []ClassCoverage   `json:"coverage_by_class"`
	CoverageByLevel []LevelCoverage   `json:"coverage_by_level"`
	ValidityByClass []ClassValidity   `json:"validity_by_class"`
	InvalidTotal    int               `json:"invalid_total"`
	Invalid         []InvalidCategory `json:"invalid_categories"`
	InvalidTypes    []TypeRow         `json:"invalid_types"`
	Failures        Failures          `json:"failures"`
	// ClassSummary is the per-class view a reader compares classes by: GT
	// share and recall, predicted share and invalid rate, each rate with 95%
	// intervals (see ClassSummary).
	ClassSummary []ClassSummary `json:"class_summary"`
	// AskedSplit sums the samples' asked/unasked rows (bibliographic,
	// subjective, meta) with 95% intervals on the invalid rates.
	AskedSplit []AskedSummary `json:"asked_split"`
	// SampleShapes are the depth and flatness of every sample's GT and
	// predicted graphs, in input order.
	SampleShapes []SampleShape `json:"sample_shapes"`
	// LLMClasses says what an LLM class pass did (kgjudge structure
	// --classify-llm); nil when the rules alone decided.
	LLMClasses *LLMClassSummary `json:"llm_classes,omitempty"`
}

// LLMClassSummary is an LLM class pass over a run: which triples were
// asked about, with which model, and the pass's counts summed over the GT
// and predicted graphs of every sample.
type LLMClassSummary struct {
	Selection string `json:"selection"`
	Model     string `json:"model"`
	ClassPassStats
}

// ClassPassStats count what a second class pass (package llmclass, a chat
// model asked about the triples the rules decide weakly) did.
type ClassPassStats struct {
	Triples  int `json:"triples"`  // in the graph
	Selected int `json:"selected"` // weakly decided, sent to the model
	Changed  int `json:"changed"`  // the model's class differs from the rules'
	// Unjudged are selected triples the model gave no valid class for: they
	// keep the rules' class.
	Unjudged int `json:"unjudged"`
	Requests int `json:"requests"`
	// Cached counts the requests answered from the reply cache.
	Cached int `json:"cached"`
	// PromptTokens and CompletionTokens are what the endpoint reported
	// spending on the requests it answered (cached ones cost nothing).
	PromptTokens     int64    `json:"prompt_tokens"`
	CompletionTokens int64    `json:"completion_tokens"`
	Problems         []string `json:"problems,omitempty"`
	// MoreProblems counts the problems Add left out of Problems.
	MoreProblems int `json:"more_problems,omitempty"`
}

// maxProblems bounds the problems a sum of stats keeps (a run of 800
// samples against a failing endpoint would otherwise carry thousands).
const maxProblems = 50

// Add adds o's counts to s, keeping at most maxProblems problem lines.
func (s *ClassPassStats) Add(o ClassPassStats) {
	s.Triples += o.Triples
	s.Selected += o.Selected
	s.Changed += o.Changed
	s.Unjudged += o.Unjudged
	s.Requests += o.Requests
	s.Cached += o.Cached
	s.PromptTokens += o.PromptTokens
	s.CompletionTokens += o.CompletionTokens
	s.MoreProblems += o.MoreProblems
	for _, p := range o.Problems {
		if len(s.Problems) < maxProblems {
			s.Problems = append(s.Problems, p)
		} else {
			s.MoreProblems++
		}
	}
}

// ClassSummary is one class over a run. Rates come with two 95% intervals:
// *Pooled is a Wilson interval over the pooled triples (treats triples as
// independent; too narrow when samples differ), *BySample a Student-t
// interval over the per-sample rates of the samples that have triples of the
// class (treats the sample as the unit; undefined below two samples; bounds
// clamped to [0, 1]). Unjudged GT triples count as not covered, unjudged predictions
// as invalid, as everywhere in the report.
type ClassSummary struct {
	Class               Class          `json:"class"`
	GTTriples           int            `json:"gt_triples"`
	GTShare             float64        `json:"gt_share"`
	GTCovered           int            `json:"gt_covered"`
	GTRecallPooled      stats.Interval `json:"gt_recall_pooled"`
	GTRecallBySample    stats.Interval `json:"gt_recall_by_sample"`
	PredTriples         int            `json:"pred_triples"`
	PredShare           float64        `json:"pred_share"`
	PredInvalid         int            `json:"pred_invalid"`
	InvalidRatePooled   stats.Interval `json:"invalid_rate_pooled"`
	InvalidRateBySample stats.Interval `json:"invalid_rate_by_sample"`
}

// AskedSummary is AskedRow over a run, with 95% intervals on the invalid
// rate (as in ClassSummary).
type AskedSummary struct {
	Class               Class          `json:"class"`
	Asked               bool           `json:"asked"`
	Triples             int            `json:"triples"`
	Invalid             int            `json:"invalid"`
	InvalidRatePooled   stats.Interval `json:"invalid_rate_pooled"`
	InvalidRateBySample stats.Interval `json:"invalid_rate_by_sample"`
}

// SampleShape is the depth and flatness of one sample's graphs.
type SampleShape struct {
	TaskID       string  `json:"task_id"`
	SampleIdx    int     `json:"sample_idx"`
	GTDepth      int     `json:"gt_depth"`
	PredDepth    int     `json:"pred_depth"`
	GTFlatness   float64 `json:"gt_flatness"`
	PredFlatness float64 `json:"pred_flatness"`
}

// summarize fills ClassSummary, AskedSplit and SampleShapes from the samples
// and the already summed class rows.
func (rr *RunReport) summarize(samples []SampleResult) {
	recalls := map[Class][]float64{}
	invalids := map[Class][]float64{}
	askedRates := map[[2]string][]float64{}
	askedSum := map[[2]string]*AskedSummary{}
	var askedOrder [][2]string
	for _, s := range samples {
		r := s.Report
		for _, c := range r.CoverageByClass {
			if c.Triples > 0 {
				recalls[c.Class] = append(recalls[c.Class], ratio(c.Covered, c.Triples))
			}
		}
		for _, v := range r.ValidityByClass {
			if v.Triples > 0 {
				invalids[v.Class] = append(invalids[v.Class], ratio(v.Invalid, v.Triples))
			}
		}
		for _, a := range r.AskedSplit {
			k := [2]string{string(a.Class), map[bool]string{true: "asked", false: "unasked"}[a.Asked]}
			if askedSum[k] == nil {
				askedSum[k] = &AskedSummary{Class: a.Class, Asked: a.Asked}
				askedOrder = append(askedOrder, k)
			}
			askedSum[k].Triples += a.Triples
			askedSum[k].Invalid += a.Invalid
			if a.Triples > 0 {
				askedRates[k] = append(askedRates[k], a.InvalidRate)
			}
		}
		rr.SampleShapes = append(rr.SampleShapes, SampleShape{
			TaskID: r.TaskID, SampleIdx: r.SampleIdx,
			GTDepth: r.GT.Structure.Depth, PredDepth: r.Pred.Structure.Depth,
			GTFlatness: r.GT.Structure.Flatness, PredFlatness: r.Pred.Structure.Flatness,
		})
	}
	for i, c := range Classes {
		cov, val := rr.CoverageByClass[i], rr.ValidityByClass[i]
		rr.ClassSummary = append(rr.ClassSummary, ClassSummary{
			Class:               c,
			GTTriples:           cov.Triples,
			GTShare:             rr.GTClasses[i].Share,
			GTCovered:           cov.Covered,
			GTRecallPooled:      stats.Wilson95(cov.Covered, cov.Triples),
			GTRecallBySample:    stats.MeanT95(recalls[c]).Clamp(0, 1),
			PredTriples:         val.Triples,
			PredShare:           rr.PredClasses[i].Share,
			PredInvalid:         val.Invalid,
			InvalidRatePooled:   stats.Wilson95(val.Invalid, val.Triples),
			InvalidRateBySample: stats.MeanT95(invalids[c]).Clamp(0, 1),
		})
	}
	for _, k := range askedOrder {
		a := askedSum[k]
		a.InvalidRatePooled = stats.Wilson95(a.Invalid, a.Triples)
		a.InvalidRateBySample = stats.MeanT95(askedRates[k]).Clamp(0, 1)
		rr.AskedSplit = append(rr.AskedSplit, *a)
	}
	if rr.SampleShapes == nil {
		rr.SampleShapes = []SampleShape{}
	}
}

// ForAggregate is r less what Aggregate does not read (the per-relation
// rows and category nodes of both graphs, the notes, the per-triple
// classes): a run keeps one Report per sample until it aggregates them,
// and those rows were most of what a run's memory grew by per sample.
func (r Report) ForAggregate() Report {
	for _, g := range []*GraphAnalysis{&r.GT, &r.Pred} {
		g.Relations, g.CategoryNodes = nil, nil
	}
	r.Notes, r.GTTriples, r.PredTriples = nil, nil, nil
	return r
}

// Aggregate sums sample reports into a run report. The order of samples does
// not change the result.
func Aggregate(samples []SampleResult) RunReport {
	rr := RunReport{Samples: len(samples), Failures: Failures{Samples: len(samples)}}
	gtC := map[Class]*ClassCount{}
	prC := map[Class]*ClassCount{}
	covRows := map[Class]*ClassCoverage{}
	valRows := map[Class]*ClassValidity{}
	for _, c := range Classes {
		gtC[c], prC[c] = &ClassCount{Class: c}, &ClassCount{Class: c}
		covRows[c], valRows[c] = &ClassCoverage{Class: c}, &ClassValidity{Class: c}
	}
	levels := map[int]*LevelCoverage{}
	invalid := map[[2]string]*InvalidCategory{}
	types := map[[2]string]*TypeRow{}
	typeRels := map[[2]string]map[string]bool{}
	structSum := map[string]*StructureRow{}
	var structOrder []string
	causes := map[string]int{}

	for _, s := range samples {
		r := s.Report
		for _, c := range r.GT.Classes {
			gtC[c.Class].Triples += c.Triples
			gtC[c.Class].Relations += c.Relations
		}
		for _, c := range r.Pred.Classes {
			prC[c.Class].Triples += c.Triples
			prC[c.Class].Relations += c.Relations
		}
		for _, row := range r.Structure {
			if _, ok := structSum[row.Metric]; !ok {
				structSum[row.Metric] = &StructureRow{Metric: row.Metric}
				structOrder = append(structOrder, row.Metric)
			}
			structSum[row.Metric].GT += row.GT
			structSum[row.Metric].Pred += row.Pred
		}
		for _, c := range r.CoverageByClass {
			a := covRows[c.Class]
			a.Triples += c.Triples
			a.Covered += c.Covered
			a.Unjudged += c.Unjudged
			a.Relations += c.Relations
		}
		for _, l := range r.CoverageByLevel {
			a, ok := levels[l.Level]
			if !ok {
				a = &LevelCoverage{Level: l.Level}
				levels[l.Level] = a
			}
			a.Triples += l.Triples
			a.Covered += l.Covered
		}
		for _, v := range r.ValidityByClass {
			a := valRows[v.Class]
			a.Triples += v.Triples
			a.Valid += v.Valid
			a.Invalid += v.Invalid
			a.Unjudged += v.Unjudged
			a.Unsupporting += v.Unsupporting
		}
		rr.InvalidTotal += r.InvalidTotal
		for _, c := range r.Invalid {
			k := [2]string{c.Category, string(c.Class)}
			a, ok := invalid[k]
			if !ok {
				a = &InvalidCategory{Category: c.Category, Class: c.Class}
				invalid[k] = a
			}
			a.Invalid += c.Invalid
			a.Unsupporting += c.Unsupporting
		}
		for _, t := range r.InvalidTypes {
			k := [2]string{t.Type, string(t.Class)}
			a, ok := types[k]
			if !ok {
				a = &TypeRow{Type: t.Type, Class: t.Class}
				types[k] = a
				typeRels[k] = map[string]bool{}
			}
			a.Count += t.Count
			a.Invalid += t.Invalid
			a.Unsupporting += t.Unsupporting
			// Asked-for is per task; across tasks it is true if any task asked.
			if t.AskedFor != nil {
				v := *t.AskedFor || (a.AskedFor != nil && *a.AskedFor)
				a.AskedFor = &v
			}
			for _, rel := range t.Relations {
				typeRels[k][rel] = true
			}
		}

		p := s.Parse
		switch p.Status {
		case kg.ParseEmpty:
			rr.Failures.Empty++
		case kg.ParseMalformed:
			rr.Failures.Malformed++
		case kg.ParseTruncated:
			rr.Failures.Truncated++
		case kg.ParseSalvaged:
			rr.Failures.Salvaged++
		}
		if misaligned(p) {
			rr.Failures.Misaligned++
		}
		if s.TripletF1 == 0 {
			rr.Failures.ZeroF1++
			causes[failureCause(p)]++
		}
	}

	for _, c := range Classes {
		gtC[c].Share = ratio(gtC[c].Triples, sumTriples(gtC))
		prC[c].Share = ratio(prC[c].Triples, sumTriples(prC))
		rr.GTClasses = append(rr.GTClasses, *gtC[c])
		rr.PredClasses = append(rr.PredClasses, *prC[c])
		cr := covRows[c]
		cr.Recall = ratio(cr.Covered, cr.Triples)
		rr.CoverageByClass = append(rr.CoverageByClass, *cr)
		vr := valRows[c]
		vr.ValidRate = ratio(vr.Valid, vr.Triples)
		rr.ValidityByClass = append(rr.ValidityByClass, *vr)
	}
	for _, m := range structOrder {
		row := *structSum[m]
		if n := float64(len(samples)); n > 0 {
			row.GT /= n
			row.Pred /= n
		}
		rr.Structure = append(rr.Structure, row)
	}
	for _, l := range levels {
		l.Recall = ratio(l.Covered, l.Triples)
		rr.CoverageByLevel = append(rr.CoverageByLevel, *l)
	}
	sort.Slice(rr.CoverageByLevel, func(i, j int) bool { return rr.CoverageByLevel[i].Level < rr.CoverageByLevel[j].Level })
	for _, c := range invalid {
		c.Share = ratio(c.Invalid, rr.InvalidTotal)
		rr.Invalid = append(rr.Invalid, *c)
	}
	sort.Slice(rr.Invalid, func(i, j int) bool {
		a, b := rr.Invalid[i], rr.Invalid[j]
		if a.Invalid != b.Invalid {
			return a.Invalid > b.Invalid
		}
		if a.Category != b.Category {
			return a.Category < b.Category
		}
		return a.Class < b.Class
	})
	rr.InvalidTypes = typeRows(types, typeRels)
	for _, c := range []string{"empty", "malformed", "truncated", "schema_misaligned", "salvaged", "none"} {
		if causes[c] > 0 {
			rr.Failures.ZeroF1ByCause = append(rr.Failures.ZeroF1ByCause, CauseCount{Cause: c, Samples: causes[c]})
		}
	}
	if rr.Failures.ZeroF1ByCause == nil {
		rr.Failures.ZeroF1ByCause = []CauseCount{}
	}
	rr.summarize(samples)
	return rr
}

func sumTriples(m map[Class]*ClassCount) int {
	n := 0
	for _, c := range m {
		n += c.Triples
	}
	return n
}
