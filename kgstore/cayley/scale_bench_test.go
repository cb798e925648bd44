package cayley

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/internal/gen"
	"github.com/kgjudge/kgjudge/kgstore"
)

// BenchmarkPutSample writes generated samples (internal/gen: 100-450 GT,
// 200-800 predicted triples) as the scoring pipeline does: every task
// once, then per sample its prediction and its verdicts (shaped like the
// offline judge's), in two Puts or in one PutSample batch. One op writes
// -kgstore.samples of them (default here 200) into a new store of each
// backend and reports seconds per sample for the prediction (for a batch:
// both) and the verdicts, CPU seconds, quads per sample, the store's size
// on disk (or live heap for memstore) and the bytes the process wrote to
// storage per sample. Run it once:
//
//	go test ./kgstore/cayley -run '^$' -bench PutSample -benchtime 1x -kgstore.samples 200
func BenchmarkPutSample(b *testing.B) {
	n := *benchSamples
	if n == 1000 { // BenchmarkBackends' default; generated samples are larger
		n = 200
	}
	run := gen.Generate(gen.Bases(b), n, 1)
	ctx := context.Background()
	for _, c := range []struct {
		backend string
		batch   bool // PutSample (one batch) rather than PutPrediction + PutVerdicts
	}{{BBolt, false}, {BBolt, true}, {LevelDB, false}, {LevelDB, true}, {MemStore, false}, {MemStore, true}} {
		backend := c.backend
		name := backend + "/puts"
		if c.batch {
			name = backend + "/batch"
		}
		b.Run(name, func(b *testing.B) {
			var pred, verd, cpu time.Duration
			quads, size, wrote := 0, int64(0), int64(0)
			for b.Loop() {
				b.StopTimer()
				dir := filepath.Join(b.TempDir(), "store")
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				heap0 := ms.HeapAlloc
				s, err := OpenBackend(ctx, backend, dir)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				cpu0, io0 := gen.CPU(), writeBytes()
				for i := range run.Tasks {
					if err := s.PutTask(ctx, run.Tasks[i]); err != nil {
						b.Fatal(err)
					}
				}
				quads = 0
				for i := range run.Preds {
					p := &run.Preds[i]
					key := kgstore.SampleKey{Run: "bench", TaskID: p.TaskID, Sample: p.SampleIdx}
					v := run.Verdicts(i, key)
					start := time.Now()
					if c.batch {
						if err := s.PutSample(ctx, key, *p, v); err != nil {
							b.Fatal(err)
						}
						quads += s.deltas
						pred += time.Since(start)
						continue
					}
					if err := s.PutPrediction(ctx, key, *p); err != nil {
						b.Fatal(err)
					}
					quads += s.deltas
					mid := time.Now()
					if err := s.PutVerdicts(ctx, v); err != nil {
						b.Fatal(err)
					}
					quads += s.deltas
					pred += mid.Sub(start)
					verd += time.Since(mid)
				}
				cpu += gen.CPU() - cpu0
				b.StopTimer()
				if backend == MemStore {
					runtime.GC()
					runtime.ReadMemStats(&ms)
					size = int64(ms.HeapAlloc) - int64(heap0)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
				wrote += writeBytes() - io0
				if backend != MemStore {
					size = dirSize(b, dir)
				}
				b.StartTimer()
			}
			per := float64(b.N * n)
			b.ReportMetric(pred.Seconds()/per, "pred-s/sample")
			b.ReportMetric(verd.Seconds()/per, "verdicts-s/sample")
			b.ReportMetric(cpu.Seconds()/per, "cpu-s/sample")
			b.ReportMetric(float64(quads)/float64(n), "quads/sample")
			b.ReportMetric(float64(size)/float64(n)/(1<<20), "MB/sample")
			b.ReportMetric(float64(wrote)/per/(1<<20), "written-MB/sample")
		})
	}
}

// writeBytes is what this process has had written to storage
// (/proc/self/io write_bytes; 0 where unavailable): the I/O a backend
// causes, which wall time on a shared machine hides.
func writeBytes() int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "write_bytes: "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

func dirSize(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}
