package alias

import (
	"context"
	"testing"
)

// benchTriples returns n predicted triples from the fixtures (600 spans
// p012 and p041: mixed English and Chinese).
func benchTriples(b *testing.B, n int) (ents, rels []string) {
	for _, name := range []string{"p012", "p041", "d001"} {
		f := loadFixture(b, name)
		for _, p := range f.pred {
			if len(rels) == n {
				return ents, rels
			}
			ents = append(ents, p.Head, p.Tail)
			rels = append(rels, p.Relation)
		}
	}
	return ents, rels
}

func BenchmarkBuildIndex(b *testing.B) {
	ents, rels := benchTriples(b, 600)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ix, err := Build(ctx, "", ents, rels, nil)
		if err != nil {
			b.Fatal(err)
		}
		ix.Close()
	}
}

func BenchmarkQuery(b *testing.B) {
	ents, rels := benchTriples(b, 600)
	ctx := context.Background()
	ix, err := Build(ctx, "", ents, rels, [][]string{{"Behavioural Insights Team", "BIT", "Nudge Unit"}})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	queries := []string{"Centara Grand Island Resort & Spa Maldives", "Behavioural Insights Team", "Transfer & Duration", "布雷顿森林体系", "$35/盎司", "Richard Thaler"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := ix.Entities(ctx, queries[i%len(queries)], 10); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
