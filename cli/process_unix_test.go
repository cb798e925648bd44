//go:build unix

package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/llmjudge/fakeopenai"
)

// child is the test binary run as kgjudge (see TestMain).
type child struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	exited chan error
}

func startChild(t *testing.T, args []string) *child {
	t.Helper()
	c := &child{cmd: exec.Command(os.Args[0], args...), exited: make(chan error, 1)}
	c.cmd.Env = append(os.Environ(), "KGJUDGE_TEST_MAIN=1")
	c.cmd.Stderr = &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.exited <- c.cmd.Wait() }()
	t.Cleanup(func() { _ = c.cmd.Process.Kill() })
	return c
}

// signal sends sig and returns the exit code and how long the exit took.
func (c *child) signal(t *testing.T, sig syscall.Signal) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		t.Fatalf("child still running 10 s after %v; stderr:\n%s", sig, c.stderr.String())
	}
	return c.cmd.ProcessState.ExitCode(), time.Since(start)
}

// TestSignalStopsRunResumable sends SIGTERM or SIGINT to a score run while
// judge requests are in flight (the endpoint hangs after three answers): the
// process exits within 2 s with 128+signal, and rerunning the same command
// completes with outputs byte-identical to an uninterrupted run's.
func TestSignalStopsRunResumable(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			var mu sync.Mutex
			hang, answered := true, 0
			srv := fakeopenai.New(func(s *fakeopenai.Server) {
				s.Script = func(*fakeopenai.Call) *fakeopenai.Reply {
					mu.Lock()
					defer mu.Unlock()
					if hang && answered >= 3 {
						return &fakeopenai.Reply{Hang: time.Minute}
					}
					answered++
					return nil
				}
			})
			defer srv.Close()
			store := filepath.Join(t.TempDir(), "store")
			c := startChild(t, openaiArgs(srv, store, t.TempDir(), "--concurrency", "2"))
			deadline := time.Now().Add(60 * time.Second)
			for {
				mu.Lock()
				n := answered
				mu.Unlock()
				if n >= 3 && len(srv.Calls()) > n { // answered three, one more hangs
					break
				}
				select {
				case err := <-c.exited:
					t.Fatalf("child exited before the signal (%v); stderr:\n%s", err, c.stderr.String())
				case <-time.After(20 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					t.Fatalf("child never reached a hanging call; stderr:\n%s", c.stderr.String())
				}
			}
			code, took := c.signal(t, tc.sig)
			if code != tc.code || took > 2*time.Second {
				t.Errorf("exit %d after %v, want %d within 2s; stderr:\n%s", code, took, tc.code, c.stderr.String())
			}
			if !strings.Contains(c.stderr.String(), "rerun the same command to resume") {
				t.Errorf("stderr does not say how to resume:\n%s", c.stderr.String())
			}
			mu.Lock()
			hang = false
			mu.Unlock()

			outResumed := t.TempDir()
			if code, _, stderr := runCLI(t, openaiArgs(srv, store, outResumed)); code != ExitOK {
				t.Fatalf("resumed run exit %d\n%s", code, stderr)
			}
			srv2 := fakeopenai.New()
			defer srv2.Close()
			outFresh := t.TempDir()
			if code, _, stderr := runCLI(t, openaiArgs(srv2, filepath.Join(t.TempDir(), "fresh"), outFresh)); code != ExitOK {
				t.Fatalf("fresh run exit %d\n%s", code, stderr)
			}
			for _, rel := range []string{"summary.json", "items/task_e01_Kyoto Weekend_sample0.json", "items/task_e01_Kyoto Weekend_sample1.json",
				"items/task_e02_咖啡豆选购_sample0.json", "items/task_e02_咖啡豆选购_sample1.json"} {
				a, _ := os.ReadFile(filepath.Join(outResumed, "llm", rel))
				b, _ := os.ReadFile(filepath.Join(outFresh, "llm", rel))
				a = bytes.ReplaceAll(a, []byte(strings.TrimPrefix(srv.URL, "http://")), []byte("HOST"))
				b = bytes.ReplaceAll(b, []byte(strings.TrimPrefix(srv2.URL, "http://")), []byte("HOST"))
				if len(a) == 0 || !bytes.Equal(a, b) {
					t.Errorf("%s: the resumed run differs from an uninterrupted one", rel)
				}
			}
		})
	}
}

// TestSignalDuringInputs: a run blocked reading its inputs (a FIFO with no
// writer among the predictions) stops within 2 s of SIGTERM.
func TestSignalDuringInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	pred := t.TempDir()
	copyFile(t, "../examples/pred/task_e01_Kyoto Weekend.jsonl", filepath.Join(pred, "task_e01_Kyoto Weekend.jsonl"))
	if err := syscall.Mkfifo(filepath.Join(pred, "x.json"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	out := t.TempDir()
	c := startChild(t, []string{"score", "--gt", "../examples/gt", "--pred", pred, "--store", filepath.Join(t.TempDir(), "s"), "--out", out})
	select {
	case err := <-c.exited:
		// ingest may refuse a FIFO outright: then it must say so, as bad input.
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != ExitInput || !strings.Contains(c.stderr.String(), "x.json") {
			t.Fatalf("child exited before the signal (%v); stderr:\n%s", err, c.stderr.String())
		}
		return
	case <-time.After(700 * time.Millisecond):
	}
	code, took := c.signal(t, syscall.SIGTERM)
	if code != 143 || took > 2*time.Second {
		t.Errorf("exit %d after %v, want 143 within 2s; stderr:\n%s", code, took, c.stderr.String())
	}
}
