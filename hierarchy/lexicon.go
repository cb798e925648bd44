package hierarchy

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

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
	// Where is "relation" (the term is looked for in the relation), "exact"
	// (the whole relation must be the term), "head" (the term is looked
	// for in the head: a node named "User criteria" or "Tier 2"), "tail"
	// (in the value: an evaluative marker, a verification status) or
	// "category" (the whole relation, from an abstract category node).
	Where string `json:"where"`
	// Why is the reason for the decision, from the data file.
	Why string `json:"why,omitempty"`
	// norm is Term after the same folding as relations.
	norm  string
	ascii bool
	// spaced is " "+norm+" ", for whole-word matching of ASCII terms.
	spaced string
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
	// byPlace holds the entries of each place ("relation", with the exact
	// entries, "head", "tail"), in file order: a match scans only its place.
	byPlace map[string][]LexiconEntry
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
	l := &Lexicon{byPlace: map[string][]LexiconEntry{}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 3 || len(f) > 4 {
			return nil, fmt.Errorf("lexicon line %d: want 3 or 4 tab-separated fields (class, concept, term, why), got %d", n, len(f))
		}
		if !valid[f[0]] {
			return nil, fmt.Errorf("lexicon line %d: unknown class %q", n, f[0])
		}
		e := LexiconEntry{Kind: f[0], Concept: f[1], Term: f[2], Where: "relation"}
		if len(f) == 4 {
			e.Why = f[3]
		}
		switch {
		case strings.HasPrefix(e.Term, "head:"):
			e.Where, e.Term = "head", strings.TrimPrefix(e.Term, "head:")
		case strings.HasPrefix(e.Term, "tail:"):
			e.Where, e.Term = "tail", strings.TrimPrefix(e.Term, "tail:")
		case strings.HasPrefix(e.Term, "category:"):
			e.Where, e.Term = "category", strings.TrimPrefix(e.Term, "category:")
		case strings.HasPrefix(e.Term, "="):
			e.Where, e.Term = "exact", strings.TrimPrefix(e.Term, "=")
		}
		e.norm = foldTerm(e.Term)
		e.ascii = isASCII(e.norm)
		e.spaced = " " + e.norm + " "
		if e.norm == "" {
			return nil, fmt.Errorf("lexicon line %d: empty term", n)
		}
		l.entries = append(l.entries, e)
		place := e.Where
		switch place {
		case "exact":
			place = "relation"
		case "tail":
			// A value is read for two things at two moments: a verification
			// status (meta, for every triple) and an evaluative marker
			// (subjective, for judgement-named relations only).
			place = "tail-" + string(e.Class())
		}
		l.byPlace[place] = append(l.byPlace[place], e)
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
// case, punctuation and "_" as spaces), a space between a run of ASCII
// letters or digits and CJK text ("arXiv编号" -> "arxiv 编号", so that the
// ASCII term "arxiv" is found as a word), then a trailing plural "s" dropped
// from ASCII words longer than three letters (not "ss", "us", "is").
func foldTerm(s string) string {
	words := strings.Fields(splitScripts(kg.Normalize(strings.ReplaceAll(s, "_", " "))))
	for i, w := range words {
		if isASCII(w) && len(w) > 3 && strings.HasSuffix(w, "s") &&
			!strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") {
			words[i] = w[:len(w)-1]
		}
	}
	return strings.Join(words, " ")
}

