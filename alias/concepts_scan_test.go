package alias

import (
	"reflect"
	"sort"
	"testing"

	"github.com/kgjudge/kgjudge/internal/fixtures"
)

// ofEveryTerm is Of as it was before the term index: every term of the
// table tried on every text. Of must give exactly what it gives.
func (c *Concepts) ofEveryTerm(text string) []string {
	s := " " + matchForm(text) + " "
	used := make([]bool, len(s))
	var ids []string
	for _, ct := range c.match {
		needle := ct.key
		if !ct.han {
			needle = " " + ct.key + " "
		}
		for from := 0; from < len(s); {
			i := indexFrom(s, needle, from)
			if i < 0 {
				break
			}
			lo, hi := i, i+len(needle)
			if !ct.han {
				lo, hi = lo+1, hi-1
			}
			free := true
			for p := lo; p < hi; p++ {
				if used[p] {
					free = false
					break
				}
			}
			if free {
				for p := lo; p < hi; p++ {
					used[p] = true
				}
				ids = append(ids, ct.ids...)
			}
			from = i + 1
		}
	}
	sort.Strings(ids)
	return dedupSorted(ids)
}

func indexFrom(s, sub string, from int) int {
	for i := from; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// TestOfTriesOnlyPossibleTerms checks the term index against trying every
// term, on every string of the 11 fixtures (heads, relations, tails, node
// names and aliases) and on the table's own terms.
func TestOfTriesOnlyPossibleTerms(t *testing.T) {
	c := BuiltinConcepts()
	var texts []string
	for _, name := range fixtures.All() {
		f := fixtures.Load(t, name)
		for _, tr := range f.Pred.Triples {
			texts = append(texts, tr.Head, tr.Relation, tr.Tail)
		}
		for _, tr := range f.Task.Triples {
			texts = append(texts, tr.Head, tr.Relation, tr.Tail)
		}
		for _, n := range f.Task.Nodes {
			texts = append(texts, n.Name)
			texts = append(texts, n.Aliases...)
		}
	}
	for _, id := range c.IDs() {
		for _, term := range c.Terms(id) {
			texts = append(texts, term, "official "+term, term+"（参考）", "参考"+term+"时间")
		}
	}
	texts = append(texts, "", " ", "list price 售价", "Founded year", "成立时间")
	named := 0
	for _, s := range texts {
		got, want := c.Of(s), c.ofEveryTerm(s)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Of(%q) = %v, trying every term gives %v", s, got, want)
		}
		if len(want) > 0 {
			named++
		}
	}
	if named < len(texts)/10 {
		t.Errorf("only %d of %d texts name a concept: the comparison tests little", named, len(texts))
	}
	t.Logf("%d texts, %d naming a concept", len(texts), named)
}
