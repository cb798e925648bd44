package ingest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// InputError is a problem with a user's input file (as opposed to a bug).
// File is the file as given; Line is 1-based (0 when not line-oriented);
// Path is a JSON path such as `triples[3].tail_id` (empty when not known).
type InputError struct {
	File string
	Line int
	Path string
	Msg  string
	Err  error // underlying cause, if any
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString("ingest: ")
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(" line ")
		b.WriteString(strconv.Itoa(e.Line))
	}
	if e.Path != "" {
		b.WriteString(": ")
		b.WriteString(e.Path)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

func (e *InputError) Unwrap() error { return e.Err }

// IsInputError reports whether err is (or wraps) a user input problem.
func IsInputError(err error) bool {
	var ie *InputError
	var fe *FileErrors
	var me *MatchError
	return errors.As(err, &ie) || errors.As(err, &fe) || errors.As(err, &me)
}

func inputErr(file string, line int, path, format string, args ...any) *InputError {
	return &InputError{File: file, Line: line, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// FileErrors collects the errors of every bad file of a multi-file read. The
// values read from the good files are returned alongside it.
type FileErrors struct {
	Errs []error
}

func (e *FileErrors) Error() string {
	if len(e.Errs) == 1 {
		return e.Errs[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ingest: %d bad inputs:", len(e.Errs))
	for _, err := range e.Errs {
		b.WriteString("\n  ")
		b.WriteString(err.Error())
	}
	return b.String()
}

// Unwrap returns the collected errors, for errors.Is and errors.As.
func (e *FileErrors) Unwrap() []error { return e.Errs }

// orNil returns e as an error, or nil when it holds no error.
func (e *FileErrors) orNil() error {
	if e == nil || len(e.Errs) == 0 {
		return nil
	}
	return e
}

func (e *FileErrors) add(err error) {
	if err == nil {
		return
	}
	var fe *FileErrors
	if errors.As(err, &fe) && fe != e {
		e.Errs = append(e.Errs, fe.Errs...)
		return
	}
	e.Errs = append(e.Errs, err)
}
