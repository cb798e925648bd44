package prefilter

import (
	"context"
	"sort"
	"strings"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
)

// Graph is the part of kgstore.Store that graph expansion needs: the edges
// of a predicted graph touching an entity named exactly name, sorted by
// index. Every kgstore.Store is a Graph; MemGraph serves one prediction
// without a store.
type Graph interface {
	Neighbors(ctx context.Context, key kgstore.SampleKey, name string) ([]kgstore.Edge, error)
}

var _ Graph = kgstore.Store(nil)

// MemGraph is a Graph over one prediction held in memory (any key).
type MemGraph struct {
	byName map[string][]kgstore.Edge
}

// NewMemGraph indexes pred's triples by head and tail.
func NewMemGraph(pred *kg.Prediction) *MemGraph {
	g := &MemGraph{byName: map[string][]kgstore.Edge{}}
	for i, t := range pred.Triples {
		e := kgstore.Edge{Index: i, Triple: t}
		g.byName[t.Head] = append(g.byName[t.Head], e)
		if t.Tail != t.Head {
			g.byName[t.Tail] = append(g.byName[t.Tail], e)
		}
	}
	return g
}

// Neighbors implements Graph.
func (g *MemGraph) Neighbors(_ context.Context, _ kgstore.SampleKey, name string) ([]kgstore.Edge, error) {
	return g.byName[name], nil
}

// neighborCache memoises Graph look-ups for one sample.
type neighborCache struct {
	g   Graph
	key kgstore.SampleKey
	m   map[string][]int
}

func (c *neighborCache) get(ctx context.Context, name string) ([]int, error) {
	if ix, ok := c.m[name]; ok {
		return ix, nil
	}
	edges, err := c.g.Neighbors(ctx, c.key, name)
	if err != nil {
		return nil, err
	}
	ix := make([]int, 0, len(edges))
	for _, e := range edges {
		ix = append(ix, e.Index)
	}
	sort.Ints(ix)
	c.m[name] = ix
	return ix, nil
}

// Bridge relation classes: an edge of one of these kinds joins two names
// of one thing or a thing and its part, place or period, so evidence about
// one end may be evidence about the other (FORMATS.md §4 criterion 4).
var bridgeConcepts = map[string]bool{
	"contains": true, "member": true, "location": true, "headquarters": true, "period": true,
	"parent_company": true, "brand": true, "date": true, "country": true,
}

// bridgeWords name alias-like and part-like relations the concept table
// does not cover; English words match whole words, Chinese as substrings.
var bridgeWordsEn = []string{"alias", "also known as", "aka", "abbreviation", "acronym", "short name", "full name",
	"english name", "chinese name", "name", "title", "english title", "original name", "known as", "called",
	"part of", "belongs to", "belong to", "member of", "subsidiary", "division", "includes", "contains", "consists of",
	"located in", "is a", "type", "instance of", "category", "year", "period", "session", "edition", "held in"}

var bridgeWordsZh = []string{"别名", "简称", "全称", "英文名", "中文名", "英文标题", "中文标题", "名称", "又称", "原名", "译名", "标题",
	"属于", "隶属", "所属", "下属", "旗下", "包含", "包括", "组成", "成员", "位于", "类型", "类别", "年份", "时期", "届", "期间", "年度"}

// isBridge classifies a predicted relation as a bridge (kept on the text:
// graph expansion asks it of the same relations again and again).
func isBridge(rel *text) bool {
	if rel.bridge == 0 {
		rel.bridge = 1
		if bridgeOf(rel) {
			rel.bridge = 2
		}
	}
	return rel.bridge == 2
}

func bridgeOf(rel *text) bool {
	for _, c := range rel.concepts {
		if bridgeConcepts[c] {
			return true
		}
	}
	low := " " + strings.ToLower(rel.norm) + " "
	for _, w := range bridgeWordsEn {
		if strings.Contains(low, " "+w+" ") {
			return true
		}
	}
	for _, w := range bridgeWordsZh {
		if strings.Contains(rel.s, w) {
			return true
		}
	}
	return false
}
