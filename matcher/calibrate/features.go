package calibrate

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/kgjudge/kgjudge/alias"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/matcher/prefilter"
	"github.com/kgjudge/kgjudge/matcher/rules"
)

// Similarity is the optional embedding source: the cosine of each pair's
// texts (a claim and one of its candidates, each rendered "head relation
// tail"). Featurize calls it once per sample with every claim-candidate
// pair of both passes, so an implementation batches and caches. Without
// one the cosine features are 0 and has_cosine is 0.
type Similarity interface {
	Cosines(ctx context.Context, pairs []TextPair) ([]float64, error)
}

// TextPair is one claim text and one candidate text.
type TextPair struct{ Claim, Candidate string }

// TripleText is how a triple is rendered for Similarity.
func TripleText(t kg.Triple) string { return t.Head + " " + t.Relation + " " + t.Tail }

// Feature names, in vector order. The model file names the features it
// was fitted on; these are all that Featurize computes.
const (
	fTierExact = iota
	fTierResolved
	fRuleDirect
	fRuleSubsumption
	fRuleCollective
	fRuleCompositional
	fRuleCited // validity: a rule-covered GT claim cites this triple (direct)
	fNCands
	fTopScore
	fHRT
	fHT
	fHR
	fRT
	fHMax
	fRMax
	fTMax
	fFlatHT
	fTIn
	fTRevIn
	fNumEq
	fNumUnitEq
	fNumMismatch
	fValConflict
	fYesNo
	fCount
	fInverse
	fCatHead
	fTailEnt
	fHeadEnt
	fTwoHop
	fOneHop
	fSupportN
	fCollectiveFrac
	fTailInTriple
	fCrossScript
	fBag
	fHeadDeg
	fTailLen
	fHeadInOther
	fTailInOther
	fTokInOther
	fCited
	fHasCosine
	fCosMax
	fCosBest
	fAnchorCover
	fLCS
	fGloss
	fRelCtx
	fCatTail
	fHeadClash
	fBestOther
	fValueWords
	numFeatures
)

// FeatureNames are the names of the feature vector's entries.
var FeatureNames = [numFeatures]string{
	"tier_exact", "tier_resolved", "rule_direct", "rule_subsumption", "rule_collective", "rule_compositional", "rule_cited",
	"n_cands", "top_score", "hrt", "ht", "hr", "rt", "h_max", "r_max", "t_max", "flat_ht", "t_in", "t_rev_in",
	"num_eq", "num_unit_eq", "num_mismatch", "val_conflict", "yes_no", "count", "inverse", "category_head", "tail_entity",
	"head_entity", "two_hop", "one_hop", "support_n", "collective_frac", "tail_in_triple", "cross_script", "bag",
	"head_degree", "tail_length", "head_in_other", "tail_in_other", "tokens_in_other", "cited", "has_cosine", "cos_max", "cos_best", "anchored_cover", "lcs",
	"gloss", "rel_context", "category_tail", "head_clash", "best_other",
	"value_words",
}

// FeatureDoc says in a few words what each feature measures (for reasons
// and the calibrate report).
var FeatureDoc = map[string]string{
	"tier_exact":         "the same triple after normalisation",
	"tier_resolved":      "deterministic tier: alias-equivalent head and tail, same relation concept",
	"rule_direct":        "direct rule (same head and tail, same relation concept, or inverse)",
	"rule_subsumption":   "subsumption rule (value inside a richer value, list membership)",
	"rule_collective":    "collective rule (value parts spread over triples)",
	"rule_compositional": "compositional rule (path through an explicit bridge edge)",
	"rule_cited":         "a rule-covered GT triple cites it",
	"n_cands":            "number of candidates",
	"top_score":          "best prefilter score",
	"hrt":                "one candidate matches head, relation and tail",
	"ht":                 "one candidate matches head and tail",
	"hr":                 "one candidate matches head and relation",
	"rt":                 "one candidate matches relation and tail",
	"h_max":              "best head match",
	"r_max":              "best relation match",
	"t_max":              "best value match",
	"flat_ht":            "head and tail equal ignoring spaces",
	"t_in":               "value contained in a candidate's value",
	"t_rev_in":           "candidate's value contained in the value",
	"num_eq":             "same number",
	"num_unit_eq":        "same number and unit (unit may sit in the relation)",
	"num_mismatch":       "same head and relation, different number",
	"val_conflict":       "same head and relation, different value",
	"yes_no":             "reified yes/no attribute stated",
	"count":              "count attribute matches the number of listed values",
	"inverse":            "the same fact read backwards",
	"category_head":      "category or list head whose member is present",
	"tail_entity":        "the value appears as an entity",
	"head_entity":        "the head appears as an entity",
	"two_hop":            "two-hop path through a bridge edge",
	"one_hop":            "value reached through one edge from the head",
	"support_n":          "several candidates support it together",
	"collective_frac":    "share of the value's parts found",
	"tail_in_triple":     "value written inside a candidate triple",
	"cross_script":       "claim and best candidate in different scripts",
	"bag":                "word overlap of whole triples",
	"head_degree":        "triples of the same head",
	"tail_length":        "length of the value",
	"head_in_other":      "the head is an entity of the other graph",
	"tail_in_other":      "the value is an entity of the other graph",
	"tokens_in_other":    "share of words found in the other graph",
	"cited":              "a rule-covered claim cites it",
	"has_cosine":         "embedding similarity available",
	"cos_max":            "best embedding cosine",
	"cos_best":           "embedding cosine of the best candidate",
	"anchored_cover":     "share of the claim's words in a candidate that shares one of its entities",
	"lcs":                "CJK names and values sharing most characters in order",
	"gloss":              "head or value equal once a bracketed gloss is dropped",
	"rel_context":        "same value; the candidate's relation words are in the claim's head or relation (or the reverse)",
	"category_tail":      "the value is a list node of several claims and the head is present",
	"head_clash":         "the same relation and value are stated of another named entity only",
	"best_other":         "the best candidate's head is another entity of the claim's graph",
	"value_words":        "share of the value's words stated in the relation or value of a candidate of the same head",
}

