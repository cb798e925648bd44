package llmjudge

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/llmjudge/fakeopenai"
)

// BenchmarkJudgeThroughput measures claims judged per second against a
// local server that answers instantly (latency=0s: the judge's own
// overhead, prompt rendering, HTTP, JSON, parsing, bookkeeping, which on a
// small machine competes with the server for CPU) and after 20ms (where the
// concurrency limit is what matters). Each
// iteration judges 4 samples at once (100 GT claims + 37 predicted claims
// each, batches of 10), as a CLI scoring several samples would.
func BenchmarkJudgeThroughput(b *testing.B) {
	for _, latency := range []time.Duration{0, 20 * time.Millisecond} {
		for _, conc := range []int{1, 4, 16} {
			benchThroughput(b, conc, latency)
		}
	}
}

func benchThroughput(b *testing.B, conc int, latency time.Duration) {
	b.Run(fmt.Sprintf("latency=%s/concurrency=%d", latency, conc), func(b *testing.B) {
		s := fakeopenai.New()
		defer s.Close()
		if latency > 0 {
			s.Script = func(*fakeopenai.Call) *fakeopenai.Reply { return &fakeopenai.Reply{Hang: latency} }
		}
		cfg := Config{BaseURL: s.BaseURL(), Model: "bench", Batching: BatchingWhole, BatchSize: 10,
			Concurrency: conc, Timeout: 10 * time.Second}
		j, err := New(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		defer j.Close()
		task, pred := sample(100)
		claims := len(task.Triples) + len(pred.Triples)
		const samples = 4
		b.ResetTimer()
		start := time.Now()
		for i := 0; i < b.N; i++ {
			var wg sync.WaitGroup
			for k := 0; k < samples; k++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := j.Judge(context.Background(), task, pred); err != nil {
						b.Error(err)
					}
				}()
			}
			wg.Wait()
		}
		el := time.Since(start)
		b.ReportMetric(float64(b.N*samples*claims)/el.Seconds(), "claims/s")
		b.ReportMetric(float64(len(s.Calls()))/el.Seconds(), "calls/s")
	})
}
