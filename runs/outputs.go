package runs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	dir := res.Out
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".new-")
	if err != nil {
		return fmt.Errorf("output: %w", err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	items := filepath.Join(tmp, "items")
	if err := os.Mkdir(items, 0o755); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	// An item that cannot be written does not stop the others: it is
	// listed in the summary's "failed_outputs" and in the *OutputError
	// returned once the rest is in place.
	var failed []error
	for i := range res.Items {
		if err := WriteJSON(filepath.Join(items, ItemFileName(&res.Items[i])), res.Items[i]); err != nil {
			failed = append(failed, fmt.Errorf("task %q sample %d: %w", res.Items[i].QID, res.Items[i].SampleIdx, err))
		}
	}
	nItems := len(failed)
	if nItems > 0 {
		msgs := make([]string, len(failed))
		for i, err := range failed {
			msgs[i] = err.Error()
		}
		res.Summary.Sections = append(res.Summary.Sections, matcher.Section{Key: "failed_outputs", Value: msgs})
	}
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

// writeBatch writes every run's outputs. What the judge spent goes into the
// run's directory when the command scored one run, and to
// out/invocation.json when several runs shared the judge.
func writeBatch(out string, b *BatchResult) error {
	// Item files that fail do not stop the other runs' outputs.
	var failed OutputError
	for _, res := range b.Runs {
		var inv *Invocation
		if len(b.Runs) == 1 {
			inv = res.Invocation
		}
		if err := WriteOutputs(res, inv); err != nil {
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
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("output: %w", err)
	}
	return nil
}