// Options configure Featurize.
type Options struct {
	Concepts   *alias.Concepts
	Aliases    [][]string
	Similarity Similarity
	// Embedder turns the prefilter's embedding stage on (nil: off).
	Embedder prefilter.Embedder
}

// Claim is one claim's features and what the deterministic tier and the
// rules decided about it.
type Claim struct {
	X []float64
	// Tier: decided by the deterministic tier (exact triple or prefilter
	// resolution); Rule: what today's rules decided.
	Tier     bool
	TierWhy  string
	Rule     rules.Decision
	Best     []int // candidate indices (other graph) of the best pair(s)
	Parts    []int // candidates holding a part of a composite value
	NumCands int
	// Shown are the claim's prefilter candidates (other graph's indices,
	// in rank order), kept on the verdict for reports.
	Shown []int
}

// Sample is one (task, prediction) featurized.
type Sample struct {
	Coverage []Claim
	Validity []Claim
	NGT      int
	NPred    int
	Cosine   bool
}

// Featurize runs the prefilter and today's rules on one sample and
// computes every claim's features.
func Featurize(ctx context.Context, task *kg.Task, pred *kg.Prediction, o Options) (*Sample, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res, err := prefilter.Build(ctx, task, pred, prefilter.Options{Concepts: o.Concepts, Aliases: o.Aliases, Embedder: o.Embedder})
	if err != nil {
		return nil, err
	}
	rs := rules.New(o.Concepts, append(alias.GTAliasSets(task.Nodes), o.Aliases...))
	EquateAligned(rs, task, pred, res)
	x := newExtractor(task, pred, res, rs)
	x.concepts = o.Concepts
	if x.concepts == nil {
		x.concepts = alias.BuiltinConcepts()
	}
	s := &Sample{NGT: len(task.Triples), NPred: len(pred.Triples)}
	// The loops check ctx every few claims, so a cancelled run stops within
	// a few hundred milliseconds even on a huge sample.
	x.ctx = ctx
	s.Coverage = x.coverage()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.Validity = x.validity()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i := range s.Coverage {
		s.Coverage[i].Shown = candidateIndices(res.GT[i].Candidates)
	}
	for i := range s.Validity {
		s.Validity[i].Shown = candidateIndices(res.Pred[i].Candidates)
	}
	if o.Similarity != nil {
		if err := x.cosines(ctx, o.Similarity, s); err != nil {
			return nil, fmt.Errorf("calibrate: similarity: %w", err)
		}
		s.Cosine = true
	}
	return s, nil
}

type extractor struct {
	ctx    context.Context
	task   *kg.Task
	pred   *kg.Prediction
	res    *prefilter.Result
	rs     *rules.Rules
	cache  strCache
	memoE  map[[2]*str]float64
	memoR  map[[2]*str]float64
	memoV  map[[2]*str]float64
	memoIn map[[2]*str]bool
	memoL  map[[2]*str]float64
	// concepts of relation strings, computed once each.
	concepts *alias.Concepts
	relC     map[*str][]string
	triToks  map[kg.Triple]map[string]struct{}
	// Predicted graph adjacency: entity -> triple indices touching it.
	adj map[string][]int
	// GT head degree, and GT / predicted entity flat forms and tokens.
	gtDeg, gtTailDeg   map[string]int
	gtEnts, predEnts   map[string]bool
	gtToks, predToks   map[string]struct{}
	predByKey, gtByKey map[string][]int
	covRule            []rules.Decision
	citedDirect, cited map[int]bool
	covCands, valCands [][]int
}

