package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kgjudge/kgjudge/internal/inputfile"
	"github.com/kgjudge/kgjudge/internal/ordered"
	"github.com/kgjudge/kgjudge/kg"
)

// ctxEvery is how many items (triples, rows) a reader handles between two
// looks at its context: a cancelled read stops within milliseconds, and the
// look costs nothing next to the items.
const ctxEvery = 1024

// predExts are the file kinds a directory walk of ReadPredictions takes;
// other files (README.md, SOURCE.md, ...) are left alone. A single file
// given by name is read whatever its extension, sniffed by content.
var predExts = map[string]bool{".json": true, ".jsonl": true, ".ndjson": true, ".csv": true, ".tsv": true, ".txt": true}

// ReadPredictions reads predictions from a file, or from every prediction
// file under a directory (recursively, in lexical order; hidden files and
// directories skipped). Formats are told by extension and content:
//
//   - trajectory JSONL (one sample per line: qid, sample_idx, response, and
//     a huge messages value that is skipped without being built);
//   - final extractions {"qid": ..., "total": N, "triplets": [...]};
//   - a JSON list, or JSONL, of triple objects or [h, r, t] arrays;
//   - CSV/TSV with a head,relation,tail (or subject,predicate,object) header
//     and optional qid and sample_idx columns;
//   - anything else (.txt, unknown extensions): agent response text, parsed
//     with ParseResponse.
//
// A prediction whose content gives no qid takes it from the file name
// without extension ("task_038_Game Selection.json" -> "task_038_Game
// Selection"). Every bad file is reported in a *FileErrors; the predictions
// of the good files are returned with it.
func ReadPredictions(ctx context.Context, path string) ([]kg.Prediction, error) {
	var preds []kg.Prediction
	err := ReadPredictionsEach(ctx, path, func(_ string, ps []kg.Prediction) {
		preds = append(preds, ps...)
	})
	return preds, err
}

// ReadPredictionsEach is ReadPredictions that hands each file's predictions
// to each, with the file's path, in the same order, instead of collecting
// them: a caller can keep less than every triple (and read a file again
// with ReadPredictionFile). It returns ReadPredictions' error.
func ReadPredictionsEach(ctx context.Context, path string, each func(file string, preds []kg.Prediction)) error {
	st, err := os.Stat(path)
	if err != nil {
		return &InputError{File: path, Msg: "cannot open: " + errText(err), Err: err}
	}
	if !st.IsDir() {
		ps, err := ReadPredictionFile(ctx, path)
		each(path, ps)
		return err
	}
	// The walk lists the files (and its own errors) in order; a few workers
	// decode them ahead and each receives them in that order.
	type entry struct {
		path string
		err  error // the walk's, for an entry it could not read
	}
	var entries []entry
	walkErr := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			entries = append(entries, entry{err: &InputError{File: p, Msg: "cannot read: " + errText(err), Err: err}})
			return nil
		}
		if p != path && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !predExts[strings.ToLower(filepath.Ext(p))] {
			return nil
		}
		entries = append(entries, entry{path: p})
		return ctx.Err()
	})
	if walkErr != nil {
		return walkErr
	}
	var errs FileErrors
	var stopErr error
	ordered.Each(ctx, len(entries), func(ctx context.Context, i int) ([]kg.Prediction, error) {
		if entries[i].path == "" {
			return nil, entries[i].err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return ReadPredictionFile(ctx, entries[i].path)
	}, func(i int, ps []kg.Prediction, err error) bool {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			stopErr = err
			return false
		}
		if entries[i].path != "" {
			each(entries[i].path, ps)
		}
		errs.add(err)
		return true
	})
	if stopErr != nil {
		return stopErr
	}
	return errs.orNil()
}

