package kg

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// keptSymbols carry meaning in values ("$20" is not "20", "+17%" is not "17").
const keptSymbols = "$%+¥€£"

func normalize(s string) string {
	rs := []rune(norm.NFKC.String(s))
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i, r := range rs {
		decimal := (r == '.' || r == ',') && i > 0 && i+1 < len(rs) && unicode.IsDigit(rs[i-1]) && unicode.IsDigit(rs[i+1])
		switch {
		case decimal || strings.ContainsRune(keptSymbols, r):
		case unicode.IsPunct(r) || unicode.IsSymbol(r) || unicode.IsSpace(r):
			// Punctuation separates words but is not part of them.
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
