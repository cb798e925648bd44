package runs

import (
	"errors"
	"fmt"

	"github.com/kgjudge/kgjudge/ingest"
)

// InputError is a problem with what the user gave (a file, a mismatch
// between inputs, an option that cannot work), as opposed to a bug or a
// failing disk.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErrorf(format string, args ...any) error {
	return &InputError{Err: fmt.Errorf(format, args...)}
}

// IsInputError reports whether err is the user's to fix: an *InputError or
// one of ingest's input errors.
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie) || ingest.IsInputError(err)
}

// asInput marks ingest's input errors as the user's.
func asInput(err error) error {
	if ingest.IsInputError(err) {
		return &InputError{Err: err}
	}
	return err
}

// PanicError is a panic caught in one of Score's workers: a bug, carried to
// the caller with its stack (a panic in a goroutine would otherwise end the
// process with Go's exit status 2, which kgjudge reserves for bad input).
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }
