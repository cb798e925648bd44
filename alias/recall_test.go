package alias

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/kgjudge/kgjudge/internal/fixtures"
	"github.com/kgjudge/kgjudge/kg"
)

// fixture is one sample of the repository's testdata/fixtures (see SOURCE.md there).
type fixture struct {
	gt struct {
		Nodes []kg.Node `json:"nodes"`
	}
	pred []kg.Triple
	eval struct {
		Coverage struct {
			PerGT []struct {
				GT      kg.Triple `json:"gt_triple"`
				Covered bool      `json:"covered"`
				Support []int     `json:"supporting_pred_indices"`
			} `json:"per_gt_triple"`
		} `json:"coverage_details"`
	}
}

func loadFixture(t testing.TB, name string) *fixture {
	t.Helper()
	f := &fixture{}
	for file, v := range map[string]any{"gt.json": &f.gt, "pred.json": &f.pred, "eval.json": &f.eval} {
		path := filepath.Join(fixtures.Dir(), name, file)
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return f
}

func (f *fixture) entities() (ents, rels []string) {
	for _, p := range f.pred {
		ents = append(ents, p.Head, p.Tail)
		rels = append(rels, p.Relation)
	}
	return ents, rels
}

// recallFloors are the rates measured when the test was written
// (k=5, k=10), rounded down to the percent: a drop below them is a
// regression.
var recallFloors = map[string][2]float64{
	"d001": {0.98, 0.99}, // measured 108/110 = 0.982, 109/110 = 0.991
	"p012": {0.82, 0.84}, // measured 58/70 = 0.829, 59/70 = 0.843
	"p041": {0.48, 0.49}, // measured 80/166 = 0.482, 82/166 = 0.494
}

// TestFixtureRecall: for each GT triple the recorded LLM judge marked
// covered, is the head of at least one supporting predicted triple among
// the top-k entity hits for the GT head or the GT tail?
func TestFixtureRecall(t *testing.T) {
	for _, name := range []string{"d001", "p012", "p041"} {
		t.Run(name, func(t *testing.T) {
			rates := fixtureRecall(t, name)
			floor := recallFloors[name]
			if rates[0] < floor[0] || rates[1] < floor[1] {
				t.Errorf("recall %.3f/%.3f below floor %.2f/%.2f", rates[0], rates[1], floor[0], floor[1])
			}
		})
	}
}

// TestFixtureRecallBaseline logs the same rates for a plain TF-IDF
// prefilter (analysed text only: no Canon, aliases, concepts or fuzzy).
func TestFixtureRecallBaseline(t *testing.T) {
	for _, name := range []string{"d001", "p012", "p041"} {
		fixtureRecall(t, name, func(c *config) { c.plainText = true })
	}
}

func fixtureRecall(t *testing.T, name string, opts ...Option) [2]float64 {
	ctx := context.Background()
	{
		{
			f := loadFixture(t, name)
			ents, rels := f.entities()
			ix, err := Build(ctx, "", ents, rels, GTAliasSets(f.gt.Nodes), opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			cache := map[string][]Hit{}
			top := func(q string, k int) map[string]bool {
				hits, ok := cache[q]
				if !ok {
					if hits, err = ix.Entities(ctx, q, 10); err != nil {
						t.Fatal(err)
					}
					cache[q] = hits
				}
				out := map[string]bool{}
				for i, h := range hits {
					if i < k {
						out[h.Text] = true
					}
				}
				return out
			}
			var rates [2]float64
			for ki, k := range []int{5, 10} {
				total, found, byHead := 0, 0, 0
				for _, g := range f.eval.Coverage.PerGT {
					targets := map[string]bool{}
					for _, i := range g.Support {
						if i >= 0 && i < len(f.pred) {
							targets[f.pred[i].Head] = true
						}
					}
					if !g.Covered || len(targets) == 0 {
						continue
					}
					total++
					h := overlaps(top(g.GT.Head, k), targets)
					if h {
						byHead++
					}
					if h || overlaps(top(g.GT.Tail, k), targets) {
						found++
					}
				}
				rates[ki] = float64(found) / float64(total)
				t.Logf("%s k=%d: %d/%d covered GT triples = %.3f (head query alone %.3f)",
					name, k, found, total, rates[ki], float64(byHead)/float64(total))
			}
			return rates
		}
	}
}
