package e2e

import (
	"context"
	"flag"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/hierarchy"
	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/internal/gen"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/cayley"
	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/matcher/prefilter"
)

var (
	e2eSamples = flag.String("e2e.samples", "200", "BenchmarkEndToEnd: comma-separated run sizes (the issue's scaling check: 200,800)")
	e2eStores  = flag.String("e2e.stores", "bbolt,memstore", "BenchmarkEndToEnd: comma-separated backends (bbolt, leveldb, memstore)")
)

// stageSamples is how many generated samples one op of a stage benchmark
// covers: the first sample of 22 tasks, two of each fixture's shape (their
// sizes average those of a whole run: 280 GT, 490 predicted triples).
const stageSamples = 22

func stageRun(b *testing.B) *gen.Run {
	b.Helper()
	run := gen.Generate(gen.Bases(b), stageSamples*gen.SamplesPerTask, 1).FirstSamples()
	if len(run.Preds) != stageSamples {
		b.Fatalf("%d stage samples, want %d", len(run.Preds), stageSamples)
	}
	return run
}

// perSample reports time and CPU per sample of a stage benchmark.
func perSample(b *testing.B, cpu0 int64) {
	per := float64(b.N * stageSamples)
	b.ReportMetric(b.Elapsed().Seconds()/per, "s/sample")
	b.ReportMetric(float64(gen.CPU().Nanoseconds()-cpu0)/1e9/per, "cpu-s/sample")
}

// BenchmarkStageIngest reads the generated inputs from files (GT JSON,
// prediction CSV), as `kgjudge score` does.
func BenchmarkStageIngest(b *testing.B) {
	dir := b.TempDir()
	if err := stageRun(b).WriteFiles(dir); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := gen.CPU().Nanoseconds()
	for b.Loop() {
		tasks, err := ingest.ReadTasks(filepath.Join(dir, "gt"))
		if err != nil {
			b.Fatal(err)
		}
		preds, err := ingest.ReadPredictions(b.Context(), filepath.Join(dir, "pred"))
		if err != nil || len(preds) != stageSamples || len(tasks) == 0 {
			b.Fatalf("%d preds, %d tasks, %v", len(preds), len(tasks), err)
		}
	}
	perSample(b, cpu0)
}

