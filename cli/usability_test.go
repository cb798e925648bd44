package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kgstore/neo4j"
)

// TestUsageErrors: every usage mistake exits 2 with one line that says what
// was wrong and where the help is, never the whole help.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"structure"}, "structure: missing --run; see 'kgjudge structure --help'"},
		{[]string{"structure", "--run"}, "flag needs an argument: -run"},
		{[]string{"score"}, "score: missing --gt; see 'kgjudge score --help'"},
		{[]string{"score", "--gt", "../examples/gt"}, "score: missing --pred"},
		{[]string{"score", "--bogus"}, "score: flag provided but not defined: -bogus"},
		{[]string{"score", "--gt", "a", "--pred", "b", "--workers", "many"}, `invalid value "many" for flag -workers`},
		{[]string{"plan"}, "plan: missing --gt and --pred; see 'kgjudge plan --help'"},
		{[]string{"import"}, "import: missing --evals"},
		{[]string{"export", "neo4j", "--bogus"}, "export neo4j: flag provided but not defined"},
		{[]string{"cache", "bogus"}, `cache: unknown subcommand "bogus"`},
		{[]string{"cache", "stats", "--bogus"}, "cache stats: flag provided but not defined"},
		{[]string{"bogus"}, `unknown command "bogus"; see 'kgjudge --help'`},
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"help", "bogus"}, "No help topic for 'bogus'"},
		{[]string{"agree", "a"}, "agree needs two run names (got 1); see 'kgjudge agree --help'"},
		{[]string{"score", "--gt", "g", "--pred", "p", "extra"}, `score takes no arguments (got ["extra"])`},
		{[]string{"export"}, "export needs a target: kgjudge export neo4j"},
		{[]string{"query"}, "give exactly one of --cypher and --file"},
		{[]string{"plan", "--gt", "../examples/gt", "--pred", "../examples/pred", "--out", "/does/not/exist/plan.json"}, "--out /does/not/exist/plan.json: cannot write there"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args)
			if code != ExitInput {
				t.Errorf("exit %d, want %d", code, ExitInput)
			}
			if !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("stderr %q, want one line with %q", stderr, tc.want)
			}
			if strings.Contains(stdout+stderr, "USAGE:") {
				t.Errorf("the full help was printed:\n%s", stdout)
			}
		})
	}
	// Required flags may come from the environment.
	t.Setenv("KGJUDGE_GT", "/does/not/exist")
	if code, _, stderr := runCLI(t, []string{"score", "--pred", "../examples/pred", "--store", ":memory:", "--out", t.TempDir()}); code != ExitInput || !strings.Contains(stderr, "--gt: stat /does/not/exist") {
		t.Errorf("--gt from KGJUDGE_GT: exit %d, %q", code, stderr)
	}
	// Help itself is no error.
	if code, stdout, _ := runCLI(t, []string{"structure", "--help"}); code != ExitOK || !strings.Contains(stdout, "--run value") || !strings.Contains(stdout, "(required)") {
		t.Errorf("structure --help: exit %d\n%s", code, stdout)
	}
}

// TestPlanProgressAndLegend: plan reports progress as score does (on a log
// file: a line at once) and explains its columns.
func TestPlanProgressAndLegend(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stdout bytes.Buffer
	if _, err := runPlan(t.Context(), planOptions{GT: "../examples/gt", Pred: "../examples/pred"}, &stdout, f); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(f.Name())
	if !strings.Contains(string(b), "kgjudge: planning 4 sample(s)") {
		t.Errorf("plan progress on a log: %q", b)
	}
	for _, want := range []string{"no-cand: no predicted\ntriple could cover it", "focus: mean candidate list", "resolved: decided without a judge"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("plan output lacks the legend %q:\n%s", want, stdout.String())
		}
	}
	assertAligned(t, "plan", firstBlock(stdout.String()))
}

// firstBlock is the lines of s up to the first empty one (a table).
func firstBlock(s string) []string {
	block, _, _ := strings.Cut(s, "\n\n")
	return strings.Split(block, "\n")
}

// assertAligned checks a table whose columns after the first are right
// aligned: every row ends at the same display column.
func assertAligned(t *testing.T, name string, lines []string) {
	t.Helper()
	if len(lines) < 2 {
		t.Fatalf("%s: no table in %q", name, lines)
	}
	for _, l := range lines[1:] {
		if displayWidth(l) != displayWidth(lines[0]) {
			t.Errorf("%s: row %q is %d columns wide, the header %d", name, l, displayWidth(l), displayWidth(lines[0]))
		}
	}
}

// TestTablesUseDisplayWidth: CJK, fullwidth and combining text line up in
// every table (tabwriter would count a wide character as one column).
func TestTablesUseDisplayWidth(t *testing.T) {
	for _, tc := range []struct {
		s string
		w int
	}{{"abc", 3}, {"咖啡", 4}, {"ＡＢ", 4}, {"e\u0301", 1}, {"a\u200db", 2}, {"task_e02_咖啡豆选购", 19}} {
		if got := displayWidth(tc.s); got != tc.w {
			t.Errorf("displayWidth(%q) = %d, want %d", tc.s, got, tc.w)
		}
	}
	tb := &table{}
	tb.add("task", "n")
	tb.add("咖啡豆选购", "1")
	tb.add("cafe\u0301", "22")
	var b bytes.Buffer
	tb.write(&b)
	assertAligned(t, "table", strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n"))

	// Query results: every column left-aligned, by display width.
	b.Reset()
	res := &neo4j.Result{Columns: []string{"name", "n"}, Rows: [][]any{{"名前", int64(1)}, {"abc", int64(22)}, {"ＡＢＣＤ", nil}}}
	if err := writeResult(&b, res, "table"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	col := -1
	for i, l := range lines[:4] {
		idx := strings.LastIndex(l, "  ") + 2
		if c := displayWidth(l[:idx]); col == -1 {
			col = c
		} else if c != col {
			t.Errorf("query table row %d: second column at %d, the header's at %d:\n%s", i, c, col, b.String())
		}
	}
}
