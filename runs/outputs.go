package runs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kgjudge/kgjudge/matcher"
)

// maxItemName bounds an item file name in bytes: 255 is the limit of every
// common file system, less the ".tmp" WriteJSON writes first, less a margin.
const maxItemName = 240

// ItemFileName is the reference's per-sample file name,
// <task_id>_sample<N>.json, made safe and unique: the task id is kept as it
// is (spaces and CJK included) except that '%', '/', '\', control
// characters (NUL included) and bytes that are not UTF-8 are written as
// %XX (the byte in upper-case hex), so distinct ids give distinct names
// ("team/a" -> "team%2Fa", "team_a" stays). When the name would pass
// maxItemName bytes, the escaped id is cut at a character boundary and
// "%~" plus 12 hex digits of the SHA-256 of the whole task id are appended:
// no escaped id holds "%~", so a cut name never equals an uncut one.
// README.md ("Outputs") documents the scheme.
func ItemFileName(it *matcher.Item) string {
	return itemFileName(it.QID, it.SampleIdx)
}

func itemFileName(id string, sample int) string {
	suffix := "_sample" + strconv.Itoa(sample) + ".json"
	esc := escapeID(id)
	if len(esc)+len(suffix) <= maxItemName {
		return esc + suffix
	}
	sum := sha256.Sum256([]byte(id))
	mark := "%~" + hex.EncodeToString(sum[:6])
	keep := maxItemName - len(suffix) - len(mark)
	// Cut before a whole character and never inside a %XX escape.
	cut := 0
	for i := 0; i < len(esc); {
		n := 1
		if esc[i] == '%' {
			n = 3
		} else if _, size := utf8.DecodeRuneInString(esc[i:]); size > 1 {
			n = size
		}
		if i+n > keep {
			break
		}
		i += n
		cut = i
	}
	return esc[:cut] + mark + suffix
}

func escapeID(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); {
		r, size := utf8.DecodeRuneInString(id[i:])
		switch {
		case r == utf8.RuneError && size <= 1, r == '%', r == '/', r == '\\', r < 0x20, r == 0x7f:
			fmt.Fprintf(&b, "%%%02X", id[i])
			i++
			continue
		case r >= 0x80 && r < 0xa0: // C1 controls: escape every byte
			for _, c := range []byte(id[i : i+size]) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		default:
			b.WriteString(id[i : i+size])
		}
		i += size
	}
	return b.String()
}

// OutputError is what WriteOutputs could not write: each failed file with
// why. Everything else was written, the summary (which lists them under
// "failed_outputs") included when it is not itself among them.
type OutputError struct {
	Errs []error
	// Items is how many of Errs are item files.
	Items int
}

func (e *OutputError) Error() string {
	msgs := make([]string, len(e.Errs))
	for i, err := range e.Errs {
		msgs[i] = err.Error()
	}
	return fmt.Sprintf("%d output file(s) not written:\n  %s", len(e.Errs), strings.Join(msgs, "\n  "))
}

func (e *OutputError) Unwrap() []error { return e.Errs }

// WriteOutputs writes res.Out/items/*.json and res.Out/summary.json (and
// invocation.json when inv is set), replacing the directory whole: the files
// go to a temporary sibling first, which then takes the old directory's
// place, so a reused output directory keeps no item file of an earlier
// scoring and a crash leaves either the old outputs or the new.
func WriteOutputs(res *ScoreResult, inv *Invocation) error {
	w, err := newOutWriter(res.Out)
	if err != nil {
		return err
	}
	defer w.abort()
	for i := range res.Items {
		w.item(&res.Items[i])
	}
	return w.finish(res, inv)
}

// outWriter writes one run's output directory as the run goes: item files
// as samples are committed (so a run keeps no item's details in memory),
// then the summary, then the rename that replaces the old directory.
type outWriter struct {
	dir, tmp, items string
	failed          []itemFailure
}

type itemFailure struct {
	qid    string
	sample int
	err    error
}

func newOutWriter(dir string) (*outWriter, error) {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("output: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".new-")
	if err != nil {
		return nil, fmt.Errorf("output: %w", err)
	}
	items := filepath.Join(tmp, "items")
	if err := os.Mkdir(items, 0o755); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("output: %w", err)
	}
	return &outWriter{dir: dir, tmp: tmp, items: items}, nil
}