// ReadPredictionFile reads one prediction file of any supported format.
// For trajectory JSONL, lines that parse are returned even when others fail.
func ReadPredictionFile(ctx context.Context, path string) ([]kg.Prediction, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return nil, &InputError{File: path, Msg: "cannot open: " + errText(err), Err: err}
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 256<<10)
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".jsonl", ".ndjson":
		return DecodeJSONL(ctx, br, path)
	case ".csv", ".tsv":
		return decodeCSV(ctx, br, path, ext == ".tsv")
	}
	// Sniff the first non-space byte.
	first, err := firstByte(br)
	if err != nil {
		return nil, &InputError{File: path, Msg: "cannot read: " + errText(err), Err: err}
	}
	switch {
	case ext == ".json" || first == '[' || first == '{':
		data, err := io.ReadAll(br)
		if err != nil {
			return nil, &InputError{File: path, Msg: "cannot read: " + errText(err), Err: err}
		}
		return decodePredJSON(ctx, data, path)
	}
	data, err := io.ReadAll(br)
	if err != nil {
		return nil, &InputError{File: path, Msg: "cannot read: " + errText(err), Err: err}
	}
	if looksLikeCSVHeader(data) {
		return decodeCSV(ctx, bufio.NewReader(bytes.NewReader(data)), path, false)
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	triples, rep := ParseResponse(string(data))
	if bad := badUTF8(data, 1); bad != "" {
		rep.Notes = append(rep.Notes, bad)
	}
	return []kg.Prediction{{QID: qidFromName(path), Triples: triples, Report: rep, Source: path}}, nil
}

// qidFromName is the file name without directory and extension.
func qidFromName(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

func firstByte(br *bufio.Reader) (byte, error) {
	b, err := br.Peek(4096)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return 0, err
	}
	b = bytes.TrimSpace(bytes.TrimPrefix(b, utf8BOM))
	if len(b) == 0 {
		return 0, nil
	}
	return b[0], nil
}

func decodePredJSON(ctx context.Context, data []byte, path string) ([]kg.Prediction, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	preds, err := decodePredJSONData(ctx, data, path)
	if bad := badUTF8(data, 1); bad != "" && !jsonLines(data) {
		for i := range preds {
			preds[i].Report.Notes = append(preds[i].Report.Notes, bad)
		}
	}
	return preds, err
}

// jsonLines: data is JSON lines (DecodeJSONL notes their UTF-8 per line).
func jsonLines(data []byte) bool {
	t := bytes.TrimSpace(data)
	if json.Valid(t) {
		return false
	}
	nl := bytes.IndexByte(t, '\n')
	return nl > 0 && json.Valid(bytes.TrimSpace(t[:nl]))
}

