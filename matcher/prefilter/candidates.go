package prefilter

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/kgjudge/kgjudge/alias"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
)

// Options configure candidate generation. The zero value is usable.
type Options struct {
	// Concepts is the relation-concept table (default alias.BuiltinConcepts()).
	Concepts *alias.Concepts
	// Aliases are extra alias sets (an alias file's); GT node aliases are
	// always used.
	Aliases [][]string
	// Graph serves graph expansion in the predicted graph (default: a
	// MemGraph of the prediction); Key names the sample in it.
	Graph Graph
	Key   kgstore.SampleKey
	// MaxCandidates caps each claim's candidate list (default DefaultMaxCandidates).
	MaxCandidates int
	// MinScore is the least score a candidate needs (default
	// DefaultMinScore); a claim whose best score is below it has no
	// candidates.
	MinScore float64
	// RelativeCut drops candidates scoring below RelativeCut times the
	// claim's best score (default DefaultRelativeCut).
	RelativeCut float64
	// NoIndex turns the Bleve retrieval stage off (entities are then
	// retrieved by the token and variant indexes alone); for measurement.
	NoIndex bool
	// Embedder turns the embedding stage on (embedstage.go); nil: off.
	Embedder Embedder
	// Embed tunes the embedding stage (zero: the defaults).
	Embed EmbedParams
}

// withDefaults fills the zero fields of o with the documented defaults.
func (o Options) withDefaults() Options {
	if o.Concepts == nil {
		o.Concepts = alias.BuiltinConcepts()
	}
	if o.MaxCandidates <= 0 {
		o.MaxCandidates = DefaultMaxCandidates
	}
	if o.MinScore <= 0 {
		o.MinScore = DefaultMinScore
	}
	if o.RelativeCut <= 0 {
		o.RelativeCut = DefaultRelativeCut
	}
	return o
}

// Ranking constants. A candidate is kept when its score is at least
// Options.MinScore and at least Options.RelativeCut times the claim's best
// score, up to the cap; a claim whose best score is below MinScore has no candidates (it is
// decided not covered without a judge call, FORMATS.md §4: nothing in the
// prediction mentions it).
const (
	// DefaultMaxCandidates: one more than the ten a claim's own-subject
	// triples usually fill, so that on a hub (one product, many facts) a
	// same-subject triple ranked just below same-kind facts about other
	// subjects is still shown; measured cost +0.01 x reference volume.
	DefaultMaxCandidates = 11
	// DefaultMinScore is about one exact entity match (1.0) less a little:
	// a bare shared entity, or a partial name with agreeing relation and
	// words, is enough to show a judge.
	DefaultMinScore = 0.8
	// DefaultRelativeCut keeps candidates within 40% of the best one.
	DefaultRelativeCut = 0.4
	// entityFloor drops weak entity matches; bridgeFloor is the least
	// match that lets an entity's bridge edges carry it one hop.
	entityFloor = 0.3
	bridgeFloor = 0.6
	bridgeDecay = 0.8
	// structureBelow: GT entities whose best name match is below it (no
	// name that is even a fair partial match) are also aligned by
	// neighbourhood (see align).
	structureBelow = 0.5
	// anchorFloor is the least match of one end that lets a concept-only
	// match of the other end count in full.
	anchorFloor = 0.5
	// maxFanout bounds how many matched predicted entities (best first) of
	// one GT entity are expanded through the graph.
	maxFanout = 12
)

// Weights of the head, tail, relation and bag-of-words signals, and the
// validity candidates' cap and least score.
const (
	wHead, wTail, wRel, wBag = 1.0, 1.0, 0.5, 1.5
	validityCap              = 5
	validityMinScore         = 0.9
)

