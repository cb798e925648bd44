package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	porterstemmer "github.com/blevesearch/go-porterstemmer"

	"github.com/kgjudge/kgjudge/alias"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/runs"
)

// openOfflineMemo opens the offline judge's rescore memo in the store
// directory (nil for other judges, an in-memory store, --no-memo, or a
// judge given by a test).
func openOfflineMemo(o scoreOptions) (*runs.Memo, error) {
	if o.Judge != "offline" || o.judge != nil || o.NoMemo || o.Store == ":memory:" || o.Store == "" {
		return nil, nil
	}
	cfg, err := offlineMemoConfig(o)
	if err != nil {
		return nil, err
	}
	ua, err := loadAliases(o.Aliases)
	if err != nil {
		return nil, err
	}
	var scope runs.MemoScope
	if ua.scope != nil {
		scope = ua.scope.fingerprint
	}
	m, err := runs.OpenMemoScoped(filepath.Join(o.Store, runs.MemoDir), cfg, scope)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", o.Store, err)
	}
	return m, nil
}

// offlineMemoConfig names everything besides a sample's inputs that decides
// the offline judge's verdicts and items: the kgjudge binary (its code, the
// shipped weights and lexicons are inside it), the --offline-model file's
// contents, and the embedding stage's model and endpoint. Any change gives
// other memo keys, so every sample is judged again. The --aliases file is
// not in it: each sample's key holds the file's entries relevant to the
// sample (aliasScope), so a changed entry judges again only the samples it
// is relevant to, and a file with no entry relevant to a sample keys it as
// no file does.
func offlineMemoConfig(o scoreOptions) (string, error) {
	h := sha256.New()
	w := func(s string) { h.Write([]byte(strconv.Itoa(len(s)) + ":" + s)) }
	w("offline")
	w(Version)
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("rescore memo: %w (pass --no-memo)", err)
	}
	sum, err := fileHash(exe)
	if err != nil {
		return "", fmt.Errorf("rescore memo: hash the kgjudge binary: %w (pass --no-memo)", err)
	}
	w(sum)
	w("--offline-model")
	if o.Model == "" {
		w("")
	} else {
		sum, err := fileHash(o.Model)
		if err != nil {
			return "", &UserError{Err: fmt.Errorf("--offline-model: %w", err)}
		}
		w(sum)
	}
	w(aliasScopeRule)
	em, err := json.Marshal(newEmbedManifest(o.embedder))
	if err != nil {
		return "", err
	}
	w(string(em))
	return hex.EncodeToString(h.Sum(nil)), nil
}

func fileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// aliasScopeRule versions the relevance rule below; it is part of the
// memo's configuration, so a changed rule judges every sample again.
const aliasScopeRule = "alias-scope 1"

