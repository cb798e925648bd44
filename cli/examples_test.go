package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/llmjudge/fakeopenai"
)

// example is one documented command line and where it is documented.
type example struct {
	where, line string
}

var shBlock = regexp.MustCompile("(?s)```sh\n(.*?)```")

// readmeExamples are the command lines of README.md's sh blocks.
func readmeExamples(t *testing.T) []example {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	for i, m := range shBlock.FindAllStringSubmatch(string(b), -1) {
		for _, l := range joinContinued(strings.Split(m[1], "\n")) {
			out = append(out, example{fmt.Sprintf("README.md sh block %d", i+1), l})
		}
	}
	return out
}

// joinContinued joins backslash-continued lines and drops blank and
// comment-only lines.
func joinContinued(lines []string) []string {
	var out []string
	cur := ""
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasSuffix(l, `\`) {
			cur += strings.TrimSuffix(l, `\`) + " "
			continue
		}
		l = cur + l
		cur = ""
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// helpExamples are the lines of the EXAMPLES section of every command's and
// subcommand's --help, as kgjudge prints them.
func helpExamples(t *testing.T) []example {
	t.Helper()
	var out []example
	var walk func(path []string, cmds []*ucli.Command)
	walk = func(path []string, cmds []*ucli.Command) {
		for _, c := range cmds {
			if c.Name == "help" {
				continue
			}
			p := append(append([]string{}, path...), c.Name)
			code, stdout, stderr := runCLI(t, append(p, "--help"))
			if code != ExitOK {
				t.Fatalf("kgjudge %s --help: exit %d\n%s", strings.Join(p, " "), code, stderr)
			}
			lines := strings.Split(stdout, "\n")
			for i, l := range lines {
				if strings.TrimSpace(l) != "EXAMPLES:" {
					continue
				}
				indent := len(l) - len(strings.TrimLeft(l, " "))
				var section []string
				for _, e := range lines[i+1:] {
					if strings.TrimSpace(e) == "" || len(e)-len(strings.TrimLeft(e, " ")) <= indent {
						break
					}
					section = append(section, e)
				}
				for _, e := range joinContinued(section) {
					out = append(out, example{"kgjudge " + strings.Join(p, " ") + " --help", e})
				}
			}
			walk(p, c.Subcommands)
		}
	}
	walk(nil, newApp(nil, nil).Commands)
	return out
}

// userLayout lays the fixtures out where the examples name a user's own
// directories: tasks/ (task files), trajs/model-x/ and data/trajs/pro/
// (trajectory JSONL whose lines end with the recorded eval keys) and
// results/eval/opus/ (reference eval records). These are the only paths the
// test provides; every other path an example names is the repository's.
func userLayout(t *testing.T, dir string) {
	t.Helper()
	for _, name := range []string{"p041"} {
		var ev map[string]any
		var preds []map[string]any
		for file, v := range map[string]any{"eval.json": &ev, "pred.json": &preds} {
			b, err := os.ReadFile(filepath.Join(fixtureDir, name, file))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, v); err != nil {
				t.Fatal(err)
			}
		}
		qid := ev["qid"].(string)
		copyFile(t, filepath.Join(fixtureDir, name, "gt.json"), filepath.Join(dir, "tasks", qid+".json"))
		copyFile(t, filepath.Join(fixtureDir, name, "eval.json"), filepath.Join(dir, "results", "eval", "opus", qid+"_sample0.json"))
		arr, _ := json.Marshal(preds)
		line := map[string]any{"qid": qid, "sample_idx": 0, "question": "…", "messages": []any{},
			"response": "```json\n" + string(arr) + "\n```", "termination": "answer"}
		for k, v := range ev {
			if k != "qid" && k != "sample_idx" {
				line[k] = v
			}
		}
		b, _ := json.Marshal(line)
		for _, d := range []string{filepath.Join(dir, "trajs", "model-x"), filepath.Join(dir, "data", "trajs", "pro")} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, qid+".jsonl"), append(b, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// needsNeo4j: the example talks to a Neo4j server.
func needsNeo4j(line string) bool {
	f := strings.Fields(line)
	if len(f) >= 2 && f[0] == "kgjudge" && (f[1] == "query" || (f[1] == "export" && len(f) > 2 && f[2] == "neo4j")) {
		return true
	}
	for _, w := range f {
		if w == "--neo4j" {
			return true
		}
	}
	return false
}

// TestDocumentedExamples runs every command line of README.md's sh blocks
// and of every --help EXAMPLES section as written, with bash, in a working
// directory that links the repository's examples/, testdata/ and docs/, in
// order (later examples use the store earlier ones filled, as a reader
// following the text would), and asserts each exit code. What the test
// provides instead of a user's machine, and nothing else:
//   - `kgjudge` on PATH is this test binary acting as the command;
//   - the directories a user would have (tasks/, trajs/model-x/,
//     data/trajs/pro/, results/eval/opus/) hold a recorded fixture sample;
//   - the judge endpoint, model and key of the openai examples come from the
//     environment (KGJUDGE_JUDGE_URL, ...) and are llmjudge/fakeopenai;
//   - `export NEO4J_URI="$(scripts/neo4j.sh start)"` is replaced by the
//     test's Neo4j server (testNeo4j); without one, every Neo4j example must
//     fail with exit 2 and the one-line "no Neo4j server";
//   - `make X` lines run as `make -n X` in the repository root (running them
//     would start this very test suite).
func TestDocumentedExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every documented example as a child process")
	}
	examples := append(readmeExamples(t), helpExamples(t)...)
	if len(examples) < 20 {
		t.Fatalf("found only %d examples: the parsing above is broken", len(examples))
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	self, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	work, bin := filepath.Join(root, "work"), filepath.Join(root, "bin")
	for _, d := range []string{work, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"examples", "testdata", "docs"} {
		if err := os.Symlink(filepath.Join(repo, d), filepath.Join(work, d)); err != nil {
			t.Fatal(err)
		}
	}
	userLayout(t, work)
	wrapper := fmt.Sprintf("#!/bin/sh\nKGJUDGE_TEST_MAIN=1 exec %q \"$@\"\n", self)
	if err := os.WriteFile(filepath.Join(bin, "kgjudge"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := fakeopenai.New()
	defer srv.Close()

	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "KGJUDGE_") || strings.HasPrefix(k, "NEO4J_") || strings.HasPrefix(k, "OPENAI_") || k == "PATH" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"KGJUDGE_JUDGE_URL="+srv.BaseURL(), "KGJUDGE_JUDGE_MODEL=judge-test", "OPENAI_API_KEY=sk-test")
	if os.Getenv("KGJUDGE_NEO4J_TESTS") == "skip" {
		env = append(env, "KGJUDGE_NEO4J_TESTS=skip")
	}
	neo := "" // the test's server, once an example asks for one
	neo4jServer := func() string {
		if neo == "" && os.Getenv("KGJUDGE_NEO4J_TESTS") != "skip" {
			var o neo4jOptions
			t.Run("neo4j", func(t *testing.T) { o = testNeo4j(t) }) // skips without a server
			if o.URI != "" {
				neo = o.URI
				env = append(env, "NEO4J_URI="+o.URI, "KGJUDGE_NEO4J_NAMESPACE="+o.Namespace)
			}
		}
		return neo
	}

	ran := 0
	for _, ex := range examples {
		line := ex.line
		if strings.HasPrefix(line, "export NEO4J_URI=") {
			neo4jServer()
			continue
		}
		dir := work
		if f := strings.Fields(line); f[0] == "make" {
			line, dir = "make -n"+strings.TrimPrefix(line, "make"), repo
		} else if f[0] != "kgjudge" {
			t.Errorf("%s: %q is neither a kgjudge nor a make command: teach this test what it needs", ex.where, ex.line)
			continue
		}
		if f := strings.Fields(line); f[0] == "kgjudge" {
			if i := unquotedDollar(line); i >= 0 {
				t.Errorf("%s: %q: the shell expands %q before kgjudge sees it (single-quote it)", ex.where, ex.line, line[i:])
			}
		}
		wantCode, wantErr := ExitOK, ""
		if needsNeo4j(line) && neo4jServer() == "" {
			wantCode, wantErr = ExitInput, "no Neo4j server"
		}
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-c", line)
		cmd.Dir, cmd.Env = dir, env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		_ = cmd.Run()
		cancel()
		code := cmd.ProcessState.ExitCode()
		ran++
		t.Logf("%s: %s -> exit %d (%.1fs)", ex.where, ex.line, code, time.Since(start).Seconds())
		if code != wantCode || !strings.Contains(stderr.String(), wantErr) {
			t.Errorf("%s: %s\nexit %d, want %d (stderr with %q)\nstdout:\n%.2000s\nstderr:\n%.2000s", ex.where, ex.line, code, wantCode, wantErr, stdout.String(), stderr.String())
		}
	}
	t.Logf("%d documented examples run", ran)
}

// unquotedDollar is the index of the first '$' of line that a shell would
// expand (outside single quotes), or -1.
func unquotedDollar(line string) int {
	inSingle := false
	for i, c := range line {
		switch {
		case c == '\'':
			inSingle = !inSingle
		case c == '$' && !inSingle:
			return i
		}
	}
	return -1
}

func TestUnquotedDollar(t *testing.T) {
	for line, want := range map[string]int{
		`kgjudge query --cypher 'MATCH (r:Run {ns: $ns}) RETURN r'`: -1,
		`kgjudge query --cypher "MATCH (r:Run {ns: $ns}) RETURN r"`: 42,
		`kgjudge score --gt $HOME/tasks`:                            19,
	} {
		if got := unquotedDollar(line); got != want {
			t.Errorf("unquotedDollar(%q) = %d, want %d", line, got, want)
		}
	}
}

var docRef = regexp.MustCompile(`\b(?:[a-z]+/)*(?:docs|alias|examples|testdata)/[A-Za-z0-9_./-]*[A-Za-z0-9_]`)

// TestHelpReferencesExist: every file or folder of the repository that a
// --help text or README.md points the reader to exists, and the --judge
// help names every judge.
func TestHelpReferencesExist(t *testing.T) {
	texts := map[string]string{}
	var walk func(path []string, cmds []*ucli.Command)
	walk = func(path []string, cmds []*ucli.Command) {
		for _, c := range cmds {
			p := append(append([]string{}, path...), c.Name)
			_, stdout, _ := runCLI(t, append(p, "--help"))
			texts["kgjudge "+strings.Join(p, " ")+" --help"] = stdout
			walk(p, c.Subcommands)
		}
	}
	walk(nil, newApp(nil, nil).Commands)
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	texts["README.md"] = string(readme)
	n := 0
	for where, text := range texts {
		for _, ref := range docRef.FindAllString(text, -1) {
			n++
			if _, err := os.Stat(filepath.Join("..", ref)); err != nil {
				t.Errorf("%s refers to %s, which does not exist", where, ref)
			}
		}
	}
	if n < 5 || !strings.Contains(texts["README.md"], "docs/FORMATS.md") {
		t.Errorf("only %d references found: the pattern is broken", n)
	}
	if !strings.Contains(texts["kgjudge score --help"], "offline | replay | openai") {
		t.Errorf("score --help: --judge does not list every judge")
	}
}
