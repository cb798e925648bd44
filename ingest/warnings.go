package ingest

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kgjudge/kgjudge/kg"
)

// Warning is a non-fatal finding about an input file: the file is used, but
// something in it is probably not what its author meant (a triple naming a
// node id that has no node, a repeated node id, a task with no triple,
// invalid UTF-8 that was replaced). Callers print them on stderr and put
// them in the run's summary; they never change a score.
type Warning struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	// Path is a JSON path (`triples[3].tail_id`) or "" (a whole-file finding).
	Path string `json:"path,omitempty"`
	Msg  string `json:"message"`
}

// String reads like an *InputError, marked as a warning:
// `ingest: gt/task_1.json: triples[3].tail_id: warning: "x9" has no node ...`.
func (w Warning) String() string {
	var b strings.Builder
	b.WriteString("ingest: ")
	b.WriteString(w.File)
	if w.Line > 0 {
		b.WriteString(" line ")
		b.WriteString(strconv.Itoa(w.Line))
	}
	if w.Path != "" {
		b.WriteString(": ")
		b.WriteString(w.Path)
	}
	b.WriteString(": warning: ")
	b.WriteString(w.Msg)
	return b.String()
}

// Task warnings are kept in kg.Task.Warnings (and in the store) as
// "WHERE: MESSAGE", WHERE a JSON path or "line N"; the file is the task's
// Source, which is not stored (the same file read from elsewhere gives the
// same store). TaskWarnings puts the three back together.
func addWarning(t *kg.Task, where, format string, args ...any) {
	t.Warnings = append(t.Warnings, where+": "+fmt.Sprintf(format, args...))
}

// TaskWarnings returns the loader's warnings about t (kg.Task.Warnings)
// with the file they are about. Every GT problem that does not stop the
// task from loading is one: a triple whose head_id or tail_id has no node
// (its name falls back to the id, as in the reference), a repeated node_id,
// a name-based triple naming no node, an empty "triples" list, no
// "final_query", invalid UTF-8.
func TaskWarnings(t *kg.Task) []Warning {
	out := make([]Warning, 0, len(t.Warnings))
	for _, s := range t.Warnings {
		w := Warning{File: t.Source, Msg: s}
		if where, msg, ok := strings.Cut(s, ": "); ok && !strings.ContainsAny(where, " \"") || strings.HasPrefix(where, "line ") {
			w.Msg = msg
			if n, err := strconv.Atoi(strings.TrimPrefix(where, "line ")); err == nil && strings.HasPrefix(where, "line ") {
				w.Line = n
			} else {
				w.Path = where
			}
		}
		out = append(out, w)
	}
	return out
}

// PredictionWarnings returns the findings about p's input that its parse
// report notes and a user should see (invalid UTF-8 replaced).
func PredictionWarnings(p *kg.Prediction) []Warning {
	var out []Warning
	file, line := p.Source, 0
	if f, l, ok := strings.Cut(p.Source, " line "); ok {
		if n, err := strconv.Atoi(l); err == nil {
			file, line = f, n
		}
	}
	for _, n := range p.Report.Notes {
		if strings.HasPrefix(n, invalidUTF8Note) {
			out = append(out, Warning{File: file, Line: line, Msg: n})
		}
	}
	return out
}

const invalidUTF8Note = "invalid UTF-8"

// utf8BOM is the UTF-8 byte order mark, which some editors put at the
// start of a file; every reader skips it.
var utf8BOM = []byte("\xef\xbb\xbf")

// badUTF8 describes the invalid UTF-8 in data, or "" when there is none:
// how many invalid sequences, and where the first one is (line, counted
// from firstLine, and byte within that line, from 1). JSON decoding
// replaces each by U+FFFD; this is what says so.
func badUTF8(data []byte, firstLine int) string {
	if utf8.Valid(data) {
		return ""
	}
	first, n := -1, 0
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			if first < 0 {
				first = i
			}
			n++
		}
		i += max(size, 1)
	}
	line := firstLine + bytes.Count(data[:first], []byte{'\n'})
	col := first - (bytes.LastIndexByte(data[:first], '\n') + 1)
	return fmt.Sprintf("%s: %d invalid byte(s), the first at line %d byte %d: each replaced by U+FFFD", invalidUTF8Note, n, line, col+1)
}

// summarizeBad keeps the first invalid-UTF-8 note of a file's lines and
// counts the rest.
func summarizeBad(notes []string) []string {
	switch len(notes) {
	case 0:
		return nil
	case 1:
		return notes
	}
	return []string{fmt.Sprintf("%s (and on %d more line(s))", notes[0], len(notes)-1)}
}
