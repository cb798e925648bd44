package rules

import (
	"sort"

	"github.com/kgjudge/kgjudge/alias"
	"github.com/kgjudge/kgjudge/kg"
)

// The rules compare one sample's few hundred distinct names and relations
// with each other many times over (every claim with each of its candidates,
// every compositional path with the whole graph), and what they derive
// from a string (its Canon key, name parts, relation concepts, segments)
// costs far more than the comparison. A Rules value therefore keeps what it
// derived, per distinct string, for as long as it lives: one sample, since
// the offline judge builds a Rules per sample and drops it after. Nothing
// is kept at package level, so nothing outlives the sample.

// strInfo is what the rules derived from one string; each field is filled
// on first use.
type strInfo struct {
	canon string

	norm   string
	hasNrm bool

	parts    []string // see parts
	hasParts bool

	concepts    []string
	hasConcepts bool

	stem    string // timeStem
	hasStem bool

	// Relation word classes: 0 not yet known, 1 no, 2 yes.
	agent, authorAgent, authorAct, bridge int8
}

type relPair struct{ a, b string }

// memo is the per-Rules cache (see above). The zero value is ready.
type memo struct {
	str  map[string]*strInfo
	segs map[string][]string // Canon key -> its segments, sorted
	same map[relPair]bool    // SameRelation
	inv  map[relPair]bool    // Inverse
}

func (r *Rules) info(s string) *strInfo {
	if in, ok := r.m.str[s]; ok {
		return in
	}
	if r.m.str == nil {
		r.m.str = map[string]*strInfo{}
	}
	in := &strInfo{canon: alias.Canon(s)}
	r.m.str[s] = in
	return in
}

func (r *Rules) canon(s string) string { return r.info(s).canon }

func (r *Rules) norm(s string) string {
	in := r.info(s)
	if !in.hasNrm {
		in.norm, in.hasNrm = kg.Normalize(s), true
	}
	return in.norm
}

// parts is the package function parts, kept per string. The slice is
// shared: callers only read it.
func (r *Rules) parts(s string) []string {
	in := r.info(s)
	if !in.hasParts {
		in.parts, in.hasParts = parts(s), true
	}
	return in.parts
}

func (r *Rules) conceptsOf(s string) []string {
	in := r.info(s)
	if !in.hasConcepts {
		in.concepts, in.hasConcepts = r.concepts.Of(s), true
	}
	return in.concepts
}

func (r *Rules) timeStem(s string) string {
	in := r.info(s)
	if !in.hasStem {
		in.stem, in.hasStem = timeStem(s), true
	}
	return in.stem
}

// flag memoises a yes/no property of a string.
func flag(f *int8, compute func() bool) bool {
	if *f == 0 {
		*f = 1
		if compute() {
			*f = 2
		}
	}
	return *f == 2
}

func (r *Rules) isAgent(rel string) bool {
	return flag(&r.info(rel).agent, func() bool { return isAgent(rel) })
}

func (r *Rules) authorAgent(rel string) bool {
	return flag(&r.info(rel).authorAgent, func() bool { return hasWord(rel, authorAgent) })
}

func (r *Rules) authorAct(rel string) bool {
	return flag(&r.info(rel).authorAct, func() bool { return hasWord(rel, authorAct) })
}

func (r *Rules) isBridge(rel string) bool {
	return flag(&r.info(rel).bridge, func() bool { return isBridge(rel) })
}

// sortedSegments is segments(key), sorted, kept per key. The slice is
// shared: callers only read it.
func (r *Rules) sortedSegments(key string) []string {
	if s, ok := r.m.segs[key]; ok {
		return s
	}
	if r.m.segs == nil {
		r.m.segs = map[string][]string{}
	}
	s := segments(key)
	sort.Strings(s)
	r.m.segs[key] = s
	return s
}
