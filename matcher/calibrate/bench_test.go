package calibrate_test

import (
	"testing"

	"github.com/kgjudge/kgjudge/internal/fixtures"
	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/matcher/calibrate"
	"github.com/kgjudge/kgjudge/matcher/prefilter"
)

// BenchmarkFeaturize11 featurizes the 11 recorded fixtures (prefilter,
// rules and features; one op is all 11), next to the prefilter alone, so
// that the features' own cost reads as the difference, and runs the whole
// offline judge (features, model, verdicts and estimate) on them.
func BenchmarkFeaturize11(b *testing.B) {
	var fs []fixtures.Fixture
	for _, n := range fixtures.All() {
		fs = append(fs, fixtures.Load(b, n))
	}
	b.Run("prefilter", func(b *testing.B) {
		for b.Loop() {
			for i := range fs {
				if _, err := prefilter.Build(b.Context(), &fs[i].Task, &fs[i].Pred, prefilter.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("featurize", func(b *testing.B) {
		for b.Loop() {
			for i := range fs {
				if _, err := calibrate.Featurize(b.Context(), &fs[i].Task, &fs[i].Pred, calibrate.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("offline-judge", func(b *testing.B) {
		for b.Loop() {
			for i := range fs {
				if _, err := (matcher.Offline{}).Judge(b.Context(), &fs[i].Task, &fs[i].Pred); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