// splitScripts puts a space where ASCII text meets non-ASCII text.
func splitScripts(s string) string {
	var b strings.Builder
	prev := 0 // 0 start or space, 1 ASCII, 2 other
	for _, r := range s {
		cur := 2
		switch {
		case r == ' ':
			cur = 0
		case r < 0x80:
			cur = 1
		}
		if prev != 0 && cur != 0 && prev != cur {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = cur
	}
	return b.String()
}

// lexMatch is the lexicon's reading of one relation.
type lexMatch struct {
	Class   Class
	Kind    string
	Concept string
	Term    string
	Veto    string // factual term that vetoed an organizational/subjective match
}

// vetoesRecords are the veto concepts that also beat bibliographic terms:
// a measurement ("citation" aside), a person's affiliation, a finding.
var vetoesRecords = map[string]bool{"measure": true, "aggregate": true, "popularity": true, "affiliation": true, "finding": true}

// keepsRatings are the veto concepts that do not beat a rating: an average
// of ratings, or a star rating, is still an opinion ("average user rating:
// 4.6", "star rating: 4/5"), while a count of ratings is a measure.
var keepsRatings = map[string]bool{"aggregate": true, "popularity": true}

// evaluative reports the first evaluative marker in a tail, if any.
func (l *Lexicon) evaluative(tail string) (string, bool) {
	for _, e := range l.matchWhere(tail, "tail-"+string(Subjective)) {
		return e.Term, true
	}
	return "", false
}

// verificationStatus reports the meta tail entry a value opens with ("uncertain
// — dates not documented", "待核实：…"), or, for a CJK term, that a short value
// ends in ("三甲待确认"): the value is then the answer's status, while a status
// word inside a longer statement qualifies a fact about the world ("the
// outcome remains uncertain", "可能与耐药相关（功能待确认）").
func (l *Lexicon) verificationStatus(tail string) (LexiconEntry, bool) {
	// Every triple's value is read here, so only its opening is folded: a
	// status opens the value, and a value longer than the opening is too
	// long to be a short CJK status or a whole-value term.
	opening, whole := tail, true
	if len(tail) > statusOpeningBytes {
		cut := statusOpeningBytes
		for cut > 0 && !utf8.RuneStart(tail[cut]) {
			cut--
		}
		opening, whole = tail[:cut], false
	}
	folded := foldTerm(opening)
	short := whole && utf8.RuneCountInString(folded) <= maxStatusRunes
	for _, e := range l.byPlace["tail-"+string(Meta)] {
		if (whole && folded == e.norm) || strings.HasPrefix(folded, e.norm+" ") || (!e.ascii && strings.HasPrefix(folded, e.norm)) ||
			(!e.ascii && short && strings.HasSuffix(folded, e.norm)) {
			return e, true
		}
	}
	return LexiconEntry{}, false
}

// maxStatusRunes bounds a value that is a CJK status ("三甲待确认", "等级未核实").
const maxStatusRunes = 8

// statusOpeningBytes is how much of a value verificationStatus folds: more
// than any status term with the word after it.
const statusOpeningBytes = 160

// categoryTerm reports the "category:" entry that is the whole relation rel.
func (l *Lexicon) categoryTerm(rel string) (LexiconEntry, bool) {
	folded := foldTerm(rel)
	for _, e := range l.byPlace["category"] {
		if folded == e.norm {
			return e, true
		}
	}
	return LexiconEntry{}, false
}

// precedence orders the lexical classes: restated criteria and metadata are
// recognised before judgments, and those before scaffolding.
var precedence = map[Class]int{Meta: 0, Bibliographic: 1, Subjective: 2, Organizational: 3}

// Match returns all relation and exact entries whose term occurs in rel.
func (l *Lexicon) Match(rel string) []LexiconEntry { return l.match(rel, false) }

func (l *Lexicon) match(text string, head bool) []LexiconEntry {
	where := "relation"
	if head {
		where = "head"
	}
	return l.matchWhere(text, where)
}

// matchWhere returns the entries of one place (relation and exact, head, tail)
// whose term occurs in text.
func (l *Lexicon) matchWhere(text, where string) []LexiconEntry {
	return l.matchFolded(foldTerm(text), where)
}

// matchFolded is matchWhere for text already folded by foldTerm.
func (l *Lexicon) matchFolded(folded, where string) []LexiconEntry {
	spaced := " " + folded + " "
	var out []LexiconEntry
	for _, e := range l.byPlace[where] {
		if e.Where == "exact" {
			if folded == e.norm {
				out = append(out, e)
			}
		} else if e.ascii {
			if strings.Contains(spaced, e.spaced) {
				out = append(out, e)
			}
		} else if strings.Contains(folded, e.norm) {
			out = append(out, e)
		}
	}
	return out
}

// classifyHead reads a head with the head entries of the lexicon. work
// reports a bibliographic head entry: the head names a published work
// ("Delors Report", "…论文"); those entries never class the head's triples
// by themselves, so they are kept out of the pick.
func (l *Lexicon) classifyHead(head string) (m lexMatch, ok, work bool) {
	if head == "" {
		return lexMatch{}, false, false
	}
	var ms []LexiconEntry
	for _, e := range l.match(head, true) {
		if e.Class() == Bibliographic {
			work = true
		} else {
			ms = append(ms, e)
		}
	}
	m, ok = l.pick(ms)
	return m, ok, work
}

// classify reads rel with the lexicon alone. ok is false when no class term
// matches (or the only matches were vetoed).
func (l *Lexicon) classify(rel string) (m lexMatch, ok bool) {
	return l.pick(l.Match(rel))
}

func (l *Lexicon) pick(ms []LexiconEntry) (m lexMatch, ok bool) {
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
		if c == Factual || subsumed(ms, i) {
			continue
		}
		// A factual phrase vetoes judgments and scaffolding; a measurement
		// (average, median, count) also vetoes metadata. Meta is vetoed only
		// by a factual phrase that contains its term, the more specific
		// reading ("definition criteria" of a treaty).
		if veto != nil && !strings.Contains(e.norm, veto.norm) &&
			!(c == Subjective && e.Concept == "rating" && keepsRatings[veto.Concept]) &&
			(c == Subjective || c == Organizational || (c == Bibliographic && vetoesRecords[veto.Concept]) ||
				(c == Meta && strings.Contains(veto.norm, e.norm))) {
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

// subsumed reports whether a longer class term among ms contains ms[i]: the
// more specific phrase decides, whatever its class ("publication note" is a
// record field, though "note" alone is a note about the answer).
func subsumed(ms []LexiconEntry, i int) bool {
	for j := range ms {
		if j != i && ms[j].Kind != string(Factual) && len(ms[j].norm) > len(ms[i].norm) && strings.Contains(ms[j].norm, ms[i].norm) {
			return true
		}
	}
	return false
}

// relationTermOf returns the longest factual "relation" term in rel, if any:
// a relation that names how two things are linked (related_rule,
// successor_project, involved_actor) is not membership even from a
// category node. Other factual terms (a method, a measure) do not override
// structure: "替代分类法" under a dimension node is still scaffolding.
// ms are the entries Match found in rel.
func relationTermOf(ms []LexiconEntry) string {
	best := ""
	for _, e := range ms {
		if e.Kind == string(Factual) && e.Concept == "relation" && len(e.norm) > len(best) {
			best = e.Term
		}
	}
	return best
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