// Candidate is one triple worth showing a judge for a claim: an index in
// the other graph, its score and the strongest signal that found it.
type Candidate struct {
	Index int     `json:"index"`
	Score float64 `json:"score"`
	Why   string  `json:"why"`
	// Cosine is the embedding cosine of the claim and the candidate
	// (TripleText of each), when the embedding stage is on.
	Cosine float64 `json:"cosine,omitempty"`
}

// Resolution is a claim decided without a judge (the deterministic tier).
type Resolution struct {
	Kind    kg.CoverageKind `json:"kind"`
	Support []int           `json:"support"`
	Reason  string          `json:"reason"`
}

// Claim is one GT triple (coverage) or predicted triple (validity) with its
// ranked candidates and, when the deterministic tier decided it, its
// resolution.
type Claim struct {
	Index      int         `json:"index"`
	Candidates []Candidate `json:"candidates"`
	Resolved   *Resolution `json:"resolved,omitempty"`
}

// Result is the prefilter's output for one sample.
type Result struct {
	GT   []Claim // one per GT triple, in order
	Pred []Claim // one per predicted triple, in order
}

// sample holds the features of one (task, prediction).
type sample struct {
	task  *kg.Task
	pred  *kg.Prediction
	texts map[string]*text
	idf   *idf
	// aliasOf: Canon key -> alias set ids.
	aliasOf map[string][]int
	// pred entity index: token -> pred entity strings; key/variant -> strings.
	predEnts  []string
	byToken   map[string][]int
	byVariant map[string][]int
	// byCaps: capitalised word -> pred entities; byAcro: initials -> pred
	// entities; byHanHead: first CJK character -> pred entities (with four
	// or more), for acronym and abbreviation look-ups.
	byCaps, byAcro map[string][]int
	byHanHead      map[rune][]int
	predTriTok     [][]string // tokens of each predicted triple (with concepts)
	predKey        []string   // kg.Triple.Key of each predicted triple
	triByToken     map[string][]int
	nb             *neighborCache
	entMatch       map[string]map[string]match // GT entity -> pred entity -> match
	gtNb           map[string][]int            // GT entity -> its GT triples
	// The Bleve stage (index.go): the index (nil with Options.NoIndex),
	// the alias sets it was given (aliasOf's ids), features of alias
	// members that are no graph string, and how many entity matches only
	// it found.
	ix        *alias.Index
	aliasSets [][]string
	extra     map[string]*text
	concepts  *alias.Concepts
	indexOnly int
	// emb is the embedding stage (nil when off).
	emb *embedStage
	// pool and whys are rank's scratch: the candidate set, reused for
	// every claim, and the candidates' why strings, built once each.
	pool, entPool candPool
	whys          whyCache
}

// candPool is a set of predicted-triple indices, cleared in O(1) between
// claims: mark[i] == gen means i is in list.
type candPool struct {
	mark []uint32
	gen  uint32
	list []int
}

func (p *candPool) reset(n int) *candPool {
	if len(p.mark) < n {
		p.mark = make([]uint32, n)
	}
	p.gen++
	if p.gen == 0 { // wrapped: no mark may look current
		clear(p.mark)
		p.gen = 1
	}
	p.list = p.list[:0]
	return p
}

func (p *candPool) add(i int) {
	if p.mark[i] != p.gen {
		p.mark[i] = p.gen
		p.list = append(p.list, i)
	}
}

// whyCache holds prefix + why for the few prefixes and whys there are.
type whyCache map[[2]string]string

func (c *whyCache) of(prefix, why string) string {
	if *c == nil {
		*c = whyCache{}
	}
	k := [2]string{prefix, why}
	w, ok := (*c)[k]
	if !ok {
		w = prefix + why
		(*c)[k] = w
	}
	return w
}

type match struct {
	score float64
	why   string
}

func (s *sample) text(str string) *text {
	if t, ok := s.texts[str]; ok {
		return t
	}
	return nil
}

