package kg

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// keptSymbols carry meaning in values ("$20" is not "20", "+17%" is not "17").
const keptSymbols = "$%+¥€£"

func normalize(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return normalizeUnicode(s)
		}
	}
	return normalizeASCII(s)
}

// asciiSeparator[b] is unicode.IsPunct || IsSymbol || IsSpace of ASCII
// byte b, read from the Unicode tables once.
var asciiSeparator = func() (t [utf8.RuneSelf]bool) {
	for b := range t {
		r := rune(b)
		t[b] = unicode.IsPunct(r) || unicode.IsSymbol(r) || unicode.IsSpace(r)
	}
	return t
}()

// normalizeASCII is normalizeUnicode for text of ASCII bytes only, which
// NFKC leaves unchanged: the same rules byte by byte, without the NFKC
// pass and the rune slice (most names and values are ASCII, and
// normalising is on every matching path).
func normalizeASCII(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	digit := func(c byte) bool { return c >= '0' && c <= '9' }
	for i := 0; i < len(s); i++ {
		c := s[i]
		decimal := (c == '.' || c == ',') && i > 0 && i+1 < len(s) && digit(s[i-1]) && digit(s[i+1])
		switch {
		case decimal || c == '$' || c == '%' || c == '+':
		case asciiSeparator[c]:
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

func normalizeUnicode(s string) string {
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

// MaxMatchBytes is the longest prefix of a name or value that matching looks
// at: the alias index, the prefilter and the rules see at most this many
// bytes of a string (cut at a character boundary), while outputs, the store
// and the judge's records keep the whole string. Real entity names and
// values are far shorter (the 11 recorded samples' longest is 354
// bytes); the cut exists so that a pathological input (a 50 MB "name")
// costs bounded time and memory instead of taking the run down. Two
// strings that differ only after the cut match as one.
const MaxMatchBytes = 1024

// MatchText is s as matching sees it: s itself when it is at most
// MaxMatchBytes long, else its longest prefix of whole UTF-8 sequences
// within MaxMatchBytes.
func MatchText(s string) string {
	if len(s) <= MaxMatchBytes {
		return s
	}
	cut := MaxMatchBytes
	// Back up to the start of a UTF-8 sequence (at most 3 bytes).
	for i := 0; i < 3 && cut > 0 && s[cut]&0xC0 == 0x80; i++ {
		cut--
	}
	return s[:cut]
}