// aliasScope decides which entries of an --aliases file are relevant to a
// sample: the offline judge is given only the relevant alias sets
// (scopedOffline), and the memo keys each sample by the relevant entries
// (fingerprint), so an entry added, changed or removed judges again
// exactly the samples it is relevant to.
//
// How the judge reads the file. An alias set is looked up by exact keys
// only: the prefilter, the Bleve index (its synonym source and
// aliasMembers) and the rules find a set through alias.Canon of a string
// they hold (a GT or predicted head, relation or tail, a part of one split
// at punctuation, " and " or 和/及/与, a GT node name or alias, or a member
// of a set found so); fuzzy matching compares the other members of a set
// found so with predicted strings, never finds a set. So a set can bear on
// a sample only when one member's key equals such a lookup key. A
// concept term bears on a string only when its needle is in the string's
// matchForm (kg.Normalize, words Porter-stemmed, Han runes apart): each
// stemmed word of the term is a word of a looked-up string (a sample
// string, a part of one, an alias member), and each Han rune is in it.
// One more effect: every alias set given to the Bleve index is a document
// there, so the count of sets moves every TF-IDF score a little; that is
// why the judge is given the relevant sets only rather than all of them.
//
// The rule, a superset of the above. The sample's pool holds, for each of
// its strings (GT and predicted heads, relations, tails; GT node names and
// aliases; the members of every set found relevant, to a fixpoint): every
// Han rune of kg.Normalize(s), and for every other run of letters between
// spaces and Han runes, every substring from the run's start or just
// after a punctuation rune to the run's end or just before one (a part
// cut at a splitter character is made of those). A set is relevant when a
// member's key (alias.Canon) has a word or Han rune in the pool, or has
// an ASCII digit while a sample string has one (Canon rewrites values:
// "11.16亿元" is "1116000000 cny", and every value has a digit), or has
// neither (never seen: kept). A concept term is relevant when one of its
// stemmed words or Han runes is in the pool, stemmed, or it has none. A
// run with more than maxScopeCuts punctuation runes makes every entry
// relevant to the sample. The rule assumes kg.Normalize maps a substring
// cut at a separator to a substring of the whole (it folds case, width
// and compatibility forms rune by rune).
type aliasScope struct {
	sets    [][]string
	setToks [][]string // per set: its members' key words and Han runes
	setAll  []bool     // a member has no word: always relevant
	setNum  []bool     // a member's key has an ASCII digit
	terms   []scopeTerm
}

type scopeTerm struct {
	id, term string
	toks     []string // stemmed words and Han runes of the term
}

// maxScopeCuts bounds the substrings enumerated per run of letters.
const maxScopeCuts = 12

func newAliasScope(ua *alias.UserAliases) *aliasScope {
	a := &aliasScope{sets: ua.Sets}
	for _, set := range ua.Sets {
		var toks []string
		all, num := false, false
		for _, name := range set {
			k := alias.Canon(name)
			kt := keyTokens(k, false)
			if len(kt) == 0 {
				all = true
			}
			if hasASCIIDigit(k) {
				num = true
			}
			toks = append(toks, kt...)
		}
		a.setToks = append(a.setToks, toks)
		a.setAll = append(a.setAll, all)
		a.setNum = append(a.setNum, num)
	}
	ids := make([]string, 0, len(ua.Concepts))
	for id := range ua.Concepts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		for _, term := range ua.Concepts[id] {
			a.terms = append(a.terms, scopeTerm{id: id, term: term, toks: keyTokens(kg.Normalize(term), true)})
		}
	}
	return a
}

// keyTokens splits normalised text as matchForm does: words between spaces
// and Han runes (Porter-stemmed when stem), and Han runes one by one.
func keyTokens(n string, stem bool) []string {
	var out []string
	for _, w := range strings.Split(n, " ") {
		eachRun(w, func(run []rune) {
			if stem {
				run = porterstemmer.StemWithoutLowerCasing(append([]rune(nil), run...))
			}
			if len(run) > 0 {
				out = append(out, string(run))
			}
		}, func(r rune) { out = append(out, string(r)) })
	}
	return out
}

// eachRun calls run for each maximal run of w without Han runes and han
// for each Han rune.
func eachRun(w string, run func([]rune), han func(rune)) {
	var cur []rune
	for _, r := range w {
		if scopeHan(r) {
			if len(cur) > 0 {
				run(cur)
				cur = cur[:0]
			}
			han(r)
			continue
		}
		cur = append(cur, r)
	}
	if len(cur) > 0 {
		run(cur)
	}
}

// scopeHan is alias's isHan (matchForm's split).
func scopeHan(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

func hasASCIIDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			return true
		}
	}
	return false
}

// scopePool is what a sample's strings can be looked up by (aliasScope).
type scopePool struct {
	toks  map[string]bool
	digit bool
	wide  bool // a run too cut up to enumerate: everything is relevant
}

