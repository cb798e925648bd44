// Package inputfile opens the files a user names as inputs without ever
// blocking: a named pipe, a device or a socket among the inputs (mkfifo
// pred/x.json) is refused with ErrNotRegular instead of hanging the run on
// an open or a read that never returns. It reads nothing itself.
package inputfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotRegular is returned (wrapped) for a path that is not a regular file
// (or a symbolic link to one).
var ErrNotRegular = errors.New("not a regular file")

// Kind names a file mode's type for messages: "a named pipe (FIFO)", ...
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "a regular file"
}

// notRegular is an *os.PathError, like the other open errors, so that
// callers print it the same way.
func notRegular(path string, m fs.FileMode) error {
	return &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w: it is %s", ErrNotRegular, Kind(m))}
}

// Open opens path for reading if it is a regular file (symbolic links are
// followed). The open itself cannot block: on Unix it is made with
// O_NONBLOCK (which a FIFO with no writer would otherwise wait on) and the
// type is checked on the open descriptor, so a file swapped for a pipe
// between a stat and the open is caught too.
func Open(path string) (*os.File, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(path, st.Mode())
	}
	return f, nil
}

// ReadFile is os.ReadFile through Open.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	if st, err := f.Stat(); err == nil && st.Size() < 1<<40 {
		b.Grow(int(st.Size()) + bytes.MinRead)
	}
	_, err = b.ReadFrom(f)
	return b.Bytes(), err
}
