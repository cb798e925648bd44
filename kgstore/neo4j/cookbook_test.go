package neo4j

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/hierarchy"
	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
)

const (
	fixtureDir  = "../../testdata/fixtures"
	cookbookDir = "../../docs/cypher"
)

// fixture is one real benchmark sample, read straight from its JSON files.
type fixture struct {
	name, subset string
	task         kg.Task
	pred         []kg.Triple
	eval         struct {
		Coverage struct {
			CoveredCount int `json:"covered_count"`
			PerGT        []struct {
				GTIndex int   `json:"gt_index"`
				Covered bool  `json:"covered"`
				Support []int `json:"supporting_pred_indices"`
			} `json:"per_gt_triple"`
		} `json:"coverage_details"`
		Validity struct {
			PerPred []struct {
				PredIndex int   `json:"pred_index"`
				Valid     bool  `json:"valid"`
				Support   []int `json:"supporting_gt_indices"`
			} `json:"per_pred_triple"`
		} `json:"validity_details"`
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func loadFixtures(t *testing.T) []*fixture {
	var out []*fixture
	for _, f := range []struct{ name, subset string }{{"d001", "daily"}, {"p012", "pro"}, {"p041", "pro"}} {
		fx := &fixture{name: f.name, subset: f.subset}
		task, err := ingest.ReadTask(filepath.Join(fixtureDir, f.name, "gt.json"))
		if err != nil {
			t.Fatal(err)
		}
		fx.task = task
		readJSON(t, filepath.Join(fixtureDir, f.name, "pred.json"), &fx.pred)
		readJSON(t, filepath.Join(fixtureDir, f.name, "eval.json"), &fx.eval)
		if len(fx.eval.Coverage.PerGT) != len(task.Triples) || len(fx.eval.Validity.PerPred) != len(fx.pred) {
			t.Fatalf("%s: records do not match the graphs", f.name)
		}
		out = append(out, fx)
	}
	return out
}

// The two runs of the cookbook data: "opus" is the recorded verdicts
// verbatim; "variant" flips the coverage of every fifth GT triple and gives
// each covered verdict a kind by index, so that runs disagree and every
// coverage kind occurs.
var kinds = []kg.CoverageKind{kg.KindDirect, kg.KindSubsumption, kg.KindCollective, kg.KindCompositional}

type verdict struct {
	covered bool
	kind    kg.CoverageKind
	support []int
}

func (fx *fixture) coverage(run string) []verdict {
	out := make([]verdict, len(fx.task.Triples))
	for _, r := range fx.eval.Coverage.PerGT {
		v := verdict{covered: r.Covered, support: r.Support}
		if r.Covered {
			v.kind = kg.KindRecorded
		}
		if run == "variant" {
			i := r.GTIndex
			if i%5 == 0 {
				v.covered = !v.covered
				v.support = []int{}
				if v.covered {
					v.support = []int{i % len(fx.pred)}
				}
			}
			v.kind = ""
			if v.covered {
				v.kind = kinds[i%4]
			}
		}
		out[r.GTIndex] = v
	}
	return out
}

var runs = []struct{ name, model string }{{"opus", "Claude Opus 4.6"}, {"variant", "Variant X"}}

func loadCookbook(t *testing.T, s *Store, fxs []*fixture) {
	ctx := context.Background()
	w := s.NewWriter()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, fx := range fxs {
		must(w.PutTask(ctx, fx.task))
		must(w.SetTaskProps(ctx, fx.task.ID, map[string]any{"subset": fx.subset}))
	}
	for _, run := range runs {
		must(w.SetRunProps(ctx, run.name, map[string]any{"model": run.model}))
		for _, fx := range fxs {
			key := kgstore.SampleKey{Run: run.name, TaskID: fx.task.ID}
			must(w.PutPrediction(ctx, key, kg.Prediction{QID: fx.task.ID, TaskID: fx.task.ID, Triples: fx.pred, Report: kg.ParseReport{Status: kg.ParseClean, Triples: len(fx.pred)}}))
			v := kgstore.Verdicts{Key: key}
			for i, c := range fx.coverage(run.name) {
				state := kg.Uncovered
				if c.covered {
					state = kg.Covered
				}
				v.Coverage = append(v.Coverage, kg.Verdict{GTIndex: i, State: state, Kind: c.kind, Support: c.support, Judge: run.name})
			}
			for _, r := range fx.eval.Validity.PerPred {
				state := kg.Uncovered
				if r.Valid {
					state = kg.Covered
				}
				v.Validity = append(v.Validity, kg.Validity{PredIndex: r.PredIndex, State: state, Support: r.Support, Judge: run.name})
			}
			must(w.PutVerdicts(ctx, v))
			if run.name == "opus" {
				must(w.SetSampleProps(ctx, key, map[string]any{"covered_count": fx.eval.Coverage.CoveredCount}))
			}
		}
	}
	must(w.Flush(ctx))
}

func cookbook(t *testing.T, s *Store, name string, params map[string]any) *Result {
	t.Helper()
	q, err := os.ReadFile(filepath.Join(cookbookDir, name+".cypher"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Query(context.Background(), string(q), params, false)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func round4(x float64) float64 { return math.Floor(x*1e4+0.5) / 1e4 }

// same compares rows, numbers by value (int64 and float64 alike).
func same(got, want [][]any) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if len(got[i]) != len(want[i]) {
			return false
		}
		for j := range got[i] {
			g, w := got[i][j], want[i][j]
			gf, gok := toF(g)
			wf, wok := toF(w)
			if gok && wok {
				if math.Abs(gf-wf) > 1e-9 {
					return false
				}
				continue
			}
			if !reflect.DeepEqual(g, w) {
				return false
			}
		}
	}
	return true
}

func toF(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func cols(rows [][]any, n int) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = r[:n]
	}
	return out
}

func check(t *testing.T, name string, got, want [][]any) {
	t.Helper()
	if !same(got, want) {
		t.Errorf("%s:\n got %d rows %v\nwant %d rows %v", name, len(got), brief(got), len(want), brief(want))
	}
}

func brief(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 2000 {
		s = s[:2000] + "..."
	}
	return s
}

func sortRows(rows [][]any, less func(a, b []any) bool) [][]any {
	sort.SliceStable(rows, func(i, j int) bool { return less(rows[i], rows[j]) })
	return rows
}

// TestCookbook runs every query of docs/cypher/ on the fixtures and checks
// its rows against values computed here from the fixtures' JSON.
func TestCookbook(t *testing.T) {
	s := openTest(t, testConfig(t))
	defer s.Close()
	fxs := loadFixtures(t)
	loadCookbook(t, s, fxs)

	covered := map[string][]verdict{} // run + "\x00" + task -> verdicts
	for _, run := range runs {
		for _, fx := range fxs {
			covered[run.name+"\x00"+fx.task.ID] = fx.coverage(run.name)
		}
	}
	anyCovered := func(fx *fixture, i int) bool {
		return covered["opus\x00"+fx.task.ID][i].covered || covered["variant\x00"+fx.task.ID][i].covered
	}
	nCovered := func(run string, fx *fixture) int {
		n := 0
		for _, v := range covered[run+"\x00"+fx.task.ID] {
			if v.covered {
				n++
			}
		}
		return n
	}
	tested := map[string]bool{}
	run := func(name string, params map[string]any, fn func(res *Result)) {
		tested[name] = true
		t.Run(name, func(t *testing.T) { fn(cookbook(t, s, name, params)) })
	}

	run("coverage_by_model", nil, func(res *Result) {
		var want [][]any
		for _, r := range runs {
			cov, tot, mean := 0, 0, 0.0
			for _, fx := range fxs {
				c := nCovered(r.name, fx)
				cov += c
				tot += len(fx.task.Triples)
				mean += float64(c) / float64(len(fx.task.Triples))
			}
			want = append(want, []any{r.model, 3, cov, tot, round4(float64(cov) / float64(tot)), round4(mean / 3)})
		}
		check(t, "coverage_by_model", res.Rows, want)
	})

	run("coverage_by_subset_language", nil, func(res *Result) {
		var want [][]any
		for _, r := range runs {
			for _, fx := range fxs {
				c := nCovered(r.name, fx)
				want = append(want, []any{r.model, fx.subset, fx.task.Language, 1, c, len(fx.task.Triples), round4(float64(c) / float64(len(fx.task.Triples)))})
			}
		}
		want = sortRows(want, func(a, b []any) bool {
			return fmt.Sprint(a[0], "\x00", a[1], "\x00", a[2]) < fmt.Sprint(b[0], "\x00", b[1], "\x00", b[2])
		})
		check(t, "coverage_by_subset_language", res.Rows, want)
	})

	run("uncovered_gt_by_relation", nil, func(res *Result) {
		count := map[string]int{}
		for _, fx := range fxs {
			for i, x := range fx.task.Triples {
				if !anyCovered(fx, i) {
					count[x.Relation]++
				}
			}
		}
		var want [][]any
		for rel, n := range count {
			want = append(want, []any{rel, n})
		}
		want = sortRows(want, func(a, b []any) bool {
			if a[1].(int) != b[1].(int) {
				return a[1].(int) > b[1].(int)
			}
			return a[0].(string) < b[0].(string)
		})
		check(t, "uncovered_gt_by_relation", res.Rows, want)
	})

	run("gt_relations_no_model_covers", nil, func(res *Result) {
		var want [][]any
		for _, fx := range fxs {
			n, hit := map[string]int{}, map[string]bool{}
			for i, x := range fx.task.Triples {
				n[x.Relation]++
				if anyCovered(fx, i) {
					hit[x.Relation] = true
				}
			}
			for rel, k := range n {
				if !hit[rel] {
					want = append(want, []any{fx.task.ID, rel, k})
				}
			}
		}
		want = sortRows(want, func(a, b []any) bool {
			if a[0] != b[0] {
				return a[0].(string) < b[0].(string)
			}
			return a[1].(string) < b[1].(string)
		})
		check(t, "gt_relations_no_model_covers", res.Rows, want)
	})

	byModelCount := func(count map[[2]string]int) [][]any {
		var want [][]any
		for k, n := range count {
			want = append(want, []any{k[0], k[1], n})
		}
		return sortRows(want, func(a, b []any) bool {
			if a[0] != b[0] {
				return a[0].(string) < b[0].(string)
			}
			if a[2].(int) != b[2].(int) {
				return a[2].(int) > b[2].(int)
			}
			return a[1].(string) < b[1].(string)
		})
	}

	run("unsupported_pred_by_relation", nil, func(res *Result) {
		count := map[[2]string]int{}
		for _, r := range runs {
			for _, fx := range fxs {
				cited := map[int]bool{}
				for _, v := range covered[r.name+"\x00"+fx.task.ID] {
					for _, i := range v.support {
						cited[i] = true
					}
				}
				for i, x := range fx.pred {
					if !cited[i] {
						count[[2]string{r.model, x.Relation}]++
					}
				}
			}
		}
		check(t, "unsupported_pred_by_relation", res.Rows, byModelCount(count))
	})

	run("invalid_pred_by_relation", nil, func(res *Result) {
		count := map[[2]string]int{}
		for _, r := range runs {
			for _, fx := range fxs {
				for _, v := range fx.eval.Validity.PerPred {
					if !v.Valid {
						count[[2]string{r.model, fx.pred[v.PredIndex].Relation}]++
					}
				}
			}
		}
		check(t, "invalid_pred_by_relation", res.Rows, byModelCount(count))
	})

	run("covered_only_by_composition", nil, func(res *Result) {
		var want [][]any
		for _, fx := range fxs {
			for i, x := range fx.task.Triples {
				a, b := covered["opus\x00"+fx.task.ID][i], covered["variant\x00"+fx.task.ID][i]
				if !a.covered && b.covered && b.kind == kg.KindCompositional {
					want = append(want, []any{fx.task.ID, i, x.Head, x.Relation, x.Tail})
				}
			}
		}
		if len(want) == 0 {
			t.Fatal("fixture data has no compositional-only triple; the test checks nothing")
		}
		check(t, "covered_only_by_composition", res.Rows, want)
	})

	run("gt_entities_never_mentioned", nil, func(res *Result) {
		var want [][]any
		for _, r := range runs {
			for _, fx := range fxs {
				mentioned := map[string]bool{}
				for _, x := range fx.pred {
					mentioned[x.Head], mentioned[x.Tail] = true, true
				}
				n := 0
				for _, name := range fx.task.NodeNames() {
					if !mentioned[name] {
						n++
					}
				}
				want = append(want, []any{r.model, fx.task.ID, n})
			}
		}
		check(t, "gt_entities_never_mentioned", cols(res.Rows, 3), want)
	})

	for _, ab := range [][2]string{{"opus", "variant"}, {"variant", "opus"}} {
		ab := ab
		tested["covered_by_a_not_b"] = true
		t.Run("covered_by_a_not_b/"+ab[0], func(t *testing.T) {
			res := cookbook(t, s, "covered_by_a_not_b", map[string]any{"a": ab[0], "b": ab[1]})
			var want [][]any
			for _, fx := range fxs {
				for i, x := range fx.task.Triples {
					if covered[ab[0]+"\x00"+fx.task.ID][i].covered && !covered[ab[1]+"\x00"+fx.task.ID][i].covered {
						want = append(want, []any{fx.task.ID, i, x.Head, x.Relation, x.Tail})
					}
				}
			}
			if len(want) == 0 {
				t.Fatal("the runs never disagree; the test checks nothing")
			}
			check(t, "covered_by_a_not_b", res.Rows, want)
		})
	}

	run("coverage_by_kind", nil, func(res *Result) {
		count := map[[2]string]int{}
		for _, r := range runs {
			for _, fx := range fxs {
				for _, v := range covered[r.name+"\x00"+fx.task.ID] {
					if v.covered {
						count[[2]string{r.model, string(v.kind)}]++
					}
				}
			}
		}
		var want [][]any
		for k, n := range count {
			want = append(want, []any{k[0], k[1], n})
		}
		want = sortRows(want, func(a, b []any) bool { return fmt.Sprint(a[0], "\x00", a[1]) < fmt.Sprint(b[0], "\x00", b[1]) })
		check(t, "coverage_by_kind", res.Rows, want)
	})

	run("coverage_by_class", nil, func(res *Result) {
		type acc struct{ n, c int }
		m := map[[2]string]*acc{}
		for _, r := range runs {
			for _, fx := range fxs {
				graph := make([]kg.Triple, len(fx.task.Triples))
				for i, x := range fx.task.Triples {
					graph[i] = x.Triple
				}
				// The store keeps a class per triple (the classifier
				// the caller configured: hierarchy's).
				class := hierarchy.GraphClassifier{}.Classify(graph)
				for i := range fx.task.Triples {
					k := [2]string{r.model, class[i]}
					if m[k] == nil {
						m[k] = &acc{}
					}
					m[k].n++
					if covered[r.name+"\x00"+fx.task.ID][i].covered {
						m[k].c++
					}
				}
			}
		}
		var want [][]any
		for k, a := range m {
			want = append(want, []any{k[0], k[1], a.n, a.c, round4(float64(a.c) / float64(a.n))})
		}
		want = sortRows(want, func(a, b []any) bool { return fmt.Sprint(a[0], "\x00", a[1]) < fmt.Sprint(b[0], "\x00", b[1]) })
		check(t, "coverage_by_class", res.Rows, want)
	})

	run("sample_covered_counts", nil, func(res *Result) {
		var want [][]any
		for _, r := range runs {
			for _, fx := range fxs {
				var cc any
				if r.name == "opus" {
					cc = int64(fx.eval.Coverage.CoveredCount)
					// The graph's count must be the published one.
					if n := nCovered("opus", fx); n != fx.eval.Coverage.CoveredCount {
						t.Errorf("%s: %d covered records, published covered_count %d", fx.name, n, fx.eval.Coverage.CoveredCount)
					}
				}
				want = append(want, []any{r.name, fx.task.ID, 0, nCovered(r.name, fx), cc, nil})
			}
		}
		want = sortRows(want, func(a, b []any) bool { return fmt.Sprint(a[0], "\x00", a[1]) < fmt.Sprint(b[0], "\x00", b[1]) })
		check(t, "sample_covered_counts", res.Rows, want)
	})

	run("gt_hubs", map[string]any{"limit": 10}, func(res *Result) {
		var all [][]any
		for _, fx := range fxs {
			deg := map[string]int{}
			for _, x := range fx.task.Triples {
				deg[x.Head]++
			}
			for name, d := range deg {
				all = append(all, []any{fx.task.ID, name, d})
			}
		}
		all = sortRows(all, func(a, b []any) bool {
			if a[2].(int) != b[2].(int) {
				return a[2].(int) > b[2].(int)
			}
			if a[0] != b[0] {
				return a[0].(string) < b[0].(string)
			}
			return a[1].(string) < b[1].(string)
		})
		check(t, "gt_hubs", res.Rows, all[:10])
	})

	run("gt_two_hop_covered", map[string]any{"run": "opus"}, func(res *Result) {
		var want [][]any
		for _, fx := range fxs {
			cov := covered["opus\x00"+fx.task.ID]
			n := 0
			for i, a := range fx.task.Triples {
				for j, b := range fx.task.Triples {
					if i != j && a.Tail == b.Head && cov[i].covered && cov[j].covered {
						n++
					}
				}
			}
			if n > 0 {
				want = append(want, []any{fx.task.ID, n})
			}
		}
		if len(want) == 0 {
			t.Fatal("no covered two-hop chain in the fixtures; the test checks nothing")
		}
		check(t, "gt_two_hop_covered", res.Rows, want)
	})

	fx := fxs[1]
	index := -1
	for i, v := range covered["opus\x00"+fx.task.ID] {
		if v.covered && len(v.support) > 1 && covered["variant\x00"+fx.task.ID][i].covered {
			index = i
			break
		}
	}
	run("gt_evidence", map[string]any{"task": fx.task.ID, "index": index}, func(res *Result) {
		var want [][]any
		for _, r := range runs {
			v := covered[r.name+"\x00"+fx.task.ID][index]
			seen := map[int]bool{}
			var sup []int
			for _, i := range v.support {
				if !seen[i] && i >= 0 && i < len(fx.pred) {
					seen[i] = true
					sup = append(sup, i)
				}
			}
			sort.Ints(sup)
			for _, i := range sup {
				p := fx.pred[i]
				want = append(want, []any{r.name, 0, "covered", string(v.kind), i, p.Head, p.Relation, p.Tail})
			}
		}
		check(t, "gt_evidence", res.Rows, want)
	})

	// Every query file is tested, and every one is in the cookbook.
	files, _ := filepath.Glob(filepath.Join(cookbookDir, "*.cypher"))
	doc, err := os.ReadFile(filepath.Join(cookbookDir, "..", "cypher.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".cypher")
		if !tested[name] {
			t.Errorf("docs/cypher/%s.cypher has no test", name)
		}
		q, _ := os.ReadFile(f)
		if !strings.Contains(string(doc), strings.TrimSpace(string(q))) {
			t.Errorf("docs/cypher.md does not show docs/cypher/%s.cypher verbatim", name)
		}
	}
	if len(files) < 10 {
		t.Errorf("cookbook has %d queries, want at least 10", len(files))
	}
}
