package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func nearT(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.7f, want %.7f (±%g)", what, got, want, tol)
	}
}

// Textbook two-sided 95% critical values of Student's t.
func TestStudentTQuantile(t *testing.T) {
	for _, c := range []struct {
		df   float64
		want float64
	}{
		{1, 12.706205}, {2, 4.302653}, {3, 3.182446}, {4, 2.776445}, {10, 2.228139},
		{30, 2.042272}, {120, 1.979930}, {1e6, 1.959966},
	} {
		nearT(t, "t(0.975)", TQuantile(0.975, c.df), c.want, 2e-6)
	}
	// The CDF at a quantile gives the probability back.
	nearT(t, "cdf(2.776445, 4)", TCDF(2.776445, 4), 0.975, 1e-7)
	nearT(t, "cdf(-2.776445, 4)", TCDF(-2.776445, 4), 0.025, 1e-7)
	nearT(t, "cdf(0, 7)", TCDF(0, 7), 0.5, 1e-12)
}

// A hand computation: tasks with 2, 1 and 3 samples.
//
//	x = 0.3, 0.5, 0.8; mean 1.6/3 = 0.533333
//	sd = sqrt(((-0.233333)² + (-0.033333)² + 0.266667²)/2) = sqrt(0.063333) = 0.251661
//	SE = 0.251661/sqrt(3) = 0.145297; t(0.975, 2) = 4.302653; half = 0.625161
//	within: var{0.2,0.4} = 0.02, var{0.9,0.7,0.8} = 0.01 -> sqrt(0.015) = 0.122474
func TestClusterMeanCIHand(t *testing.T) {
	r := ClusterMeanCI([][]float64{{0.2, 0.4}, {0.5}, {}, {0.9, 0.7, 0.8}})
	if r.Clusters != 3 || r.Obs != 6 || !r.HasCI {
		t.Fatalf("n=%d obs=%d hasCI=%v, want 3, 6, true", r.Clusters, r.Obs, r.HasCI)
	}
	nearT(t, "mean", r.Mean, 0.5333333, 1e-6)
	nearT(t, "between sd", r.BetweenSD, 0.2516611, 1e-6)
	nearT(t, "se", r.SE, 0.1452966, 1e-6)
	nearT(t, "low", r.Low, 0.5333333-0.6251610, 1e-6)
	nearT(t, "high", r.High, 0.5333333+0.6251610, 1e-6)
	nearT(t, "within sd", r.WithinSD, 0.1224745, 1e-6)
}

func TestClusterMeanCIEdges(t *testing.T) {
	t.Run("empty", func(t *testing.T) {
		r := ClusterMeanCI(nil)
		if r.Clusters != 0 || r.HasCI || r.Mean != 0 {
			t.Errorf("%+v", r)
		}
	})
	t.Run("one task", func(t *testing.T) {
		r := ClusterMeanCI([][]float64{{0.4, 0.6}})
		if r.Clusters != 1 || r.HasCI || r.Low != r.Mean || r.High != r.Mean {
			t.Errorf("one cluster has no interval: %+v", r)
		}
		nearT(t, "mean", r.Mean, 0.5, 1e-12)
		nearT(t, "within", r.WithinSD, math.Sqrt(0.02), 1e-12)
	})
	t.Run("no spread", func(t *testing.T) {
		r := ClusterMeanCI([][]float64{{0.5}, {0.5}, {0.5}})
		if !r.HasCI || r.SE != 0 || r.Low != 0.5 || r.High != 0.5 {
			t.Errorf("%+v", r)
		}
	})
	t.Run("order does not matter", func(t *testing.T) {
		a := ClusterMeanCI([][]float64{{0.1, 0.7}, {0.3}, {0.9, 0.2}})
		b := ClusterMeanCI([][]float64{{0.2, 0.9}, {0.7, 0.1}, {0.3}})
		if a != b {
			t.Errorf("%+v != %+v", a, b)
		}
	})
}

// The t interval and the cluster bootstrap measure the same thing: on 300
// tasks they agree on the centre and on the width within a few percent.
func TestClusterCIAgainstBootstrap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var clusters [][]float64
	var x []float64
	for range 300 {
		// A task difficulty and 4 noisy samples around it, in [0, 1].
		d := rng.Float64()
		var c []float64
		for range 4 {
			c = append(c, math.Max(0, math.Min(1, d+0.1*rng.NormFloat64())))
		}
		clusters = append(clusters, c)
		m, _ := clMeanSD(c)
		x = append(x, m)
	}
	ci := ClusterMeanCI(clusters)
	bs := ClusterBootstrap(x, 0, BootstrapSeed)
	if bs.Resamples != BootstrapResamples || !bs.HasCI {
		t.Fatalf("%+v", bs)
	}
	nearT(t, "bootstrap mean", bs.Mean, ci.Mean, 1e-12)
	tHalf, bHalf := (ci.High-ci.Low)/2, (bs.High-bs.Low)/2
	if r := bHalf / tHalf; r < 0.9 || r > 1.1 {
		t.Errorf("bootstrap half-width %.5f vs t half-width %.5f (ratio %.3f)", bHalf, tHalf, r)
	}
	nearT(t, "bootstrap centre", (bs.Low+bs.High)/2, ci.Mean, 0.1*tHalf)
	// The within-task sd is near the noise put in (0.1, less where clipped).
	if ci.WithinSD < 0.07 || ci.WithinSD > 0.11 {
		t.Errorf("within sd %.4f, want about 0.1", ci.WithinSD)
	}
}

func TestClusterBootstrapDeterministic(t *testing.T) {
	x := []float64{0.1, 0.5, 0.3, 0.9, 0.4, 0.35}
	a, b := ClusterBootstrap(x, 500, 7), ClusterBootstrap(x, 500, 7)
	if a != b {
		t.Errorf("same seed, different intervals: %+v %+v", a, b)
	}
	if c := ClusterBootstrap(x, 500, 8); c == a {
		t.Errorf("a different seed gave the same interval")
	}
	if !(a.Low < a.Mean && a.Mean < a.High) {
		t.Errorf("interval %+v does not contain the mean", a)
	}
	if one := ClusterBootstrap([]float64{0.4}, 0, 1); one.HasCI || one.Low != 0.4 {
		t.Errorf("one cluster: %+v", one)
	}
}

func TestBootstrapQuantile(t *testing.T) {
	s := []float64{1, 2, 3, 4, 5}
	nearT(t, "q0.5", bsQuantile(s, 0.5), 3, 0)
	nearT(t, "q0.1", bsQuantile(s, 0.1), 1.4, 1e-12)
	nearT(t, "q1", bsQuantile(s, 1), 5, 0)
}
