package alias

import (
	"context"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
)

// rawSynonymIndex is plain Bleve with a synonym source analysed by the
// standard analyzer: what this package must not do.
func rawSynonymIndex(t *testing.T, docs map[string]string, synonyms []string) bleve.Index {
	t.Helper()
	m := bleve.NewIndexMapping()
	if err := m.AddSynonymSource("syn", map[string]interface{}{"collection": "c", "analyzer": standard.Name}); err != nil {
		t.Fatal(err)
	}
	fm := mapping.NewTextFieldMapping()
	fm.Analyzer = standard.Name
	fm.SynonymSource = "syn"
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt("f", fm)
	m.DefaultMapping = dm
	idx, err := bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	b := idx.NewBatch()
	for id, text := range docs {
		if err := b.Index(id, map[string]string{"f": text}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.IndexSynonym("s1", "c", &bleve.SynonymDefinition{Synonyms: synonyms}); err != nil {
		t.Fatal(err)
	}
	if err := idx.Batch(b); err != nil {
		t.Fatal(err)
	}
	return idx
}

func rawSearch(idx bleve.Index, q string) ([]string, error) {
	mq := bleve.NewMatchQuery(q)
	mq.SetField("f")
	res, err := idx.Search(bleve.NewSearchRequest(mq))
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	return ids, nil
}

// TestBleveDropsMultiTokenSynonyms documents pitfall 1 in Bleve itself: a
// synonym that analyses to several tokens is dropped without an error.
func TestBleveDropsMultiTokenSynonyms(t *testing.T) {
	idx := rawSynonymIndex(t, map[string]string{"d1": "cost", "d2": "list price"}, []string{"cost", "list price", "fee"})
	ids, err := rawSearch(idx, "fee")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, ",") != "d1" {
		t.Fatalf("Bleve changed: fee -> %v; want only d1 (\"list price\" silently dropped)", ids)
	}
}

// TestBleveFailsOnSingleTermDefinition documents pitfall 2 in Bleve itself:
// a definition left with one term (the other analysed to several tokens)
// makes searches through the synonym source fail.
func TestBleveFailsOnSingleTermDefinition(t *testing.T) {
	idx := rawSynonymIndex(t, map[string]string{"d1": "cost", "d2": "sale price"}, []string{"price", "sale price"})
	if _, err := rawSearch(idx, "cost"); err == nil {
		t.Fatal("Bleve changed: search no longer fails on a one-term synonym definition")
	}
}

// TestMultiTokenAliasesKept: the same alias sets through this package. A
// multi-word alias finds its documents, exactly (keyword synonym source)
// and as text (our own expansion).
func TestMultiTokenAliasesKept(t *testing.T) {
	ctx := context.Background()
	ix, err := Build(ctx, "", []string{"list price", "Nudge Unit (UK)", "cost"}, nil,
		[][]string{{"cost", "list price", "fee"}, {"Behavioural Insights Team", "Nudge Unit"}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	mustHit(t, ix, "fee", "list price", HowAlias)
	mustHit(t, ix, "fee", "cost", HowAlias)
	mustHit(t, ix, "Behavioural Insights Team", "Nudge Unit (UK)", HowAlias)
}

// TestSingleTermDefinitionsSkipped: sets that fold to one key (or are empty)
// are not indexed, and every search still works.
func TestSingleTermDefinitionsSkipped(t *testing.T) {
	ctx := context.Background()
	ix, err := Build(ctx, "", []string{"cost", "Apple"}, nil,
		[][]string{{"Apple", "APPLE", "  apple "}, {"price"}, {}, {"", "cost"}, {"$5", "5 USD"}, {"$5", "five dollars"}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, q := range []string{"cost", "apple", "price", "$5"} {
		if _, err := ix.Entities(ctx, q, 5); err != nil {
			t.Errorf("Entities(%q): %v", q, err)
		}
	}
	mustHit(t, ix, "apple", "Apple", HowExact)
	if n := len(ix.sets); n != 1 {
		t.Errorf("indexed %d alias sets, want 1 (only {$5, five dollars} has two keys; $5 and 5 USD are one key)", n)
	}
}

func mustHit(t *testing.T, ix *Index, q, want string, how How) {
	t.Helper()
	hits, err := ix.Entities(context.Background(), q, 10)
	if err != nil {
		t.Fatalf("Entities(%q): %v", q, err)
	}
	for _, h := range hits {
		if h.Text == want {
			if h.How != how {
				t.Errorf("Entities(%q): %q found %s, want %s", q, want, h.How, how)
			}
			return
		}
	}
	t.Errorf("Entities(%q) = %v, want %q among them", q, hits, want)
}
