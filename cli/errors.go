package cli

import (
	"github.com/kgjudge/kgjudge/runs"

	"errors"
	"fmt"

	ucli "github.com/urfave/cli/v2"
)

// Exit codes, documented in the app's help text.
const (
	ExitOK       = 0
	ExitInternal = 1 // a bug or an environment failure (store, disk)
	ExitInput    = 2 // bad input or usage: the message says which file and what
	ExitUnjudged = 3 // scored, but some claims were left unjudged
)

// UserError is a problem with what the user asked for or gave us (a flag, a
// file, a mismatch between inputs). It is reported without a stack of
// wrapping and exits with ExitInput, as opposed to bugs, which exit 1.
type UserError struct{ Err error }

func (e *UserError) Error() string { return e.Err.Error() }
func (e *UserError) Unwrap() error { return e.Err }

func userErrorf(format string, args ...any) error {
	return &UserError{Err: fmt.Errorf(format, args...)}
}

// exitStatus is returned by commands that finished their work but must exit
// non-zero (unjudged claims, some bad input files).
type exitStatus struct {
	code int
	msg  string
}

func (e *exitStatus) Error() string { return e.msg }

func exitCodeOf(err error) int {
	if err == nil {
		return ExitOK
	}
	var es *exitStatus
	if errors.As(err, &es) {
		return es.code
	}
	var ue *UserError
	if errors.As(err, &ue) || runs.IsInputError(err) {
		return ExitInput
	}
	// urfave/cli's own errors (kgjudge help NOSUCHCOMMAND) are usage errors.
	var ec ucli.ExitCoder
	if errors.As(err, &ec) {
		return ExitInput
	}
	return ExitInternal
}
