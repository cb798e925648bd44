package cayley

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/lock"
	"github.com/kgjudge/kgjudge/kgstore/storetest"
)

func openT(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open(%q): %v", path, err)
	}
	return s
}

func openBackendT(t *testing.T, backend, path string) *Store {
	t.Helper()
	s, err := OpenBackend(context.Background(), backend, path)
	if err != nil {
		t.Fatalf("OpenBackend(%q, %q): %v", backend, path, err)
	}
	return s
}

// TestDisk runs the suite on the default on-disk backend, as Open picks it.
func TestDisk(t *testing.T) {
	storetest.Run(t, func(t *testing.T) kgstore.Store { return openT(t, t.TempDir()) })
}

func TestLevelDB(t *testing.T) {
	storetest.Run(t, func(t *testing.T) kgstore.Store { return openBackendT(t, LevelDB, t.TempDir()) })
}

func TestMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T) kgstore.Store { return openT(t, Memory) })
}

func TestReopen(t *testing.T) {
	for _, backend := range []string{BBolt, LevelDB} {
		t.Run(backend, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "nested", ".kgjudge") // created if missing
			first := func(t *testing.T) kgstore.Store { return openBackendT(t, backend, dir) }
			// The second open goes through Open, which must recognise the backend.
			again := func(t *testing.T) kgstore.Store { return openT(t, dir) }
			storetest.RunReopen(t, first, again)
		})
	}
}

func TestDetectBackend(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if got := detectBackend(filepath.Join(dir, "new")); got != DefaultBackend {
		t.Errorf("new directory: backend %q, want %q", got, DefaultBackend)
	}
	for _, backend := range []string{BBolt, LevelDB} {
		path := filepath.Join(dir, backend)
		s := openBackendT(t, backend, path)
		if err := s.PutTask(ctx, storetest.Tasks()[0]); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if got := detectBackend(path); got != backend {
			t.Errorf("%s store: detected %q", backend, got)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, BBolt, boltFile)); err != nil {
		t.Errorf("bbolt store has no %s: %v", boltFile, err)
	}
	if _, err := OpenBackend(ctx, "nosuch", dir); err == nil {
		t.Errorf("OpenBackend(nosuch): no error")
	}
}

// TestLocked: a second open of a bbolt store held by another handle fails
// instead of hanging.
func TestLocked(t *testing.T) {
	dir := t.TempDir()
	s := openBackendT(t, BBolt, dir)
	defer s.Close()
	s2, err := OpenBackend(context.Background(), BBolt, dir)
	if err == nil {
		s2.Close()
		t.Fatalf("second open of a locked store: no error")
	}
	var he *lock.HeldError
	if !errors.As(err, &he) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) || !strings.Contains(err.Error(), dir) {
		t.Errorf("second open: %v, want a *lock.HeldError naming %s and pid %d", err, dir, os.Getpid())
	}
	// Closed, the store opens again.
	s.Close()
	s3 := openBackendT(t, BBolt, dir)
	s3.Close()
	// An in-memory store takes no lock.
	m1, m2 := openT(t, Memory), openT(t, Memory)
	m1.Close()
	m2.Close()
}
