package hierarchy

import (
	"math"
	"sort"

	"github.com/kgjudge/kgjudge/kg"
)

// graph is the adjacency view of a triple list.
type graph struct {
	nodes    []string            // sorted, non-empty heads and tails
	isEntity map[string]bool     // appears as a head somewhere
	out      map[string][]string // head -> tails in triple order (duplicates kept)
	in       map[string]int
	roots    []string // entities that are never a tail, sorted
}

func buildGraph(ts []kg.Triple) *graph {
	g := &graph{isEntity: map[string]bool{}, out: map[string][]string{}, in: map[string]int{}}
	seen := map[string]bool{}
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			g.nodes = append(g.nodes, n)
		}
	}
	for _, t := range ts {
		if t.Head == "" || t.Tail == "" {
			add(t.Head)
			add(t.Tail)
			continue
		}
		add(t.Head)
		add(t.Tail)
		g.isEntity[t.Head] = true
		g.out[t.Head] = append(g.out[t.Head], t.Tail)
		g.in[t.Tail]++
	}
	sort.Strings(g.nodes)
	for _, n := range g.nodes {
		if g.isEntity[n] && g.in[n] == 0 {
			g.roots = append(g.roots, n)
		}
	}
	return g
}

// levels is the shortest distance of every node from a root (roots are 0);
// nodes no root reaches are absent.
func (g *graph) levels() map[string]int {
	lvl := map[string]int{}
	queue := append([]string(nil), g.roots...)
	for _, r := range g.roots {
		lvl[r] = 0
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, t := range g.out[n] {
			if _, ok := lvl[t]; !ok {
				lvl[t] = lvl[n] + 1
				queue = append(queue, t)
			}
		}
	}
	return lvl
}

// depth is the longest entity-to-entity chain, in edges, over the graph whose
// strongly connected components are contracted (a cycle counts once).
func (g *graph) depth() int {
	// Tarjan's algorithm over entity -> entity edges.
	index := map[string]int{}
	low := map[string]int{}
	onStack := map[string]bool{}
	comp := map[string]int{}
	var stack []string
	next, ncomp := 0, 0
	var strong func(v string)
	strong = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range g.out[v] {
			if !g.isEntity[w] {
				continue
			}
			if _, ok := index[w]; !ok {
				strong(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[w] = ncomp
				if w == v {
					break
				}
			}
			ncomp++
		}
	}
	for _, n := range g.nodes {
		if g.isEntity[n] {
			if _, ok := index[n]; !ok {
				strong(n)
			}
		}
	}
	succ := make([]map[int]bool, ncomp)
	for i := range succ {
		succ[i] = map[int]bool{}
	}
	for _, n := range g.nodes {
		for _, t := range g.out[n] {
			if g.isEntity[t] && comp[n] != comp[t] {
				succ[comp[n]][comp[t]] = true
			}
		}
	}
	memo := make([]int, ncomp)
	for i := range memo {
		memo[i] = -1
	}
	var longest func(c int) int
	longest = func(c int) int {
		if memo[c] >= 0 {
			return memo[c]
		}
		best := 0
		for s := range succ[c] {
			best = max(best, 1+longest(s))
		}
		memo[c] = best
		return best
	}
	d := 0
	for c := 0; c < ncomp; c++ {
		d = max(d, longest(c))
	}
	return d
}

// components counts weakly connected components over all nodes.
func (g *graph) components() int {
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		if p, ok := parent[x]; ok && p != x {
			r := find(p)
			parent[x] = r
			return r
		}
		parent[x] = x
		return x
	}
	for _, n := range g.nodes {
		find(n)
	}
	for h, ts := range g.out {
		for _, t := range ts {
			a, b := find(h), find(t)
			if a != b {
				parent[a] = b
			}
		}
	}
	roots := map[string]bool{}
	for _, n := range g.nodes {
		roots[find(n)] = true
	}
	return len(roots)
}

// Structure is the shape of one graph.
type Structure struct {
	Triples   int `json:"triples"`
	Nodes     int `json:"nodes"`
	Entities  int `json:"entities"` // nodes that appear as a head
	Literals  int `json:"literals"` // nodes that only appear as a tail
	Relations int `json:"relation_types"`
	Roots     int `json:"roots"` // entities that are never a tail
	// Depth is the longest entity-to-entity chain in edges (cycles contracted).
	Depth int `json:"depth"`
	// MaxLevel is the largest shortest distance of a node from a root.
	MaxLevel int `json:"max_level"`
	// Branching is the mean number of triples per entity; MaxBranching the largest.
	Branching    float64 `json:"branching"`
	MaxBranching int     `json:"max_branching"`
	// EntityBranching is the mean number of distinct entity children per entity.
	EntityBranching float64 `json:"entity_branching"`
	EntityToEntity  int     `json:"entity_to_entity"`
	EntityToLiteral int     `json:"entity_to_literal"`
	// EntityShare is EntityToEntity / Triples.
	EntityShare float64 `json:"entity_share"`
	Components  int     `json:"components"`
	// Flatness is 1 - EntityShare * min(Depth, 4)/4: 1 for a star of
	// attributes, near 0 for a deep graph of linked entities.
	Flatness float64 `json:"flatness"`
}

// flatDepth is the depth at which a graph stops counting as flat.
const flatDepth = 4

// Measure computes the structure of a triple list.
func Measure(ts []kg.Triple) Structure {
	g := buildGraph(ts)
	s := Structure{Nodes: len(g.nodes), Roots: len(g.roots)}
	rels := map[string]bool{}
	for _, t := range ts {
		if t.Head == "" || t.Tail == "" {
			continue
		}
		s.Triples++
		rels[t.Relation] = true
		if g.isEntity[t.Tail] {
			s.EntityToEntity++
		} else {
			s.EntityToLiteral++
		}
	}
	s.Relations = len(rels)
	children := 0
	for _, n := range g.nodes {
		if !g.isEntity[n] {
			s.Literals++
			continue
		}
		s.Entities++
		s.MaxBranching = max(s.MaxBranching, len(g.out[n]))
		kids := map[string]bool{}
		for _, t := range g.out[n] {
			if g.isEntity[t] {
				kids[t] = true
			}
		}
		children += len(kids)
	}
	if s.Entities > 0 {
		s.Branching = round4(float64(s.Triples) / float64(s.Entities))
		s.EntityBranching = round4(float64(children) / float64(s.Entities))
	}
	if s.Triples > 0 {
		s.EntityShare = round4(float64(s.EntityToEntity) / float64(s.Triples))
	}
	s.Depth = g.depth()
	for _, l := range g.levels() {
		s.MaxLevel = max(s.MaxLevel, l)
	}
	s.Components = g.components()
	s.Flatness = round4(1 - float64(s.EntityToEntity)/math.Max(1, float64(s.Triples))*float64(min(s.Depth, flatDepth))/flatDepth)
	return s
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return round4(float64(a) / float64(b))
}
