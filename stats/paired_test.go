package stats

import (
	"math"
	"testing"
)

// A hand computation: d = 0.1, 0.05, 0.2, 0.05 on the 4 shared tasks.
//
//	mean 0.1; sd = sqrt((0 + 0.0025 + 0.01 + 0.0025)/3) = 0.0707107; SE = 0.0353553
//	t = 2.828427 on 3 df: two-sided p = 0.066276 (numerical integration of
//	the t density); t(0.975, 3) = 3.182446 -> half 0.112516
func TestPairedDiffHand(t *testing.T) {
	a := map[string]float64{"t1": 0.5, "t2": 0.6, "t3": 0.7, "t4": 0.4, "only-a": 0.1}
	b := map[string]float64{"t1": 0.6, "t2": 0.65, "t3": 0.9, "t4": 0.45, "t5": 1, "t6": 0}
	p := PairedDiff(a, b)
	if p.Shared != 4 || p.OnlyA != 1 || p.OnlyB != 2 || !p.HasCI {
		t.Fatalf("%+v", p)
	}
	nearT(t, "mean", p.Mean, 0.1, 1e-12)
	nearT(t, "se", p.SE, 0.0353553, 1e-6)
	nearT(t, "t", p.T, 2.8284271, 1e-6)
	nearT(t, "p", p.P, 0.0662756, 1e-6)
	nearT(t, "low", p.Low, 0.1-0.1125164, 1e-6)
	nearT(t, "high", p.High, 0.1+0.1125164, 1e-6)
	if p.ExcludesZero() {
		t.Errorf("[%.4f, %.4f] contains 0", p.Low, p.High)
	}
	// Swapping the runs flips the sign and keeps the p-value.
	q := PairedDiff(b, a)
	nearT(t, "swapped mean", q.Mean, -0.1, 1e-12)
	nearT(t, "swapped p", q.P, p.P, 1e-12)
}

func TestPairedDiffEdges(t *testing.T) {
	t.Run("constant shift excludes zero", func(t *testing.T) {
		p := PairedDiff(map[string]float64{"a": 0.5, "b": 0.25}, map[string]float64{"a": 0.25, "b": 0})
		if !p.ExcludesZero() || p.P != 0 || !math.IsInf(p.T, -1) {
			t.Errorf("%+v", p)
		}
	})
	t.Run("identical runs", func(t *testing.T) {
		x := map[string]float64{"a": 0.3, "b": 0.7}
		p := PairedDiff(x, x)
		if p.ExcludesZero() || p.P != 1 || p.Mean != 0 {
			t.Errorf("%+v", p)
		}
	})
	t.Run("one shared task has no interval", func(t *testing.T) {
		p := PairedDiff(map[string]float64{"a": 0.9}, map[string]float64{"a": 0.1})
		if p.HasCI || p.ExcludesZero() || p.P != 1 {
			t.Errorf("%+v", p)
		}
	})
	t.Run("nothing shared", func(t *testing.T) {
		p := PairedDiff(map[string]float64{"a": 0.9}, map[string]float64{"b": 0.1})
		if p.Shared != 0 || p.HasCI || p.OnlyA != 1 || p.OnlyB != 1 {
			t.Errorf("%+v", p)
		}
	})
}

// On many tasks the paired bootstrap agrees with the paired t interval.
func TestPairedAgainstBootstrap(t *testing.T) {
	a, b := map[string]float64{}, map[string]float64{}
	for i := range 200 {
		k := string(rune('A'+i%26)) + string(rune('a'+i/26))
		x := float64(i%17) / 17
		a[k] = x
		b[k] = x + 0.02 + 0.05*math.Sin(float64(i)*1.7)
	}
	p := PairedDiff(a, b)
	bs := PairedBootstrap(a, b, 0, BootstrapSeed)
	nearT(t, "mean", bs.Mean, p.Mean, 1e-12)
	if r := (bs.High - bs.Low) / (p.High - p.Low); r < 0.9 || r > 1.1 {
		t.Errorf("bootstrap width / t width = %.3f", r)
	}
}
