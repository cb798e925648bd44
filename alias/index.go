package alias

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/kgjudge/kgjudge/kg"
)

// How says why a hit was returned. It is a hint for a judge or a report,
// never a verdict.
type How string

const (
	// HowExact: the same canonical form (Canon): "$19.99" for "19.99 USD".
	HowExact How = "exact"
	// HowAlias: in the query's alias set (GT node aliases, alias files), or
	// a same-language synonym from the concept table ("price" for "cost").
	HowAlias How = "alias"
	// HowPartial: shares analysed words or CJK bigrams with the query
	// ("Centara Grand Island Resort" for "Centara Grand Island Resort & Spa
	// Maldives").
	HowPartial How = "partial"
	// HowCrossLingual: names the same concept in the other language
	// ("交通方式及时间" for "Transfer & Duration").
	HowCrossLingual How = "crosslingual"
	// HowFuzzy: matched only through an edit-distance term (misspelling).
	HowFuzzy How = "fuzzy"
)

// Hit is one candidate for a query.
type Hit struct {
	Text  string  `json:"text"`
	Score float64 `json:"score"`
	How   How     `json:"how"`
}

// Boosts of the query parts; the exact field outranks everything.
const (
	boostExact     = 8.0
	boostText      = 1.0
	boostAliasText = 0.8
	boostConcept   = 2.0 // relations
	// boostEntityConcept is lower: entity names rarely name a concept, and
	// when they do (dimension nodes) text overlap is the better evidence.
	boostEntityConcept = 0.2
	boostFuzzy         = 0.3
	// batchSize is the number of documents per Bleve batch.
	batchSize = 512
	// extraHits are fetched beyond k so that ties at the cut are ordered
	// by text, not by Bleve's internal document order.
	extraHits = 16
	// maxFuzzyRunes is the longest word searched up to a typo. Bleve
	// builds a Levenshtein automaton per fuzzy term whose size grows with
	// the term: at ~700 letters it fails ("dfa contains more than 10000
	// states"), at 60,000 it exhausts memory. No real word is this long,
	// and a typo in a longer token is not what fuzzy search is for.
	maxFuzzyRunes = 32
	// maxFuzzyTerms bounds the fuzzy terms of one query (each costs an
	// automaton and a term-dictionary walk); the longest words are kept,
	// as they say the most.
	maxFuzzyTerms = 8
)

// Option configures Build.
type Option func(*config)

type config struct {
	concepts *Concepts
	known    Known
	// plainText keeps only the analysed text query (a TF-IDF prefilter);
	// tests use it as the baseline.
	plainText bool
}

// Known returns what the caller has already computed for a string it
// indexes or searches: Canon(kg.MatchText(s)) and the concepts table's
// Of(kg.MatchText(s)), or ok false when it has not seen s.
type Known func(s string) (key string, concepts []string, ok bool)

// WithKnown lets Build and the searches reuse the caller's analysis of its
// strings (a prefilter has every graph string's key and concepts already)
// instead of computing it again. The concepts must be those of the
// table given WithConcepts; the slices are only read.
func WithKnown(k Known) Option { return func(cfg *config) { cfg.known = k } }

// WithConcepts sets the concept table (default BuiltinConcepts()); pass
// BuiltinConcepts().With(userAliases.Concepts) to add an alias file's terms.
func WithConcepts(c *Concepts) Option { return func(cfg *config) { cfg.concepts = c } }

// Index is a Bleve index of one graph's entities and relations. It is safe
// for concurrent queries. Close it when done.
type Index struct {
	idx      bleve.Index
	analyzer analysis.Analyzer
	concepts *Concepts
	known    Known
	plain    bool
	docs     map[string]*doc // Bleve id -> document
	// aliases: exact key -> the alias sets (indices into sets) holding it.
	aliases map[string][]int
	sets    [][]string // members as given
	setKeys [][]string // members' exact keys
	// fuzzy caches each fuzzy word's dictionary terms (fuzzy.go).
	fuzzy *fuzzyCache
}

type doc struct {
	text string
	key  string
	// tokens are the analysed words, computed when a search first needs
	// them (most documents are never a hit that needs them).
	tokOnce  sync.Once
	tokens   map[string]bool
	concepts []string
	han      bool
}

