//go:build unix

package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/internal/inputfile"
)

// noBlock runs fn and fails the test if it does not return within 10 s.
func noBlock(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("blocked on a special file")
	}
}

// TestSpecialFilesAmongInputs: a FIFO among the inputs (issue 9.3: mkfifo
// pred/x.json blocked forever) is a bad input naming the file; the other
// files are still read.
func TestSpecialFilesAmongInputs(t *testing.T) {
	copyFile := func(t *testing.T, src, dst string) {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mkfifo := func(t *testing.T, p string) {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// checkBad: err lists exactly the FIFOs, each named, as not regular.
	checkBad := func(t *testing.T, err error, fifos ...string) {
		t.Helper()
		var fe *FileErrors
		if !errors.As(err, &fe) && len(fifos) > 1 {
			t.Fatalf("error %T %v, want a *FileErrors", err, err)
		}
		if !IsInputError(err) || !errors.Is(err, inputfile.ErrNotRegular) {
			t.Fatalf("error %v: want an input error for a file that is not regular", err)
		}
		for _, f := range fifos {
			if !strings.Contains(err.Error(), f+": cannot open: not a regular file: it is a named pipe (FIFO)") {
				t.Errorf("error %q does not name %s as a named pipe", err, f)
			}
		}
	}
	ctx := context.Background()
	t.Run("predictions", func(t *testing.T) {
		dir := t.TempDir()
		copyFile(t, fixture("p012", "pred.json"), filepath.Join(dir, "task_012.json"))
		fifos := []string{filepath.Join(dir, "x.json"), filepath.Join(dir, "sub", "y.jsonl")}
		os.Mkdir(filepath.Join(dir, "sub"), 0o755)
		for _, f := range fifos {
			mkfifo(t, f)
		}
		noBlock(t, func() {
			preds, err := ReadPredictions(ctx, dir)
			if len(preds) != 1 || len(preds[0].Triples) == 0 {
				t.Errorf("%d predictions from the good file, want 1", len(preds))
			}
			checkBad(t, err, fifos...)
		})
		noBlock(t, func() {
			_, err := ReadPredictions(ctx, fifos[0])
			checkBad(t, err, fifos[0])
		})
	})
	t.Run("tasks", func(t *testing.T) {
		dir := t.TempDir()
		copyFile(t, fixture("p012", "gt.json"), filepath.Join(dir, "task_012.json"))
		fifo := filepath.Join(dir, "task_999.json")
		mkfifo(t, fifo)
		noBlock(t, func() {
			tasks, err := ReadTasks(dir)
			if len(tasks) != 1 {
				t.Errorf("%d tasks from the good file, want 1", len(tasks))
			}
			checkBad(t, err, fifo)
		})
	})
	t.Run("evals", func(t *testing.T) {
		dir := t.TempDir()
		copyFile(t, fixture("p012", "eval.json"), filepath.Join(dir, "task_012_sample0.json"))
		fifos := []string{filepath.Join(dir, "a_sample1.json"), filepath.Join(dir, "b.jsonl")}
		for _, f := range fifos {
			mkfifo(t, f)
		}
		noBlock(t, func() {
			evs, err := ReadEvals(ctx, dir)
			if len(evs) != 1 {
				t.Errorf("%d records from the good file, want 1", len(evs))
			}
			checkBad(t, err, fifos...)
		})
	})
	t.Run("map", func(t *testing.T) {
		fifo := filepath.Join(t.TempDir(), "map.csv")
		mkfifo(t, fifo)
		noBlock(t, func() {
			_, err := ReadMap(fifo)
			checkBad(t, err, fifo)
		})
	})
}
