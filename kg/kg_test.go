package kg

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"  Hello,  World! ", "hello world"},
		{"ＡＢＣ　１２３", "abc 123"},          // full width folds to ASCII
		{"“兰蔻”（Lancôme）", "兰蔻 lancôme"}, // CJK punctuation dropped
		{"$19.99", "$19.99"}, {"1,000 km.", "1,000 km"},
		{"+17.1%", "+17.1%"},
		{"", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := Normalize(tc.in); got != tc.want {
				t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestNodeNamesDistinctInOrder(t *testing.T) {
	task := Task{Nodes: []Node{{ID: "a", Name: "x"}, {ID: "b", Name: "y"}, {ID: "c", Name: "x"}}}
	got := task.NodeNames()
	if len(got) != 2 || got[0] != "x" || got[1] != "y" {
		t.Fatalf("NodeNames = %v", got)
	}
}

func TestMatchText(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want int // bytes kept
	}{
		{"short", "Kyoto", 5},
		{"exactly the limit", strings.Repeat("a", MaxMatchBytes), MaxMatchBytes},
		{"one over", strings.Repeat("a", MaxMatchBytes+1), MaxMatchBytes},
		{"cut inside a 3-byte character", "a" + strings.Repeat("清", MaxMatchBytes), 1 + 3*((MaxMatchBytes-1)/3)},
		{"cut inside a 4-byte character", strings.Repeat("😀", MaxMatchBytes), 4 * (MaxMatchBytes / 4)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := MatchText(tc.in)
			if len(got) != tc.want || !strings.HasPrefix(tc.in, got) || !utf8.ValidString(got) {
				t.Fatalf("MatchText kept %d bytes (valid %v), want a %d-byte prefix", len(got), utf8.ValidString(got), tc.want)
			}
		})
	}
	if n := Normalize(strings.Repeat("㍿", MaxMatchBytes)); len(n) > MaxMatchBytes || Normalize(n) != n {
		t.Errorf("Normalize of an expanding name: %d bytes, idempotent %v", len(n), Normalize(n) == n)
	}
}

// TestNormalizeASCII: the ASCII path gives what the Unicode path gives,
// for every ASCII byte alone and between digits and letters, and for
// random ASCII strings.
func TestNormalizeASCII(t *testing.T) {
	var in []string
	for c := range utf8.RuneSelf {
		b := string(rune(c))
		in = append(in, b, "1"+b+"2", "A"+b+"b", b+b+"x "+b, " "+b+" ")
	}
	r := rand.New(rand.NewPCG(3, 5))
	const alpha = "aZ09 .,$%+-_/\t()'&#x\x00\x7f"
	for range 5000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
			if r.IntN(4) == 0 {
				b[i] = byte(r.IntN(utf8.RuneSelf))
			}
		}
		in = append(in, string(b))
	}
	for _, s := range in {
		if got, want := normalizeASCII(s), normalizeUnicode(s); got != want {
			t.Fatalf("normalizeASCII(%q) = %q, normalizeUnicode %q", s, got, want)
		}
	}
}
