package plan

import (
	"unicode"
	"unicode/utf8"
)

// EstimateTokens guesses the token count of s from its characters: one token
// per CJK character (Han, kana, hangul, full-width forms) and one per four
// other characters, rounded up. It is deliberately simple and errs high for
// Latin text; use it for budgets and estimates, never for accounting.
func EstimateTokens(s string) int {
	cjk, other := 0, 0
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			// Most of a prompt is ASCII, and unicode.In's table walk
			// was a fifth of `kgjudge plan`'s CPU.
			other++
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul),
			r >= 0xFF00 && r <= 0xFFEF, r >= 0x3000 && r <= 0x303F:
			cjk++
		default:
			other++
		}
	}
	return cjk + (other+3)/4
}

// Budget sizes one judge call of a batching planner. Tokens bounds the
// claim and candidate lines a call shows (EstimateTokens of each line); the
// fixed instructions come on top and, sent first and byte-identical, are
// what a provider's prompt cache reuses. Claims bounds the claims per call,
// because the answer grows with them (about 40 completion tokens each).
type Budget struct {
	Tokens int
	Claims int
}

// Default budget: 10k tokens of triples per call (about 40k characters of
// English, 10k of Chinese; with the ~1.5k-token instructions a call stays
// well inside a 32k context and leaves room for the answer), and 120 claims
// (about 5k completion tokens, inside the usual 8k output cap).
const (
	DefaultCallTokens = 16000
	DefaultCallClaims = 200
)

// WithDefaults fills zero fields with DefaultCallTokens and DefaultCallClaims.
func (b Budget) WithDefaults() Budget {
	if b.Tokens <= 0 {
		b.Tokens = DefaultCallTokens
	}
	if b.Claims <= 0 {
		b.Claims = DefaultCallClaims
	}
	return b
}
