package ingest

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kgjudge/kgjudge/internal/inputfile"
	"github.com/kgjudge/kgjudge/kg"
)

// MatchError lists every prediction that could not be given one task.
type MatchError struct {
	// Orphans are qids (with their sources) that match no task.
	Orphans []string
	// Ambiguous maps a qid to the several task ids it matches.
	Ambiguous map[string][]string
	// BadMap lists mapping entries that name a task that does not exist.
	BadMap []string
	// Duplicates lists (task, sample) pairs given by more than one prediction.
	Duplicates []string
	// Tasks are the task ids there were to match (for the message).
	Tasks []string
}

func (e *MatchError) Error() string {
	var b strings.Builder
	b.WriteString("ingest: predictions do not match the tasks:")
	for _, o := range e.Orphans {
		fmt.Fprintf(&b, "\n  no task for qid %s", o)
	}
	if len(e.Orphans) > 0 {
		// Say what there was to match against: an empty or wrong ground
		// truth shows at once.
		switch n := len(e.Tasks); {
		case n == 0:
			b.WriteString("\n  (the ground truth has no task at all)")
		default:
			fmt.Fprintf(&b, "\n  (a qid matches a task id, a mapping entry, or a task_<number> id; the ground truth has %d task(s): %s)", n, listSome(quoteAll(e.Tasks)))
		}
	}
	qids := make([]string, 0, len(e.Ambiguous))
	for q := range e.Ambiguous {
		qids = append(qids, q)
	}
	sort.Strings(qids)
	for _, q := range qids {
		fmt.Fprintf(&b, "\n  qid %q matches several tasks: %s (give a mapping)", q, strings.Join(e.Ambiguous[q], ", "))
	}
	for _, m := range e.BadMap {
		fmt.Fprintf(&b, "\n  %s", m)
	}
	for _, d := range e.Duplicates {
		fmt.Fprintf(&b, "\n  %s", d)
	}
	return b.String()
}

var (
	numericQID = regexp.MustCompile(`^(?:task_)?0*(\d+)$`)
	taskNumber = regexp.MustCompile(`^task_0*(\d+)(?:_.*)?$`)
)

// MatchTasks sets each prediction's TaskID:
//
//  1. a task whose id equals the qid;
//  2. else the mapping (qid -> task id, see ReadMap), which must name a task;
//  3. else, for a numeric qid ("020", "20", "task_020"), the one task whose
//     id is task_<same number> or task_<same number>_<topic>.
//
// The mapping comes before the numeric rule so that it can settle what the
// rule finds ambiguous. Predictions with no task, with several, and two
// predictions for the same (task, sample) are all reported in one
// *MatchError that names them; the predictions that did match keep their
// TaskID.
func MatchTasks(preds []kg.Prediction, taskIDs []string, mapping map[string]string) error {
	ids := map[string]bool{}
	byNum := map[string][]string{}
	for _, id := range taskIDs {
		ids[id] = true
		if m := taskNumber.FindStringSubmatch(id); m != nil {
			byNum[m[1]] = append(byNum[m[1]], id)
		}
	}
	for n := range byNum {
		sort.Strings(byNum[n])
	}
	e := &MatchError{Ambiguous: map[string][]string{}, Tasks: append([]string(nil), taskIDs...)}
	sort.Strings(e.Tasks)
	seenOrphan := map[string]bool{}
	seenBadMap := map[string]bool{}
	type key struct {
		task   string
		sample int
	}
	first := map[key]string{}
	for i := range preds {
		p := &preds[i]
		p.TaskID = ""
		switch {
		case ids[p.QID]:
			p.TaskID = p.QID
		case mapping[p.QID] != "":
			if t := mapping[p.QID]; ids[t] {
				p.TaskID = t
			} else if !seenBadMap[p.QID] {
				seenBadMap[p.QID] = true
				e.BadMap = append(e.BadMap, fmt.Sprintf("mapping sends qid %q to %q, which is not a task", p.QID, t))
			}
		default:
			m := numericQID.FindStringSubmatch(p.QID)
			var cands []string
			if m != nil {
				cands = byNum[m[1]]
			}
			switch len(cands) {
			case 1:
				p.TaskID = cands[0]
			case 0:
				if !seenOrphan[p.QID] {
					seenOrphan[p.QID] = true
					e.Orphans = append(e.Orphans, fmt.Sprintf("%q (%s)", p.QID, p.Source))
				}
			default:
				e.Ambiguous[p.QID] = cands
			}
		}
		if p.TaskID == "" {
			continue
		}
		k := key{p.TaskID, p.SampleIdx}
		if prev, dup := first[k]; dup {
			e.Duplicates = append(e.Duplicates, fmt.Sprintf("task %q sample %d is given twice: by %s and by %s", p.TaskID, p.SampleIdx, prev, p.Source))
		} else {
			first[k] = p.Source
		}
	}
	if len(e.Orphans)+len(e.Ambiguous)+len(e.BadMap)+len(e.Duplicates) == 0 {
		return nil
	}
	return e
}

// ReadMap reads a qid -> task id mapping: a JSON object {"020": "task_020_x"},
// or a two-column CSV/TSV (an optional header row "qid,task_id"; blank lines
// and lines starting with # are skipped).
func ReadMap(path string) (map[string]string, error) {
	data, err := inputfile.ReadFile(path)
	if err != nil {
		return nil, &InputError{File: path, Msg: "cannot open: " + errText(err), Err: err}
	}
	return DecodeMap(data, path)
}

// DecodeMap decodes a ReadMap mapping; path is used in errors.
func DecodeMap(data []byte, path string) (map[string]string, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		var raw map[string]json.RawMessage
		if err := unmarshalTop(t, &raw, path, "a JSON object"); err != nil {
			return nil, err
		}
		out := make(map[string]string, len(raw))
		for k, v := range raw {
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return nil, inputErr(path, 0, strconv.Quote(k), "must be a task id string, found %s", jsonKind(v))
			}
			out[k] = s
		}
		return out, nil
	}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	if first, _, _ := bytes.Cut(data, []byte("\n")); bytes.Contains(first, []byte("\t")) {
		cr.Comma = '\t'
	}
	out := map[string]string{}
	lineNo := 0
	for {
		rec, err := cr.Read()
		if err != nil {
			if err == io.EOF {
				break
			}
			return nil, &InputError{File: path, Msg: "invalid CSV: " + err.Error(), Err: err}
		}
		lineNo, _ = cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != 2 {
			return nil, inputErr(path, lineNo, "", "expected 2 columns (qid, task_id), found %d", len(rec))
		}
		q, t := strings.TrimSpace(rec[0]), strings.TrimSpace(rec[1])
		if len(out) == 0 && strings.EqualFold(q, "qid") {
			continue
		}
		if prev, dup := out[q]; dup && prev != t {
			return nil, inputErr(path, lineNo, "", "qid %q is mapped twice (%q and %q)", q, prev, t)
		}
		out[q] = t
	}
	return out, nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}
