package hierarchy

import (
	"reflect"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

func TestAggregateSumsFixtures(t *testing.T) {
	var samples []SampleResult
	var reports []Report
	for _, name := range []string{"d001", "p012", "p041"} {
		f := loadFixture(t, name)
		r := Analyze(f.task, f.pred, f.cov, f.val)
		reports = append(reports, r)
		samples = append(samples, SampleResult{Report: r, Parse: kg.ParseReport{Status: kg.ParseClean, Triples: len(f.pred.Triples)}, TripletF1: 0.2})
	}
	rr := Aggregate(samples)
	if rr.Samples != 3 {
		t.Fatalf("samples %d", rr.Samples)
	}
	// Sums: every class row of the run equals the sum of the samples' rows,
	// and rates are recomputed from the sums.
	for i, c := range rr.CoverageByClass {
		tri, cov := 0, 0
		for _, r := range reports {
			tri += r.CoverageByClass[i].Triples
			cov += r.CoverageByClass[i].Covered
		}
		if c.Triples != tri || c.Covered != cov || c.Recall != ratio(cov, tri) {
			t.Errorf("%s coverage %+v, want %d/%d", c.Class, c, cov, tri)
		}
	}
	inv, typesInv := 0, 0
	for _, r := range reports {
		inv += r.InvalidTotal
	}
	for _, tr := range rr.InvalidTypes {
		typesInv += tr.Invalid
		if tr.Rate < 0 || tr.Rate > 1 || tr.Invalid > tr.Count {
			t.Errorf("type row %+v", tr)
		}
	}
	if rr.InvalidTotal != inv || typesInv != inv {
		t.Errorf("invalid total %d, types sum %d, want %d", rr.InvalidTotal, typesInv, inv)
	}
	for i := 1; i < len(rr.InvalidTypes); i++ {
		if rr.InvalidTypes[i-1].Invalid < rr.InvalidTypes[i].Invalid {
			t.Fatalf("invalid types not sorted by invalid count at %d", i)
		}
	}
	// Order of samples does not matter.
	rev := Aggregate([]SampleResult{samples[2], samples[0], samples[1]})
	if len(rev.InvalidTypes) != len(rr.InvalidTypes) || rev.InvalidTypes[0].Type != rr.InvalidTypes[0].Type || rev.Structure[0] != rr.Structure[0] {
		t.Error("aggregate depends on sample order")
	}
}

func TestAggregateFailures(t *testing.T) {
	mk := func(st kg.ParseStatus, triples, misaligned int, f1 float64) SampleResult {
		return SampleResult{Parse: kg.ParseReport{Status: st, Triples: triples, Misaligned: misaligned}, TripletF1: f1}
	}
	rr := Aggregate([]SampleResult{
		mk(kg.ParseEmpty, 0, 0, 0),
		mk(kg.ParseMalformed, 0, 0, 0),
		mk(kg.ParseTruncated, 56, 0, 0),
		mk(kg.ParseTruncated, 56, 0, 0.1),
		mk(kg.ParseClean, 10, 8, 0),   // mostly subject/predicate/object
		mk(kg.ParseClean, 10, 1, 0.3), // one stray item is not a failure
		mk(kg.ParseClean, 10, 0, 0),   // parsed fine, matched nothing
	})
	f := rr.Failures
	if f.Empty != 1 || f.Malformed != 1 || f.Truncated != 2 || f.Misaligned != 1 || f.ZeroF1 != 5 {
		t.Errorf("failures %+v", f)
	}
	want := []CauseCount{{"empty", 1}, {"malformed", 1}, {"truncated", 1}, {"schema_misaligned", 1}, {"none", 1}}
	if len(f.ZeroF1ByCause) != len(want) {
		t.Fatalf("causes %+v", f.ZeroF1ByCause)
	}
	for i := range want {
		if f.ZeroF1ByCause[i] != want[i] {
			t.Errorf("cause %d = %+v, want %+v", i, f.ZeroF1ByCause[i], want[i])
		}
	}
}

// TestAggregateForAggregate: the run report of samples kept as ForAggregate
// keeps them is the run report of the whole reports, on every fixture.
func TestAggregateForAggregate(t *testing.T) {
	var whole, slim []SampleResult
	for i, name := range fixtureNames {
		f := loadFixture(t, name)
		r := Analyze(f.task, f.pred, f.cov, f.val)
		s := SampleResult{Report: r, Parse: kg.ParseReport{Status: kg.ParseClean, Triples: len(f.pred.Triples)}, TripletF1: float64(i) / 20}
		whole = append(whole, s)
		s.Report = r.ForAggregate()
		if len(s.Report.Pred.Relations) != 0 || len(r.Pred.Relations) == 0 {
			t.Fatalf("%s: ForAggregate kept %d relation rows of %d", name, len(s.Report.Pred.Relations), len(r.Pred.Relations))
		}
		slim = append(slim, s)
	}
	a, b := Aggregate(whole), Aggregate(slim)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("Aggregate of ForAggregate reports differs:\n%+v\nwant\n%+v", b, a)
	}
}
