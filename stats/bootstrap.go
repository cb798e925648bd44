package stats

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Bootstrap defaults: 2000 resamples put the Monte Carlo error of a 95%
// percentile bound near 1% of the interval's width, and a fixed seed makes
// the interval part of a byte-identical output.
const (
	BootstrapResamples        = 2000
	BootstrapSeed      uint64 = 20260527
)

// BootstrapCI is a cluster bootstrap interval of the mean of cluster means.
type BootstrapCI struct {
	Clusters  int     `json:"n"`
	Mean      float64 `json:"mean"`
	Low       float64 `json:"low"`
	High      float64 `json:"high"`
	HasCI     bool    `json:"has_ci"`
	Resamples int     `json:"resamples"`
	Seed      uint64  `json:"seed"`
}

// ClusterBootstrap resamples whole clusters with replacement: x holds one
// value per cluster (a task's mean over its samples), each resample draws n
// of them, and the 95% interval is the 2.5th and 97.5th percentile of the
// resampled means (linear interpolation between order statistics). Drawing
// tasks, not samples, keeps the samples of one task together, as the
// t interval of ClusterMeanCI does. resamples <= 0 means
// BootstrapResamples. The PCG generator seeded with seed makes it
// reproducible.
func ClusterBootstrap(x []float64, resamples int, seed uint64) BootstrapCI {
	if resamples <= 0 {
		resamples = BootstrapResamples
	}
	r := BootstrapCI{Clusters: len(x), Resamples: resamples, Seed: seed}
	if len(x) == 0 {
		return r
	}
	r.Mean, _ = clMeanSD(x)
	r.Low, r.High = r.Mean, r.Mean
	if len(x) < 2 {
		return r
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	means := make([]float64, resamples)
	n := len(x)
	for b := range means {
		var sum float64
		for range n {
			sum += x[rng.IntN(n)]
		}
		means[b] = sum / float64(n)
	}
	sort.Float64s(means)
	r.Low, r.High, r.HasCI = bsQuantile(means, 0.025), bsQuantile(means, 0.975), true
	return r
}

// bsQuantile is the type-7 (R's default) quantile of sorted values.
func bsQuantile(sorted []float64, p float64) float64 {
	h := p * float64(len(sorted)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}