// Build computes candidates for every claim of both passes and resolves the
// unambiguous coverage claims (see Resolve).
func Build(ctx context.Context, task *kg.Task, pred *kg.Prediction, o Options) (*Result, error) {
	o = o.withDefaults()
	s, err := newSample(ctx, task, pred, o)
	if err != nil {
		return nil, err
	}
	defer s.close()
	res := &Result{GT: make([]Claim, len(task.Triples)), Pred: make([]Claim, len(pred.Triples))}
	max := o.MaxCandidates
	reverse := make([][]Candidate, len(pred.Triples))
	for gi := range task.Triples {
		if gi%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		all, err := s.rank(ctx, task.Triples[gi].Triple)
		if err != nil {
			return nil, err
		}
		for _, c := range all {
			if c.Score >= validityMinScore {
				reverse[c.Index] = append(reverse[c.Index], Candidate{Index: gi, Score: c.Score, Why: c.Why, Cosine: c.Cosine})
			}
		}
		res.GT[gi] = Claim{Index: gi, Candidates: s.keepNearest(o.cut(all, max), all, s.nearestPred(task.Triples[gi].Triple), max, func(i int) float64 { return s.embedCosine(task.Triples[gi].Triple, i) }), Resolved: s.resolve(task.Triples[gi].Triple, all)}
	}
	for pi := range pred.Triples {
		res.Pred[pi] = Claim{Index: pi, Candidates: s.keepNearest(o.cut(sortCands(reverse[pi]), min(max, validityCap)), reverse[pi], s.nearestGT(pi), min(max, validityCap), func(g int) float64 { return s.embedCosine(task.Triples[g].Triple, pi) })}
	}
	// The deterministic tier's mirror for the validity pass: a predicted
	// triple that states a GT triple with the same head and tail (same
	// canonical key or one alias set) and a same-concept relation is
	// supported by the GT graph, so it is valid without a judge. A richer
	// predicted value ("Varun Gauri (Senior Economist ...)" for "Varun
	// Gauri") covers the GT triple but says more than the GT does: the
	// recorded judges call such triples invalid, so those go to a judge.
	same := func(a, b string) bool {
		ka, kb := s.text(a).key, s.text(b).key
		return ka != "" && (ka == kb || s.sameAlias(ka, kb))
	}
	for gi, c := range res.GT {
		if c.Resolved == nil {
			continue
		}
		g := task.Triples[gi].Triple
		for _, pi := range c.Resolved.Support {
			if p := pred.Triples[pi]; !same(p.Head, g.Head) || !same(p.Tail, g.Tail) {
				continue
			}
			r := res.Pred[pi].Resolved
			if r == nil {
				r = &Resolution{Kind: c.Resolved.Kind, Support: []int{}, Reason: "states a GT triple: " + c.Resolved.Reason}
				res.Pred[pi].Resolved = r
			}
			r.Support = append(r.Support, gi)
		}
	}
	return res, nil
}

func sortCands(c []Candidate) []Candidate {
	sort.Slice(c, func(i, j int) bool {
		if c[i].Score != c[j].Score {
			return c[i].Score > c[j].Score
		}
		return c[i].Index < c[j].Index
	})
	return c
}

// cut applies the documented cap to a ranked list.
func (o Options) cut(all []Candidate, max int) []Candidate {
	out := []Candidate{}
	if len(all) == 0 || all[0].Score < o.MinScore {
		return out
	}
	best := all[0].Score
	for _, c := range all {
		if len(out) == max || c.Score < o.MinScore || c.Score < o.RelativeCut*best {
			break
		}
		out = append(out, c)
	}
	return out
}

func newSample(ctx context.Context, task *kg.Task, pred *kg.Prediction, o Options) (*sample, error) {
	concepts := o.Concepts
	g := o.Graph
	if g == nil {
		g = NewMemGraph(pred)
	}
	s := &sample{
		task: task, pred: pred, texts: map[string]*text{}, idf: newIDF(),
		aliasOf: map[string][]int{}, byToken: map[string][]int{}, byVariant: map[string][]int{},
		triByToken: map[string][]int{}, byCaps: map[string][]int{}, byAcro: map[string][]int{},
		byHanHead: map[rune][]int{},
		nb:        &neighborCache{g: g, key: o.Key, m: map[string][]int{}},
		entMatch:  map[string]map[string]match{},
		extra:     map[string]*text{}, concepts: concepts,
	}
	add := func(str string) *text {
		t := s.texts[str]
		if t == nil {
			t = newText(str, concepts)
			s.texts[str] = t
		}
		return t
	}
	triTok := func(h, r, t *text) []string {
		var all []string
		all = append(all, h.toks...)
		all = append(all, r.toks...)
		all = append(all, t.toks...)
		all = append(all, r.ctoks...)
		all = append(all, h.ctoks...)
		all = append(all, t.ctoks...)
		sort.Strings(all)
		return dedup(all)
	}
	s.gtNb = map[string][]int{}
	for i, t := range task.Triples {
		s.idf.add(triTok(add(t.Head), add(t.Relation), add(t.Tail)))
		s.gtNb[t.Head] = append(s.gtNb[t.Head], i)
		if t.Tail != t.Head {
			s.gtNb[t.Tail] = append(s.gtNb[t.Tail], i)
		}
	}
	seenEnt := map[string]bool{}
	var rels []string
	s.predTriTok = make([][]string, len(pred.Triples))
	s.predKey = make([]string, len(pred.Triples))
	for i, t := range pred.Triples {
		h, r, tl := add(t.Head), add(t.Relation), add(t.Tail)
		s.predKey[i] = tripleKey(h, r, tl)
		if r.s != "" && !seenEnt["\x00"+r.s] {
			seenEnt["\x00"+r.s] = true
			rels = append(rels, r.s)
		}
		toks := triTok(h, r, tl)
		s.predTriTok[i] = toks
		s.idf.add(toks)
		for _, tok := range toks {
			s.triByToken[tok] = append(s.triByToken[tok], i)
		}
		for _, e := range []*text{h, tl} {
			if e.s == "" || seenEnt[e.s] {
				continue
			}
			seenEnt[e.s] = true
			id := len(s.predEnts)
			s.predEnts = append(s.predEnts, e.s)
			for _, tok := range e.toks {
				s.byToken[tok] = append(s.byToken[tok], id)
			}
			for _, v := range e.variants {
				s.byVariant[v] = append(s.byVariant[v], id)
			}
			s.indexLoose(e, id)
			for _, c := range e.ctoks {
				s.byToken[c] = append(s.byToken[c], id)
			}
			for _, c := range e.caps {
				s.byCaps[c] = append(s.byCaps[c], id)
			}
			if e.acro != "" {
				s.byAcro[e.acro] = append(s.byAcro[e.acro], id)
			}
			if len(e.hanRunes) >= 4 {
				s.byHanHead[e.hanRunes[0]] = append(s.byHanHead[e.hanRunes[0]], id)
			}
		}
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
	sets := alias.GTAliasSets(task.Nodes)
	sets = append(sets, o.Aliases...)
	for si, set := range sets {
		for _, name := range set {
			k := alias.Canon(name)
			s.aliasOf[k] = append(s.aliasOf[k], si)
		}
	}
	s.aliasSets = sets
	if !o.NoIndex {
		if err := s.buildIndex(ctx, rels, sets, concepts); err != nil {
			return nil, err
		}
	}
	if o.Embedder != nil {
		st, err := newEmbedStage(ctx, o.Embedder, o.Embed, task, pred)
		if err != nil {
			s.close()
			return nil, err
		}
		s.emb = st
	}
	return s, nil
}

// sameAlias reports whether two keys are in one alias set.
func (s *sample) sameAlias(a, b string) bool {
	for _, x := range s.aliasOf[a] {
		for _, y := range s.aliasOf[b] {
			if x == y {
				return true
			}
		}
	}
	return false
}

// matchEntity scores how well predicted entity x could name GT entity e.
func (s *sample) matchEntity(e, x *text) match {
	switch {
	case e.key == "" || x.key == "":
		return match{}
	case e.key == x.key:
		return match{1, "exact"}
	case s.sameAlias(e.key, x.key):
		return match{1, "alias"}
	case intersects(e.variants, x.variants):
		return match{0.9, "alias"}
	}
	best := match{}
	up := func(score float64, why string) {
		if score > best.score {
			best = match{score, why}
		}
	}
	if m := looseMatch(e, x); m.score > 0 {
		up(m.score, m.why)
	}
	le, lx := float64(utf8.RuneCountInString(e.key)), float64(utf8.RuneCountInString(x.key))
	if containsName(x.key, e.key) { // the GT name inside a richer predicted one
		up(0.45+0.45*math.Sqrt(le/lx), "literal")
	}
	if containsName(e.key, x.key) { // a partial predicted name
		up(0.4+0.4*math.Sqrt(lx/le), "partial")
	}
	for _, v := range x.variants {
		if v != x.key && containsName(e.key, v) {
			up(0.35+0.4*math.Sqrt(float64(utf8.RuneCountInString(v))/le), "partial")
		}
	}
	se, sx := s.tokSum(e), s.tokSum(x)
	if se > 0 && sx > 0 {
		sh := s.idf.shared(e.toks, x.toks)
		if sh > 0 {
			dice := 2 * sh / (se + sx)
			rec := sh / se
			up(0.8*(dice+rec)/2, "partial")
			if sh >= sx*0.999 { // every word of the predicted name is in the GT name
				up(0.35+0.4*math.Sqrt(sx/se), "partial")
			}
		}
	}
	// Acronyms: the initials of one name are a capitalised word of the
	// other ("Special Drawing Rights" / "SDR", "东加勒比货币联盟（ECCU）").
	// The acronym standing alone (a whole name or name part) is as good as
	// an alias; inside a longer name it scores like a contained name.
	acronym := func(acro string, caps, vars []string, other string) {
		if acro == "" || !contains(caps, acro) {
			return
		}
		if contains(vars, acro) {
			up(0.9, "acronym")
			return
		}
		lo := float64(utf8.RuneCountInString(other))
		up(0.45+0.45*math.Sqrt(math.Min(1, float64(len(acro))/lo)), "acronym")
	}
	acronym(e.acro, x.caps, x.variants, x.key)
	acronym(x.acro, e.caps, e.variants, e.key)
	// Chinese abbreviation by deletion, either way round.
	if n := hanAbbrev(x.hanRunes, e.hanRunes); n > 0 {
		up(0.35+0.4*math.Sqrt(float64(n)/float64(len(e.hanRunes)))-0.1*float64(len(x.hanRunes)-n), "partial")
	}
	if n := hanAbbrev(e.hanRunes, x.hanRunes); n > 0 {
		up(0.35+0.4*math.Sqrt(float64(n)/float64(len(x.hanRunes)))-0.1*float64(len(e.hanRunes)-n), "partial")
	}
	if len(e.concepts) > 0 && intersects(e.concepts, x.concepts) {
		why := "concept"
		if e.han != x.han {
			why = "crosslingual"
		}
		up(0.4+0.3*jaccard(e.concepts, x.concepts), why)
	}
	return best
}

// contains reports whether sorted list a holds x.
func contains(a []string, x string) bool {
	i := sort.SearchStrings(a, x)
	return i < len(a) && a[i] == x
}

func jaccard(a, b []string) float64 {
	inter := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	u := len(a) + len(b) - inter
	if u == 0 {
		return 0
	}
	return float64(inter) / float64(u)
}

// entities returns the predicted entities that could name GT entity name,
// including those one bridge edge away from a strong match.
func (s *sample) entities(ctx context.Context, name string) (map[string]match, error) {
	if m, ok := s.entMatch[name]; ok {
		return m, nil
	}
	e := s.text(name)
	out := map[string]match{}
	if e == nil || e.key == "" {
		s.entMatch[name] = out
		return out, nil
	}
	cand := s.entPool.reset(len(s.predEnts))
	for _, tok := range e.toks {
		for _, id := range s.byToken[tok] {
			cand.add(id)
		}
	}
	for _, c := range e.ctoks {
		for _, id := range s.byToken[c] {
			cand.add(id)
		}
	}
	for _, v := range e.variants {
		for _, id := range s.byVariant[v] {
			cand.add(id)
		}
	}
	if e.acro != "" {
		for _, id := range s.byCaps[e.acro] {
			cand.add(id)
		}
	}
	for _, c := range e.caps {
		for _, id := range s.byAcro[c] {
			cand.add(id)
		}
	}
	if len(e.hanRunes) >= 4 {
		for _, id := range s.byHanHead[e.hanRunes[0]] {
			cand.add(id)
		}
	}
	for _, k := range s.aliasKeys(e.key) {
		for _, id := range s.byVariant[k] {
			cand.add(id)
		}
	}
	s.lookupLoose(e, cand)
	for _, id := range cand.list {
		x := s.texts[s.predEnts[id]]
		if m := s.matchEntity(e, x); m.score >= entityFloor {
			out[x.s] = m
		}
	}
	// Names that do not cross languages: align by neighbourhood.
	best := 0.0
	for _, m := range out {
		best = math.Max(best, m.score)
	}
	if err := s.indexed(ctx, e, out); err != nil {
		return nil, err
	}
	if best < structureBelow {
		al, err := s.align(ctx, e)
		if err != nil {
			return nil, err
		}
		for x, m := range al {
			if m.score > out[x].score {
				out[x] = m
			}
		}
	}
	// One hop along bridge edges from the strongest matches.
	strong := topMatches(out, maxFanout)
	for _, x := range strong {
		m := out[x]
		if m.score < bridgeFloor {
			break
		}
		idx, err := s.nb.get(ctx, x)
		if err != nil {
			return nil, fmt.Errorf("prefilter: neighbors of %q: %w", x, err)
		}
		for _, i := range idx {
			t := s.pred.Triples[i]
			if !isBridge(s.texts[t.Relation]) {
				continue
			}
			other := t.Head
			if other == x {
				other = t.Tail
			}
			if other == "" || other == x {
				continue
			}
			if b := m.score * bridgeDecay; b > out[other].score {
				out[other] = match{b, "bridge"}
			}
		}
	}
	s.entMatch[name] = out
	return out, nil
}

func (s *sample) aliasKeys(key string) []string {
	var out []string
	for _, si := range s.aliasOf[key] {
		for k, sets := range s.aliasOf {
			for _, x := range sets {
				if x == si && k != key {
					out = append(out, k)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

func topMatches(m map[string]match, k int) []string {
	out := make([]string, 0, len(m))
	for x := range m {
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool {
		if m[out[i]].score != m[out[j]].score {
			return m[out[i]].score > m[out[j]].score
		}
		return out[i] < out[j]
	})
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// relMatch scores a predicted relation against a GT relation.
func (s *sample) relMatch(r, pr *text) float64 {
	switch {
	case r.key != "" && r.key == pr.key:
		return 1
	case intersects(r.concepts, pr.concepts):
		return 1
	case r.relCore != "" && (r.relCore == pr.key || r.relCore == pr.relCore) || pr.relCore != "" && pr.relCore == r.key,
		intersects(r.loose, pr.loose) || contains(r.loose, pr.key) || contains(pr.loose, r.key):
		return 0.9
	}
	sr, sp := s.tokSum(r), s.tokSum(pr)
	if sr == 0 || sp == 0 {
		return 0
	}
	sh := s.idf.shared(r.toks, pr.toks)
	return 0.8 * 2 * sh / (sr + sp)
}

// rank scores every predicted triple that could cover gt, best first.
func (s *sample) rank(ctx context.Context, gt kg.Triple) ([]Candidate, error) {
	h, r, t := s.text(gt.Head), s.text(gt.Relation), s.text(gt.Tail)
	mh, err := s.entities(ctx, gt.Head)
	if err != nil {
		return nil, err
	}
	mt, err := s.entities(ctx, gt.Tail)
	if err != nil {
		return nil, err
	}
	pool := s.pool.reset(len(s.pred.Triples))
	for _, m := range []map[string]match{mh, mt} {
		for _, x := range topMatches(m, maxFanout) {
			idx, err := s.nb.get(ctx, x)
			if err != nil {
				return nil, fmt.Errorf("prefilter: neighbors of %q: %w", x, err)
			}
			for _, i := range idx {
				pool.add(i)
			}
		}
	}
	// Bag of words: predicted triples sharing a distinctive token.
	var gtoks []string
	gtoks = append(gtoks, h.toks...)
	gtoks = append(gtoks, r.toks...)
	gtoks = append(gtoks, t.toks...)
	for _, x := range []*text{h, r, t} {
		gtoks = append(gtoks, x.ctoks...)
	}
	sort.Strings(gtoks)
	gtoks = dedup(gtoks)
	gsum := s.idf.sum(gtoks)
	for _, tok := range gtoks {
		if l := s.triByToken[tok]; len(l) <= 40 {
			for _, i := range l {
				pool.add(i)
			}
		}
	}
	s.embedPool(gt, pool)
	out := make([]Candidate, 0, len(pool.list))
	for _, i := range pool.list {
		p := s.pred.Triples[i]
		hm := maxMatch(mh[p.Head], mh[p.Tail])
		tm := maxMatch(mt[p.Tail], mt[p.Head])
		if p.Head == p.Tail || gt.Head == gt.Tail {
			tm.score = math.Min(tm.score, 1)
		}
		// A concept-only match (the same kind of value: "中性肤质" and
		// "油皮/混油皮" are both skin types) says nothing about which
		// thing the triple is about; unanchored by the other end it is
		// half evidence, so triples about the claim's own subject outrank
		// same-kind facts about other subjects. A weak partial name (a
		// shared generic word such as "粉底液") is no anchor.
		ha, ta := anchors(hm), anchors(tm)
		if !ha && conceptOnly(tm.why) {
			tm.score /= 2
		}
		if !ta && conceptOnly(hm.why) {
			hm.score /= 2
		}
		rm := s.relMatch(r, s.texts[p.Relation])
		bm := 0.0
		if gsum > 0 {
			bm = s.idf.shared(gtoks, s.predTriTok[i]) / gsum
		}
		eb := s.embedBonus(gt, i)
		score := wHead*hm.score + wTail*tm.score + wRel*rm + wBag*bm + eb
		why := "text"
		switch {
		case eb > 0 && hm.score < anchorFloor && tm.score < anchorFloor:
			why = "embed"
		case hm.score >= tm.score && hm.score > 0:
			why = s.whys.of("head:", hm.why)
		case tm.score > 0:
			why = s.whys.of("tail:", tm.why)
		}
		out = append(out, Candidate{Index: i, Score: round3(score), Why: why, Cosine: s.embedCosine(gt, i)})
	}
	return sortCands(out), nil
}

func conceptOnly(why string) bool {
	why = strings.TrimPrefix(why, indexPrefix)
	return why == "concept" || why == "crosslingual"
}

// anchors reports whether an entity match names the thing (not only its
// kind) well enough to anchor the other end's concept-only match.
func anchors(m match) bool { return m.score >= anchorFloor && !conceptOnly(m.why) }

func maxMatch(a, b match) match {
	if b.score > a.score {
		return b
	}
	return a
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
