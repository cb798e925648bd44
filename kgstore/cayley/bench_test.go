package cayley

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	_ "github.com/cayleygraph/cayley/graph/kv/bolt" // benchmark candidate

	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/storetest"
)

var (
	benchSamples  = flag.Int("kgstore.samples", 1000, "BenchmarkBackends: predicted graphs to write")
	benchTriples  = flag.Int("kgstore.triples", 300, "BenchmarkBackends: triples per predicted graph")
	benchBackends = flag.String("kgstore.backends", "bbolt,leveldb,bolt,memstore", "BenchmarkBackends: comma-separated backends: bbolt, leveldb (as OpenBackend opens them), leveldb-stock (Cayley's default options), bolt, memstore")
)

// BenchmarkPutPrediction writes one 300-triple predicted graph per op,
// each under a new key.
func BenchmarkPutPrediction(b *testing.B) {
	for _, backend := range []string{BBolt, LevelDB, MemStore} {
		b.Run(backend, func(b *testing.B) {
			s := benchOpen(b, backend)
			defer s.Close()
			ctx := context.Background()
			p := storetest.LargePrediction(300)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				key := kgstore.SampleKey{Run: "bench", TaskID: "task", Sample: i}
				if err := s.PutPrediction(ctx, key, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchOpen(b *testing.B, backend string) *Store {
	b.Helper()
	s, err := OpenBackend(context.Background(), backend, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkBackends writes -kgstore.samples predicted graphs of
// -kgstore.triples triples each (default 1,000 x 300) through the store's
// quad model into each candidate backend, then reads them all back. It
// reports write-s and read-s (seconds for the whole set) and quads/s.
// Run it once: go test ./kgstore/cayley -run '^$' -bench BenchmarkBackends -benchtime 1x
func BenchmarkBackends(b *testing.B) {
	ctx := context.Background()
	p := storetest.LargePrediction(*benchTriples)
	quadsPer := len(encodePrediction(kgstore.SampleKey{}, p))
	for _, backend := range strings.Split(*benchBackends, ",") {
		b.Run(backend, func(b *testing.B) {
			var write, read time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s := benchOpen(b, backend)
				b.StartTimer()
				start := time.Now()
				for j := 0; j < *benchSamples; j++ {
					key := kgstore.SampleKey{Run: "bench", TaskID: fmt.Sprintf("task %d", j/5), Sample: j % 5}
					if err := s.PutPrediction(ctx, key, p); err != nil {
						b.Fatal(err)
					}
				}
				write += time.Since(start)
				start = time.Now()
				keys, err := s.Samples(ctx, "bench")
				if err != nil || len(keys) != *benchSamples {
					b.Fatalf("Samples: %d keys, %v", len(keys), err)
				}
				for _, key := range keys {
					got, err := s.Prediction(ctx, key)
					if err != nil || len(got.Triples) != len(p.Triples) {
						b.Fatalf("Prediction(%+v): %d triples, %v", key, len(got.Triples), err)
					}
				}
				read += time.Since(start)
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
			n := float64(b.N)
			b.ReportMetric(write.Seconds()/n, "write-s")
			b.ReportMetric(read.Seconds()/n, "read-s")
			b.ReportMetric(float64(quadsPer**benchSamples)*n/write.Seconds(), "quads/s")
		})
	}
}
