package stats

import (
	"math"
	"sort"
)

// ClusterMean is a mean over clusters (the tasks of a benchmark) of
// per-cluster means, with a 95% interval from the spread of the cluster
// means. Samples of one task are not independent draws (they share the
// task's difficulty), so the task, not the sample, is the unit: with x_i the
// mean of cluster i over its observations, SE = sd(x_i)/sqrt(n) over the n
// clusters and the interval is Mean ± t(0.975, n-1)·SE.
type ClusterMean struct {
	// Clusters is n, the clusters with at least one observation.
	Clusters int `json:"n"`
	// Obs counts every observation of every cluster.
	Obs  int     `json:"obs"`
	Mean float64 `json:"mean"`
	SE   float64 `json:"se"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// HasCI is false below two clusters: there is no spread to measure, and
	// Low = High = Mean.
	HasCI bool `json:"has_ci"`
	// BetweenSD is sd(x_i), the spread of the cluster means (n-1 divisor).
	BetweenSD float64 `json:"between_sd"`
	// WithinSD is the spread inside a cluster: the square root of the mean,
	// over the clusters with at least two observations, of their sample
	// variance (0 when no cluster has two). It says how much a task's score
	// moves from one sample to the next; it does not enter SE.
	WithinSD float64 `json:"within_sd"`
}

// ClusterMeanCI summarises clusters of observations (one slice per cluster;
// empty clusters are skipped). It is pure: same input, same figures.
func ClusterMeanCI(clusters [][]float64) ClusterMean {
	var r ClusterMean
	var means []float64
	var within float64
	withinN := 0
	for _, c := range clusters {
		if len(c) == 0 {
			continue
		}
		m, sd := clMeanSD(c)
		means = append(means, m)
		r.Obs += len(c)
		if len(c) >= 2 {
			within += sd * sd
			withinN++
		}
	}
	if withinN > 0 {
		r.WithinSD = math.Sqrt(within / float64(withinN))
	}
	iv := clTInterval(means)
	r.Clusters, r.Mean, r.SE, r.Low, r.High, r.HasCI, r.BetweenSD = iv.n, iv.mean, iv.se, iv.low, iv.high, iv.ok, iv.sd
	return r
}

// clInterval is the t interval of a mean of independent values.
type clInterval struct {
	n                     int
	mean, sd, se          float64
	low, high, tStat, pT2 float64
	ok                    bool
}

// clTInterval is the 95% t interval of the mean of xs (the x_i), with the
// two-sided p-value of "the mean is 0". Below two values there is no
// interval (ok false, low = high = mean, p = 1).
func clTInterval(xs []float64) clInterval {
	iv := clInterval{n: len(xs), pT2: 1}
	if len(xs) == 0 {
		return iv
	}
	iv.mean, iv.sd = clMeanSD(xs)
	iv.low, iv.high = iv.mean, iv.mean
	if len(xs) < 2 {
		return iv
	}
	iv.ok = true
	iv.se = iv.sd / math.Sqrt(float64(len(xs)))
	half := TQuantile(0.975, float64(len(xs)-1)) * iv.se
	iv.low, iv.high = iv.mean-half, iv.mean+half
	switch {
	case iv.se > 0:
		iv.tStat = iv.mean / iv.se
		iv.pT2 = 2 * (1 - TCDF(math.Abs(iv.tStat), float64(len(xs)-1)))
	case iv.mean != 0:
		// Every value is the same non-zero number: no doubt at all.
		iv.tStat, iv.pT2 = math.Copysign(math.Inf(1), iv.mean), 0
	}
	return iv
}

// clMeanSD is the mean and the sample standard deviation (n-1 divisor; 0
// for a single value). Values are summed in sorted order so that the result
// does not depend on the order the caller collected them in.
func clMeanSD(xs []float64) (mean, sd float64) {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return Mean(s), StdDev(s)
}
