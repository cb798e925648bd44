package cayley

import (
	"context"
	"testing"

	"github.com/kgjudge/kgjudge/kgstore"
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

func TestLevelDB(t *testing.T) {
	storetest.Run(t, func(t *testing.T) kgstore.Store { return openT(t, t.TempDir()) })
}

func TestMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T) kgstore.Store { return openT(t, Memory) })
}

func TestReopen(t *testing.T) {
	dir := t.TempDir() + "/nested/.kgjudge" // Open creates missing directories
	open := func(t *testing.T) kgstore.Store { return openT(t, dir) }
	storetest.RunReopen(t, open, open)
}
