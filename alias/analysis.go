package alias

import (
	"fmt"
	"unicode"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	unicodetok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	porterstemmer "github.com/blevesearch/go-porterstemmer"
	"golang.org/x/text/unicode/norm"
)

// Names of the analysis components this package registers with Bleve's
// registry, so that a mapping (and a mapping file) can name them.
const (
	// CharFilterNFKC folds the input to Unicode NFKC before tokenising:
	// full-width letters, digits and punctuation become ASCII, compatibility
	// forms (①, ㎏, ℃) their plain spelling.
	CharFilterNFKC = "kgjudge_nfkc"
	// TokenFilterEnStem Porter-stems tokens made of Latin letters only and
	// leaves CJK, digits and mixed tokens alone.
	TokenFilterEnStem = "kgjudge_en_stem"
	// TokenFilterCJKBigram is Bleve's cjk_bigram with unigrams kept, so a
	// one-character query (价, 站) still matches.
	TokenFilterCJKBigram = "kgjudge_cjk_bigram_unigram"
	// AnalyzerMixed analyses mixed Chinese/English text: NFKC, Unicode
	// word segmentation, lower case, English stop words, CJK bigrams with
	// unigrams, English stemming.
	AnalyzerMixed = "kgjudge_mixed"
	// SynonymSource is the Bleve synonym source of the exact field; its
	// analyzer is keyword, so each alias is exactly one term.
	SynonymSource = "kgjudge_aliases"
	// SynonymCollection holds the alias-set definitions.
	SynonymCollection = "aliases"
)

// Field names of an indexed document.
const (
	fieldKind    = "kind"    // "entity" or "relation" (keyword)
	fieldText    = "text"    // AnalyzerMixed
	fieldExact   = "exact"   // Canon(text), keyword, with SynonymSource
	fieldConcept = "concept" // concept ids (keyword, multi-valued)
)

type nfkcCharFilter struct{}

func (nfkcCharFilter) Filter(in []byte) []byte { return norm.NFKC.Bytes(in) }

type enStemFilter struct{}

func (enStemFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	for _, tok := range in {
		if tok.KeyWord || !latinWord(tok.Term) {
			continue
		}
		tok.Term = analysis.BuildTermFromRunes(porterstemmer.StemWithoutLowerCasing([]rune(string(tok.Term))))
	}
	return in
}

func latinWord(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, r := range string(b) {
		if !unicode.In(r, unicode.Latin) || !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

func init() {
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(registry.RegisterCharFilter(CharFilterNFKC, func(map[string]interface{}, *registry.Cache) (analysis.CharFilter, error) {
		return nfkcCharFilter{}, nil
	}))
	must(registry.RegisterTokenFilter(TokenFilterEnStem, func(map[string]interface{}, *registry.Cache) (analysis.TokenFilter, error) {
		return enStemFilter{}, nil
	}))
}

// newMapping is the index mapping: one static document type with the four
// fields above, the mixed analyzer and the alias synonym source.
func newMapping() (*mapping.IndexMappingImpl, error) {
	m := bleve.NewIndexMapping()
	if err := m.AddCustomTokenFilter(TokenFilterCJKBigram, map[string]interface{}{
		"type":           cjk.BigramName,
		"output_unigram": true,
	}); err != nil {
		return nil, fmt.Errorf("alias: cjk bigram filter: %w", err)
	}
	if err := m.AddCustomAnalyzer(AnalyzerMixed, map[string]interface{}{
		"type":          custom.Name,
		"char_filters":  []string{CharFilterNFKC},
		"tokenizer":     unicodetok.Name,
		"token_filters": []string{lowercase.Name, en.StopName, TokenFilterCJKBigram, TokenFilterEnStem},
	}); err != nil {
		return nil, fmt.Errorf("alias: analyzer: %w", err)
	}
	if err := m.AddSynonymSource(SynonymSource, map[string]interface{}{
		"collection": SynonymCollection,
		"analyzer":   keyword.Name,
	}); err != nil {
		return nil, fmt.Errorf("alias: synonym source: %w", err)
	}

	kw := func() *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Store = false
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		f.DocValues = false
		return f
	}
	text := bleve.NewTextFieldMapping()
	text.Analyzer = AnalyzerMixed
	text.Store = false
	text.IncludeInAll = false
	text.IncludeTermVectors = false
	text.DocValues = false
	exact := kw()
	exact.SynonymSource = SynonymSource

	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(fieldKind, kw())
	doc.AddFieldMappingsAt(fieldText, text)
	doc.AddFieldMappingsAt(fieldExact, exact)
	doc.AddFieldMappingsAt(fieldConcept, kw())
	m.DefaultMapping = doc
	m.DefaultAnalyzer = AnalyzerMixed
	m.DefaultField = fieldText
	return m, nil
}
