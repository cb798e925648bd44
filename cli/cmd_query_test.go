package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/kgstore/neo4j"
)

// The Neo4j tests of this package use NEO4J_URI (scripts/test.sh sets it
// for the whole run). Without it, when a JVM is there, the first test that
// needs Neo4j starts one as a child process that exits with this test
// binary (the launcher's --watch-stdin: it stops when our pipe closes).
// Without either (or with KGJUDGE_NEO4J_TESTS=skip), those tests skip and
// say why.
var (
	neo4jOnce sync.Once
	neo4jURI  string
	neo4jWhy  string
	neo4jSeq  atomic.Int64
	// neo4jStdin is the child launcher's stdin: when the test binary exits
	// it closes, and the launcher (--watch-stdin) shuts down.
	neo4jStdin io.WriteCloser
)

func testNeo4jURI(t *testing.T) string {
	t.Helper()
	neo4jOnce.Do(func() {
		if os.Getenv("KGJUDGE_NEO4J_TESTS") == "skip" {
			neo4jWhy = "KGJUDGE_NEO4J_TESTS=skip: skipping the Neo4j tests"
			return
		}
		if uri := os.Getenv(neo4j.EnvURI); uri != "" {
			neo4jURI = uri
			return
		}
		java := os.Getenv("KGJUDGE_NEO4J_JAVA")
		if java == "" {
			var err error
			if java, err = exec.LookPath("java"); err != nil {
				neo4jWhy = "NEO4J_URI is unset and no java on PATH to start Neo4j: skipping the Neo4j tests"
				return
			}
		}
		uri, err := startChildNeo4j(java)
		if err != nil {
			neo4jWhy = "FAIL: " + err.Error()
			return
		}
		neo4jURI = uri
	})
	if strings.HasPrefix(neo4jWhy, "FAIL: ") {
		t.Fatal(neo4jWhy) // a JVM is there: not starting is a failure
	}
	if neo4jURI == "" {
		t.Skip(neo4jWhy)
	}
	return neo4jURI
}

func startChildNeo4j(java string) (string, error) {
	build := exec.Command("../scripts/neo4j.sh", "build")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("scripts/neo4j.sh build: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := "../tools/neo4j-launcher/target"
	cmd := exec.Command(java, "-Xms256m", "-Xmx1g", "-XX:TieredStopAtLevel=1", "-XX:+ExitOnOutOfMemoryError",
		"--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
		"--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "-Dio.netty.tryReflectionSetAccessible=true",
		"-Dfile.encoding=UTF-8", "-cp", dir+"/classes:"+dir+"/dependency/*",
		"com.github.kgjudge.neo4jlauncher.Neo4jLauncher", "--port", fmt.Sprint(port), "--watch-stdin")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return "", err
	}
	neo4jStdin = stdin // held (and kept from the garbage collector) for the life of the test binary
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if uri, ok := strings.CutPrefix(sc.Text(), "NEO4J READY "); ok {
				ready <- uri
				break
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case uri := <-ready:
		return uri, nil
	case <-time.After(4 * time.Minute):
		cmd.Process.Kill()
		return "", fmt.Errorf("Neo4j launcher not ready after 4 minutes:\n%s", stderr.String())
	}
}

// testNeo4j returns connection options with a namespace of the test's own,
// dropped when the test ends.
func testNeo4j(t *testing.T) neo4jOptions {
	t.Helper()
	o := neo4jOptions{URI: testNeo4jURI(t), Namespace: fmt.Sprintf("cli-%d-%d-%s", os.Getpid(), neo4jSeq.Add(1), t.Name())}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		s, err := neo4j.Open(ctx, o.config())
		if err != nil {
			t.Errorf("cleanup: %v", err)
			return
		}
		defer s.Close()
		if err := s.DropNamespace(ctx); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return o
}

// queryJSON runs a query through runQuery and decodes its JSON output.
func queryJSON(t *testing.T, o neo4jOptions, q queryOptions) []map[string]any {
	t.Helper()
	q.Neo4j, q.Format = o, "json"
	var stdout, stderr bytes.Buffer
	if err := runQuery(t.Context(), q, &stdout, &stderr); err != nil {
		t.Fatalf("query: %v\n%s", err, stderr.String())
	}
	var rows []map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &rows); err != nil {
		t.Fatalf("query output is not JSON: %v\n%s", err, stdout.String())
	}
	return rows
}

