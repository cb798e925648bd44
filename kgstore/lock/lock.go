// Package lock is the store directory's lock: a file (kgjudge.lock) in the
// directory, locked with flock(2), that every writer of the directory holds
// while it works, so that two writers never interleave (issue 9, item 6:
// `cache prune` rewrote the verdict cache under a running score and 1,260
// of its 1,421 verdicts were lost). A second writer gets a *HeldError that
// names the holder (pid and command) instead of proceeding. It owns no
// data and decides nothing about what is written.
//
// Two modes: Exclusive for a writer that must be alone (the Cayley store's
// opener, the cache's Prune), Shared for writers that may work side by side
// but never beside an exclusive one (the cache's appenders: several runs
// may append to one verdict cache). The kernel drops a lock when its
// process dies, so a killed run leaves no stale lock behind.
package lock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// FileName is the lock file inside a locked directory.
const FileName = "kgjudge.lock"

// ErrHeld is returned (wrapped, in a *HeldError) when another holder has
// the directory.
var ErrHeld = errors.New("directory is in use")

// Mode says how a lock is shared.
type Mode int

const (
	// Shared locks coexist with each other, not with an exclusive one.
	Shared Mode = iota
	// Exclusive locks coexist with nothing.
	Exclusive
)

func (m Mode) String() string {
	if m == Exclusive {
		return "exclusive"
	}
	return "shared"
}

// Holder is a process holding a lock, as far as it can be told (on Linux
// from /proc/locks; else from what an exclusive holder wrote in the file).
type Holder struct {
	PID     int    `json:"pid"`
	Command string `json:"command,omitempty"`
}

func (h Holder) String() string {
	if h.PID == 0 {
		return "another process"
	}
	if h.Command == "" {
		return fmt.Sprintf("pid %d", h.PID)
	}
	return fmt.Sprintf("pid %d (%s)", h.PID, h.Command)
}

// HeldError says who holds the directory a writer wanted.
type HeldError struct {
	Dir     string
	Want    Mode
	Purpose string // what the refused writer was going to do
	Holders []Holder
}

func (e *HeldError) Error() string {
	who := "another process"
	if len(e.Holders) > 0 {
		parts := make([]string, len(e.Holders))
		for i, h := range e.Holders {
			parts[i] = h.String()
		}
		who = strings.Join(parts, ", ")
	}
	msg := fmt.Sprintf("%s is in use by %s", e.Dir, who)
	if e.Purpose != "" {
		msg = "cannot " + e.Purpose + ": " + msg
	}
	return msg + "; wait for it to finish (or stop it) and try again"
}

// Is makes errors.Is(err, ErrHeld) hold.
func (e *HeldError) Is(target error) bool { return target == ErrHeld }

// Lock is a held lock. Release it when done; it is also dropped when the
// process exits.
type Lock struct {
	f    *os.File
	path string
	mode Mode
}

// Path is the lock file.
func (l *Lock) Path() string { return l.path }

// Acquire takes the lock of dir (created if missing) in mode, without
// waiting: if it is held in a conflicting mode the error is a *HeldError.
// purpose says what the caller is going to do ("prune the judge cache"),
// for the other side's error and this one's.
func Acquire(dir string, mode Mode, purpose string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	path := filepath.Join(dir, FileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	held, err := tryLock(f, mode)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if held {
		holders := holdersOf(f)
		f.Close()
		return nil, &HeldError{Dir: dir, Want: mode, Purpose: purpose, Holders: holders}
	}
	if mode == Exclusive {
		// For systems without /proc/locks: who holds it, for the next one.
		if f.Truncate(0) == nil {
			fmt.Fprintf(f, "pid %d\n%s\n", os.Getpid(), purpose)
		}
	}
	return &Lock{f: f, path: path, mode: mode}, nil
}

// Release drops the lock. Later calls do nothing.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	if l.mode == Exclusive {
		l.f.Truncate(0)
	}
	err := unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// holderFromFile reads what an exclusive holder wrote.
func holderFromFile(f *os.File) []Holder {
	b := make([]byte, 512)
	n, _ := f.ReadAt(b, 0)
	lines := strings.SplitN(string(b[:n]), "\n", 3)
	var h Holder
	if len(lines) >= 1 {
		fmt.Sscanf(lines[0], "pid %d", &h.PID)
	}
	if h.PID == 0 {
		return nil
	}
	if len(lines) >= 2 {
		h.Command = strings.TrimSpace(lines[1])
	}
	return []Holder{h}
}
