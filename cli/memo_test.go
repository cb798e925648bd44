package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRescoreMemoCLI: a rescore with a store directory takes every sample
// from the rescore memo and writes the golden outputs again; a changed
// alias file judges every sample again; --no-memo does not use it.
func TestRescoreMemoCLI(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store")
	args := func(out string, extra ...string) []string {
		return append([]string{"score", "--gt", "../examples/gt", "--pred", "../examples/pred", "--store", store, "--out", out, "--run", "demo", "--workers", "2"}, extra...)
	}
	golden := filepath.Join("testdata", "golden", "examples", "demo")
	check := func(out string) {
		t.Helper()
		err := filepath.WalkDir(golden, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(golden, p)
			want, _ := os.ReadFile(p)
			got, err := os.ReadFile(filepath.Join(out, "demo", rel))
			if err != nil || string(got) != string(want) {
				t.Errorf("%s differs from the golden file (%v)", rel, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range []struct {
		extra []string
		hits  string
	}{
		{nil, ""},
		{nil, "4 of 4 sample(s) unchanged"},
		{[]string{"--no-memo"}, ""},
	} {
		out := t.TempDir()
		code, stdout, stderr := runCLI(t, args(out, c.extra...))
		if code != ExitOK {
			t.Fatalf("run %d: exit %d\n%s\n%s", i+1, code, stdout, stderr)
		}
		if got := strings.Contains(stderr, "from the rescore memo"); got != (c.hits != "") || !strings.Contains(stderr, c.hits) {
			t.Errorf("run %d: stderr %q, want %q", i+1, stderr, c.hits)
		}
		check(out)
	}
	aliases := filepath.Join(t.TempDir(), "aliases.tsv")
	if err := os.WriteFile(aliases, []byte("alias\tKyoto\t京都\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, args(t.TempDir(), "--aliases", aliases))
	if code != ExitOK || strings.Contains(stderr, "rescore memo") {
		t.Errorf("changed alias file: exit %d, stderr %q (want every sample judged again)", code, stderr)
	}
}
