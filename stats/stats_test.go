package stats

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// Hand computations: z = 1.959964; Wilson center (p + z²/2n)/(1 + z²/n),
// half-width z·sqrt(p(1-p)/n + z²/4n²)/(1 + z²/n).
func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		name      string
		k, n      int
		est, l, h float64
	}{
		// 5/10: center 0.5, half 1.96·sqrt(0.025+0.0096)/1.3841 = 0.2634.
		{"half", 5, 10, 0.5, 0.2366, 0.7634},
		// 0/10: low 0, high (0.19208 + 1.96·0.098)/1.38415 = 0.2775.
		{"zero", 0, 10, 0, 0, 0.2775},
		{"all", 10, 10, 1, 0.7225, 1},
		// 42/100: center (0.42+0.019208)/1.038415 = 0.42296, half
		// 1.96·sqrt(0.002436+0.000096)/1.038415 = 0.09502.
		{"42 of 100", 42, 100, 0.42, 0.3279, 0.5180},
		// 1/1: center (1+1.9208)/4.8415 = 0.6033, half 1.96·sqrt(0.9604)/4.8415 = 0.3967.
		{"one", 1, 1, 1, 0.2065, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			iv := Wilson95(tc.k, tc.n)
			if !iv.Defined || !near(iv.Estimate, tc.est, 1e-9) || !near(iv.Low, tc.l, 5e-4) || !near(iv.High, tc.h, 5e-4) {
				t.Errorf("Wilson95(%d, %d) = %+v, want %v [%v, %v]", tc.k, tc.n, iv, tc.est, tc.l, tc.h)
			}
			if iv.Low > iv.Estimate || iv.High < iv.Estimate {
				t.Errorf("estimate outside its interval: %v", iv)
			}
		})
	}
	if iv := Wilson95(0, 0); iv.Defined || iv.String() != "n/a" {
		t.Errorf("Wilson95(0, 0) = %+v, want undefined", iv)
	}
	// A wider level gives a wider interval.
	if a, b := Wilson(30, 100, 0.90), Wilson(30, 100, 0.99); !(b.Low < a.Low && b.High > a.High) {
		t.Errorf("90%% %v not inside 99%% %v", a, b)
	}
}

func TestWilsonPanicsOnBadInput(t *testing.T) {
	for _, f := range []func(){func() { Wilson95(3, 2) }, func() { Wilson95(-1, 2) }, func() { Wilson(1, 2, 1) }} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		}()
	}
}

func TestTQuantile(t *testing.T) {
	// Printed t tables (two-sided 95%: the 0.975 quantile).
	for _, tc := range []struct{ df, want float64 }{
		{1, 12.7062}, {2, 4.3027}, {4, 2.7764}, {10, 2.2281}, {29, 2.0452}, {1000, 1.9623},
	} {
		if got := TQuantile(0.975, tc.df); !near(got, tc.want, 5e-4) {
			t.Errorf("TQuantile(0.975, %v) = %v, want %v", tc.df, got, tc.want)
		}
	}
	if got := TQuantile(0.5, 7); !near(got, 0, 1e-6) {
		t.Errorf("median %v", got)
	}
	if got := TCDF(-2.7764, 4); !near(got, 0.025, 1e-4) {
		t.Errorf("TCDF(-2.7764, 4) = %v", got)
	}
}

func TestMeanT(t *testing.T) {
	// 1..5: mean 3, sd sqrt(2.5) = 1.5811, se 0.7071, t 2.7764: ± 1.9632.
	iv := MeanT95([]float64{1, 2, 3, 4, 5})
	if !iv.Defined || iv.Estimate != 3 || !near(iv.Low, 1.0368, 5e-4) || !near(iv.High, 4.9632, 5e-4) || iv.N != 5 {
		t.Errorf("MeanT95(1..5) = %+v", iv)
	}
	// 0.2, 0.4: mean 0.3, sd 0.14142, se 0.1, t(1) 12.7062: ± 1.2706.
	iv = MeanT95([]float64{0.2, 0.4})
	if !near(iv.Low, -0.9706, 5e-4) || !near(iv.High, 1.5706, 5e-4) {
		t.Errorf("MeanT95(0.2, 0.4) = %+v", iv)
	}
	if c := MeanT95([]float64{0.9, 1, 1}).Clamp(0, 1); c.High != 1 || c.Low >= 0.9 || c.Estimate <= 0.96 {
		t.Errorf("clamped %+v", c)
	}
	if iv := MeanT95(nil); iv.Defined {
		t.Errorf("empty: %+v", iv)
	}
	if iv := MeanT95([]float64{0.7}); iv.Defined || iv.Estimate != 0.7 || iv.String() != "n/a" {
		t.Errorf("one value: %+v", iv)
	}
	if got := StdDev([]float64{2, 4, 4, 4, 5, 5, 7, 9}); !near(got, 2.13809, 1e-5) {
		t.Errorf("StdDev = %v", got)
	}
}
