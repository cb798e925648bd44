package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// TestGoldenExamples pins the whole output of `kgjudge score` on the bundled
// examples (offline judge, paper protocol): OUT/demo/summary.json, every
// item file and the table. Review the diff of `go test ./cli -run Golden -update`.
func TestGoldenExamples(t *testing.T) {
	out := t.TempDir()
	var stdout bytes.Buffer
	if _, err := runScore(t.Context(), scoreOptions{GT: "../examples/gt", Pred: "../examples/pred", Judge: "offline", Protocol: "paper",
		Store: ":memory:", Out: out, Run: "demo", Workers: 4}, &stdout, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	// The table names the output directory: make it machine-independent.
	table := bytes.ReplaceAll(stdout.Bytes(), []byte(out), []byte("OUT"))
	got := map[string][]byte{"table.txt": table}
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		got[rel], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("testdata", "golden", "examples")
	if *update {
		os.RemoveAll(dir)
		for rel, b := range got {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, rel), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	n := 0
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		rel, _ := filepath.Rel(dir, p)
		want, _ := os.ReadFile(p)
		if !bytes.Equal(got[rel], want) {
			t.Errorf("%s differs from %s (rerun with -update and review the diff)", rel, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(got) {
		t.Errorf("%d golden files, the run wrote %d", n, len(got))
	}
}
