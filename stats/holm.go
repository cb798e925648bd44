package stats

import "sort"

// Holm adjusts p-values for m simultaneous tests (Holm 1979, step-down):
// with p sorted ascending, p_(k) becomes max over j <= k of
// min(1, (m-j+1)·p_(j)). A test is significant at level alpha when its
// adjusted p-value is <= alpha; this controls the chance of any false
// claim among the m at alpha, and rejects at least what Bonferroni does.
// The result is in the order of the input; ties keep input order.
func Holm(p []float64) []float64 {
	m := len(p)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	adj := make([]float64, m)
	running := 0.0
	for k, i := range idx {
		v := float64(m-k) * p[i]
		if v > 1 {
			v = 1
		}
		if v > running {
			running = v
		}
		adj[i] = running
	}
	return adj
}