func decodePredJSONData(ctx context.Context, data []byte, path string) ([]kg.Prediction, error) {
	t := bytes.TrimSpace(data)
	if len(t) == 0 {
		return []kg.Prediction{{QID: qidFromName(path), Report: kg.ParseReport{Status: kg.ParseEmpty, Method: "json", Notes: []string{"empty file"}}, Source: path}}, nil
	}
	if !json.Valid(t) {
		// A .json file holding JSON lines.
		if nl := bytes.IndexByte(t, '\n'); nl > 0 && json.Valid(bytes.TrimSpace(t[:nl])) {
			return DecodeJSONL(ctx, bufio.NewReader(bytes.NewReader(data)), path)
		}
		var v any
		return nil, unmarshalTop(data, &v, path, "")
	}
	if t[0] == '[' {
		items, err := rawList(t, "", path)
		if err != nil {
			return nil, err
		}
		triples, rep, err := strictTriples(ctx, items, "", path, 0)
		if err != nil {
			return nil, err
		}
		rep.Method = "json"
		return []kg.Prediction{{QID: qidFromName(path), Triples: triples, Report: rep, Source: path}}, nil
	}
	if t[0] != '{' {
		return nil, inputErr(path, 0, "", "expected a JSON object or list, found %s", jsonKind(t))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(t, &m); err != nil {
		return nil, inputErr(path, 0, "", "invalid JSON: %v", err)
	}
	p, err := predFromObject(ctx, m, path, 0)
	if err != nil {
		return nil, err
	}
	return []kg.Prediction{p}, nil
}

// predFromObject turns one JSON object (a final extraction, or a sample with
// a response) into a prediction. line is 0 outside JSONL.
func predFromObject(ctx context.Context, m map[string]json.RawMessage, path string, line int) (kg.Prediction, error) {
	p := kg.Prediction{Source: path}
	if line > 0 {
		p.Source = fmt.Sprintf("%s line %d", path, line)
	}
	qid, err := optScalar(m, "qid", path, line)
	if err != nil {
		return p, err
	}
	p.QID = qid
	if p.QID == "" {
		p.QID = qidFromName(path)
	}
	if raw, ok := m["sample_idx"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &p.SampleIdx); err != nil || p.SampleIdx < 0 {
			return p, inputErr(path, line, "sample_idx", "must be a non-negative integer, found %s", bytes.TrimSpace(raw))
		}
	}
	for _, key := range []string{"triplets", "triples"} {
		raw, ok := m[key]
		if !ok {
			continue
		}
		if _, isTask := m["task_id"]; isTask {
			return p, inputErr(path, line, "", "this is a ground-truth task file, not predictions")
		}
		items, err := rawList(raw, key, path)
		if err != nil {
			err.(*InputError).Line = line
			return p, err
		}
		triples, rep, err := strictTriples(ctx, items, key, path, line)
		if err != nil {
			return p, err
		}
		rep.Method = "json"
		if tr, ok := m["total"]; ok && !isNull(tr) {
			var total int
			if err := json.Unmarshal(tr, &total); err != nil {
				return p, inputErr(path, line, "total", "must be an integer, found %s", bytes.TrimSpace(tr))
			}
			if total != len(triples) {
				rep.Notes = append(rep.Notes, fmt.Sprintf(`"total" says %d triples, the file has %d`, total, len(triples)))
			}
		}
		p.Triples, p.Report = triples, rep
		return p, nil
	}
	if raw, ok := m["response"]; ok {
		var text string
		if !isNull(raw) {
			if err := json.Unmarshal(raw, &text); err != nil {
				return p, inputErr(path, line, "response", "must be a string, found %s", jsonKind(raw))
			}
		}
		p.Triples, p.Report = ParseResponse(text)
		return p, nil
	}
	if _, ok := m["coverage_details"]; ok {
		return p, inputErr(path, line, "", "this is a reference evaluation record, not predictions (read it with ReadEval)")
	}
	if _, ok := m["task_id"]; ok {
		return p, inputErr(path, line, "", "this is a ground-truth task file, not predictions")
	}
	return p, inputErr(path, line, "", `no "triplets", "triples" or "response" key: not a prediction`)
}

func optScalar(m map[string]json.RawMessage, key, path string, line int) (string, error) {
	raw, ok := m[key]
	if !ok || isNull(raw) {
		return "", nil
	}
	if k := jsonKind(raw); k != "a string" && k != "a number" {
		return "", inputErr(path, line, key, "must be a string, found %s", k)
	}
	s, _, err := pyStr(raw)
	if err != nil {
		return "", inputErr(path, line, key, "%v", err)
	}
	return s, nil
}

// strictTriples converts the items of a triple file: every item must be a
// triple object (head/relation/tail or subject/predicate/object) or an
// [h, r, t] array; non-string values are stringified.
func strictTriples(ctx context.Context, items []json.RawMessage, parent, path string, line int) ([]kg.Triple, kg.ParseReport, error) {
	var rep kg.ParseReport
	var c conv
	out := make([]kg.Triple, 0, len(items))
	for i, it := range items {
		if i%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, rep, err
			}
		}
		p := fmt.Sprintf("%s[%d]", parent, i)
		t, err := strictTriple(&c, it, p, path, line)
		if err != nil {
			return nil, rep, err
		}
		out = append(out, t)
	}
	c.fill(&rep)
	rep.Triples = len(out)
	rep.Status = kg.ParseClean
	if len(out) == 0 {
		rep.Status = kg.ParseEmpty
	}
	return out, rep, nil
}