func newExtractor(task *kg.Task, pred *kg.Prediction, res *prefilter.Result, rs *rules.Rules) *extractor {
	x := &extractor{task: task, pred: pred, res: res, rs: rs, cache: strCache{},
		memoE: map[[2]*str]float64{}, memoR: map[[2]*str]float64{}, memoV: map[[2]*str]float64{},
		memoIn: map[[2]*str]bool{}, memoL: map[[2]*str]float64{}, relC: map[*str][]string{}, triToks: map[kg.Triple]map[string]struct{}{},
		adj: map[string][]int{}, gtDeg: map[string]int{}, gtTailDeg: map[string]int{}, gtEnts: map[string]bool{}, predEnts: map[string]bool{},
		gtToks: map[string]struct{}{}, predToks: map[string]struct{}{}, predByKey: map[string][]int{}, gtByKey: map[string][]int{},
		citedDirect: map[int]bool{}, cited: map[int]bool{}}
	for i, t := range pred.Triples {
		x.adj[t.Head] = append(x.adj[t.Head], i)
		if t.Tail != t.Head {
			x.adj[t.Tail] = append(x.adj[t.Tail], i)
		}
		for _, s := range []string{t.Head, t.Tail} {
			x.predEnts[x.cache.get(s).flat] = true
		}
		for _, s := range []string{t.Head, t.Relation, t.Tail} {
			for tok := range x.cache.get(s).toks {
				x.predToks[tok] = struct{}{}
			}
		}
		x.predByKey[t.Key()] = append(x.predByKey[t.Key()], i)
	}
	for i, g := range task.Triples {
		t := g.Triple
		x.gtDeg[t.Head]++
		x.gtTailDeg[t.Tail]++
		for _, s := range []string{t.Head, t.Tail} {
			x.gtEnts[x.cache.get(s).flat] = true
		}
		for _, s := range []string{t.Head, t.Relation, t.Tail} {
			for tok := range x.cache.get(s).toks {
				x.gtToks[tok] = struct{}{}
			}
		}
		x.gtByKey[t.Key()] = append(x.gtByKey[t.Key()], i)
	}
	return x
}

// ent scores two entity names in [0, 1].
func (x *extractor) ent(a, b *str) float64 {
	k := [2]*str{a, b}
	if v, ok := x.memoE[k]; ok {
		return v
	}
	var v float64
	switch {
	case a.canon == "" || b.canon == "":
	case a.canon == b.canon || a.flat == b.flat:
		v = 1
	case x.rs.SameEntity(a.raw, b.raw):
		v = 0.95
	case abbrev(a, b):
		v = 0.85
	case flatIn(a, b) || flatIn(b, a):
		// One name inside the other (rules.SameSubject without a second
		// SameEntity): "彩棠" in "彩棠TIMAGE".
		v = 0.75
	case glossInline(a, b) || glossInline(b, a):
		v = 0.85
	default:
		v = math.Max(math.Max(0.6*partialName(a, b), 0.7*jaccard(a.toks, b.toks)), 0.7*x.lcs(a, b))
	}
	x.memoE[k] = v
	return v
}

// rel scores two relations in [0, 1].
func (x *extractor) rel(a, b *str) float64 {
	k := [2]*str{a, b}
	if v, ok := x.memoR[k]; ok {
		return v
	}
	var v float64
	switch {
	case a.canon == "" || b.canon == "":
	case a.canon == b.canon || a.flat == b.flat || stripUnit(a) == stripUnit(b):
		v = 1
	case x.sameConcept(a, b):
		v = 0.9
	case flatIn(a, b) || flatIn(b, a):
		v = 0.7
	default:
		v = 0.8 * jaccard(a.toks, b.toks)
	}
	x.memoR[k] = v
	return v
}

// sameConcept: the relations share a relation concept (rules.SameRelation's
// concept test, with each relation's concepts computed once).
func (x *extractor) sameConcept(a, b *str) bool {
	ca, ok := x.relC[a]
	if !ok {
		ca = x.concepts.Of(a.raw)
		x.relC[a] = ca
	}
	cb, ok := x.relC[b]
	if !ok {
		cb = x.concepts.Of(b.raw)
		x.relC[b] = cb
	}
	for _, p := range ca {
		for _, q := range cb {
			if p == q {
				return true
			}
		}
	}
	return false
}

