package leaderboard

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/runset"
)

// On the bundled examples' pinned output, the leaderboard's avg@N and best@N
// are summary.json's: it reads the scores, it does not recompute them.
func TestMatchesSummaryOnExamples(t *testing.T) {
	dir := "../cli/testdata/golden/examples/demo"
	r, err := runset.ReadOutDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(dir + "/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	var sum map[string]any
	if err := json.Unmarshal(raw, &sum); err != nil {
		t.Fatal(err)
	}
	b, err := Build(runset.Set{Runs: []runset.Run{r}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	row := b.Rows[0]
	if row.Tasks != int(sum["num_queries"].(float64)) || row.N != int(sum["num_samples"].(float64)) || row.Missing != 0 {
		t.Fatalf("tasks %d N %d missing %d", row.Tasks, row.N, row.Missing)
	}
	for _, k := range matcher.MetricKeys {
		for stat, figs := range map[string]map[string]Figure{"avg": row.Avg, "best": row.Best} {
			key := fmt.Sprintf("%s@%d_%s", stat, row.N, k)
			if want := sum[key].(float64); figs[k].Mean != want {
				t.Errorf("%s: leaderboard %v, summary.json %v", key, figs[k].Mean, want)
			}
		}
	}
}
