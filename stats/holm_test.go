package stats

import "testing"

// By hand, m = 4: sorted 0.005 -> 4·0.005 = 0.02; 0.01 -> 3·0.01 = 0.03;
// 0.03 -> 2·0.03 = 0.06; 0.04 -> max(1·0.04, 0.06) = 0.06.
func TestHolm(t *testing.T) {
	for _, c := range []struct {
		name    string
		p, want []float64
	}{
		{"hand", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		{"capped at 1", []float64{0.6, 0.2}, []float64{0.6, 0.4}},
		{"one test is unadjusted", []float64{0.04}, []float64{0.04}},
		{"none", nil, []float64{}},
		{"ties", []float64{0.02, 0.02, 0.5}, []float64{0.06, 0.06, 0.5}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Holm(c.p)
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				nearT(t, "adjusted p", got[i], c.want[i], 1e-12)
			}
		})
	}
}
