package stats

import "sort"

// Paired is the paired difference B - A of two runs over the clusters
// (tasks) both have: d_i = b_i - a_i, its mean and 95% t interval, and the
// two-sided p-value of "no difference". Pairing removes the task's
// difficulty from the comparison, which is why it is much tighter than the
// two runs' separate intervals.
type Paired struct {
	Shared int     `json:"shared_tasks"`
	Mean   float64 `json:"mean"`
	SE     float64 `json:"se"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	HasCI  bool    `json:"has_ci"`
	T      float64 `json:"t"`
	P      float64 `json:"p"`
	// OnlyA and OnlyB count the clusters of one run only; they are left
	// out of the difference.
	OnlyA int `json:"only_a"`
	OnlyB int `json:"only_b"`
}

// ExcludesZero reports whether the interval lies wholly on one side of 0.
func (p Paired) ExcludesZero() bool { return p.HasCI && (p.Low > 0 || p.High < 0) }

// PairedDiff compares b with a on their shared keys (task ids), visited in
// sorted order.
func PairedDiff(a, b map[string]float64) Paired {
	var keys []string
	r := Paired{}
	for k := range a {
		if _, ok := b[k]; ok {
			keys = append(keys, k)
		} else {
			r.OnlyA++
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			r.OnlyB++
		}
	}
	sort.Strings(keys)
	d := make([]float64, len(keys))
	for i, k := range keys {
		d[i] = b[k] - a[k]
	}
	iv := clTInterval(d)
	r.Shared, r.Mean, r.SE, r.Low, r.High, r.HasCI, r.T, r.P = iv.n, iv.mean, iv.se, iv.low, iv.high, iv.ok, iv.tStat, iv.pT2
	return r
}

// PairedBootstrap is the cluster bootstrap interval of the same mean
// difference (the d_i resampled as whole tasks).
func PairedBootstrap(a, b map[string]float64, resamples int, seed uint64) BootstrapCI {
	var keys []string
	for k := range a {
		if _, ok := b[k]; ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	d := make([]float64, len(keys))
	for i, k := range keys {
		d[i] = b[k] - a[k]
	}
	return ClusterBootstrap(d, resamples, seed)
}