func strictTriple(c *conv, it json.RawMessage, p, path string, line int) (kg.Triple, error) {
	switch jsonKind(it) {
	case "an object":
		var m map[string]json.RawMessage
		if err := json.Unmarshal(it, &m); err != nil {
			return kg.Triple{}, inputErr(path, line, p, "invalid object: %v", err)
		}
		for _, keys := range fieldKeys {
			_, a := m[keys[0]]
			_, b := m[keys[1]]
			if !a && !b {
				return kg.Triple{}, inputErr(path, line, p, "missing %q", keys[0])
			}
		}
		return c.object(m), nil
	case "a list":
		t, ok := c.array(it)
		if !ok {
			return kg.Triple{}, inputErr(path, line, p, "a triple list must hold exactly 3 values [head, relation, tail]")
		}
		return t, nil
	}
	return kg.Triple{}, inputErr(path, line, p, "a triple must be an object or a [head, relation, tail] list, found %s", jsonKind(it))
}

// jsonlLine is what DecodeJSONL keeps of a line: trajectory keys or triple
// keys. The huge "messages" value is skipped by the decoder, never built.
type jsonlLine struct {
	QID       json.RawMessage `json:"qid"`
	SampleIdx json.RawMessage `json:"sample_idx"`
	Response  json.RawMessage `json:"response"`
	Triplets  json.RawMessage `json:"triplets"`
	Triples   json.RawMessage `json:"triples"`
	Head      json.RawMessage `json:"head"`
	Subject   json.RawMessage `json:"subject"`
}

