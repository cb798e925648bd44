package stats

import (
	"math"
	"testing"
)

func TestRatioBootstrap(t *testing.T) {
	t.Run("empty and single cluster have no interval", func(t *testing.T) {
		if r := RatioBootstrap(nil, nil, 0, 1); r.HasCI || r.Clusters != 0 || r.Mean != 0 {
			t.Errorf("empty: %+v", r)
		}
		r := RatioBootstrap([]int{3}, []int{4}, 0, 1)
		if r.HasCI || r.Mean != 0.75 || r.Low != 0.75 || r.High != 0.75 {
			t.Errorf("one cluster: %+v", r)
		}
	})
	t.Run("ratio of sums, not mean of ratios", func(t *testing.T) {
		// 9/10 and 0/1: the ratio of sums is 9/11, the mean of ratios 0.45.
		r := RatioBootstrap([]int{9, 0}, []int{10, 1}, 500, 7)
		if math.Abs(r.Mean-9.0/11) > 1e-12 || r.Clusters != 2 || !r.HasCI {
			t.Errorf("got %+v", r)
		}
		if r.Low > r.Mean || r.High < r.Mean {
			t.Errorf("interval [%v, %v] misses the estimate %v", r.Low, r.High, r.Mean)
		}
	})
	t.Run("clustered outcomes widen the interval", func(t *testing.T) {
		// 600 observations, 80% successes: as 600 singletons, and as 30
		// clusters of 20 that are all right or all wrong.
		var k1, n1, k2, n2 []int
		for i := range 600 {
			k1, n1 = append(k1, b2i(i%5 != 0)), append(n1, 1)
		}
		for i := range 30 {
			k2, n2 = append(k2, 20*b2i(i%5 != 0)), append(n2, 20)
		}
		a, b := RatioBootstrap(k1, n1, 0, BootstrapSeed), RatioBootstrap(k2, n2, 0, BootstrapSeed)
		if a.Mean != 0.8 || b.Mean != 0.8 {
			t.Fatalf("means %v %v, want 0.8", a.Mean, b.Mean)
		}
		w := Wilson95(480, 600)
		if wa, ww := a.High-a.Low, w.High-w.Low; math.Abs(wa-ww) > 0.3*ww {
			t.Errorf("singletons: bootstrap width %.3f, Wilson %.3f: want close", wa, ww)
		}
		if b.High-b.Low < 3*(a.High-a.Low) {
			t.Errorf("clusters of 20: width %.3f, want >= 3x the singletons' %.3f", b.High-b.Low, a.High-a.Low)
		}
	})
	t.Run("deterministic", func(t *testing.T) {
		k, n := []int{1, 2, 3, 0, 5}, []int{2, 2, 4, 1, 9}
		if RatioBootstrap(k, n, 300, 42) != RatioBootstrap(k, n, 300, 42) {
			t.Error("same seed, different intervals")
		}
	})
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
