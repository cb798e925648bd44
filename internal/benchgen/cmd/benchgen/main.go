// Command benchgen writes a generated benchmark (internal/benchgen) to a
// directory, for measuring the kgjudge CLI on it:
//
//	go run ./internal/benchgen/cmd/benchgen -tasks 200 -samples 4 -runs 1 DIR
//	kgjudge score --gt DIR/gt --pred DIR/pred/RUN --store DIR/store --out DIR/out
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/kgjudge/kgjudge/internal/benchgen"
)

func main() {
	cfg := benchgen.Full
	flag.IntVar(&cfg.Tasks, "tasks", cfg.Tasks, "tasks")
	flag.IntVar(&cfg.Samples, "samples", cfg.Samples, "samples per task and run")
	flag.IntVar(&cfg.Runs, "runs", cfg.Runs, "runs")
	seed := flag.Uint64("seed", cfg.Seed, "seed")
	flag.Parse()
	cfg.Seed = *seed
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: benchgen [-tasks N -samples N -runs N -seed S] DIR")
		os.Exit(2)
	}
	l, err := benchgen.Generate(flag.Arg(0), cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchgen:", err)
		os.Exit(1)
	}
	fmt.Printf("gt %s: %d tasks, %d GT triples, %d predicted triples\n", l.GT, l.Tasks, l.GTTriples, l.PredTriples)
	for _, r := range l.Runs {
		fmt.Printf("run %s: %s\n", r.Name, r.Pred)
	}
}
