package cayley

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/kgjudge/kgjudge/kgstore"
)

// bbolt trusts its file: a truncated or overwritten indexes.bolt makes it
// panic ("invalid freelist page: 0", "page N already freed") or read past
// the end of its memory map (a fault). Neither is a kgjudge bug or bad
// input, so both become a *kgstore.DamagedError that names the file and
// says what to do: checkBolt catches truncation before the real open, and
// protect turns a panic or a fault during an open or a read into the error.

// damaged builds the error for the bbolt file of a store.
func damaged(file, problem string) *kgstore.DamagedError {
	return &kgstore.DamagedError{File: file, Problem: problem,
		Advice: fmt.Sprintf("kgjudge cannot read it. Move it aside (mv %q %q) and run again: the runs are scored again, "+
			"and the judge's verdicts, kept apart in %s, are not asked again", file, file+".damaged", filepath.Join(filepath.Dir(file), "judge-cache"))}
}

// protect runs fn, turning a panic or a memory fault inside it into a
// *kgstore.DamagedError for file.
func protect(file string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = damaged(file, fmt.Sprintf("the bbolt library failed reading it: %v", r))
		}
	}()
	return fn()
}

// guard is deferred by every Store method that reads or writes: a panic in
// the bbolt backend becomes the method's error. Other backends' panics are
// bugs and are not caught.
func (s *Store) guard(err *error) {
	if s.file == "" {
		return
	}
	if r := recover(); r != nil {
		*err = damaged(s.file, fmt.Sprintf("the bbolt library failed reading it: %v", r))
	}
}

// checkBolt reports a bbolt file that cannot be the store it claims to be:
// empty (bbolt would silently start a new store over it), or shorter than
// the pages its header counts (truncated). A file another process holds
// is left to the real open, which says so.
func checkBolt(file string) error {
	st, err := os.Stat(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if st.Size() == 0 {
		return damaged(file, "the file is empty (bbolt would start a new, empty store over it)")
	}
	return protect(file, func() error {
		db, err := bolt.Open(file, 0o644, &bolt.Options{ReadOnly: true, Timeout: 200 * time.Millisecond})
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil // held by a writer: the real open reports it
		}
		if err != nil {
			return damaged(file, err.Error())
		}
		defer db.Close()
		tx, err := db.Begin(false)
		if err != nil {
			return damaged(file, err.Error())
		}
		defer tx.Rollback()
		if want := tx.Size(); want > st.Size() {
			return damaged(file, fmt.Sprintf("truncated: %d bytes, its header counts %d", st.Size(), want))
		}
		return nil
	})
}
