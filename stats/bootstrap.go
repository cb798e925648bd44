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
	ones := make([]float64, len(x))
	for i := range ones {
		ones[i] = 1
	}
	r.Low, r.High = resampleRatio(x, ones, resamples, seed)
	r.HasCI = true
	return r
}

// resampleRatio draws len(ks) clusters with replacement, resamples times,
// and returns the 2.5th and 97.5th percentiles of sum(ks)/sum(ns) over the
// drawn clusters. With every ns[i] = 1 that ratio is the mean of the ks.
func resampleRatio(ks, ns []float64, resamples int, seed uint64) (low, high float64) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	ratios := make([]float64, resamples)
	m := len(ks)
	for b := range ratios {
		var bk, bn float64
		for range m {
			j := rng.IntN(m)
			bk += ks[j]
			bn += ns[j]
		}
		ratios[b] = bk / bn
	}
	sort.Float64s(ratios)
	return bsQuantile(ratios, 0.025), bsQuantile(ratios, 0.975)
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

// RatioBootstrap is a cluster bootstrap interval of a proportion whose
// observations come in clusters: k[i] of n[i] observations of cluster i are
// successes, the estimate is sum(k)/sum(n), and each resample draws whole
// clusters with replacement and recomputes the ratio of sums. Where the
// observations of a cluster are not independent (triples sharing a relation
// string get one labelling convention and one rule), this interval is the
// honest one; a Wilson interval would count every observation as a draw.
// resamples <= 0 means BootstrapResamples; the seed makes it reproducible.
// Mean is the ratio; Clusters counts clusters with n[i] > 0.
func RatioBootstrap(k, n []int, resamples int, seed uint64) BootstrapCI {
	if resamples <= 0 {
		resamples = BootstrapResamples
	}
	r := BootstrapCI{Resamples: resamples, Seed: seed}
	var ks, ns []float64
	var sk, sn float64
	for i := range n {
		if i >= len(k) || n[i] <= 0 {
			continue
		}
		ks, ns = append(ks, float64(k[i])), append(ns, float64(n[i]))
		sk, sn = sk+float64(k[i]), sn+float64(n[i])
	}
	r.Clusters = len(ns)
	if sn == 0 {
		return r
	}
	r.Mean = sk / sn
	r.Low, r.High = r.Mean, r.Mean
	if len(ns) < 2 {
		return r
	}
	r.Low, r.High = resampleRatio(ks, ns, resamples, seed)
	r.HasCI = true
	return r
}