// valueIn is rules.ValueIn, once per pair.
func (x *extractor) valueIn(a, b *str) bool {
	k := [2]*str{a, b}
	if v, ok := x.memoIn[k]; ok {
		return v
	}
	// ValueIn needs shared text unless the values are aliases (val asks
	// SameValue for those first): skip the costly call without any.
	v := false
	if shareToken(a.toks, b.toks) || strings.Contains(b.flat, a.flat) || strings.Contains(a.flat, b.flat) {
		v = x.rs.ValueIn(a.raw, b.raw)
	}
	x.memoIn[k] = v
	return v
}

func (x *extractor) lcs(a, b *str) float64 {
	k := [2]*str{a, b}
	if v, ok := x.memoL[k]; ok {
		return v
	}
	v := lcsRatio(a, b)
	x.memoL[k] = v
	return v
}

// tripleToks is the union of a triple's tokens, once per triple.
func (x *extractor) tripleToks(t kg.Triple) map[string]struct{} {
	if u, ok := x.triToks[t]; ok {
		return u
	}
	u := map[string]struct{}{}
	for _, s := range []string{t.Head, t.Relation, t.Tail} {
		for tok := range x.cache.get(s).toks {
			u[tok] = struct{}{}
		}
	}
	x.triToks[t] = u
	return u
}

// val scores claim value a against candidate value b in [0, 1].
func (x *extractor) val(a, b *str) float64 {
	k := [2]*str{a, b}
	if v, ok := x.memoV[k]; ok {
		return v
	}
	var v float64
	switch {
	case a.canon == "" || b.canon == "":
	case a.canon == b.canon || a.flat == b.flat || x.rs.SameValue(a.raw, b.raw):
		v = 1
	case a.hasNum && b.hasNum && a.num == b.num && (a.unit == b.unit || a.unit == "" || b.unit == ""):
		v = 0.95
	case a.yes && b.yes || a.no && b.no:
		v = 0.9
	case x.valueIn(a, b):
		v = 0.8
	case x.valueIn(b, a):
		v = 0.6
	default:
		v = math.Max(0.7*jaccard(a.toks, b.toks), 0.6*x.lcs(a, b))
	}
	x.memoV[k] = v
	return v
}

// pairFeats are the features of one claim against one candidate.
type pairFeats struct {
	h, r, t, inv     float64
	flat             bool
	tIn, tRevIn      bool
	numEq, numUnit   bool
	numMis, confl    bool
	yesNo            bool
	tailInTriple     bool
	tailEnt, headEnt float64
	cross            bool
	bag              float64
	cover, lcs       float64
	gloss            bool
	relCtx           float64
	valWords         float64
}

// pair computes the features of claim c against candidate p.
func (x *extractor) pair(c, p kg.Triple) pairFeats {
	ch, cr, ct := x.cache.get(c.Head), x.cache.get(c.Relation), x.cache.get(c.Tail)
	ph, pr, pt := x.cache.get(p.Head), x.cache.get(p.Relation), x.cache.get(p.Tail)
	var f pairFeats
	f.h, f.r, f.t = x.ent(ch, ph), x.rel(cr, pr), x.val(ct, pt)
	f.inv = math.Min(x.ent(ch, pt), math.Max(x.val(ct, ph), x.ent(ct, ph)))
	f.flat = ch.flat == ph.flat && ct.flat == pt.flat && ch.flat != ""
	if f.h >= 0.6 {
		f.tIn = x.valueIn(ct, pt) && ct.canon != pt.canon
		f.tRevIn = x.valueIn(pt, ct) && ct.canon != pt.canon
		if ct.hasNum && pt.hasNum {
			f.numEq = ct.num == pt.num
			if f.numEq {
				uc, up := ct.unit, pt.unit
				if uc == "" {
					uc = relUnit(cr)
				}
				if up == "" {
					up = relUnit(pr)
				}
				f.numUnit = uc == up || uc == "" || up == ""
			}
			f.numMis = !f.numEq && f.r >= 0.8
		}
		f.confl = f.r >= 0.8 && f.t < 0.3
		// Reified yes/no: "X | 是否提供早餐 | 是" by "X | 提供 | 早餐" or
		// "X | 早餐 | 含".
		if ct.yes || ct.no {
			if q, ok := yesNoRel(cr); ok && q != "" {
				all := pr.flat + pt.flat
				if strings.Contains(all, q) || strings.Contains(q, pr.flat) && pr.runes >= 2 {
					f.yesNo = ct.yes && !pt.no || ct.no && (pt.no || strings.HasPrefix(pt.flat, "不") || strings.HasPrefix(pt.flat, "no"))
				}
			}
			if f.r >= 0.8 && (ct.yes && pt.yes || ct.no && pt.no) {
				f.yesNo = true
			}
		}
		all := ph.flat + pr.flat + pt.flat
		f.tailInTriple = ct.runes >= 2 && strings.Contains(all, ct.flat)
	}
	f.tailEnt = math.Max(x.ent(ct, ph), x.ent(ct, pt))
	f.headEnt = math.Max(f.h, x.ent(ch, pt))
	f.cross = ch.han != ph.han || ct.han != pt.han
	cu, pu := x.tripleToks(c), x.tripleToks(p)
	f.bag, f.cover = jaccard(cu, pu), coverFrac(cu, pu)
	if anchor := max(f.h, x.ent(ch, pt), x.ent(ct, ph), x.ent(ct, pt)); anchor < 0.8 {
		f.cover = 0
	}
	f.lcs = math.Min(x.lcs(ch, ph), math.Max(x.lcs(ct, pt), f.t))
	// A value paraphrased around its words, some of them moved into the
	// relation: "Tecmed v. Mexico | FET standard | Legitimate Expectations
	// Protection" by "Tecmed v. Mexico (2003) | legitimate expectations |
	// protected under FET". Of the same head, and two words or more
	// (one word is t_max's and tail_in_triple's).
	if len(ct.toks) >= 2 && f.h >= 0.6 {
		f.valWords = coverFrac(ct.toks, union2(pr.toks, pt.toks))
	}
	f.gloss = glossEq(ch, ph) || glossEq(ct, pt) || glossEq(ch, pt) || glossEq(ct, ph)
	// A qualifier moved between head and relation: "CleanImplant Trusted
	// Quality certified implant | certified system | AnyRidge" by "MegaGen
	// | CleanImplant certified system | Anyridge"; "导师" / "博士论文导师".
	if f.t >= 0.8 && f.r < 0.9 {
		f.relCtx = math.Max(coverFrac(pr.toks, union2(ch.toks, cr.toks)), coverFrac(cr.toks, union2(ph.toks, pr.toks)))
		if len(pr.toks) == 0 || len(cr.toks) == 0 {
			f.relCtx = 0
		}
	}
	return f
}