func TestParseParams(t *testing.T) {
	got, err := parseParams([]string{"run=opus", "limit=10", "x=1.5", `names=["a","b"]`, `q="quoted"`, "ok=true", "id=012", "csv=a,b", "empty="})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"run": "opus", "limit": int64(10), "x": 1.5, "names": []any{"a", "b"}, "q": "quoted", "ok": true, "id": "012", "csv": "a,b", "empty": ""}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("parseParams = %v, want %v", got, want)
	}
	for _, bad := range []string{"novalue", "=x"} {
		if _, err := parseParams([]string{bad}); exitCodeOf(err) != ExitInput {
			t.Errorf("parseParams(%q) err = %v, want a usage error", bad, err)
		}
	}
}

func TestWriteResult(t *testing.T) {
	res := &neo4j.Result{Columns: []string{"name", "n", "list"}, Rows: [][]any{{"a\tb", int64(2), []any{"x", int64(1)}}, {"名前", 0.5, nil}}}
	var b bytes.Buffer
	if err := writeResult(&b, res, "csv"); err != nil {
		t.Fatal(err)
	}
	if want := "name,n,list\na\tb,2,\"[\"\"x\"\",1]\"\n名前,0.5,\n"; b.String() != want {
		t.Errorf("csv:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	if err := writeResult(&b, res, "json"); err != nil {
		t.Fatal(err)
	}
	if want := "[\n  {\"name\": \"a\\tb\", \"n\": 2, \"list\": [\"x\",1]},\n  {\"name\": \"名前\", \"n\": 0.5, \"list\": null}\n]\n"; b.String() != want {
		t.Errorf("json:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := writeResult(&b, res, "table"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "(2 rows)") || !strings.Contains(b.String(), "a b") {
		t.Errorf("table:\n%s", b.String())
	}
	b.Reset()
	writeResult(&b, &neo4j.Result{Columns: []string{"x"}, Rows: [][]any{}}, "json")
	if b.String() != "[]\n" {
		t.Errorf("empty json = %q", b.String())
	}
}

func TestQueryUsage(t *testing.T) {
	for _, c := range []struct {
		name string
		o    queryOptions
	}{
		{"neither", queryOptions{Format: "table"}},
		{"both", queryOptions{Cypher: "RETURN 1", File: "x", Format: "table"}},
		{"format", queryOptions{Cypher: "RETURN 1", Format: "xml"}},
		{"file", queryOptions{File: "no/such/file.cypher", Format: "table"}},
		{"param", queryOptions{Cypher: "RETURN 1", Format: "table", Params: []string{"oops"}}},
	} {
		err := runQuery(t.Context(), c.o, io.Discard, io.Discard)
		if exitCodeOf(err) != ExitInput {
			t.Errorf("%s: err = %v, want exit %d", c.name, err, ExitInput)
		}
	}
	t.Setenv(neo4j.EnvURI, "")
	err := runQuery(t.Context(), queryOptions{Cypher: "RETURN 1", Format: "table"}, io.Discard, io.Discard)
	var ue *UserError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--neo4j-uri") {
		t.Errorf("no URI: err = %v, want a usage error naming --neo4j-uri", err)
	}
}

func TestQueryCommand(t *testing.T) {
	o := testNeo4j(t)
	// Through the command line: flags, --param with commas, formats, $ns.
	code, stdout, stderr := runCLI(t, []string{"query", "--neo4j-uri", o.URI, "--neo4j-namespace", o.Namespace,
		"--cypher", "RETURN $ns AS ns, $list AS list, $s AS s", "--param", `list=[1,2]`, "--param", "s=a,b", "--format", "csv"})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "ns,list,s\n" + o.Namespace + ",\"[1,2]\",\"a,b\"\n"; stdout != want {
		t.Errorf("stdout = %q, want %q", stdout, want)
	}
	// A Cypher error is the user's.
	code, _, stderr = runCLI(t, []string{"query", "--neo4j-uri", o.URI, "--cypher", "MATCH (n RETURN n"})
	if code != ExitInput || !strings.Contains(stderr, "query:") {
		t.Errorf("bad Cypher: exit %d, stderr %s", code, stderr)
	}
	// Read-only unless --write.
	code, _, _ = runCLI(t, []string{"query", "--neo4j-uri", o.URI, "--neo4j-namespace", o.Namespace, "--cypher", "CREATE (:Run {ns: $ns, key: 'x'})"})
	if code == ExitOK {
		t.Errorf("a write ran in a read transaction")
	}
	rows := queryJSON(t, o, queryOptions{Cypher: "CREATE (r:Run {ns: $ns, key: $ns + 'x', name: 'w'}) RETURN r", Write: true})
	if len(rows) != 1 || rows[0]["r"].(map[string]any)["name"] != "w" {
		t.Errorf("write query = %v", rows)
	}
	if labels := rows[0]["r"].(map[string]any)["_labels"]; fmt.Sprint(labels) != "[Run]" {
		t.Errorf("node labels = %v", labels)
	}
}
