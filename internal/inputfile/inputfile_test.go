//go:build unix

package inputfile

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestOpenRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(regular, []byte(`[]`), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "x.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.json")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	linkOK, linkFIFO := filepath.Join(dir, "link.json"), filepath.Join(dir, "linkfifo.json")
	os.Symlink(regular, linkOK)
	os.Symlink(fifo, linkFIFO)
	for _, tc := range []struct {
		name, path, want string // want "" = opens
	}{
		{"regular file", regular, ""},
		{"symbolic link to a regular file", linkOK, ""},
		{"named pipe", fifo, "not a regular file: it is a named pipe (FIFO)"},
		{"symbolic link to a named pipe", linkFIFO, "it is a named pipe (FIFO)"},
		{"socket", sock, "no such device or address"}, // open(2) refuses sockets itself
		{"character device", "/dev/null", "it is a character device"},
		{"directory", dir, "it is a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				data, err := ReadFile(tc.path)
				if err == nil && string(data) != "[]" {
					err = errors.New("read " + string(data))
				}
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("ReadFile blocked")
			}
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
				t.Fatalf("error %v, want one naming %s: %s", err, tc.path, tc.want)
			}
			if tc.name != "socket" && !errors.Is(err, ErrNotRegular) {
				t.Errorf("error %v is not ErrNotRegular", err)
			}
		})
	}
}
