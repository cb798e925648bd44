package hierarchy

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

func TestAnalyzeFixtures(t *testing.T) {
	for _, name := range fixtureNames {
		t.Run(name, func(t *testing.T) {
			f := loadFixture(t, name)
			rep := Analyze(f.task, f.pred, f.cov, f.val)
			nGT, nPred := len(f.task.Triples), len(f.pred.Triples)

			// Class counts sum to the totals, in both graphs.
			for _, g := range []struct {
				name string
				ga   GraphAnalysis
				n    int
			}{{"gt", rep.GT, nGT}, {"pred", rep.Pred, nPred}} {
				sumT, sumR := 0, 0
				for _, c := range g.ga.Classes {
					sumT += c.Triples
					sumR += c.Relations
				}
				if sumT != g.n || sumR != len(g.ga.Relations) || g.ga.Structure.Triples != g.n {
					t.Errorf("%s: class triples %d, relations %d/%d, structure %d; want %d triples", g.name, sumT, sumR, len(g.ga.Relations), g.ga.Structure.Triples, g.n)
				}
				for _, r := range g.ga.Relations {
					if r.Reason == "" {
						t.Errorf("%s: %q has no reason", g.name, r.Relation)
					}
				}
			}
			// Coverage by class and by level agree with eval.json.
			sumCov, sumT, sumLvlCov, sumLvl := 0, 0, 0, 0
			for _, c := range rep.CoverageByClass {
				sumCov += c.Covered
				sumT += c.Triples
			}
			for _, l := range rep.CoverageByLevel {
				sumLvlCov += l.Covered
				sumLvl += l.Triples
			}
			if sumCov != f.covered || sumT != nGT || sumLvlCov != f.covered || sumLvl != nGT {
				t.Errorf("coverage: class %d/%d, level %d/%d; eval.json %d/%d", sumCov, sumT, sumLvlCov, sumLvl, f.covered, nGT)
			}
			// Validity by class agrees with eval.json's valid flags.
			sumValid, sumInvalid := 0, 0
			for _, c := range rep.ValidityByClass {
				sumValid += c.Valid
				sumInvalid += c.Invalid
				if c.Unjudged != 0 {
					t.Errorf("%s: %d unjudged, want 0 (every triple has a recorded flag)", c.Class, c.Unjudged)
				}
			}
			if sumValid != f.valid || sumInvalid != nPred-f.valid || rep.InvalidTotal != nPred-f.valid {
				t.Errorf("validity: valid %d invalid %d total %d; eval.json valid %d of %d", sumValid, sumInvalid, rep.InvalidTotal, f.valid, nPred)
			}
			// The invalidity table: rates in [0,1], consistent with the flags.
			// Each triple belongs to exactly one type row (its class and
			// concept, or its normalized relation): the rows' counts are the
			// sums over the triples the per-triple classes put in them.
			type rowKey struct {
				cl  Class
				typ string
			}
			countBy, invalidBy := map[rowKey]int{}, map[rowKey]int{}
			if len(rep.PredTriples) != nPred || len(rep.GTTriples) != nGT {
				t.Fatalf("per-triple classes: %d pred, %d gt", len(rep.PredTriples), len(rep.GTTriples))
			}
			for i, tr := range f.pred.Triples {
				cl := rep.PredTriples[i]
				typ := cl.Concept
				if typ == "" || cl.Class == Factual || cl.Class == Organizational {
					typ = kg.Normalize(tr.Relation)
				}
				countBy[rowKey{cl.Class, typ}]++
				if f.val[i].State != kg.Covered {
					invalidBy[rowKey{cl.Class, typ}]++
				}
			}
			rowCount, rowInvalid := 0, 0
			for _, r := range rep.InvalidTypes {
				if r.Rate < 0 || r.Rate > 1 || math.Abs(r.Rate-float64(r.Invalid)/float64(r.Count)) > 1e-4 {
					t.Errorf("type %q: rate %v for %d/%d", r.Type, r.Rate, r.Invalid, r.Count)
				}
				k := rowKey{r.Class, r.Type}
				if countBy[k] != r.Count || invalidBy[k] != r.Invalid {
					t.Errorf("type %q (%s): %d/%d, from the triples %d/%d", r.Type, r.Class, r.Invalid, r.Count, invalidBy[k], countBy[k])
				}
				rowCount += r.Count
				rowInvalid += r.Invalid
			}
			if rowCount != nPred || rowInvalid != nPred-f.valid {
				t.Errorf("invalid table: %d rows' triples, %d invalid; want %d, %d", rowCount, rowInvalid, nPred, nPred-f.valid)
			}
			sumCat := 0
			for _, c := range rep.Invalid {
				sumCat += c.Invalid
			}
			if sumCat != rep.InvalidTotal {
				t.Errorf("categories sum %d, invalid total %d", sumCat, rep.InvalidTotal)
			}
			// The GT graphs are at least as deep and less flat than the
			// predictions (checked on the data: depth 3/6/7 against 3/2/1,
			// flatness 0.77/0.59/0.53 against 0.95/0.97/1.00); Pro GT graphs
			// are strictly deeper.
			g, p := rep.GT.Structure, rep.Pred.Structure
			if g.Depth < p.Depth || g.Flatness >= p.Flatness || (name[0] == 'p' && g.Depth <= p.Depth) {
				t.Errorf("GT depth %d flatness %v, pred depth %d flatness %v", g.Depth, g.Flatness, p.Depth, p.Flatness)
			}
			if len(rep.Notes) != 0 {
				t.Errorf("notes: %v", rep.Notes)
			}
			// Output is deterministic.
			a, _ := json.Marshal(rep)
			b, _ := json.Marshal(Analyze(f.task, f.pred, f.cov, f.val))
			if !bytes.Equal(a, b) {
				t.Error("Analyze is not deterministic")
			}
		})
	}
}