// BenchmarkStagePrefilter builds every claim's candidates (both passes)
// and the deterministic tier.
func BenchmarkStagePrefilter(b *testing.B) {
	run := stageRun(b)
	b.ReportAllocs()
	cpu0 := gen.CPU().Nanoseconds()
	for b.Loop() {
		for i := range run.Preds {
			if _, err := prefilter.Build(b.Context(), run.Task(i), &run.Preds[i], prefilter.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	perSample(b, cpu0)
}

// BenchmarkStageJudge is the whole offline judge (prefilter included).
func BenchmarkStageJudge(b *testing.B) {
	run := stageRun(b)
	b.ReportAllocs()
	cpu0 := gen.CPU().Nanoseconds()
	for b.Loop() {
		for i := range run.Preds {
			if _, err := (matcher.Offline{}).Judge(b.Context(), run.Task(i), &run.Preds[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
	perSample(b, cpu0)
}

// BenchmarkStageScore computes the metrics from a judgement.
func BenchmarkStageScore(b *testing.B) {
	run := stageRun(b)
	js := make([]matcher.Judgement, len(run.Preds))
	for i := range run.Preds {
		v := run.Verdicts(i, kgstore.SampleKey{})
		js[i] = matcher.Judgement{Judge: "offline", Coverage: v.Coverage, Validity: v.Validity}
	}
	b.ReportAllocs()
	cpu0 := gen.CPU().Nanoseconds()
	for b.Loop() {
		for i := range run.Preds {
			if _, err := matcher.Score(run.Task(i), &run.Preds[i], js[i], matcher.ProtocolPaper); err != nil {
				b.Fatal(err)
			}
		}
	}
	perSample(b, cpu0)
}

// BenchmarkStageStore writes each sample's prediction and verdicts (the
// tasks first, outside the timing) into a new store per op.
func BenchmarkStageStore(b *testing.B) {
	run := stageRun(b)
	for _, backend := range []string{cayley.BBolt, cayley.LevelDB, cayley.MemStore} {
		b.Run(backend, func(b *testing.B) {
			ctx := context.Background()
			vs := make([]kgstore.Verdicts, len(run.Preds))
			for i, p := range run.Preds {
				vs[i] = run.Verdicts(i, kgstore.SampleKey{Run: "stage", TaskID: p.TaskID, Sample: p.SampleIdx})
			}
			b.ReportAllocs()
			var cpu int64
			for b.Loop() {
				b.StopTimer()
				st := openBackend(b, backend)
				for i := range run.Tasks {
					if err := st.PutTask(ctx, run.Tasks[i]); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				c0 := gen.CPU().Nanoseconds()
				for i := range run.Preds {
					if err := st.PutPrediction(ctx, vs[i].Key, run.Preds[i]); err != nil {
						b.Fatal(err)
					}
					if err := st.PutVerdicts(ctx, vs[i]); err != nil {
						b.Fatal(err)
					}
				}
				cpu += gen.CPU().Nanoseconds() - c0
				b.StopTimer()
				if err := st.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			per := float64(b.N * stageSamples)
			b.ReportMetric(b.Elapsed().Seconds()/per, "s/sample")
			b.ReportMetric(float64(cpu)/1e9/per, "cpu-s/sample")
		})
	}
}

// BenchmarkStageStoreBatch writes the samples as runs.Score commits them:
// kgstore.PutSamples, 1 (one transaction per sample) or 8 (the default
// commit batch) samples per batch, into a new bbolt store per op (tasks
// first, outside the timing).
func BenchmarkStageStoreBatch(b *testing.B) {
	run := stageRun(b)
	ctx := context.Background()
	samples := make([]kgstore.Sample, len(run.Preds))
	for i, p := range run.Preds {
		k := kgstore.SampleKey{Run: "stage", TaskID: p.TaskID, Sample: p.SampleIdx}
		samples[i] = kgstore.Sample{Key: k, Prediction: p, Verdicts: run.Verdicts(i, k)}
	}
	for _, batch := range []int{1, 8} {
		b.Run(strconv.Itoa(batch), func(b *testing.B) {
			b.ReportAllocs()
			var cpu int64
			var wall time.Duration
			for b.Loop() {
				b.StopTimer()
				st := openBackend(b, cayley.BBolt)
				for i := range run.Tasks {
					if err := st.PutTask(ctx, run.Tasks[i]); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				t0, c0 := time.Now(), gen.CPU().Nanoseconds()
				for i := 0; i < len(samples); i += batch {
					if err := kgstore.PutSamples(ctx, st, samples[i:min(i+batch, len(samples))]); err != nil {
						b.Fatal(err)
					}
				}
				cpu += gen.CPU().Nanoseconds() - c0
				wall += time.Since(t0)
				b.StopTimer()
				if err := st.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			per := float64(b.N * stageSamples)
			b.ReportMetric(wall.Seconds()/per, "s/sample")
			b.ReportMetric(float64(cpu)/1e9/per, "cpu-s/sample")
		})
	}
}

// BenchmarkStageAnalysis is the hierarchy analysis of one sample.
func BenchmarkStageAnalysis(b *testing.B) {
	run := stageRun(b)
	vs := make([]kgstore.Verdicts, len(run.Preds))
	for i := range run.Preds {
		vs[i] = run.Verdicts(i, kgstore.SampleKey{})
	}
	b.ReportAllocs()
	cpu0 := gen.CPU().Nanoseconds()
	for b.Loop() {
		for i := range run.Preds {
			hierarchy.Analyze(*run.Task(i), run.Preds[i], vs[i].Coverage, vs[i].Validity)
		}
	}
	perSample(b, cpu0)
}

func openBackend(tb testing.TB, backend string) kgstore.Store {
	tb.Helper()
	s, err := cayley.OpenBackend(context.Background(), backend, filepath.Join(tb.TempDir(), "store"))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkEndToEnd runs the Sequential pipeline with the offline judge
// over -e2e.samples generated samples into each -e2e.stores backend. The
// issue's scaling check (time per sample constant from 200 to 800):
//
//	go test ./internal/e2e -run '^$' -bench EndToEnd -benchtime 1x -e2e.samples 200,800
func BenchmarkEndToEnd(b *testing.B) {
	for _, backend := range strings.Split(*e2eStores, ",") {
		for _, ns := range strings.Split(*e2eSamples, ",") {
			n, err := strconv.Atoi(ns)
			if err != nil || n <= 0 {
				b.Fatalf("-e2e.samples: %q is not a positive count", ns)
			}
			b.Run(backend+"/samples="+ns, func(b *testing.B) {
				Benchmark(b, n, func(tb testing.TB) kgstore.Store { return openBackend(tb, backend) }, matcher.Offline{}, Sequential)
			})
		}
	}
}
