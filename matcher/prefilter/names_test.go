package prefilter

import (
	"slices"
	"testing"
	"unicode"
)

func TestInitialsAndCaps(t *testing.T) {
	for in, want := range map[string]string{
		"Special Drawing Rights":             "sdr",
		"Bank for International Settlements": "bis",
		"Eastern Caribbean Currency Union":   "eccu",
		"White Plan":                         "", // two letters: too ambiguous
		"SDR 2016":                           "",
		"人民币纳入SDR":                           "",
	} {
		if got := initials(in); got != want {
			t.Errorf("initials(%q) = %q, want %q", in, got, want)
		}
	}
	if got := capsWords("东加勒比货币联盟（ECCU）, IMF WP/02/9, Ghosh"); !slices.Equal(got, []string{"eccu", "imf"}) {
		t.Errorf("capsWords = %q", got)
	}
}

func TestHanAbbrev(t *testing.T) {
	r := func(s string) []rune { return []rune(s) }
	for _, c := range []struct {
		short, long string
		want        int
	}{
		{"方里防晒粉底液", "方里柔雾持妆防晒粉底液油皮防晒款", 7},
		{"方里特护粉底液", "方里底气护敏粉底液油皮款", 6}, // one character of seven unmatched
		{"防晒粉底液", "方里柔雾持妆防晒粉底液", 0},    // not anchored at the first character
		{"方里粉", "方里柔雾持妆粉底液", 0},        // too short
	} {
		if got := hanAbbrev(r(c.short), r(c.long)); got != c.want {
			t.Errorf("hanAbbrev(%q, %q) = %d, want %d", c.short, c.long, got, c.want)
		}
	}
}

// TestAlignCrossLingual: English GT names with no shared token align with
// their Chinese predicted names through shared specific neighbour values.
func TestAlignCrossLingual(t *testing.T) {
	f := loadFixture(t, "p041")
	s, err := newSample(t.Context(), &f.task, &f.pred, Options{}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	for gt, pred := range map[string]string{"White Plan": "怀特方案", "Plaza Accord": "广场协议", "London Gold Pool": "伦敦黄金总库"} {
		m, err := s.entities(t.Context(), gt)
		if err != nil {
			t.Fatal(err)
		}
		if got := m[pred]; got.why != "structure" || got.score < DefaultMinScore {
			t.Errorf("%s -> %s: %+v, want a structure match >= %.1f", gt, pred, got, DefaultMinScore)
		}
	}
	// A value is no named thing: years are not aligned.
	if m, _ := s.align(t.Context(), s.text("1985")); len(m) != 0 {
		t.Errorf("align(1985) = %v, want none", m)
	}
}

// TestFirstHan: no rune below firstHan is of the scripts isHan accepts.
func TestFirstHan(t *testing.T) {
	for r := rune(0); r <= firstHan; r++ {
		han := unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
		if han != (r == firstHan) {
			t.Fatalf("%U: han %v", r, han)
		}
	}
}
