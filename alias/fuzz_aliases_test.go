package alias

import (
	"strings"
	"testing"
)

// FuzzParseAliases: an alias file never panics the reader; errors name the
// file; every set it returns has at least two distinct names after
// normalisation, and every concept line has an id and terms.
func FuzzParseAliases(f *testing.F) {
	for _, s := range []string{
		"# comment\nalias\tBehavioural Insights Team\tBIT\tNudge Unit\n",
		"alias|清水寺|Kiyomizu-dera|Kiyomizudera\nconcept\tprice\tfare\tticket price\n",
		"\xef\xbb\xbfalias\ta\tA\n", "alias\tonly\n", "concept\t\tx\n", "bogus\ta\tb\n", "alias\ta\xff\tb\r\n",
		strings.Repeat("alias\tx\ty\n", 50),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ua, err := ParseAliases(strings.NewReader(text), "fuzz.tsv")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.tsv") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, set := range ua.Sets {
			if len(distinctKeys(set)) < 2 {
				t.Fatalf("alias set %q has fewer than two distinct names", set)
			}
		}
		for id, terms := range ua.Concepts {
			if id == "" || len(terms) == 0 {
				t.Fatalf("concept %q with terms %q", id, terms)
			}
		}
	})
}
