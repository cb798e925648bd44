package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/internal/fixtures"
)

// fixtureInputs lays the 11 recorded fixtures out as a GT directory, a
// prediction directory (named by task id, which pred.json does not carry)
// and a directory of recorded verdicts.
func fixtureInputs(t *testing.T) (gt, pred, verdicts string) {
	t.Helper()
	root := t.TempDir()
	gt, pred, verdicts = filepath.Join(root, "gt"), filepath.Join(root, "pred"), filepath.Join(root, "eval")
	for _, d := range []string{gt, pred, verdicts} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range fixtures.All() {
		src := filepath.Join(fixtures.Dir(), name)
		g, err := os.ReadFile(filepath.Join(src, "gt.json"))
		if err != nil {
			t.Fatal(err)
		}
		var head struct {
			ID string `json:"task_id"`
		}
		if err := json.Unmarshal(g, &head); err != nil {
			t.Fatal(err)
		}
		shardCopy(t, filepath.Join(src, "gt.json"), filepath.Join(gt, name+".json"))
		shardCopy(t, filepath.Join(src, "pred.json"), filepath.Join(pred, head.ID+".json"))
		shardCopy(t, filepath.Join(src, "eval.json"), filepath.Join(verdicts, name+".json"))
	}
	return gt, pred, verdicts
}

func shardCopy(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// readTree reads every file under dir but shard.json.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	got := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "shard.json" {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		got[rel], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// score --shard i/n for every i, then merge: the merged outputs are the
// unsharded run's, byte for byte.
func TestShardMergeByteIdentical(t *testing.T) {
	fgt, fpred, fver := fixtureInputs(t)
	for _, c := range []struct {
		name string
		o    scoreOptions
		n    int
	}{
		{"examples offline 2 shards", scoreOptions{GT: "../examples/gt", Pred: "../examples/pred", Judge: "offline"}, 2},
		// More shards than tasks: shard 3 scores nothing.
		{"examples offline 3 shards", scoreOptions{GT: "../examples/gt", Pred: "../examples/pred", Judge: "offline"}, 3},
		{"fixtures replay 4 shards", scoreOptions{GT: fgt, Pred: fpred, Judge: "replay", Verdicts: fver}, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			o := c.o
			o.Protocol, o.Store, o.Run, o.Workers = "paper", ":memory:", "run", 2
			o.Out = filepath.Join(root, "whole")
			if _, err := runScore(t.Context(), o, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
				t.Fatal(err)
			}
			var shards []string
			tasks := 0
			for i := c.n; i >= 1; i-- { // merge must not depend on the order given
				o.Shard = fmt.Sprintf("%d/%d", i, c.n)
				o.Out = filepath.Join(root, fmt.Sprintf("shard%d", i))
				if _, err := runScore(t.Context(), o, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
					t.Fatalf("shard %s: %v", o.Shard, err)
				}
				var info struct{ Tasks []string }
				b, err := os.ReadFile(filepath.Join(o.Out, o.Run, "shard.json"))
				if err != nil || json.Unmarshal(b, &info) != nil {
					t.Fatalf("shard.json: %v", err)
				}
				tasks += len(info.Tasks)
				shards = append(shards, filepath.Join(o.Out, o.Run))
			}
			merged := filepath.Join(root, "merged")
			var out bytes.Buffer
			if err := runMerge(t.Context(), mergeOptions{Out: merged}, shards, &out); err != nil {
				t.Fatal(err)
			}
			want, got := readTree(t, filepath.Join(root, "whole", "run")), readTree(t, merged)
			if len(want) != len(got) || len(want) < 2 {
				t.Errorf("%d files merged, %d unsharded", len(got), len(want))
			}
			for rel, w := range want {
				if !bytes.Equal(got[rel], w) {
					t.Errorf("%s differs from the unsharded run", rel)
				}
			}
			var sum struct {
				NumQueries int `json:"num_queries"`
			}
			json.Unmarshal(want["summary.json"], &sum)
			if tasks != sum.NumQueries {
				t.Errorf("shards hold %d tasks, the run %d", tasks, sum.NumQueries)
			}
			if !strings.Contains(out.String(), fmt.Sprintf("merged %d shard(s)", c.n)) {
				t.Errorf("merge said %q", out.String())
			}
		})
	}
}

func TestMergeRefusesBadShardSets(t *testing.T) {
	root := t.TempDir()
	o := scoreOptions{GT: "../examples/gt", Pred: "../examples/pred", Judge: "offline", Protocol: "paper", Store: ":memory:", Run: "run", Workers: 1}
	dirs := map[string]string{}
	for _, sh := range []string{"1/2", "2/2", "1/3"} {
		o.Shard, o.Out = sh, filepath.Join(root, strings.ReplaceAll(sh, "/", "of"))
		if _, err := runScore(t.Context(), o, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		dirs[sh] = filepath.Join(o.Out, o.Run)
	}
	o.Shard, o.Out, o.Run = "2/2", filepath.Join(root, "other"), "other"
	if _, err := runScore(t.Context(), o, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	o.Shard, o.Out, o.Run = "", filepath.Join(root, "whole"), "run"
	if _, err := runScore(t.Context(), o, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		dirs []string
		want string
	}{
		{"a shard missing", []string{dirs["1/2"]}, "missing"},
		{"a shard twice", []string{dirs["1/2"], dirs["1/2"], dirs["2/2"]}, "twice"},
		{"two splits", []string{dirs["1/2"], dirs["1/3"]}, "not one split"},
		{"two runs", []string{dirs["1/2"], filepath.Join(root, "other", "other")}, "not shards of one run"},
		{"not a shard", []string{filepath.Join(root, "whole", "run")}, "shard.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := runMerge(t.Context(), mergeOptions{Out: filepath.Join(root, "m")}, c.dirs, &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), c.want) || exitCodeOf(err) != ExitInput {
				t.Errorf("got %v (exit %d), want an input error about %q", err, exitCodeOf(err), c.want)
			}
		})
	}
	for _, bad := range []string{"0/2", "3/2", "2", "a/b", "1/0"} {
		o.Shard, o.Out = bad, filepath.Join(root, "bad")
		if _, err := runScore(t.Context(), o, &bytes.Buffer{}, &bytes.Buffer{}); exitCodeOf(err) != ExitInput {
			t.Errorf("--shard %s: %v", bad, err)
		}
	}
}
