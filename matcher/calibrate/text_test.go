package calibrate

import "testing"

func TestGlossInline(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"伤寒沙门菌（耐氟喹诺酮）", "耐氟喹诺酮类伤寒沙门菌", true},
		{"鲍曼不动杆菌（耐碳青霉烯）", "耐碳青霉烯鲍曼不动杆菌（CRAB）", true},
		{"Salmonella Typhi (fluoroquinolone-resistant)", "fluoroquinolone-resistant Salmonella Typhi", true},
		{"Salmonella Typhi (fluoroquinolone-resistant)", "Salmonella Typhi", false}, // gloss missing: glossEq's case
		{"伤寒沙门菌（耐氟喹诺酮）", "耐氟喹诺酮类伤寒沙门菌感染病例", false},                                  // more than two runes added
		{"CETA (2016)", "CETA Investment Chapter", false},                           // the gloss is not written
		{"伤寒沙门菌", "耐氟喹诺酮类伤寒沙门菌", false},                                             // no gloss
	} {
		t.Run(c.a+"/"+c.b, func(t *testing.T) {
			if got := glossInline(newStr(c.a), newStr(c.b)); got != c.want {
				t.Errorf("glossInline(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
			}
		})
	}
}
