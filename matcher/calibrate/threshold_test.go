package calibrate

import "testing"

func TestRateThreshold(t *testing.T) {
	out := func(p []float64, tier, y []bool) passOut {
		if tier == nil {
			tier = make([]bool, len(p))
		}
		return passOut{p: p, tier: tier, y: y}
	}
	for _, c := range []struct {
		name string
		all  []passOut
		want float64
	}{
		{
			// 3 labelled yes over two samples: 3 yes decisions for any
			// threshold in (0.30, 0.55]; the lowest grid point wins.
			name: "rate pooled over samples",
			all: []passOut{
				out([]float64{0.10, 0.30, 0.55, 0.80}, nil, []bool{false, false, true, true}),
				out([]float64{0.20, 0.60}, nil, []bool{false, true}),
			},
			want: 0.31,
		},
		{
			// The tier claim is a yes at any threshold, so only one more
			// is wanted: threshold in (0.70, 0.90].
			name: "tier claims count as yes",
			all:  []passOut{out([]float64{0, 0.40, 0.70, 0.90}, []bool{true, false, false, false}, []bool{true, false, true, false})},
			want: 0.71,
		},
		{
			// The rate is matched, not the labels: the two yes decisions
			// at 0.51 are the wrong claims, and the rate is still right.
			name: "rate, not agreement",
			all:  []passOut{out([]float64{0.20, 0.30, 0.60, 0.70}, nil, []bool{true, true, false, false})},
			want: 0.31,
		},
		{
			// No yes label: as few yes decisions as the grid allows (0.97
			// stays a yes up to 0.95), lowest such threshold.
			name: "no yes label",
			all:  []passOut{out([]float64{0.97, 0.20}, nil, []bool{false, false})},
			want: 0.21,
		},
		{
			// Every label yes: every decision yes at the grid's low end.
			name: "every label yes",
			all:  []passOut{out([]float64{0.50, 0.06}, nil, []bool{true, true})},
			want: 0.05,
		},
		{name: "no claims", all: []passOut{out(nil, nil, nil)}, want: 0.5},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := rateThreshold(c.all); got != c.want {
				t.Errorf("rateThreshold = %v, want %v", got, c.want)
			}
		})
	}
}

// TestPooledConfusion: the confusion at a threshold pools the samples and
// counts tier claims as yes.
func TestPooledConfusion(t *testing.T) {
	all := []passOut{
		{p: []float64{0.2, 0.8}, tier: []bool{true, false}, y: []bool{false, true}},
		{p: []float64{0.6, 0.4}, tier: []bool{false, false}, y: []bool{false, true}},
	}
	got := pooledConfusion(all, 0.5)
	if want := (Confusion{TP: 1, FP: 2, FN: 1, TN: 0}); got != want {
		t.Errorf("pooledConfusion = %+v, want %+v", got, want)
	}
}