// TestAnalyzeFindings pins what the fixtures say, the facts the report is for.
func TestAnalyzeFindings(t *testing.T) {
	reps := map[string]Report{}
	for _, name := range fixtureNames {
		f := loadFixture(t, name)
		reps[name] = Analyze(f.task, f.pred, f.cov, f.val)
	}
	classCov := func(r Report, c Class) ClassCoverage {
		for _, x := range r.CoverageByClass {
			if x.Class == c {
				return x
			}
		}
		return ClassCoverage{}
	}
	// Pro graphs: organizational scaffolding is recovered less often than
	// factual triples.
	for _, name := range []string{"p012", "p041"} {
		o, f := classCov(reps[name], Organizational), classCov(reps[name], Factual)
		if o.Triples < 20 || o.Recall >= f.Recall {
			t.Errorf("%s: organizational recall %v (%d triples), factual %v", name, o.Recall, o.Triples, f.Recall)
		}
	}
	// p012's unasked bibliographic predictions (pages, volume) are all invalid.
	for _, r := range reps["p012"].InvalidTypes {
		if r.Class == Bibliographic && r.AskedFor != nil && !*r.AskedFor && r.Rate != 1 {
			t.Errorf("p012 unasked bibliographic %q: rate %v", r.Type, r.Rate)
		}
	}
}

func TestAnalyzeGolden(t *testing.T) {
	f := loadFixture(t, "p041")
	rep := Analyze(f.task, f.pred, f.cov, f.val)
	got, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "p041_report.golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./hierarchy -run Golden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("report differs from %s; rerun with -update and review the diff", path)
	}
}

func TestAnalyzeEdgeCases(t *testing.T) {
	task := kg.Task{ID: "t", Triples: []kg.GTTriple{{Triple: kg.Triple{Head: "A", Relation: "pages", Tail: "1-2"}}}}
	pred := kg.Prediction{Triples: []kg.Triple{{Head: "A", Relation: "pages", Tail: "1-2"}}}
	for _, tc := range []struct {
		name  string
		cov   []kg.Verdict
		val   []kg.Validity
		notes int
	}{
		{"no verdicts", nil, nil, 0},
		{"out of range", []kg.Verdict{{GTIndex: 5, State: kg.Covered}, {GTIndex: 0, State: kg.Covered, Support: []int{9}}},
			[]kg.Validity{{PredIndex: -1, State: kg.Covered}}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := Analyze(task, pred, tc.cov, tc.val)
			if len(rep.Notes) != tc.notes {
				t.Errorf("notes %v, want %d", rep.Notes, tc.notes)
			}
			if tc.val != nil && (rep.InvalidTotal != 1 || rep.ValidityByClass[2].Unjudged != 1) {
				t.Errorf("unjudged triple: invalid %d, %+v", rep.InvalidTotal, rep.ValidityByClass)
			}
		})
	}
}

func TestMeasure(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		ts                   []kg.Triple
		depth, comps, e2e    int
		flatness, entityShar float64
	}{
		{"empty", nil, 0, 0, 0, 1, 0},
		{"star of literals", []kg.Triple{{Head: "A", Relation: "r", Tail: "1"}, {Head: "A", Relation: "s", Tail: "2"}}, 0, 1, 0, 1, 0},
		{"chain", []kg.Triple{{Head: "A", Relation: "r", Tail: "B"}, {Head: "B", Relation: "r", Tail: "C"}, {Head: "C", Relation: "r", Tail: "D"}, {Head: "D", Relation: "x", Tail: "1"}}, 3, 1, 3, 0.4375, 0.75},
		{"cycle contracted", []kg.Triple{{Head: "A", Relation: "r", Tail: "B"}, {Head: "B", Relation: "r", Tail: "A"}, {Head: "B", Relation: "r", Tail: "C"}, {Head: "C", Relation: "r", Tail: "x"}}, 1, 1, 3, 0.8125, 0.75},
		{"two components", []kg.Triple{{Head: "A", Relation: "r", Tail: "1"}, {Head: "B", Relation: "r", Tail: "2"}}, 0, 2, 0, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Measure(tc.ts)
			if s.Depth != tc.depth || s.Components != tc.comps || s.EntityToEntity != tc.e2e || s.Flatness != tc.flatness || s.EntityShare != tc.entityShar {
				t.Errorf("got %+v", s)
			}
		})
	}
}
