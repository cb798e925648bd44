package plan

import (
	"testing"
	"unicode"
)

// estimateTokensSlow is EstimateTokens without the ASCII fast path: every
// rune through the table walk.
func estimateTokensSlow(s string) int {
	cjk, other := 0, 0
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
			r >= 0xFF00 && r <= 0xFFEF || r >= 0x3000 && r <= 0x303F {
			cjk++
		} else {
			other++
		}
	}
	return cjk + (other+3)/4
}

func TestEstimateTokens(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"abcd", 1},
		{"abcde", 2},
		{"北京大学", 4},
		{"GitHub仓库", 2 + 2},
		{"ｶﾀｶﾅ、。", 6},
		{"한국어 text", 3 + 2},
		{"café", 1},
		{"\xff\xfe", 1}, // invalid bytes are other characters (U+FFFD)
	} {
		t.Run(c.in, func(t *testing.T) {
			if got := EstimateTokens(c.in); got != c.want {
				t.Errorf("EstimateTokens(%q) = %d, want %d", c.in, got, c.want)
			}
		})
	}
}

func FuzzEstimateTokens(f *testing.F) {
	for _, s := range []string{"", "abc", "北京 Beijing", "ｶﾀｶﾅ", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := EstimateTokens(s), estimateTokensSlow(s); got != want {
			t.Errorf("EstimateTokens(%q) = %d, table walk gives %d", s, got, want)
		}
	})
}
