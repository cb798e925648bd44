package hierarchy

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"github.com/kgjudge/kgjudge/kg"
)

//go:embed data/lexicon.tsv
var lexiconTSV []byte

// kindDimension marks an organizational term whose tails are category nodes.
const kindDimension = "dimension"

// LexiconEntry is one line of the embedded bilingual lexicon.
type LexiconEntry struct {
	// Kind is a Class name, "dimension" (organizational whose tails are
	// abstract category nodes) or "factual" (a veto for look-alike phrases).
	Kind    string `json:"kind"`
	Concept string `json:"concept"`
	Term    string `json:"term"`
	// norm is Term after the same folding as relations.
	norm  string
	ascii bool
}

// Class returns the class the entry votes for.
func (e LexiconEntry) Class() Class {
	if e.Kind == kindDimension {
		return Organizational
	}
	return Class(e.Kind)
}

// Lexicon is a set of terms; relations are matched against it.
type Lexicon struct {
	entries []LexiconEntry
}

var defaultLexicon = mustParseLexicon(lexiconTSV)

// DefaultLexicon returns the lexicon shipped in data/lexicon.tsv.
func DefaultLexicon() *Lexicon { return defaultLexicon }

func mustParseLexicon(b []byte) *Lexicon {
	l, err := ParseLexicon(b)
	if err != nil {
		panic(err)
	}
	return l
}

// ParseLexicon reads a lexicon in the data/lexicon.tsv format.
func ParseLexicon(b []byte) (*Lexicon, error) {
	valid := map[string]bool{kindDimension: true}
	for _, c := range Classes {
		valid[string(c)] = true
	}
	l := &Lexicon{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("lexicon line %d: want 3 tab-separated fields, got %d", n, len(f))
		}
		if !valid[f[0]] {
			return nil, fmt.Errorf("lexicon line %d: unknown class %q", n, f[0])
		}
		e := LexiconEntry{Kind: f[0], Concept: f[1], Term: f[2]}
		e.norm = foldTerm(f[2])
		e.ascii = isASCII(e.norm)
		if e.norm == "" {
			return nil, fmt.Errorf("lexicon line %d: empty term", n)
		}
		l.entries = append(l.entries, e)
	}
	return l, sc.Err()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// foldTerm normalizes text for lexicon matching: kg.Normalize (NFKC, lower
// case, punctuation and "_" as spaces), then a trailing plural "s" dropped
// from ASCII words longer than three letters (not "ss", "us", "is").
func foldTerm(s string) string {
	words := strings.Fields(kg.Normalize(strings.ReplaceAll(s, "_", " ")))
	for i, w := range words {
		if isASCII(w) && len(w) > 3 && strings.HasSuffix(w, "s") &&
			!strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") {
			words[i] = w[:len(w)-1]
		}
	}
	return strings.Join(words, " ")
}

// lexMatch is the lexicon's reading of one relation.
type lexMatch struct {
	Class   Class
	Kind    string
	Concept string
	Term    string
	Veto    string // factual term that vetoed an organizational/subjective match
}

// precedence orders the lexical classes: restated criteria and metadata are
// recognised before judgments, and those before scaffolding.
var precedence = map[Class]int{Meta: 0, Bibliographic: 1, Subjective: 2, Organizational: 3}

// Match returns all entries whose term occurs in rel.
func (l *Lexicon) Match(rel string) []LexiconEntry {
	folded := foldTerm(rel)
	spaced := " " + folded + " "
	var out []LexiconEntry
	for _, e := range l.entries {
		if e.ascii {
			if strings.Contains(spaced, " "+e.norm+" ") {
				out = append(out, e)
			}
		} else if strings.Contains(folded, e.norm) {
			out = append(out, e)
		}
	}
	return out
}

// classify reads rel with the lexicon alone. ok is false when no class term
// matches (or the only matches were vetoed).
func (l *Lexicon) classify(rel string) (m lexMatch, ok bool) {
	ms := l.Match(rel)
	var veto *LexiconEntry
	for i := range ms {
		if ms[i].Kind == string(Factual) && (veto == nil || len(ms[i].norm) > len(veto.norm)) {
			veto = &ms[i]
		}
	}
	var best *LexiconEntry
	for i := range ms {
		e := &ms[i]
		c := e.Class()
		if c == Factual {
			continue
		}
		// A factual phrase vetoes judgments and scaffolding; a measurement
		// (average, median, count) also vetoes metadata. Nothing vetoes meta.
		if veto != nil && !strings.Contains(e.norm, veto.norm) &&
			(c == Subjective || c == Organizational || (c == Bibliographic && veto.Concept == "measure")) {
			m.Veto = veto.Term
			continue
		}
		if best == nil || precedence[c] < precedence[best.Class()] ||
			(c == best.Class() && len(e.norm) > len(best.norm)) ||
			(c == best.Class() && len(e.norm) == len(best.norm) && e.Kind == kindDimension && best.Kind != kindDimension) {
			best = e
		}
	}
	if best == nil {
		return m, false
	}
	return lexMatch{Class: best.Class(), Kind: best.Kind, Concept: best.Concept, Term: best.Term}, true
}

// Entries returns a copy of the lexicon, sorted by kind, concept and term.
func (l *Lexicon) Entries() []LexiconEntry {
	out := append([]LexiconEntry(nil), l.entries...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		if out[i].Concept != out[j].Concept {
			return out[i].Concept < out[j].Concept
		}
		return out[i].Term < out[j].Term
	})
	return out
}
