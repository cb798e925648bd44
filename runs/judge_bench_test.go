package runs

import (
	"context"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/internal/fixtures"
	"github.com/kgjudge/kgjudge/llmjudge"
	"github.com/kgjudge/kgjudge/llmjudge/fakeopenai"
	"github.com/kgjudge/kgjudge/llmjudge/transport"
	"github.com/kgjudge/kgjudge/matcher/prefilter"
)

// benchLatency is the endpoint latency of the wall-time benchmarks: what
// the issue measured the reference evaluator at.
const benchLatency = 500 * time.Millisecond

// judgeFixtures judges every sample of in as `kgjudge score --judge openai`
// does with default flags (prefilter batching, default concurrency, 8
// workers) and returns the wall time and the calls made.
func judgeFixtures(b *testing.B, in *Inputs, srv *fakeopenai.Server, cacheDir string) (time.Duration, int) {
	b.Helper()
	cfg := llmjudge.Config{BaseURL: srv.BaseURL(), Model: "bench", Batching: llmjudge.BatchingPrefilter,
		Planner: prefilter.Planner{}, CacheDir: cacheDir, NoCache: cacheDir == ""}
	j, err := llmjudge.New(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	before := len(srv.Calls())
	start := time.Now()
	st := &runState{judge: j}
	var jobs []job
	for _, p := range in.Samples() {
		jobs = append(jobs, job{st, p})
	}
	judge := func(ctx context.Context, jb job) judged {
		j, err := jb.run.judge.Judge(ctx, in.TaskByID[jb.p.TaskID], jb.p)
		return judged{j: j, err: err}
	}
	chans, release := judgeAll(context.Background(), jobs, 8, len(jobs), judge)
	for _, ch := range chans {
		if r := <-ch; r.err != nil {
			b.Fatal(r.err)
		}
		release()
	}
	return time.Since(start), len(srv.Calls()) - before
}

// referenceModel replays the reference evaluator's traffic shape against
// the same server: 5 coverage calls per sample (its only pass), 16 threads.
// The reference code is not in this repository; this is the model the
// issue states (5 calls per sample, 16 threads), timed for real.
func referenceModel(b *testing.B, samples int, srv *fakeopenai.Server) time.Duration {
	b.Helper()
	calls := make(chan struct{}, samples*5)
	for i := 0; i < samples*5; i++ {
		calls <- struct{}{}
	}
	close(calls)
	c := fakeCompleter(srv)
	start := time.Now()
	var wg sync.WaitGroup
	for t := 0; t < 16; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				if _, err := c(); err != nil {
					b.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start)
}

// BenchmarkJudgeFixturesLatency: wall time of judging the 11 fixtures
// (both passes) against a local endpoint answering after 0.5 s, next to
// the reference model's (5 calls per sample, 16 threads) on the same
// server. Run: go test ./runs -run '^$' -bench JudgeFixturesLatency -benchtime 1x
func BenchmarkJudgeFixturesLatency(b *testing.B) {
	in, _ := fixtureInputs(b, fixtures.All())
	srv := fakeopenai.New(func(s *fakeopenai.Server) {
		s.Script = func(*fakeopenai.Call) *fakeopenai.Reply { return &fakeopenai.Reply{Hang: benchLatency} }
	})
	defer srv.Close()
	for i := 0; i < b.N; i++ {
		wall, calls := judgeFixtures(b, in, srv, "")
		ref := referenceModel(b, len(in.Samples()), srv)
		b.ReportMetric(wall.Seconds(), "kgjudge-s")
		b.ReportMetric(float64(calls), "kgjudge-calls")
		b.ReportMetric(ref.Seconds(), "reference-model-s")
		b.ReportMetric(wall.Seconds()/ref.Seconds(), "ratio")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkJudgeFixturesRerun: process CPU of a first run over the 11
// fixtures (instant endpoint, in-process: its CPU counts too) and of a
// rerun over the same cache directory, and the rerun's calls.
// Run: go test ./runs -run '^$' -bench JudgeFixturesRerun -benchtime 1x
func BenchmarkJudgeFixturesRerun(b *testing.B) {
	in, _ := fixtureInputs(b, fixtures.All())
	srv := fakeopenai.New()
	defer srv.Close()
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		c0 := cpuTime()
		_, calls1 := judgeFixtures(b, in, srv, dir)
		c1 := cpuTime()
		_, calls2 := judgeFixtures(b, in, srv, dir)
		c2 := cpuTime()
		b.ReportMetric((c1 - c0).Seconds(), "first-cpu-s")
		b.ReportMetric((c2 - c1).Seconds(), "rerun-cpu-s")
		b.ReportMetric(float64(c2-c1)/float64(c1-c0), "rerun/first")
		b.ReportMetric(float64(calls1), "first-calls")
		b.ReportMetric(float64(calls2), "rerun-calls")
		if calls2 != 0 {
			b.Errorf("rerun made %d calls", calls2)
		}
	}
}

// fakeCompleter makes one small chat completion against srv per call.
func fakeCompleter(srv *fakeopenai.Server) func() (*transport.Response, error) {
	c := transport.NewOpenAI(srv.BaseURL(), "", "reference-model", nil)
	return func() (*transport.Response, error) {
		return c.Complete(context.Background(), &transport.Request{Messages: []transport.Message{{Role: "user", Content: "GT-0: \"a\" --[b]--> \"c\""}}})
	}
}