// readLine reads one line of any length into buf (reused), without the
// trailing newline. It returns io.EOF only when nothing was read.
func readLine(r *bufio.Reader, buf []byte) ([]byte, error) {
	buf = buf[:0]
	for {
		frag, err := r.ReadSlice('\n')
		if need := len(buf) + len(frag); need > cap(buf) {
			// Double (append grows large slices by only 1.25x).
			nb := make([]byte, len(buf), max(need, 2*cap(buf), 64<<10))
			copy(nb, buf)
			buf = nb
		}
		buf = append(buf, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(buf) > 0 {
			err = nil
		}
		return bytes.TrimRight(buf, "\r\n"), err
	}
}

// DecodeJSONL reads JSON lines: either trajectory samples (each line one
// prediction, its response parsed with ParseResponse) or triple objects /
// arrays (the whole file one prediction, qid from the file name). Lines are
// streamed one at a time with no length limit. Bad lines are collected; the
// good samples are returned with a *FileErrors.
func DecodeJSONL(ctx context.Context, r *bufio.Reader, path string) ([]kg.Prediction, error) {
	var (
		preds      []kg.Prediction
		errs       FileErrors
		buf        []byte
		lineNo     int
		tripleFile *kg.Prediction
		badLines   []string // invalid UTF-8 of a triple file's lines
		c          conv
		nextSample = map[string]int{}
	)
	for {
		var err error
		buf, err = readLine(r, buf)
		if err == io.EOF {
			break
		}
		lineNo++
		if err != nil {
			errs.add(&InputError{File: path, Line: lineNo, Msg: "cannot read: " + errText(err), Err: err})
			break
		}
		if lineNo%8 == 0 {
			if err := ctx.Err(); err != nil {
				return preds, err
			}
		}
		line := bytes.TrimSpace(buf)
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		if len(line) == 0 {
			continue
		}
		bad := badUTF8(line, lineNo)
		if line[0] == '[' { // [h, r, t] per line
			if tripleFile == nil {
				tripleFile = &kg.Prediction{QID: qidFromName(path), Source: path}
			}
			t, err := strictTriple(&c, line, "", path, lineNo)
			if err != nil {
				errs.add(err)
				continue
			}
			tripleFile.Triples = append(tripleFile.Triples, t)
			if bad != "" {
				badLines = append(badLines, bad)
			}
			continue
		}
		var l jsonlLine
		if err := json.Unmarshal(line, &l); err != nil {
			errs.add(jsonlErr(path, lineNo, line, err))
			continue
		}
		if l.Head != nil || l.Subject != nil {
			if tripleFile == nil {
				tripleFile = &kg.Prediction{QID: qidFromName(path), Source: path}
			}
			t, err := strictTriple(&c, line, "", path, lineNo)
			if err != nil {
				errs.add(err)
				continue
			}
			tripleFile.Triples = append(tripleFile.Triples, t)
			if bad != "" {
				badLines = append(badLines, bad)
			}
			continue
		}
		p, err := l.prediction(ctx, path, lineNo)
		if err != nil {
			errs.add(err)
			continue
		}
		if l.SampleIdx == nil || isNull(l.SampleIdx) {
			p.SampleIdx = nextSample[p.QID]
		}
		if bad != "" {
			p.Report.Notes = append(p.Report.Notes, bad)
		}
		nextSample[p.QID] = p.SampleIdx + 1
		preds = append(preds, p)
	}
	if tripleFile != nil {
		if len(preds) > 0 {
			errs.add(inputErr(path, 0, "", "mixes trajectory samples and triple lines"))
		}
		rep := &tripleFile.Report
		c.fill(rep)
		rep.Notes = append(rep.Notes, summarizeBad(badLines)...)
		rep.Method = "jsonl"
		rep.Triples = len(tripleFile.Triples)
		rep.Status = kg.ParseClean
		if rep.Triples == 0 {
			rep.Status = kg.ParseEmpty
		}
		preds = append(preds, *tripleFile)
	}
	if lineNo == 0 {
		errs.add(inputErr(path, 0, "", "empty file"))
	}
	return preds, errs.orNil()
}

func (l *jsonlLine) prediction(ctx context.Context, path string, line int) (kg.Prediction, error) {
	m := map[string]json.RawMessage{}
	for k, v := range map[string]json.RawMessage{"qid": l.QID, "sample_idx": l.SampleIdx, "response": l.Response, "triplets": l.Triplets, "triples": l.Triples} {
		if v != nil {
			m[k] = v
		}
	}
	if l.Response == nil && l.Triplets == nil && l.Triples == nil {
		if l.QID != nil {
			return kg.Prediction{}, inputErr(path, line, "", `missing "response"`)
		}
		return kg.Prediction{}, inputErr(path, line, "", `neither a trajectory sample ("qid", "response") nor a triple ("head", "relation", "tail")`)
	}
	return predFromObject(ctx, m, path, line)
}

func jsonlErr(path string, line int, data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		msg := se.Error()
		if se.Offset >= int64(len(data)) {
			msg = "line is cut off (" + msg + ")"
		}
		return &InputError{File: path, Line: line, Msg: fmt.Sprintf("invalid JSON at byte %d: %s", se.Offset, msg), Err: err}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return &InputError{File: path, Line: line, Msg: fmt.Sprintf("expected a JSON object, found a JSON %s", te.Value), Err: err}
		}
		return &InputError{File: path, Line: line, Path: te.Field, Msg: "wrong type: " + te.Value, Err: err}
	}
	return &InputError{File: path, Line: line, Msg: err.Error(), Err: err}
}

// csvHeader locates the triple columns of a CSV/TSV header.
type csvHeader struct{ head, rel, tail, qid, sample int }

func parseCSVHeader(rec []string) (csvHeader, bool) {
	h := csvHeader{-1, -1, -1, -1, -1}
	for i, f := range rec {
		switch strings.ToLower(strings.TrimSpace(strings.TrimPrefix(f, "\ufeff"))) {
		case "head", "subject":
			h.head = i
		case "relation", "predicate":
			h.rel = i
		case "tail", "object":
			h.tail = i
		case "qid", "task_id":
			h.qid = i
		case "sample_idx", "sample":
			h.sample = i
		}
	}
	return h, h.head >= 0 && h.rel >= 0 && h.tail >= 0
}