// Build indexes entities (heads and tails) and relations of one graph, with
// alias sets (each a list of names for one thing: GT node name + aliases,
// alias-file sets). dir "" builds in memory; otherwise dir must not exist
// and the index is kept there (scorch). Duplicate strings are indexed once;
// empty strings are skipped.
func Build(ctx context.Context, dir string, entities, relations []string, aliases [][]string, opts ...Option) (*Index, error) {
	cfg := config{concepts: BuiltinConcepts()}
	for _, o := range opts {
		o(&cfg)
	}
	m, err := newMapping()
	if err != nil {
		return nil, err
	}
	// Scorch, also in memory: the upside_down index that bleve.NewMemOnly
	// uses has no thesaurus and silently ignores synonyms.
	idx, err := bleve.NewUsing(dir, m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("alias: create index %q: %w", dir, err)
	}
	ix := &Index{
		idx:      idx,
		analyzer: m.AnalyzerNamed(AnalyzerMixed),
		concepts: cfg.concepts,
		known:    cfg.known,
		plain:    cfg.plainText,
		docs:     map[string]*doc{},
		aliases:  map[string][]int{},
		fuzzy:    &fuzzyCache{m: map[fuzzyKey]*fuzzyHits{}},
	}
	if ix.analyzer == nil {
		idx.Close()
		return nil, errors.New("alias: analyzer not registered")
	}
	if err := ix.load(ctx, entities, relations, aliases); err != nil {
		idx.Close()
		return nil, err
	}
	return ix, nil
}

