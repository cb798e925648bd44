// Package textwidth measures text as a terminal lays it out, so that the
// tables of cli, leaderboard and rundiff line up with CJK text in them.
package textwidth

import (
	"unicode"

	"golang.org/x/text/width"
)

// Of is how many terminal columns s takes: two for wide and fullwidth
// characters, none for combining marks and format characters (a decomposed
// "é", a zero-width joiner), one for the rest.
func Of(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		case width.LookupRune(r).Kind() == width.EastAsianWide, width.LookupRune(r).Kind() == width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}
