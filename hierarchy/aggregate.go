package hierarchy

import (
	"sort"

	"github.com/kgjudge/kgjudge/kg"
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
	return rr
}

func sumTriples(m map[Class]*ClassCount) int {
	n := 0
	for _, c := range m {
		n += c.Triples
	}
	return n
}
