package prefilter

import (
	"testing"

	"github.com/kgjudge/kgjudge/internal/fixtures"
)

func TestScratchAll(t *testing.T) {
	var total figures
	for _, name := range fixtures.All() {
		f := loadFixture(t, name)
		fg := measure(t, f)
		t.Logf("%s: any %.3f all %.3f (%d) vol %.3f focus %.3f", name, fg.anyRate(), fg.allRate(), fg.covered, fg.volume(), fg.focus())
		total.add(fg)
	}
	t.Logf("overall: any %.3f all %.3f vol %.3f focus %.3f resolved %d prec %.3f", total.anyRate(), total.allRate(), total.volume(), total.focus(), total.resolved, float64(total.resolvedRight)/float64(max(1, total.resolved)))
}

func TestScratchMisses(t *testing.T) {
	for _, name := range fixtures.All() {
		f := loadFixture(t, name)
		pl, err := Planner{}.Sample(t.Context(), &f.task, &f.pred)
		if err != nil {
			t.Fatal(err)
		}
		sup := recordedSupport(t, f)
		for gi, c := range pl.Result.GT {
			s, ok := sup[gi]
			if !ok {
				continue
			}
			keep := map[int]bool{}
			for _, x := range c.Candidates {
				keep[x.Index] = true
			}
			if c.Resolved != nil {
				for _, x := range c.Resolved.Support {
					keep[x] = true
				}
			}
			var miss []int
			for _, x := range s {
				if !keep[x] {
					miss = append(miss, x)
				}
			}
			if len(miss) == 0 {
				continue
			}
			g := f.task.Triples[gi]
			t.Logf("%s GT-%d %q --[%s]--> %q (ncand %d, nsup %d)", name, gi, g.Head, g.Relation, g.Tail, len(c.Candidates), len(s))
			for _, x := range miss {
				p := f.pred.Triples[x]
				t.Logf("      miss P-%d %q --[%s]--> %q", x, p.Head, p.Relation, p.Tail)
			}
		}
	}
}

func TestScratchCount(t *testing.T) {
	tri, ent, rel := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, name := range fixtures.All() {
		f := loadFixture(t, name)
		for _, x := range f.task.Triples {
			tri[x.Head+" "+x.Relation+" "+x.Tail] = true
			ent[x.Head], ent[x.Tail], rel[x.Relation] = true, true, true
		}
		for _, x := range f.pred.Triples {
			tri[x.Head+" "+x.Relation+" "+x.Tail] = true
			ent[x.Head], ent[x.Tail], rel[x.Relation] = true, true, true
		}
		t.Logf("%s gt %d pred %d", name, len(f.task.Triples), len(f.pred.Triples))
	}
	t.Logf("tri %d ent %d rel %d", len(tri), len(ent), len(rel))
}

func TestScratchWarm(t *testing.T) {
	e := testEmbedder(t)
	for _, name := range fixtures.All() {
		f := loadFixture(t, name)
		if _, err := newEmbedStage(t.Context(), e, EmbedParams{}, &f.task, &f.pred); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %+v", name, e.Stats())
	}
}

func TestScratchEmbed(t *testing.T) {
	e := testEmbedder(t)
	for _, p := range []EmbedParams{{K: 4, ReverseK: -1, Weight: 0.6, Keep: -1}, {K: 4, ReverseK: -1, Weight: 0.6, Keep: 1}, {K: 4, ReverseK: -1, Weight: 0.6, Keep: 2}, {K: 4, ReverseK: -1, Weight: 0.6, Keep: 3}, {K: 6, ReverseK: -1, Weight: 0.6, Keep: 4}} {
		var total figures
		for _, name := range fixtures.All() {
			f := loadFixture(t, name)
			fg := measureWith(t, f, Options{Embedder: e, Embed: p})
			total.add(fg)
		}
		t.Logf("%+v overall: any %.3f all %.3f vol %.3f focus %.3f resolved %d prec %.3f", p, total.anyRate(), total.allRate(), total.volume(), total.focus(), total.resolved, float64(total.resolvedRight)/float64(max(1, total.resolved)))
	}
}

func TestScratchCap(t *testing.T) {
	for _, c := range []int{11, 12, 13, 14, 16} {
		var total figures
		for _, name := range fixtures.All() {
			f := loadFixture(t, name)
			total.add(measureWith(t, f, Options{MaxCandidates: c}))
		}
		t.Logf("cap %d overall: any %.3f all %.3f vol %.3f focus %.3f", c, total.anyRate(), total.allRate(), total.volume(), total.focus())
	}
}

func TestScratchEchoes(t *testing.T) {
	for _, name := range fixtures.All() {
		f := loadFixture(t, name)
		for gi, s := range recordedSupport(t, f) {
			n := 0
			for _, pi := range s {
				if indexEcho(f, gi, pi) {
					n++
				}
			}
			if len(s) > 0 && n == len(s) {
				t.Logf("%s GT-%d %v", name, gi, s)
			}
		}
	}
}

func TestScratchRanks(t *testing.T) {
	e := testEmbedder(t)
	hist := map[string]int{}
	for _, name := range fixtures.All() {
		f := loadFixture(t, name)
		st, err := newEmbedStage(t.Context(), e, EmbedParams{K: 4, ReverseK: -1, Keep: -1}, &f.task, &f.pred)
		if err != nil {
			t.Fatal(err)
		}
		pl, _ := Planner{Options: Options{Embedder: e, Embed: EmbedParams{K: 4, ReverseK: -1, Keep: -1}}}.Sample(t.Context(), &f.task, &f.pred)
		for gi, s := range recordedSupport(t, f) {
			keep := map[int]bool{}
			c := pl.Result.GT[gi]
			for _, x := range c.Candidates {
				keep[x.Index] = true
			}
			if c.Resolved != nil {
				for _, x := range c.Resolved.Support {
					keep[x] = true
				}
			}
			for _, pi := range s {
				if keep[pi] || indexEcho(f, gi, pi) {
					continue
				}
				row := st.sim[gi]
				r := 0
				for q := range row {
					if row[q] > row[pi] {
						r++
					}
				}
				b := "50+"
				switch {
				case r < 4:
					b = "0-3"
				case r < 10:
					b = "4-9"
				case r < 20:
					b = "10-19"
				case r < 50:
					b = "20-49"
				}
				hist[b]++
				if name != "p085" && name != "d012" {
					g, p := f.task.Triples[gi], f.pred.Triples[pi]
					t.Logf("%s GT-%d rank %d cos %.3f ncand %d | %s | %s", name, gi, r, row[pi], len(c.Candidates), TripleText(g.Triple), TripleText(p))
				}
			}
		}
	}
	t.Logf("rank histogram of missed supports: %v", hist)
}