// union2 is a's and b's tokens together (a fresh set).
func union2(a, b map[string]struct{}) map[string]struct{} {
	u := make(map[string]struct{}, len(a)+len(b))
	for t := range a {
		u[t] = struct{}{}
	}
	for t := range b {
		u[t] = struct{}{}
	}
	return u
}

var bridgeWords = []string{"alias", "also known as", "abbreviation", "short name", "full name", "name", "part of", "belongs to", "member of",
	"includes", "include", "contains", "located in", "location", "brand", "parent", "subsidiary", "owner", "owned by", "is a", "type", "category",
	"别名", "简称", "全称", "英文名", "中文名", "名称", "又称", "原名", "属于", "隶属", "所属", "旗下", "包含", "包括", "成员", "位于", "品牌", "类型", "类别", "子公司", "母公司"}

func isBridge(rel string) bool {
	low := strings.ToLower(rel)
	for _, w := range bridgeWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

var memberWords = []string{"include", "contain", "member", "candidate", "recommend", "option", "list", "has ", "feature", "consist",
	"包含", "包括", "推荐", "候选", "成员", "选项", "清单", "列表", "上榜", "入选", "有", "涵盖", "组成"}

func isMember(rel string) bool {
	low := strings.ToLower(rel)
	for _, w := range memberWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// claimFeats aggregates a claim's pair features over its candidates.
// other is the graph the candidates index.
func (x *extractor) claimFeats(c kg.Triple, cands []prefilter.Candidate, other func(int) kg.Triple, coverage bool) (fv []float64, best []int, parts []int) {
	fv = make([]float64, numFeatures)
	fv[fNCands] = math.Log1p(float64(len(cands))) / math.Log(12)
	if len(cands) > 0 {
		fv[fTopScore] = math.Min(cands[0].Score/4, 1)
	}
	ct := x.cache.get(c.Tail)
	// own: the entities of the claim's graph.
	own := x.gtEnts
	if !coverage {
		own = x.predEnts
	}
	bestScore := -1.0
	nSupport := 0
	clash, headHold := false, false
	var headMatches []string
	type pf struct {
		idx int
		f   pairFeats
	}
	pfs := make([]pf, 0, len(cands))
	for _, cd := range cands {
		p := other(cd.Index)
		f := x.pair(c, p)
		pfs = append(pfs, pf{cd.Index, f})
		hrt := min(f.h, f.r, f.t)
		ht, hr, rt := min(f.h, f.t), min(f.h, f.r), min(f.r, f.t)
		fv[fHRT] = math.Max(fv[fHRT], hrt)
		fv[fHT] = math.Max(fv[fHT], ht)
		fv[fHR] = math.Max(fv[fHR], hr)
		fv[fRT] = math.Max(fv[fRT], rt)
		fv[fHMax] = math.Max(fv[fHMax], f.h)
		fv[fRMax] = math.Max(fv[fRMax], f.r)
		fv[fTMax] = math.Max(fv[fTMax], f.t)
		fv[fInverse] = math.Max(fv[fInverse], f.inv)
		fv[fTailEnt] = math.Max(fv[fTailEnt], f.tailEnt)
		fv[fHeadEnt] = math.Max(fv[fHeadEnt], f.headEnt)
		fv[fBag] = math.Max(fv[fBag], f.bag)
		fv[fAnchorCover] = math.Max(fv[fAnchorCover], f.cover)
		fv[fLCS] = math.Max(fv[fLCS], f.lcs)
		fv[fFlatHT] = math.Max(fv[fFlatHT], b2f(f.flat))
		fv[fTIn] = math.Max(fv[fTIn], b2f(f.tIn))
		fv[fTRevIn] = math.Max(fv[fTRevIn], b2f(f.tRevIn))
		fv[fNumEq] = math.Max(fv[fNumEq], b2f(f.numEq))
		fv[fNumUnitEq] = math.Max(fv[fNumUnitEq], b2f(f.numUnit && f.r >= 0.5))
		fv[fNumMismatch] = math.Max(fv[fNumMismatch], b2f(f.numMis))
		fv[fValConflict] = math.Max(fv[fValConflict], b2f(f.confl))
		fv[fYesNo] = math.Max(fv[fYesNo], b2f(f.yesNo))
		fv[fTailInTriple] = math.Max(fv[fTailInTriple], b2f(f.tailInTriple))
		fv[fGloss] = math.Max(fv[fGloss], b2f(f.gloss))
		fv[fRelCtx] = math.Max(fv[fRelCtx], f.relCtx)
		fv[fValueWords] = math.Max(fv[fValueWords], f.valWords)
		if f.r >= 0.8 && f.t >= 0.8 && f.h < 0.6 {
			clash = true
		}
		if f.h >= 0.85 && f.t >= 0.6 {
			headHold = true
		}
		if hrt >= 0.5 || ht >= 0.6 || rt >= 0.7 && f.h >= 0.3 {
			nSupport++
		}
		score := hrt + 0.5*ht + 0.3*rt + 0.2*f.inv + 0.05*f.bag
		if score > bestScore {
			bestScore = score
			best = []int{cd.Index}
			fv[fCrossScript] = b2f(f.cross)
			// "魅可聚光瓶粉底液 | 持妆时长 | 24h" best matched by
			// "彩棠小圆管粉底液2.0 | 持妆时长 | 24小时", itself a GT product.
			ph := x.cache.get(p.Head)
			fv[fBestOther] = b2f(coverage && f.h < 0.85 && ph.flat != x.cache.get(c.Head).flat && own[ph.flat])
		}
		if p := other(cd.Index); f.h >= 0.8 {
			headMatches = append(headMatches, p.Head)
		} else if x.ent(x.cache.get(c.Head), x.cache.get(p.Tail)) >= 0.8 {
			headMatches = append(headMatches, p.Tail)
		}
	}
	fv[fSupportN] = math.Log1p(float64(nSupport)) / math.Log(6)
	if coverage {
		fv[fHeadClash] = b2f(clash && !headHold)
	} else {
		fv[fGloss], fv[fRelCtx] = 0, 0
	}
	// Category tail: "香奈儿 | 上榜 | 淘宝销量Top20品牌", where the value is a
	// list node several GT claims point to and the head is present.
	if coverage && x.gtTailDeg[c.Tail] >= 3 {
		fv[fCatTail] = fv[fHMax]
	}
	// Collective: the value's parts over candidates of the same head.
	if ps := valueParts(c.Tail); len(ps) > 1 {
		found := 0
		seen := map[int]bool{}
		for _, part := range ps {
			pk := x.cache.get(part)
			hit := false
			for _, q := range pfs {
				if q.f.h < 0.6 {
					continue
				}
				pt := x.cache.get(other(q.idx).Tail)
				if pt.flat == pk.flat || flatIn(pk, pt) {
					hit = true
					if !seen[q.idx] {
						seen[q.idx] = true
						parts = append(parts, q.idx)
					}
				}
			}
			if hit {
				found++
			}
		}
		fv[fCollectiveFrac] = float64(found) / float64(len(ps))
	}
	// Count attribute: "X | championships | 3" by three triples of X with
	// that relation, or by a value listing three items.
	if ct.hasNum && ct.unit == "" && len(ct.num) <= 2 {
		n := 0
		for _, q := range pfs {
			if q.f.h >= 0.8 && q.f.r >= 0.5 && !x.cache.get(other(q.idx).Tail).hasNum {
				n++
			}
		}
		if fmt.Sprint(n) == ct.num {
			fv[fCount] = 1
		}
		for _, q := range pfs {
			if q.f.h >= 0.8 && q.f.r >= 0.5 && fmt.Sprint(len(valueParts(other(q.idx).Tail))) == ct.num {
				fv[fCount] = 1
			}
		}
	}
	// Category head: a list or topic node whose member is present.
	if coverage && isMember(c.Relation) && x.gtDeg[c.Head] >= 3 {
		fv[fCatHead] = fv[fTailEnt]
	}
	fv[fHeadDeg] = math.Log1p(float64(x.gtDeg[c.Head])) / math.Log(50)
	fv[fTailLen] = math.Min(math.Log1p(float64(ct.runes))/math.Log(64), 1)
	// Paths: the value reached from an entity matching the head through
	// one predicted edge (bridge or any).
	if coverage && len(headMatches) > 0 {
		nb := map[string]bool{}
		nbBridge := map[string]bool{}
		for _, h := range headMatches {
			for _, i := range x.adj[h] {
				t := x.pred.Triples[i]
				o := t.Tail
				if o == h {
					o = t.Head
				}
				nb[o] = true
				if isBridge(t.Relation) {
					nbBridge[o] = true
				}
				if x.val(ct, x.cache.get(t.Tail)) >= 0.8 && t.Head == h {
					fv[fOneHop] = math.Max(fv[fOneHop], 0.5)
				}
			}
		}
		for _, q := range pfs {
			p := other(q.idx)
			if q.f.t >= 0.8 && q.f.r >= 0.5 {
				if nbBridge[p.Head] {
					fv[fTwoHop] = 1
				} else if nb[p.Head] {
					fv[fOneHop] = 1
				}
			}
		}
	}
	// Presence in the other graph.
	ents, toks := x.predEnts, x.predToks
	if !coverage {
		ents, toks = x.gtEnts, x.gtToks
	}
	fv[fHeadInOther] = b2f(ents[x.cache.get(c.Head).flat])
	fv[fTailInOther] = b2f(ents[ct.flat])
	fv[fTokInOther] = coverFrac(x.tripleToks(c), toks)
	return fv, best, parts
}

// valueParts splits a composite value ("USD, EUR", "A / B", "A和B").
func valueParts(s string) []string {
	// The bounded prefix matching reads (kg.MaxMatchBytes): a tail of
	// 200,000 listed items was 200,000 parts, each compared with every
	// candidate (210 s for one claim).
	ps := strings.FieldsFunc(kg.MatchText(s), func(r rune) bool {
		return strings.ContainsRune(",，、;；/／|+＋", r)
	})
	var out []string
	for _, p := range ps {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (x *extractor) coverage() []Claim {
	out := make([]Claim, len(x.task.Triples))
	x.covRule = make([]rules.Decision, len(x.task.Triples))
	x.covCands = make([][]int, len(x.task.Triples))
	predT := func(i int) kg.Triple { return x.pred.Triples[i] }
	for gi, g := range x.task.Triples {
		if gi%64 == 0 && x.ctx.Err() != nil {
			return nil
		}
		gt := g.Triple
		c := x.res.GT[gi]
		cl := Claim{NumCands: len(c.Candidates)}
		fv, best, parts := x.claimFeats(gt, c.Candidates, predT, true)
		cl.Best, cl.Parts = best, parts
		switch {
		case len(x.predByKey[gt.Key()]) > 0:
			fv[fTierExact] = 1
			cl.Tier, cl.TierWhy = true, "same triple after normalisation"
			cl.Rule = rules.Decision{Covered: true, Kind: kg.KindDirect, Support: x.predByKey[gt.Key()], Reason: cl.TierWhy}
			fv[fTierResolved] = b2f(c.Resolved != nil)
		case c.Resolved != nil:
			fv[fTierResolved] = 1
			cl.Tier, cl.TierWhy = true, c.Resolved.Reason
			cl.Rule = rules.Decision{Covered: true, Kind: c.Resolved.Kind, Support: c.Resolved.Support, Reason: c.Resolved.Reason}
		default:
			cands := make([]rules.Indexed, len(c.Candidates))
			for i, cd := range c.Candidates {
				cands[i] = rules.Indexed{Index: cd.Index, Triple: x.pred.Triples[cd.Index]}
			}
			cl.Rule = x.rs.Cover(gt, cands, x.pred.Triples)
		}
		if cl.Rule.Covered {
			switch cl.Rule.Kind {
			case kg.KindDirect:
				fv[fRuleDirect] = 1
				for _, pi := range cl.Rule.Support {
					x.citedDirect[pi] = true
				}
			case kg.KindSubsumption:
				fv[fRuleSubsumption] = 1
			case kg.KindCollective:
				fv[fRuleCollective] = 1
			case kg.KindCompositional:
				fv[fRuleCompositional] = 1
			}
			for _, pi := range cl.Rule.Support {
				x.cited[pi] = true
			}
		}
		x.covRule[gi] = cl.Rule
		for _, cd := range c.Candidates {
			x.covCands[gi] = append(x.covCands[gi], cd.Index)
		}
		cl.X = fv
		out[gi] = cl
	}
	return out
}

func (x *extractor) validity() []Claim {
	out := make([]Claim, len(x.pred.Triples))
	x.valCands = make([][]int, len(x.pred.Triples))
	gtT := func(i int) kg.Triple { return x.task.Triples[i].Triple }
	for pi, p := range x.pred.Triples {
		if pi%256 == 0 && x.ctx.Err() != nil {
			return nil
		}
		c := x.res.Pred[pi]
		cl := Claim{NumCands: len(c.Candidates)}
		fv, best, _ := x.claimFeats(p, c.Candidates, gtT, false)
		cl.Best = best
		switch {
		case len(x.gtByKey[p.Key()]) > 0:
			fv[fTierExact] = 1
			cl.Tier, cl.TierWhy = true, "same triple after normalisation"
			cl.Rule = rules.Decision{Covered: true, Kind: kg.KindDirect, Support: x.gtByKey[p.Key()], Reason: cl.TierWhy}
		case c.Resolved != nil:
			fv[fTierResolved] = 1
			cl.Tier, cl.TierWhy = true, c.Resolved.Reason
			cl.Rule = rules.Decision{Covered: true, Kind: kg.KindDirect, Support: c.Resolved.Support, Reason: c.Resolved.Reason}
		default:
			cands := make([]rules.Indexed, len(c.Candidates))
			for i, cd := range c.Candidates {
				cands[i] = rules.Indexed{Index: cd.Index, Triple: x.task.Triples[cd.Index].Triple}
			}
			cl.Rule = x.rs.Valid(p, cands)
			if !cl.Rule.Covered && x.citedDirect[pi] {
				var sup []int
				for gi, d := range x.covRule {
					if d.Covered && d.Kind == kg.KindDirect && containsInt(d.Support, pi) {
						sup = append(sup, gi)
					}
				}
				cl.Rule = rules.Decision{Covered: true, Kind: kg.KindDirect, Support: sup, Reason: "it states a GT triple the coverage rules found covered"}
			}
		}
		if cl.Rule.Covered {
			fv[fRuleDirect] = 1
		}
		fv[fRuleCited] = b2f(x.citedDirect[pi])
		fv[fCited] = b2f(x.cited[pi])
		cl.X = fv
		out[pi] = cl
	}
	return out
}

func containsInt(xs []int, v int) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

// cosines asks the similarity source once for every claim-candidate pair
// and fills the cosine features.
func (x *extractor) cosines(ctx context.Context, sim Similarity, s *Sample) error {
	var pairs []TextPair
	type ref struct{ pass, claim, cand int }
	var refs []ref
	for gi, g := range x.task.Triples {
		for _, pi := range x.covCands[gi] {
			pairs = append(pairs, TextPair{TripleText(g.Triple), TripleText(x.pred.Triples[pi])})
			refs = append(refs, ref{0, gi, pi})
		}
	}
	for pi, p := range x.pred.Triples {
		for _, cd := range x.res.Pred[pi].Candidates {
			pairs = append(pairs, TextPair{TripleText(p), TripleText(x.task.Triples[cd.Index].Triple)})
			refs = append(refs, ref{1, pi, cd.Index})
		}
	}
	cos, err := sim.Cosines(ctx, pairs)
	if err != nil {
		return err
	}
	if len(cos) != len(pairs) {
		return fmt.Errorf("%d cosines for %d pairs", len(cos), len(pairs))
	}
	for _, claims := range [][]Claim{s.Coverage, s.Validity} {
		for i := range claims {
			claims[i].X[fHasCosine] = 1
		}
	}
	for i, r := range refs {
		claims := s.Coverage
		if r.pass == 1 {
			claims = s.Validity
		}
		cl := &claims[r.claim]
		cl.X[fCosMax] = math.Max(cl.X[fCosMax], cos[i])
		if len(cl.Best) > 0 && cl.Best[0] == r.cand {
			cl.X[fCosBest] = cos[i]
		}
	}
	return nil
}

// candidateIndices are the indices of a claim's prefilter candidates, in
// rank order (nil when there are none).
func candidateIndices(cs []prefilter.Candidate) []int {
	if len(cs) == 0 {
		return nil
	}
	out := make([]int, len(cs))
	for i, c := range cs {
		out[i] = c.Index
	}
	return out
}
