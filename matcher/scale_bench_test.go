package matcher

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/kgjudge/kgjudge/internal/gen"
)

// benchSamples is how many generated samples one op of
// BenchmarkOfflineJudgeSample covers: the first 22 of a run (tasks of 6 of
// the 11 fixtures' shapes; GT 195 triples on average against 280 for a
// whole run), the set the issue-10 speed-ups were measured on before and
// after. Per-sample figures of a whole run come from
// BenchmarkOfflineJudgeRun (and internal/e2e's stage benchmarks, whose set
// has every fixture's shape).
const benchSamples = 22

// BenchmarkOfflineJudgeSample judges benchSamples generated samples
// (internal/gen, seed 1) per op with the offline judge; s/sample is the
// figure to compare, cpu-s/sample the steadier one on a shared machine
// (allocs/op are per op, i.e. per benchSamples samples).
func BenchmarkOfflineJudgeSample(b *testing.B) {
	run := gen.Generate(gen.Bases(b), benchSamples, 1)
	b.ReportAllocs()
	cpu := gen.CPU()
	for b.Loop() {
		for i := range run.Preds {
			if _, err := (Offline{}).Judge(b.Context(), run.Task(i), &run.Preds[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N*benchSamples), "s/sample")
	b.ReportMetric((gen.CPU()-cpu).Seconds()/float64(b.N*benchSamples), "cpu-s/sample")
}

// BenchmarkOfflineJudgeRun judges a whole generated run of 200 and of 800
// samples, one op each, and reports s/sample, the live heap left after the
// run (the judge must keep nothing of a sample once it is judged:
// retained-MB stays flat from 200 to 800) and the largest live heap seen
// after any sample (peak-MB: one sample's working set plus the run's
// inputs). Run it once: go test ./matcher -run '^$' -bench OfflineJudgeRun -benchtime 1x
func BenchmarkOfflineJudgeRun(b *testing.B) {
	bases := gen.Bases(b)
	for _, n := range []int{200, 800} {
		b.Run("samples="+strconv.Itoa(n), func(b *testing.B) {
			run := gen.Generate(bases, n, 1)
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			base := ms.HeapAlloc
			peak := uint64(0)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := gen.CPU()
			for b.Loop() {
				for i := range run.Preds {
					if _, err := (Offline{}).Judge(b.Context(), run.Task(i), &run.Preds[i]); err != nil {
						b.Fatal(err)
					}
					if i%50 == 49 {
						runtime.ReadMemStats(&ms)
						peak = max(peak, ms.HeapAlloc)
					}
				}
			}
			b.StopTimer()
			cpu2 := gen.CPU()
			runtime.GC()
			runtime.ReadMemStats(&ms)
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N*n), "s/sample")
			b.ReportMetric((cpu2-cpu).Seconds()/float64(b.N*n), "cpu-s/sample")
			b.ReportMetric(float64(int64(ms.HeapAlloc)-int64(base))/(1<<20), "retained-MB")
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
			runtime.KeepAlive(run)
		})
	}
}
