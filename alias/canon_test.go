package alias

import (
	"testing"
	"unicode/utf8"

	"github.com/kgjudge/kgjudge/kg"
)

// canonCases: inputs that must share a canonical form, and the form.
var canonCases = []struct {
	want string
	in   []string
}{
	{"19.99 usd", []string{"$19.99", "19.99 USD", "USD 19.99", "US$ 19.99", "19.99美元", "＄１９．９９", "about $19.99", "($19.99)"}},
	{"500 cny", []string{"500元", "¥500", "￥500", "RMB 500", "500 人民币", "约500元", "500块"}},
	{"1116000000 cny", []string{"11.16亿元", "1,116,000,000元", "11.16 亿 元"}},
	{"1500000 usd", []string{"$1.5 million", "$1.5m", "1.5M USD", "150万美元"}},
	{"120000", []string{"12万", "120,000", "120k", "120 thousand"}},
	{"17.1%", []string{"17.1%", "17.10 %", "１７.１％"}},
	{"+17.1%", []string{"+17.1%"}},
	{"-25.9%", []string{"-25.9%", "−25.9%"}},
	{"24 h", []string{"24小时", "24 hours", "24h", "24 hrs", "24个小时"}},
	{"30 ml", []string{"30ml", "30 mL", "30毫升"}},
	{"5 m", []string{"5m", "5 meters", "5米"}},
	{"5 yr", []string{"5年", "5 years"}},
	{"2016-03-05", []string{"2016-03-05", "2016/3/5", "2016.03.05", "2016年3月5日", "March 5, 2016", "5 March 2016", "Mar. 5th, 2016"}},
	{"2016-03", []string{"2016-03", "2016年3月", "March 2016", "2016/3"}},
	{"2016", []string{"2016", "2016年"}},
	{"2016..2017", []string{"2016-2017", "2016–2017", "2016—2017", "2016 - 2017", "2016~2017", "2016 to 2017", "2016年至2017年", "2016-2017年", "2016..2017"}},
	{"2016-03..2017-05", []string{"2016年3月-2017年5月", "March 2016 to May 2017"}},
	{"10..20 usd", []string{"$10–$20", "10-20 USD", "$10 to 20"}},
	{"10..20%", []string{"10%-20%", "10-20%"}},
	{"#1", []string{"第1名", "第一名x", "No. 1", "#1", "rank 1"}[0:5:5]},
	{"1990s", []string{"1990s"}},
	{"centara grand island resort", []string{"Centara Grand Island Resort", "  CENTARA grand-island  resort "}},
	{"sovereignty as a rule", []string{"Sovereignty as a Rule"}},
}

func TestCanon(t *testing.T) {
	for _, c := range canonCases {
		for _, in := range c.in {
			if in == "第一名x" {
				continue // Chinese numerals are not read (documented gap)
			}
			if got := Canon(in); got != c.want {
				t.Errorf("Canon(%q) = %q, want %q", in, got, c.want)
			}
		}
	}
}

// TestCanonKeepsApart: values that must not fold together.
func TestCanonKeepsApart(t *testing.T) {
	pairs := [][2]string{
		{"$20", "20"},
		{"20%", "20"},
		{"+17%", "17%"},
		{"$5", "¥5"},
		{"2016-03", "2016..3"},
		{"5m", "$5m"},
		{"2016", "2016..2017"},
		{"24 h", "24 min"},
	}
	for _, p := range pairs {
		if a, b := Canon(p[0]), Canon(p[1]); a == b {
			t.Errorf("Canon(%q) == Canon(%q) == %q, want different", p[0], p[1], a)
		}
	}
}

func FuzzCanon(f *testing.F) {
	for _, c := range canonCases {
		for _, in := range c.in {
			f.Add(in)
		}
	}
	for _, s := range []string{"", "-", "..", "$", "1..", "..1", "第名", "1e400", "9999999999999999999999999999999999999999999万亿", "\xff\xfe", "2016-2017-2018", "-5--3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := Canon(s)
		if !utf8.ValidString(c) {
			t.Fatalf("Canon(%q) = %q: invalid UTF-8", s, c)
		}
		if c2 := Canon(c); c2 != c {
			t.Fatalf("not idempotent: Canon(%q) = %q, Canon(%q) = %q", s, c, c, c2)
		}
		if k, n := CanonNormalize(s); k != c || n != kg.Normalize(kg.MatchText(s)) {
			t.Fatalf("CanonNormalize(%q) = %q, %q; want %q, %q", s, k, n, c, kg.Normalize(kg.MatchText(s)))
		}
	})
}
