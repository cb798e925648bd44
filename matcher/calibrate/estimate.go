package calibrate

import (
	"github.com/kgjudge/kgjudge/kg"

	"math"
	"strconv"
)

// Interval is an expected value with a 95% interval.
type Interval = kg.Interval

// Estimate is a sample's calibrated expected triplet precision, recall and
// F1 with their 95% intervals.
//
// Recall's expected value is the mean coverage probability over GT triples
// (precision's, over predicted triples). Its variance has two parts:
//   - sum p(1-p) / n^2: the claims as independent Bernoulli trials with the
//     model's probabilities (small: a few hundred claims per sample);
//   - the pass's CVRateRMSE^2: how far, in cross-validation, a held-out
//     sample's observed rate was from its mean probability. This is the
//     dominant part: the recorded judge's strictness varies from sample to
//     sample (p070's validity rate is 2%, d012's 58%), and claims within one
//     sample are not independent, so the Bernoulli part alone would give
//     intervals far too narrow.
//
// The interval is expected +- 1.96 sqrt(variance), clipped to [0, 1]. F1's
// expected value is F1 of the expected P and R; as F1 rises with both, its
// interval is F1 of the lower ends and F1 of the upper ends (conservative:
// it assumes the two errors move together).
type Estimate = kg.Estimate

// EstimateSample computes a sample's estimate from its claims'
// probabilities under m.
func EstimateSample(covProbs, valProbs []float64, m *Model) Estimate {
	var e Estimate
	e.Recall = passInterval(covProbs, m.Coverage.CVRateRMSE)
	e.Precision = passInterval(valProbs, m.Validity.CVRateRMSE)
	e.F1 = Interval{
		Expected: round4(f1(e.Precision.Expected, e.Recall.Expected)),
		Low:      round4(f1(e.Precision.Low, e.Recall.Low)),
		High:     round4(f1(e.Precision.High, e.Recall.High)),
	}
	return e
}

func passInterval(ps []float64, rmse float64) Interval {
	if len(ps) == 0 {
		return Interval{}
	}
	n := float64(len(ps))
	var s, v float64
	for _, p := range ps {
		s += p
		v += p * (1 - p)
	}
	mean := s / n
	half := 1.96 * math.Sqrt(v/(n*n)+rmse*rmse)
	return Interval{Expected: round4(mean), Low: round4(math.Max(0, mean-half)), High: round4(math.Min(1, mean+half))}
}

// Mean averages estimates (a run's samples, or a task's) and gives the
// mean's interval assuming independent errors across samples: half-widths
// add in quadrature, divided by the count.
func Mean(es []Estimate) Estimate {
	if len(es) == 0 {
		return Estimate{}
	}
	agg := func(get func(Estimate) Interval) Interval {
		var mean, lo2, hi2 float64
		for _, e := range es {
			iv := get(e)
			mean += iv.Expected
			lo2 += (iv.Expected - iv.Low) * (iv.Expected - iv.Low)
			hi2 += (iv.High - iv.Expected) * (iv.High - iv.Expected)
		}
		n := float64(len(es))
		mean /= n
		return Interval{Expected: round4(mean), Low: round4(math.Max(0, mean-math.Sqrt(lo2)/n)), High: round4(math.Min(1, mean+math.Sqrt(hi2)/n))}
	}
	return Estimate{
		Precision: agg(func(e Estimate) Interval { return e.Precision }),
		Recall:    agg(func(e Estimate) Interval { return e.Recall }),
		F1:        agg(func(e Estimate) Interval { return e.F1 }),
	}
}

// PRF1 is the reference's triplet precision, recall and F1 from counts
// (rounded to 4 decimals as the reference does, F1 from the rounded P and R).
func PRF1(valid, nPred, covered, nGT int) [3]float64 {
	if nPred == 0 {
		return [3]float64{}
	}
	p := round4(float64(valid) / float64(nPred))
	r := 0.0
	if nGT > 0 {
		r = round4(float64(covered) / float64(nGT))
	}
	return [3]float64{p, r, round4(f1(p, r))}
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// round4 is Python's round(x, 4) (as matcher.Round4).
func round4(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 4, 64), 64)
	return v
}