// item writes an item file. One that cannot be written does not stop the
// others: it is listed in the summary's "failed_outputs" and in the
// *OutputError finish returns once the rest is in place.
func (w *outWriter) item(it *matcher.Item) {
	path := filepath.Join(w.items, ItemFileName(it))
	b, err := encodeJSON(path, it)
	if err == nil {
		err = writeFileAtomic(path, b)
	}
	if err != nil {
		w.failed = append(w.failed, itemFailure{it.QID, it.SampleIdx, err})
	}
}

// itemBytes writes an item file already encoded (encodeJSON).
func (w *outWriter) itemBytes(it *matcher.Item, b []byte) error {
	return writeFileAtomic(filepath.Join(w.items, ItemFileName(it)), b)
}

func (w *outWriter) fail(it *matcher.Item, err error) {
	w.failed = append(w.failed, itemFailure{it.QID, it.SampleIdx, err})
}

// abort removes what was written (a no-op once finish renamed it).
func (w *outWriter) abort() { os.RemoveAll(w.tmp) }

// finish writes the summary (and invocation.json when inv is set) and puts
// the directory in place of the old one.
func (w *outWriter) finish(res *ScoreResult, inv *Invocation) error {
	// Failures in item order, whatever order the items were written in.
	sort.SliceStable(w.failed, func(a, b int) bool {
		if w.failed[a].qid != w.failed[b].qid {
			return w.failed[a].qid < w.failed[b].qid
		}
		return w.failed[a].sample < w.failed[b].sample
	})
	var failed []error
	for _, f := range w.failed {
		failed = append(failed, fmt.Errorf("task %q sample %d: %w", f.qid, f.sample, f.err))
	}
	nItems := len(failed)
	if nItems > 0 {
		msgs := make([]string, len(failed))
		for i, err := range failed {
			msgs[i] = err.Error()
		}
		res.Summary.Sections = append(res.Summary.Sections, matcher.Section{Key: "failed_outputs", Value: msgs})
	}
	tmp, dir := w.tmp, w.dir
	if err := WriteJSON(filepath.Join(tmp, "summary.json"), res.Summary); err != nil {
		return err
	}
	if inv != nil {
		if err := WriteJSON(filepath.Join(tmp, "invocation.json"), inv); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	old := ""
	if _, err := os.Lstat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("output: replace %s: %w", dir, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return fmt.Errorf("output: %w", err)
	}
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("output: remove the old %s: %w", dir, err)
		}
	}
	if len(failed) > 0 {
		return &OutputError{Errs: failed, Items: nItems}
	}
	return nil
}

// writeBatch writes every run's outputs (their item files are already in
// ws, one writer per run). What the judge spent goes into the run's
// directory when the command scored one run, and to out/invocation.json
// when several runs shared the judge.
func writeBatch(out string, b *BatchResult, ws []*outWriter) error {
	// Item files that fail do not stop the other runs' outputs.
	var failed OutputError
	for i, res := range b.Runs {
		var inv *Invocation
		if len(b.Runs) == 1 {
			inv = res.Invocation
		}
		if err := ws[i].finish(res, inv); err != nil {
			var oe *OutputError
			if !errors.As(err, &oe) {
				return err
			}
			failed.Errs = append(failed.Errs, oe.Errs...)
			failed.Items += oe.Items
		}
	}
	if len(b.Runs) > 1 && b.Invocation != nil {
		if err := WriteJSON(filepath.Join(out, "invocation.json"), b.Invocation); err != nil {
			return err
		}
	}
	if len(failed.Errs) > 0 {
		return &failed
	}
	return nil
}

// IsOutputError reports whether err is (or wraps) an *OutputError.
func IsOutputError(err error) bool {
	var oe *OutputError
	return errors.As(err, &oe)
}

// WriteJSON writes indented JSON atomically (temp file + rename), so a crash
// never leaves a half-written result behind. Errors name the file.
func WriteJSON(path string, v any) error {
	b, err := encodeJSON(path, v)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, b)
}

// encodeJSON is what WriteJSON writes: indented JSON and a newline.
func encodeJSON(name string, v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", name, err)
	}
	return append(b, '\n'), nil
}

func writeFileAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("output: %w", err)
	}
	return nil
}
