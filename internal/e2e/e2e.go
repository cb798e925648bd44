// Package e2e measures whole scoring runs at benchmark scale: generated
// samples (internal/gen) pushed through a store and a judge by a Pipeline,
// with time, CPU and memory per sample. It is benchmark support for the
// scoring pipeline (which owns the worker pool, ordered commits and store
// writes); it holds no product behaviour. Sequential is the reference
// pipeline until that package exists: a benchmark of the real one is
// Benchmark(b, n, open, judge, realPipeline).
package e2e

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/hierarchy"
	"github.com/kgjudge/kgjudge/internal/gen"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/matcher"
)

// Pipeline scores a whole run into st with judge j: what `kgjudge score`
// does for these inputs once they are read (store the tasks, then per
// sample judge, score, store the prediction and verdicts, analyse).
// It must keep nothing of a sample once the sample is committed beyond
// what its result needs.
type Pipeline func(ctx context.Context, st kgstore.Store, j matcher.Judge, run *gen.Run) error

// Sequential is the reference Pipeline: one sample at a time, in input
// order, paper protocol, run name "e2e"; a sample's prediction and
// verdicts are stored together once it is judged (kgstore.PutSample). It
// keeps each sample's score and structure report (as the CLI keeps its
// items) and drops the rest.
func Sequential(ctx context.Context, st kgstore.Store, j matcher.Judge, run *gen.Run) error {
	for i := range run.Tasks {
		if err := st.PutTask(ctx, run.Tasks[i]); err != nil {
			return err
		}
	}
	items := make([]matcher.Item, 0, len(run.Preds))
	var structure []hierarchy.SampleResult
	for i := range run.Preds {
		task, p := run.Task(i), &run.Preds[i]
		key := kgstore.SampleKey{Run: "e2e", TaskID: p.TaskID, Sample: p.SampleIdx}
		jd, err := j.Judge(ctx, task, p)
		if err != nil {
			return fmt.Errorf("%s sample %d: %w", p.TaskID, p.SampleIdx, err)
		}
		it, err := matcher.Score(task, p, jd, matcher.ProtocolPaper)
		if err != nil {
			return err
		}
		if err := kgstore.PutSample(ctx, st, key, *p, kgstore.Verdicts{Key: key, Coverage: jd.Coverage, Validity: jd.Validity}); err != nil {
			return err
		}
		rep := hierarchy.Analyze(*task, *p, jd.Coverage, jd.Validity)
		structure = append(structure, hierarchy.SampleResult{Report: rep, Parse: p.Report, TripletF1: it.TripletF1})
		items = append(items, it)
	}
	if s := matcher.Summarize(items); s.NumQueries != len(run.Tasks) {
		return fmt.Errorf("summary counts %d queries, want %d", s.NumQueries, len(run.Tasks))
	}
	hierarchy.Aggregate(structure)
	return nil
}

// Benchmark measures p over n generated samples (seed 1) per op, each op
// into a new store from open (closed after it). It reports s/sample,
// cpu-s/sample (process CPU time), peak-heap-MB (the largest live heap
// seen, sampled every 50 ms: inputs, store if in memory, one sample's
// working set per sample in flight) and retained-MB/sample (live heap
// after the run minus before, the store still open: what a run keeps per
// sample). maxrss-MB is the process's peak RSS so far (run one benchmark
// per process to read it as this one's).
func Benchmark(b *testing.B, n int, open func(testing.TB) kgstore.Store, j matcher.Judge, p Pipeline) {
	run := gen.Generate(gen.Bases(b), n, 1)
	var ms runtime.MemStats
	var cpu time.Duration
	var peak, retained uint64
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		st := open(b)
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.HeapAlloc
		stop := watchHeap(&peak)
		b.StartTimer()
		c0 := gen.CPU()
		err := p(b.Context(), st, j, run)
		cpu += gen.CPU() - c0
		b.StopTimer()
		stop()
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > before {
			retained = max(retained, ms.HeapAlloc-before)
		}
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	per := float64(b.N * n)
	b.ReportMetric(b.Elapsed().Seconds()/per, "s/sample")
	b.ReportMetric(cpu.Seconds()/per, "cpu-s/sample")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(retained)/float64(n)/(1<<20), "retained-MB/sample")
	b.ReportMetric(float64(gen.MaxRSS())/(1<<20), "maxrss-MB")
}

// watchHeap samples the live heap into *peak until stop is called.
func watchHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-t.C:
				runtime.ReadMemStats(&ms)
				*peak = max(*peak, ms.HeapAlloc)
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