func (ix *Index) load(ctx context.Context, entities, relations []string, aliases [][]string) error {
	b := ix.idx.NewBatch()
	flush := func(force bool) error {
		if b.Size() == 0 || (!force && b.Size() < batchSize) {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := ix.idx.Batch(b); err != nil {
			return fmt.Errorf("alias: index batch: %w", err)
		}
		b.Reset()
		return nil
	}
	add := func(kind, prefix string, texts []string) error {
		seen := map[string]bool{}
		for _, t := range texts {
			if t == "" || seen[t] {
				continue
			}
			seen[t] = true
			id := prefix + strconv.Itoa(len(seen))
			// The document keeps t whole (hits return it); what is
			// analysed and indexed is the prefix matching reads.
			m := kg.MatchText(t)
			key, concepts := ix.keyConcepts(t, m)
			d := &doc{text: t, key: key, concepts: concepts, han: hasHan(m)}
			ix.docs[id] = d
			if err := b.Index(id, map[string]interface{}{
				fieldKind:    kind,
				fieldText:    m,
				fieldExact:   d.key,
				fieldConcept: d.concepts,
			}); err != nil {
				return fmt.Errorf("alias: index %q: %w", t, err)
			}
			if err := flush(false); err != nil {
				return err
			}
		}
		return nil
	}
	if err := add(kindEntity, "e", entities); err != nil {
		return err
	}
	if err := add(kindRelation, "r", relations); err != nil {
		return err
	}
	for _, set := range aliases {
		keys := distinctKeys(set)
		// Bleve pitfall 2: a definition left with one term makes every
		// search through the synonym source fail ("no synonyms found").
		// Sets with fewer than two distinct keys are not indexed.
		if len(keys) < 2 {
			continue
		}
		n := len(ix.sets)
		ix.sets = append(ix.sets, set)
		ix.setKeys = append(ix.setKeys, keys)
		for _, k := range keys {
			ix.aliases[k] = append(ix.aliases[k], n)
		}
		// Bleve pitfall 1: a synonym that analyses to several tokens is
		// dropped silently. The source's analyzer is keyword and every
		// synonym is an exact key (Canon, never empty): exactly one token.
		if err := b.IndexSynonym("s"+strconv.Itoa(n), SynonymCollection, &bleve.SynonymDefinition{Synonyms: keys}); err != nil {
			return fmt.Errorf("alias: alias set %q: %w", set, err)
		}
		if err := flush(false); err != nil {
			return err
		}
	}
	return flush(true)
}

const (
	kindEntity   = "entity"
	kindRelation = "relation"
)

// Close releases the Bleve index.
func (ix *Index) Close() error { return ix.idx.Close() }

// Entities returns the top k entities for query, best first (score
// descending, then text ascending).
func (ix *Index) Entities(ctx context.Context, q string, k int) ([]Hit, error) {
	return ix.search(ctx, kindEntity, q, k)
}

// Relations returns the top k relations for query, best first.
func (ix *Index) Relations(ctx context.Context, q string, k int) ([]Hit, error) {
	return ix.search(ctx, kindRelation, q, k)
}

// keyConcepts returns Canon(m) and the concepts of m, where m is
// kg.MatchText(s), from the caller's Known when it has them.
func (ix *Index) keyConcepts(s, m string) (string, []string) {
	if ix.known != nil {
		if k, c, ok := ix.known(s); ok {
			return k, c
		}
	}
	return Canon(m), ix.concepts.Of(m)
}

func (ix *Index) docTokens(d *doc) map[string]bool {
	d.tokOnce.Do(func() { d.tokens = ix.tokens(kg.MatchText(d.text)) })
	return d.tokens
}

func (ix *Index) tokens(s string) map[string]bool {
	out := map[string]bool{}
	for _, t := range ix.analyzer.Analyze([]byte(s)) {
		out[string(t.Term)] = true
	}
	return out
}

// aliasMembers returns the other members of the alias sets holding key.
func (ix *Index) aliasMembers(key string) (names []string, keys map[string]bool) {
	keys = map[string]bool{}
	for _, si := range ix.aliases[key] {
		for i, k := range ix.setKeys[si] {
			if k != key && !keys[k] {
				keys[k] = true
				names = append(names, ix.sets[si][i])
			}
		}
	}
	return names, keys
}

func (ix *Index) search(ctx context.Context, kind, q string, k int) ([]Hit, error) {
	if k <= 0 || q == "" {
		return nil, nil
	}
	orig := q
	q = kg.MatchText(q)
	key, qConcepts := ix.keyConcepts(orig, q)
	qTokens := ix.tokens(q)
	aliasNames, aliasKeys := ix.aliasMembers(key)

	var should []query.Query
	if key != "" {
		tq := bleve.NewTermQuery(key)
		tq.SetField(fieldExact)
		tq.SetBoost(boostExact)
		should = append(should, tq)
	}
	if len(qTokens) > 0 {
		mq := bleve.NewMatchQuery(q)
		mq.SetField(fieldText)
		mq.SetBoost(boostText)
		should = append(should, mq)
	}
	// Multi-word aliases are searched as text here, not through Bleve's
	// synonym expansion (which would drop them).
	aliasTokens := map[string]bool{}
	for _, name := range aliasNames {
		for t := range ix.tokens(name) {
			aliasTokens[t] = true
		}
		mq := bleve.NewMatchQuery(name)
		mq.SetField(fieldText)
		mq.SetBoost(boostAliasText)
		should = append(should, mq)
	}
	for _, c := range qConcepts {
		tq := bleve.NewTermQuery(c)
		tq.SetField(fieldConcept)
		tq.SetBoost(boostConcept)
		if kind == kindEntity {
			tq.SetBoost(boostEntityConcept)
		}
		should = append(should, tq)
	}
	for _, t := range fuzzyTerms(qTokens) {
		if n := utf8.RuneCountInString(t); n >= 5 {
			fuzziness := 1
			if n >= 9 {
				fuzziness = 2
			}
			if ix.fuzzy == nil { // Bleve's own, for the equivalence test
				fq := bleve.NewFuzzyQuery(t)
				fq.SetField(fieldText)
				fq.SetFuzziness(fuzziness)
				fq.SetBoost(boostFuzzy)
				should = append(should, fq)
				continue
			}
			should = append(should, newFuzzyQuery(ix.fuzzy, t, fuzziness, fieldText, boostFuzzy))
		}
	}
	if ix.plain {
		should = nil
		if len(qTokens) > 0 {
			mq := bleve.NewMatchQuery(q)
			mq.SetField(fieldText)
			should = append(should, mq)
		}
	}
	if len(should) == 0 {
		return nil, nil
	}
	filter := bleve.NewTermQuery(kind)
	filter.SetField(fieldKind)
	bq := query.NewBooleanQuery(nil, []query.Query{bleve.NewDisjunctionQuery(should...)}, nil)
	bq.AddFilter(filter)

	req := bleve.NewSearchRequestOptions(bq, k+extraHits, 0, false)
	res, err := ix.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("alias: search %q: %w", q, err)
	}
	hits := make([]Hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		d := ix.docs[h.ID]
		if d == nil {
			continue
		}
		hits = append(hits, Hit{Text: d.text, Score: h.Score, How: ix.how(d, key, qTokens, aliasKeys, aliasTokens, qConcepts, hasHan(q))})
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Text < hits[j].Text
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}

func (ix *Index) how(d *doc, key string, qTokens, aliasKeys, aliasTokens map[string]bool, qConcepts []string, qHan bool) How {
	switch {
	case d.key == key:
		return HowExact
	case aliasKeys[d.key]:
		return HowAlias
	case overlaps(ix.docTokens(d), qTokens):
		return HowPartial
	case overlaps(ix.docTokens(d), aliasTokens):
		return HowAlias
	case intersects(d.concepts, qConcepts):
		if d.han != qHan {
			return HowCrossLingual
		}
		return HowAlias
	default:
		return HowFuzzy
	}
}

func overlaps(a, b map[string]bool) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	for t := range a {
		if b[t] {
			return true
		}
	}
	return false
}

func intersects(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// fuzzyTerms are the query's Latin words searched up to a typo: words of
// 5 to maxFuzzyRunes letters, at most maxFuzzyTerms of them (the longest,
// ties in text order), in text order.
func fuzzyTerms(tokens map[string]bool) []string {
	var out []string
	for _, t := range sortedKeys(tokens) {
		if n := utf8.RuneCountInString(t); n >= 5 && n <= maxFuzzyRunes && latinWord([]byte(t)) {
			out = append(out, t)
		}
	}
	if len(out) > maxFuzzyTerms {
		sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
		out = out[:maxFuzzyTerms]
		sort.Strings(out)
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