func (p *scopePool) add(s string) {
	n := kg.Normalize(s)
	if hasASCIIDigit(n) {
		p.digit = true
	}
	for _, w := range strings.Split(n, " ") {
		eachRun(w, p.addRun, func(r rune) { p.toks[string(r)] = true })
	}
}

// addRun adds the substrings of run that start at its start or after a
// punctuation rune and end at its end or before one.
func (p *scopePool) addRun(run []rune) {
	starts, ends := []int{0}, []int{}
	for i, r := range run {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) {
			ends = append(ends, i)
			starts = append(starts, i+1)
		}
	}
	ends = append(ends, len(run))
	if len(ends) > maxScopeCuts+1 {
		p.wide = true
		return
	}
	for _, a := range starts {
		for _, b := range ends {
			if a < b {
				p.toks[string(run[a:b])] = true
			}
		}
	}
}

// relevant returns the indices of the relevant sets (in file order) and
// terms of a sample.
func (a *aliasScope) relevant(task *kg.Task, pred *kg.Prediction) (sets, terms []int) {
	if len(a.sets) == 0 && len(a.terms) == 0 {
		return nil, nil
	}
	p := &scopePool{toks: map[string]bool{}}
	if task != nil {
		for _, t := range task.Triples {
			p.add(t.Head)
			p.add(t.Relation)
			p.add(t.Tail)
		}
		for _, n := range task.Nodes {
			p.add(n.Name)
			for _, x := range n.Aliases {
				p.add(x)
			}
		}
	}
	if pred != nil {
		for _, t := range pred.Triples {
			p.add(t.Head)
			p.add(t.Relation)
			p.add(t.Tail)
		}
	}
	in := make([]bool, len(a.sets))
	for changed := true; changed; {
		changed = false
		for i := range a.sets {
			if in[i] || !(p.wide || a.setAll[i] || (a.setNum[i] && p.digit) || anyIn(a.setToks[i], p.toks)) {
				continue
			}
			in[i], changed = true, true
			for _, name := range a.sets[i] {
				p.add(name)
			}
		}
	}
	for i, ok := range in {
		if ok {
			sets = append(sets, i)
		}
	}
	if len(a.terms) == 0 {
		return sets, nil
	}
	stems := map[string]bool{}
	for t := range p.toks {
		r := []rune(t)
		if len(r) == 1 && scopeHan(r[0]) {
			stems[t] = true
			continue
		}
		stems[string(porterstemmer.StemWithoutLowerCasing(r))] = true
	}
	for i, t := range a.terms {
		if p.wide || len(t.toks) == 0 || anyIn(t.toks, stems) {
			terms = append(terms, i)
		}
	}
	return sets, terms
}

func anyIn(toks []string, set map[string]bool) bool {
	for _, t := range toks {
		if set[t] {
			return true
		}
	}
	return false
}

// relevantSets returns the relevant alias sets of a sample.
func (a *aliasScope) relevantSets(task *kg.Task, pred *kg.Prediction) [][]string {
	idx, _ := a.relevant(task, pred)
	out := make([][]string, 0, len(idx))
	for _, i := range idx {
		out = append(out, a.sets[i])
	}
	return out
}

// fingerprint is the memo scope of a sample: its relevant sets, in file
// order, and its relevant terms by concept id.
func (a *aliasScope) fingerprint(task *kg.Task, pred *kg.Prediction) string {
	sets, terms := a.relevant(task, pred)
	if len(sets) == 0 && len(terms) == 0 {
		return "" // as without an alias file: the judge cannot tell them apart
	}
	h := sha256.New()
	w := func(s string) { h.Write([]byte(strconv.Itoa(len(s)) + ":" + s)) }
	for _, i := range sets {
		w("alias")
		for _, n := range a.sets[i] {
			w(n)
		}
	}
	for _, i := range terms {
		w("concept")
		w(a.terms[i].id)
		w(a.terms[i].term)
	}
	return hex.EncodeToString(h.Sum(nil))
}
