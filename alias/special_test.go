//go:build unix

package alias

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/internal/inputfile"
)

func TestLoadAliasFileFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "aliases.tsv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := LoadAliasFile(fifo); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, inputfile.ErrNotRegular) || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "named pipe") {
			t.Fatalf("error %v, want one naming %s as a named pipe", err, fifo)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("LoadAliasFile blocked on a FIFO")
	}
}