func looksLikeCSVHeader(data []byte) bool {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	for _, sep := range []string{",", "\t"} {
		if _, ok := parseCSVHeader(strings.Split(string(line), sep)); ok {
			return true
		}
	}
	return false
}

func decodeCSV(ctx context.Context, br *bufio.Reader, path string, tsv bool) ([]kg.Prediction, error) {
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	if tsv {
		cr.Comma = '\t'
	} else if peek, _ := br.Peek(4096); bytes.Count(peek[:max(0, bytes.IndexByte(peek, '\n'))], []byte("\t")) > 0 &&
		!bytes.Contains(peek[:max(0, bytes.IndexByte(peek, '\n'))], []byte(",")) {
		cr.Comma = '\t'
	}
	header, err := cr.Read()
	if err == io.EOF {
		return nil, inputErr(path, 1, "", "empty file: expected a head,relation,tail header")
	}
	if err != nil {
		return nil, &InputError{File: path, Line: 1, Msg: "invalid CSV: " + err.Error(), Err: err}
	}
	h, ok := parseCSVHeader(header)
	if !ok {
		return nil, inputErr(path, 1, "", "header must name head, relation and tail (or subject, predicate, object) columns, found %q", strings.Join(header, string(cr.Comma)))
	}
	type key struct {
		qid    string
		sample int
	}
	byKey := map[key]int{}
	badAt := map[int][]string{} // prediction -> its first invalid UTF-8 note
	var preds []kg.Prediction
	names := [3]string{"head", "relation", "tail"}
	for n := 0; ; n++ {
		if n%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, &InputError{File: path, Line: line, Msg: "invalid CSV: " + err.Error(), Err: err}
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		var vals [3]string
		for i, col := range [3]int{h.head, h.rel, h.tail} {
			if col >= len(rec) {
				return nil, inputErr(path, line, "", "missing %q", names[i])
			}
			vals[i] = rec[col]
		}
		k := key{qid: qidFromName(path)}
		if h.qid >= 0 && h.qid < len(rec) && rec[h.qid] != "" {
			k.qid = rec[h.qid]
		}
		if h.sample >= 0 && h.sample < len(rec) && rec[h.sample] != "" {
			n, err := strconv.Atoi(strings.TrimSpace(rec[h.sample]))
			if err != nil || n < 0 {
				return nil, inputErr(path, line, "", "sample_idx must be a non-negative integer, found %q", rec[h.sample])
			}
			k.sample = n
		}
		i, ok := byKey[k]
		if !ok {
			i = len(preds)
			byKey[k] = i
			preds = append(preds, kg.Prediction{QID: k.qid, SampleIdx: k.sample, Source: path})
		}
		preds[i].Triples = append(preds[i].Triples, kg.Triple{Head: vals[0], Relation: vals[1], Tail: vals[2]})
		for _, v := range vals {
			if !utf8.ValidString(v) && len(badAt[i]) < 1 {
				badAt[i] = append(badAt[i], fmt.Sprintf("%s: in line %d: each invalid byte sequence replaced by U+FFFD", invalidUTF8Note, line))
				break
			}
		}
		for k, v := range vals {
			vals[k] = strings.ToValidUTF8(v, "\uFFFD")
		}
		preds[i].Triples[len(preds[i].Triples)-1] = kg.Triple{Head: vals[0], Relation: vals[1], Tail: vals[2]}
	}
	if len(preds) == 0 {
		preds = append(preds, kg.Prediction{QID: qidFromName(path), Source: path})
	}
	for i := range preds {
		preds[i].Report = kg.ParseReport{Status: kg.ParseClean, Method: "csv", Triples: len(preds[i].Triples), Notes: badAt[i]}
		if len(preds[i].Triples) == 0 {
			preds[i].Report.Status = kg.ParseEmpty
		}
	}
	return preds, nil
}
