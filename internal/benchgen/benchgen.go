// Package benchgen builds a synthetic benchmark shaped like the recorded
// fixtures (testdata/fixtures): tasks replicated from the 11 fixtures' GT
// graphs with a few triples dropped, and for each run and sample a
// prediction made from the fixture's recorded prediction by dropping,
// altering and duplicating triples at a run-specific rate. Everything comes
// from a fixed seed: same Config, same files. It is code, not data, for the
// scale benchmark; it is not a model of how agents fail.
package benchgen

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/kgjudge/kgjudge/internal/fixtures"
)

// Config sizes a benchmark.
type Config struct {
	Tasks   int
	Samples int
	Runs    int
	Seed    uint64
}

// Full is the size: 200 tasks x 4 samples x 3 runs.
var Full = Config{Tasks: 200, Samples: 4, Runs: 3, Seed: 12}

// Run is one generated run's prediction directory.
type Run struct {
	Name string
	Pred string
	// Keep is the share of the fixture's predicted triples a sample keeps
	// on average (the run's quality).
	Keep float64
}

// Layout is what Generate wrote.
type Layout struct {
	GT      string
	Runs    []Run
	Tasks   int
	Samples int
	// Triples counts GT triples and predicted triples written.
	GTTriples, PredTriples int
}

type source struct {
	name string
	gt   map[string]any
	pred []map[string]any
}

// Generate writes dir/gt/task_*.json and dir/pred/<run>/<task>.jsonl
// (trajectory lines: qid, sample_idx, a response with the graph in a JSON
// block, as the benchmark's agents write).
func Generate(dir string, cfg Config) (*Layout, error) {
	var srcs []source
	for _, name := range fixtures.All() {
		s := source{name: name}
		if err := readJSON(filepath.Join(fixtures.Dir(), name, "gt.json"), &s.gt); err != nil {
			return nil, err
		}
		if err := readJSON(filepath.Join(fixtures.Dir(), name, "pred.json"), &s.pred); err != nil {
			return nil, err
		}
		srcs = append(srcs, s)
	}
	l := &Layout{GT: filepath.Join(dir, "gt"), Tasks: cfg.Tasks, Samples: cfg.Samples}
	if err := os.MkdirAll(l.GT, 0o755); err != nil {
		return nil, err
	}
	keeps := []float64{0.85, 0.7, 0.55}
	for r := range cfg.Runs {
		run := Run{Name: fmt.Sprintf("run%d", r+1), Keep: keeps[r%len(keeps)] - 0.05*float64(r/len(keeps))}
		run.Pred = filepath.Join(dir, "pred", run.Name)
		if err := os.MkdirAll(run.Pred, 0o755); err != nil {
			return nil, err
		}
		l.Runs = append(l.Runs, run)
	}
	for k := range cfg.Tasks {
		src := srcs[k%len(srcs)]
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(k)))
		id := fmt.Sprintf("task_b%03d_%s", k, src.name)
		gt := map[string]any{}
		for key, v := range src.gt {
			gt[key] = v
		}
		gt["task_id"] = id
		gt["subset"] = map[byte]string{'d': "daily", 'p': "pro"}[src.name[0]]
		var triples []any
		for _, t := range src.gt["triples"].([]any) {
			if rng.Float64() >= 0.05 {
				triples = append(triples, t)
			}
		}
		gt["triples"] = triples
		l.GTTriples += len(triples)
		if err := writeJSON(filepath.Join(l.GT, id+".json"), gt); err != nil {
			return nil, err
		}
		for _, run := range l.Runs {
			var b strings.Builder
			for s := range cfg.Samples {
				keep := run.Keep + 0.1*(rng.Float64()-0.5)
				var pred []map[string]any
				for _, t := range src.pred {
					if rng.Float64() >= keep {
						continue
					}
					c := map[string]any{"head": t["head"], "relation": t["relation"], "tail": t["tail"]}
					switch x := rng.Float64(); {
					case x < 0.08:
						// A wrong value: the judge should not match it.
						c["tail"] = fmt.Sprintf("%v (variant %d)", t["tail"], rng.IntN(9))
					case x < 0.11:
						pred = append(pred, c)
					}
					pred = append(pred, c)
				}
				l.PredTriples += len(pred)
				g, err := json.MarshalIndent(pred, "", " ")
				if err != nil {
					return nil, err
				}
				line, err := json.Marshal(map[string]any{
					"qid": id, "sample_idx": s,
					"response": "Here is the knowledge graph:\n```json\n" + string(g) + "\n```",
				})
				if err != nil {
					return nil, err
				}
				b.Write(line)
				b.WriteByte('\n')
			}
			if err := os.WriteFile(filepath.Join(run.Pred, id+".jsonl"), []byte(b.String()), 0o644); err != nil {
				return nil, err
			}
		}
	}
	return l, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
