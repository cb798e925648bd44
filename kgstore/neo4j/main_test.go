package neo4j

import (
	"github.com/kgjudge/kgjudge/hierarchy"

	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/storetest"
)

// noServer says why the Neo4j tests skip; empty when a server is there.
var noServer string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	if os.Getenv("KGJUDGE_NEO4J_TESTS") == "skip" {
		noServer = "KGJUDGE_NEO4J_TESTS=skip: skipping the Neo4j tests"
		return m.Run()
	}
	if os.Getenv(EnvURI) == "" {
		if _, err := exec.LookPath("java"); err != nil {
			noServer = "NEO4J_URI is unset and no java on PATH to start Neo4j (scripts/neo4j.sh): skipping the Neo4j tests"
		} else {
			// The package's own server: a free port and a private state
			// directory, so that no other run's stop reaches it.
			state, err := os.MkdirTemp("", "kgjudge-neo4j-pkgtest.")
			if err != nil {
				fmt.Fprintf(os.Stderr, "kgstore/neo4j: %v\n", err)
				return 1
			}
			defer os.RemoveAll(state)
			uri, err := startServer(state)
			if err != nil {
				// A JVM is there but the server did not start: that is a
				// failure, not a reason to skip.
				fmt.Fprintf(os.Stderr, "kgstore/neo4j: %v\n", err)
				return 1
			}
			os.Setenv(EnvURI, uri)
			defer func() {
				stop := exec.Command("../../scripts/neo4j.sh", "stop", "--port", uri[strings.LastIndex(uri, ":")+1:])
				stop.Env = append(os.Environ(), "KGJUDGE_NEO4J_DIR="+state)
				stop.Run()
			}()
		}
	}
	return m.Run()
}

func startServer(state string) (string, error) {
	cmd := exec.Command("../../scripts/neo4j.sh", "start", "--port", "auto")
	cmd.Env = append(os.Environ(), "KGJUDGE_NEO4J_DIR="+state)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("scripts/neo4j.sh start --port auto: %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}

var nsSeq atomic.Int64

// testConfig returns a config on the test server with a namespace of its
// own, or skips the test when there is no server.
func testConfig(t testing.TB) Config {
	t.Helper()
	if noServer != "" {
		t.Skip(noServer)
	}
	cfg := ConfigFromEnv()
	cfg.Namespace = fmt.Sprintf("test-%d-%d-%s", os.Getpid(), nsSeq.Add(1), t.Name())
	cfg.Classes = hierarchy.GraphClassifier{}
	return cfg
}

// openTest opens a store in a fresh namespace and drops the namespace when
// the test ends.
func openTest(t testing.TB, cfg Config) *Store {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		admin, err := Open(ctx, cfg)
		if err != nil {
			t.Errorf("Open for cleanup: %v", err)
			return
		}
		defer admin.Close()
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		if err := admin.DropNamespace(ctx); err != nil {
			t.Errorf("DropNamespace: %v", err)
		}
	})
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) kgstore.Store { return openTest(t, testConfig(t)) })
}

func TestReopen(t *testing.T) {
	cfg := testConfig(t)
	open := func(t *testing.T) kgstore.Store {
		s, err := Open(context.Background(), cfg)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		return s
	}
	openTest(t, cfg).Close() // registers the cleanup
	storetest.RunReopen(t, open, open)
}
