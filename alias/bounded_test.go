package alias

import (
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

// TestSearchHugeNames: the index is built from and queried with names far
// beyond kg.MaxMatchBytes (issue 9.1: a 700-letter word made Bleve's fuzzy
// query fail with "dfa contains more than 10000 states", 60,000 letters
// exhausted memory). Hits return the whole indexed text.
func TestSearchHugeNames(t *testing.T) {
	word := func(n int) string { return strings.Repeat("abcdefghij", n) }
	for _, tc := range []struct {
		name, indexed, query, want string
	}{
		{"700-letter word, same", "Node " + word(70), "Node " + word(70), "Node " + word(70)},
		{"60,000-letter word, same", "Node " + word(6000), "Node " + word(6000), "Node " + word(6000)},
		{"60,000-letter word, last letter differs", "Node " + word(6000), "Node " + word(6000)[1:] + "x", "Node " + word(6000)},
		{"long query, short name", "Node abcdefghijab", "Node " + word(6000), "Node abcdefghijab"},
		{"many long words", strings.Repeat("Kahnemann ", 20), strings.Repeat("Kahneman ", 400) + strings.Repeat("abcdefghijklmnopqrstuvwxyz", 50), strings.Repeat("Kahnemann ", 20)},
		{"CJK, 100,000 characters", strings.Repeat("清水寺", 30000), strings.Repeat("清水寺", 30000), strings.Repeat("清水寺", 30000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix, err := Build(t.Context(), "", []string{tc.indexed, "Paris"}, []string{"located in"}, [][]string{{tc.indexed, "the long one"}})
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			hits, err := ix.Entities(t.Context(), tc.query, 4)
			if err != nil {
				t.Fatalf("search: %v", err)
			}
			if len(hits) == 0 || hits[0].Text != tc.want {
				var got []int
				for _, h := range hits {
					got = append(got, len(h.Text))
				}
				t.Fatalf("hits of lengths %v, want the %d-byte text first", got, len(tc.want))
			}
		})
	}
}

func TestFuzzyTermsBounded(t *testing.T) {
	toks := map[string]bool{}
	for _, w := range []string{"abcd", "kahneman", "singapore", strings.Repeat("x", maxFuzzyRunes+1), "pneumonoultramicroscopicsilicovolcanoconiosis", "数据库", "abc123def"} {
		toks[w] = true
	}
	for i := 0; i < 3*maxFuzzyTerms; i++ {
		toks[strings.Repeat(string(rune('a'+i)), 5+i%10)] = true
	}
	got := fuzzyTerms(toks)
	if len(got) != maxFuzzyTerms {
		t.Fatalf("%d fuzzy terms, want at most %d: %q", len(got), maxFuzzyTerms, got)
	}
	for _, w := range got {
		if n := len([]rune(w)); n < 5 || n > maxFuzzyRunes || !latinWord([]byte(w)) {
			t.Errorf("fuzzy term %q (%d runes): want a Latin word of 5..%d", w, n, maxFuzzyRunes)
		}
	}
	if again := fuzzyTerms(toks); strings.Join(again, ",") != strings.Join(got, ",") {
		t.Errorf("not deterministic: %q then %q", got, again)
	}
}

func TestCanonReadsBoundedPrefix(t *testing.T) {
	long := strings.Repeat("ab ", 1_000_000)
	k := Canon(long)
	if len(k) > kg.MaxMatchBytes {
		t.Fatalf("Canon of a %d-byte name is %d bytes, want at most %d", len(long), len(k), kg.MaxMatchBytes)
	}
	if Canon(k) != k {
		t.Errorf("Canon not idempotent on a cut name")
	}
	// NFKC lengthens "㍿" (4 letters, 3 bytes -> 12): still within the limit.
	if k := Canon(strings.Repeat("㍿", 2000)); len(k) > kg.MaxMatchBytes || Canon(k) != k {
		t.Errorf("Canon of an expanding name: %d bytes, idempotent %v", len(k), Canon(k) == k)
	}
}
