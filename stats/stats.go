// Package stats holds the interval estimates kgjudge reports: a Wilson score
// interval for a proportion and a Student-t interval for a mean. It is pure
// (no I/O, no state) so that any report, per-class breakdown or leaderboard
// can share one implementation and one notion of "95%".
//
// Triples of one sample are not independent draws; an interval over pooled
// triples (Wilson) is therefore narrower than the truth when samples differ.
// Where a figure is available per sample, MeanT over the per-sample values
// treats the sample as the unit and is the honest interval; callers report
// which one they show.
package stats

import (
	"fmt"
	"math"
)

// Interval is an estimate with its lower and upper bounds at Level (0.95 for
// a 95% interval). Defined is false when the interval cannot be computed
// (no trials; fewer than two values for MeanT): then Low and High are zero and
// must not be shown as figures (Estimate still holds a single value's mean).
// Bounds are always finite, so an Interval marshals to JSON.
type Interval struct {
	Estimate float64 `json:"estimate"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	// N is the number of trials (Wilson) or values (MeanT).
	N       int     `json:"n"`
	Level   float64 `json:"level"`
	Method  string  `json:"method"`
	Defined bool    `json:"defined"`
}

// String renders "0.420 [0.310, 0.537]", or "n/a" when undefined.
func (iv Interval) String() string {
	if !iv.Defined {
		return "n/a"
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", iv.Estimate, iv.Low, iv.High)
}

// zFor is the two-sided standard normal quantile for a confidence level.
func zFor(level float64) float64 {
	return math.Sqrt2 * math.Erfinv(level)
}

// Wilson is the Wilson score interval for k successes in n trials at the
// given level (e.g. 0.95). It stays inside [0, 1] and is sensible at k = 0
// or k = n, where the normal (Wald) interval collapses. It panics on k < 0,
// k > n or a level outside (0, 1): those are bugs in the caller.
func Wilson(k, n int, level float64) Interval {
	if k < 0 || k > n || level <= 0 || level >= 1 {
		panic(fmt.Sprintf("stats.Wilson(%d, %d, %v): need 0 <= k <= n and 0 < level < 1", k, n, level))
	}
	iv := Interval{N: n, Level: level, Method: "wilson"}
	if n == 0 {
		return iv
	}
	z := zFor(level)
	nf := float64(n)
	p := float64(k) / nf
	denom := 1 + z*z/nf
	center := (p + z*z/(2*nf)) / denom
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / denom
	iv.Estimate, iv.Low, iv.High, iv.Defined = p, math.Max(0, center-half), math.Min(1, center+half), true
	// Exact ends: k = 0 has low 0 and k = n has high 1 (rounding aside).
	if k == 0 {
		iv.Low = 0
	}
	if k == n {
		iv.High = 1
	}
	return iv
}

// Clamp limits the bounds to [lo, hi] (a t interval on a proportion can
// cross 0 or 1; the proportion cannot). The estimate is left alone.
func (iv Interval) Clamp(lo, hi float64) Interval {
	if iv.Defined {
		iv.Low, iv.High = math.Max(lo, iv.Low), math.Min(hi, iv.High)
	}
	return iv
}

// Wilson95 is Wilson at the 95% level.
func Wilson95(k, n int) Interval { return Wilson(k, n, 0.95) }

// MeanT is the mean of xs with a Student-t interval at the given level
// (n-1 degrees of freedom). Fewer than two values give an undefined
// interval (with one value, Estimate is that value).
func MeanT(xs []float64, level float64) Interval {
	if level <= 0 || level >= 1 {
		panic(fmt.Sprintf("stats.MeanT: level %v outside (0, 1)", level))
	}
	iv := Interval{N: len(xs), Level: level, Method: "t"}
	if len(xs) == 0 {
		return iv
	}
	mean := Mean(xs)
	iv.Estimate = mean
	if len(xs) == 1 {
		return iv
	}
	iv.Defined = true
	se := StdDev(xs) / math.Sqrt(float64(len(xs)))
	t := TQuantile(1-(1-level)/2, float64(len(xs)-1))
	iv.Low, iv.High = mean-t*se, mean+t*se
	return iv
}

// MeanT95 is MeanT at the 95% level.
func MeanT95(xs []float64) Interval { return MeanT(xs, 0.95) }

// Mean is the arithmetic mean (0 for no values).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// StdDev is the sample standard deviation (n-1 denominator; 0 below two values).
func StdDev(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	m := Mean(xs)
	s := 0.0
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(xs)-1))
}

// TCDF is the cumulative distribution function of Student's t with df
// degrees of freedom.
func TCDF(t, df float64) float64 {
	x := df / (df + t*t)
	tail := 0.5 * RegIncBeta(df/2, 0.5, x)
	if t >= 0 {
		return 1 - tail
	}
	return tail
}

// TQuantile is the p-quantile of Student's t with df degrees of freedom
// (0 < p < 1), by bisection on TCDF: accurate to about 1e-7, plenty for intervals.
func TQuantile(p, df float64) float64 {
	if p <= 0 || p >= 1 || df <= 0 {
		panic(fmt.Sprintf("stats.TQuantile(%v, %v): need 0 < p < 1 and df > 0", p, df))
	}
	lo, hi := -1.0, 1.0
	for TCDF(lo, df) > p {
		lo *= 2
	}
	for TCDF(hi, df) < p {
		hi *= 2
	}
	for i := 0; i < 200 && hi-lo > 1e-12; i++ {
		mid := (lo + hi) / 2
		if TCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// RegIncBeta is the regularized incomplete beta function I_x(a, b), by the
// continued fraction of Numerical Recipes (betacf), using the symmetry
// I_x(a,b) = 1 - I_{1-x}(b,a) where the fraction converges slowly.
func RegIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const eps, tiny = 1e-15, 1e-300
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		mf := float64(m)
		m2 := 2 * mf
		aa := mf * (b - mf) * x / ((qam + m2) * (a + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + mf) * (qab + mf) * x / ((a + m2) * (qap + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}
