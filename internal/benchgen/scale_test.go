package benchgen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kgstore/cayley"
	"github.com/kgjudge/kgjudge/leaderboard"
	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/runs"
	"github.com/kgjudge/kgjudge/runset"
)

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out[rel], _ = os.ReadFile(p)
		}
		return err
	})
	return out
}

// Same config, same files; the files read back as tasks and predictions of
// the sizes asked for.
func TestGenerate(t *testing.T) {
	cfg := Config{Tasks: 13, Samples: 2, Runs: 3, Seed: 5}
	a, b := t.TempDir(), t.TempDir()
	la, err := Generate(a, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(b, cfg); err != nil {
		t.Fatal(err)
	}
	ta, tb := readTree(t, a), readTree(t, b)
	if len(ta) != 13+3*13 || len(ta) != len(tb) {
		t.Fatalf("%d and %d files, want 52", len(ta), len(tb))
	}
	for k, v := range ta {
		if !bytes.Equal(v, tb[k]) {
			t.Errorf("%s differs between two runs of the generator", k)
		}
	}
	tasks, err := ingest.ReadTasks(la.GT)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 13 || tasks[0].Subset != "daily" || tasks[len(tasks)-1].Subset == "" {
		t.Errorf("%d tasks, subsets %q %q", len(tasks), tasks[0].Subset, tasks[len(tasks)-1].Subset)
	}
	var perRun []int
	for _, r := range la.Runs {
		preds, err := ingest.ReadPredictions(t.Context(), r.Pred)
		if err != nil {
			t.Fatal(err)
		}
		if len(preds) != 26 {
			t.Errorf("%s: %d predictions, want 26", r.Name, len(preds))
		}
		n := 0
		for _, p := range preds {
			n += len(p.Triples)
			if p.Report.Status != "clean" && p.Report.Status != "repaired" {
				t.Errorf("%s %s: parse %s", r.Name, p.QID, p.Report.Status)
			}
		}
		perRun = append(perRun, n)
	}
	// The runs keep fewer triples in the order of their quality.
	if !(perRun[0] > perRun[1] && perRun[1] > perRun[2]) {
		t.Errorf("triples per run %v, want decreasing", perRun)
	}
	c := Config{Seed: 6, Tasks: 13, Samples: 2, Runs: 3}
	if _, err := Generate(t.TempDir(), c); err != nil {
		t.Fatal(err)
	}
}

// scaleSizes are the benchmark's sizes: 4x is the 200 tasks x 4
// samples x 3 runs; 1x and 2x have a quarter and half of the tasks (smoke:
// one task per fixture, to try the benchmark out).
var scaleSizes = map[string]int{"smoke": 11, "1x": 50, "2x": 100, "4x": 200}

// BenchmarkScale generates a benchmark, scores every run offline (the
// offline rules judge, the embedded Cayley store on disk, the pipeline of
// kgjudge score) and ranks the runs (leaderboard over the output
// directories). It runs only when KGJUDGE_BENCH_SCALE names the sizes
// (1x,2x,4x; make bench-scale runs each in its own process, so that
// peak-RSS is that size's).
func BenchmarkScale(b *testing.B) {
	sizes := os.Getenv("KGJUDGE_BENCH_SCALE")
	if sizes == "" {
		b.Skip("set KGJUDGE_BENCH_SCALE=1x,2x,4x (or run make bench-scale): minutes per size")
	}
	for _, size := range strings.Split(sizes, ",") {
		tasks, ok := scaleSizes[size]
		if !ok {
			b.Fatalf("KGJUDGE_BENCH_SCALE: unknown size %q (want 1x, 2x, 4x)", size)
		}
		b.Run(size, func(b *testing.B) {
			cfg := Full
			cfg.Tasks = tasks
			workers := 4
			if w, err := strconv.Atoi(os.Getenv("KGJUDGE_WORKERS")); err == nil && w > 0 {
				workers = w
			}
			var gen, score, rank time.Duration
			var cpu float64
			samples := 0
			b.Logf("load average at start: %s", loadavg())
			for range b.N {
				b.StopTimer()
				dir := b.TempDir()
				t0 := time.Now()
				l, err := Generate(filepath.Join(dir, "in"), cfg)
				if err != nil {
					b.Fatal(err)
				}
				gen += time.Since(t0)
				b.StartTimer()

				t1 := time.Now()
				cpu0 := cpuSeconds()
				st, err := cayley.Open(b.Context(), filepath.Join(dir, "store"))
				if err != nil {
					b.Fatal(err)
				}
				var outs []string
				for _, r := range l.Runs {
					in, err := runs.LoadBatch(b.Context(), l.GT, "", []runs.RunSpec{{Name: r.Name, Path: r.Pred}})
					if err != nil {
						b.Fatal(err)
					}
					if len(in.GT.Problems)+len(in.Runs[0].Problems) > 0 {
						b.Fatalf("%s: %v", r.Name, append(in.GT.Problems, in.Runs[0].Problems...)[0])
					}
					out := filepath.Join(dir, "out", r.Name)
					res, err := runs.Score(b.Context(), in, runs.ScoreConfig{Protocol: matcher.ProtocolPaper,
						Judge: matcher.Offline{}, Store: st, Out: filepath.Join(dir, "out"), Workers: workers, Version: "bench"})
					if err != nil {
						b.Fatal(err)
					}
					samples += len(res.Items)
					outs = append(outs, out)
				}
				st.Close()
				score += time.Since(t1)

				t2 := time.Now()
				rs, err := runset.ReadPaths(outs)
				if err != nil {
					b.Fatal(err)
				}
				tasksMeta, ids, err := runset.ReadTasks(l.GT)
				if err != nil {
					b.Fatal(err)
				}
				board, err := leaderboard.Build(runset.Set{Runs: rs, Tasks: tasksMeta, Universe: ids}, leaderboard.Options{By: []string{"run", "subset"}})
				if err != nil {
					b.Fatal(err)
				}
				var tbl bytes.Buffer
				leaderboard.WriteTable(&tbl, board)
				rank += time.Since(t2)
				cpu += cpuSeconds() - cpu0
				b.Logf("%s: %d tasks x %d samples x %d runs, %d GT and %d predicted triples\n%s", size, cfg.Tasks, cfg.Samples, cfg.Runs, l.GTTriples, l.PredTriples, tbl.String())
			}
			n := float64(b.N)
			wall := (score + rank).Seconds() / n
			b.ReportMetric(wall, "wall-s")
			b.ReportMetric(float64(samples)/n/wall, "samples/s")
			b.ReportMetric(gen.Seconds()/n, "gen-s")
			b.ReportMetric(score.Seconds()/n, "score-s")
			b.ReportMetric(rank.Seconds()/n, "rank-s")
			b.ReportMetric(cpu/n, "cpu-s")
			b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.Sys)/(1<<20), "go-sys-MB")
			b.Logf("load average at end: %s", loadavg())
			b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "procs")
		})
	}
}

// cpuSeconds is the user and system CPU time the process has used.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(b))
}

// peakRSSMB is the process's peak resident set (VmHWM), in MB.
func peakRSSMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")), "%f", &kb)
			return kb / 1024
		}
	}
	return 0
}
