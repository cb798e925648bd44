package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/kgjudge/kgjudge/internal/inputfile"
	"github.com/kgjudge/kgjudge/internal/ordered"
	"github.com/kgjudge/kgjudge/kg"
)

// Eval is one sample's record from the reference evaluator (kg.Record:
// the published metrics and the LLM judge's verdicts, FORMATS.md §3) and
// where it was read from. Supporting indices that are not integers are kept
// in each record's Unread, never counted.
type Eval struct {
	kg.Record
	// Source is the file (and line, for trajectories) it was read from.
	Source string `json:"-"`
}

// The reference's sections are decoded leniently, as the reference reads
// them (non-string triple values stringified, indices kept as written), and
// then turned into kg's record types.
type coverageIn struct {
	TotalGTTriples int        `json:"total_gt_triples"`
	CoveredCount   int        `json:"covered_count"`
	TripletRecall  float64    `json:"triplet_recall"`
	Unjudged       int        `json:"unjudged"`
	PerGTTriple    []gtRecord `json:"per_gt_triple"`
}

type validityIn struct {
	TotalPredTriples int          `json:"total_pred_triples"`
	ValidCount       int          `json:"valid_count"`
	TripletPrecision float64      `json:"triplet_precision"`
	Unjudged         int          `json:"unjudged"`
	PerPredTriple    []predRecord `json:"per_pred_triple"`
}

type gtRecord struct {
	GTIndex               int        `json:"gt_index"`
	GTTriple              kg.Triple  `json:"gt_triple"`
	Covered               bool       `json:"covered"`
	SupportingPredIndices RawIndices `json:"supporting_pred_indices"`
}

type predRecord struct {
	PredIndex           int        `json:"pred_index"`
	PredTriple          kg.Triple  `json:"pred_triple"`
	Valid               bool       `json:"valid"`
	SupportingGTIndices RawIndices `json:"supporting_gt_indices"`
}

func (c *coverageIn) record() *kg.CoverageDetails {
	if c == nil {
		return nil
	}
	out := &kg.CoverageDetails{TotalGTTriples: c.TotalGTTriples, CoveredCount: c.CoveredCount, TripletRecall: c.TripletRecall, Unjudged: c.Unjudged}
	if c.PerGTTriple != nil {
		out.PerGTTriple = make([]kg.GTRecord, len(c.PerGTTriple))
	}
	for i, g := range c.PerGTTriple {
		ints, bad := g.SupportingPredIndices.Ints()
		out.PerGTTriple[i] = kg.GTRecord{GTIndex: g.GTIndex, GTTriple: g.GTTriple, Covered: g.Covered, SupportingPredIndices: ints, Unread: bad}
	}
	return out
}

func (v *validityIn) record() *kg.ValidityDetails {
	if v == nil {
		return nil
	}
	out := &kg.ValidityDetails{TotalPredTriples: v.TotalPredTriples, ValidCount: v.ValidCount, TripletPrecision: v.TripletPrecision, Unjudged: v.Unjudged}
	if v.PerPredTriple != nil {
		out.PerPredTriple = make([]kg.PredRecord, len(v.PerPredTriple))
	}
	for i, p := range v.PerPredTriple {
		ints, bad := p.SupportingGTIndices.Ints()
		out.PerPredTriple[i] = kg.PredRecord{PredIndex: p.PredIndex, PredTriple: p.PredTriple, Valid: p.Valid, SupportingGTIndices: ints, Unread: bad}
	}
	return out
}

// RawIndices are indices exactly as a judge wrote them (JSON values), so that
// non-integers ("P-3", 3.5, null) can be reported rather than silently used.
type RawIndices []json.RawMessage

// Ints returns the values that are JSON integers, in order, and the text of
// every other value.
func (r RawIndices) Ints() (ints []int, bad []string) {
	for _, v := range r {
		s := string(bytes.TrimSpace(v))
		if n, err := strconv.Atoi(s); err == nil {
			ints = append(ints, n)
		} else {
			bad = append(bad, s)
		}
	}
	return ints, bad
}

// UnmarshalJSON accepts a list or null.
func (r *RawIndices) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		*r = nil
		return nil
	}
	var v []json.RawMessage
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("must be a list of indices, found %s", jsonKind(data))
	}
	*r = v
	return nil
}

// UnmarshalJSON stringifies non-string triple values as the reference does.
func (g *gtRecord) UnmarshalJSON(data []byte) error {
	type plain gtRecord
	var aux struct {
		plain
		GTTriple looseTriple `json:"gt_triple"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	*g = gtRecord(aux.plain)
	g.GTTriple = kg.Triple(aux.GTTriple)
	return nil
}

// UnmarshalJSON stringifies non-string triple values as the reference does.
func (p *predRecord) UnmarshalJSON(data []byte) error {
	type plain predRecord
	var aux struct {
		plain
		PredTriple looseTriple `json:"pred_triple"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	*p = predRecord(aux.plain)
	p.PredTriple = kg.Triple(aux.PredTriple)
	return nil
}

type looseTriple kg.Triple

func (t *looseTriple) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("triple must be an object, found %s", jsonKind(data))
	}
	var c conv
	*t = looseTriple(c.object(m))
	return nil
}

// evalDoc decodes an eval file or a trajectory line. Its own qid,
// sample_idx and num_pred_triples shadow Eval's, to see whether they are there.
type evalDoc struct {
	kg.Record
	Coverage  *coverageIn     `json:"coverage_details"`
	Validity  *validityIn     `json:"validity_details"`
	QIDRaw    json.RawMessage `json:"qid"`
	SampleRaw json.RawMessage `json:"sample_idx"`
	NumPred   json.RawMessage `json:"num_pred_triples"`
	TripletF1 json.RawMessage `json:"triplet_f1"`
}

var sampleName = regexp.MustCompile(`^(.*)_sample(\d+)$`)

// ReadEval reads one per-sample evaluation file
// (results/eval/<experiment>/<task_id>_sample<N>.json). qid and sample_idx
// come from the content, else from the file name.
func ReadEval(path string) (Eval, error) {
	data, err := inputfile.ReadFile(path)
	if err != nil {
		return Eval{}, &InputError{File: path, Msg: "cannot open: " + errText(err), Err: err}
	}
	return DecodeEval(data, path)
}

// DecodeEval decodes one evaluation record; name is used in errors, and as a
// fallback for qid and sample_idx (`<task_id>_sample<N>.json`).
func DecodeEval(data []byte, name string) (Eval, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	var d evalDoc
	if err := unmarshalTop(data, &d, name, "a JSON object (an evaluation record)"); err != nil {
		return Eval{}, err
	}
	stem := qidFromName(name)
	defQID, defSample := stem, 0
	if m := sampleName.FindStringSubmatch(stem); m != nil {
		defQID = m[1]
		defSample, _ = strconv.Atoi(m[2])
	}
	return d.finish(name, 0, defQID, defSample)
}

func (d *evalDoc) finish(name string, line int, defQID string, defSample int) (Eval, error) {
	e := Eval{Record: d.Record}
	e.Coverage, e.Validity = d.Coverage.record(), d.Validity.record()
	e.Source = name
	if line > 0 {
		e.Source = fmt.Sprintf("%s line %d", name, line)
	}
	if d.NumPred == nil && d.TripletF1 == nil {
		return e, inputErr(name, line, "", `not an evaluation record (no "num_pred_triples" or "triplet_f1")`)
	}
	if d.TripletF1 != nil && !isNull(d.TripletF1) {
		if err := json.Unmarshal(d.TripletF1, &e.TripletF1); err != nil {
			return e, inputErr(name, line, "triplet_f1", "must be a number, found %s", bytes.TrimSpace(d.TripletF1))
		}
	}
	if d.NumPred != nil {
		if err := json.Unmarshal(d.NumPred, &e.NumPredTriples); err != nil {
			return e, inputErr(name, line, "num_pred_triples", "must be an integer, found %s", bytes.TrimSpace(d.NumPred))
		}
	} else if e.Validity != nil {
		e.NumPredTriples = len(e.Validity.PerPredTriple)
	}
	qid, err := optScalar(map[string]json.RawMessage{"qid": d.QIDRaw}, "qid", name, line)
	if err != nil {
		return e, err
	}
	e.QID = qid
	if e.QID == "" {
		e.QID = defQID
	}
	e.SampleIdx = defSample
	if d.SampleRaw != nil && !isNull(d.SampleRaw) {
		if err := json.Unmarshal(d.SampleRaw, &e.SampleIdx); err != nil || e.SampleIdx < 0 {
			return e, inputErr(name, line, "sample_idx", "must be a non-negative integer, found %s", bytes.TrimSpace(d.SampleRaw))
		}
	}
	if e.Validity != nil && len(e.Validity.PerPredTriple) > 0 && len(e.Validity.PerPredTriple) != e.NumPredTriples {
		return e, inputErr(name, line, "validity_details.per_pred_triple", "has %d records but num_pred_triples is %d", len(e.Validity.PerPredTriple), e.NumPredTriples)
	}
	return e, nil
}

// ReadEvals reads evaluation records from a file or a directory tree
// (sorted): per-sample *.json records, and trajectory *.jsonl lines that end
// with the evaluation keys (lines without them are skipped). Bad files are
// collected in a *FileErrors; good records are returned with it.
func ReadEvals(ctx context.Context, path string) ([]Eval, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, &InputError{File: path, Msg: "cannot open: " + errText(err), Err: err}
	}
	if !st.IsDir() {
		var errs FileErrors
		out, err := readEvalFile(ctx, path)
		errs.add(err)
		return out, errs.orNil()
	}
	// The walk lists the files (and its own errors) in order; the files are
	// decoded by a few workers (an 800-sample run's records take seconds of
	// JSON decoding, before any scoring can start) and put back in that
	// order, so the records and errors are those of a serial read.
	type slot struct {
		path  string
		err   error
		evals []Eval
	}
	var slots []*slot
	werr := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			slots = append(slots, &slot{err: &InputError{File: p, Msg: "cannot read: " + errText(err), Err: err}})
			return nil
		}
		if p != path && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		ext := strings.ToLower(filepath.Ext(p))
		if d.IsDir() || (ext != ".json" && ext != ".jsonl" && ext != ".ndjson") {
			return nil
		}
		slots = append(slots, &slot{path: p})
		return ctx.Err()
	})
	ordered.Each(ctx, len(slots), func(ctx context.Context, i int) ([]Eval, error) {
		if slots[i].path == "" || ctx.Err() != nil {
			return nil, slots[i].err
		}
		return readEvalFile(ctx, slots[i].path)
	}, func(i int, evals []Eval, err error) bool {
		slots[i].evals, slots[i].err = evals, err
		return true
	})
	if werr == nil {
		werr = ctx.Err()
	}
	var out []Eval
	var errs FileErrors
	for _, s := range slots {
		out = append(out, s.evals...)
		errs.add(s.err)
	}
	if werr != nil {
		return out, werr
	}
	return out, errs.orNil()
}

// readEvalFile reads one records file: trajectory lines (.jsonl, .ndjson)
// or one record.
func readEvalFile(ctx context.Context, p string) ([]Eval, error) {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".jsonl", ".ndjson":
		return readEvalJSONL(ctx, p)
	default:
		e, err := ReadEval(p)
		if err != nil {
			return nil, err
		}
		return []Eval{e}, nil
	}
}

func readEvalJSONL(ctx context.Context, path string) ([]Eval, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return nil, &InputError{File: path, Msg: "cannot open: " + errText(err), Err: err}
	}
	defer f.Close()
	return decodeEvalJSONL(ctx, f, path)
}

// decodeEvalJSONL reads trajectory lines, keeping those that end with the
// evaluation keys; path is used in errors and for the default qid.
func decodeEvalJSONL(ctx context.Context, r io.Reader, path string) ([]Eval, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	var (
		out    []Eval
		errs   FileErrors
		buf    []byte
		lineNo int
		err    error
	)
	for {
		buf, err = readLine(br, buf)
		if err != nil {
			break
		}
		lineNo++
		if err := ctx.Err(); err != nil {
			return out, err
		}
		line := bytes.TrimSpace(buf)
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		if len(line) == 0 {
			continue
		}
		var d evalDoc
		if err := json.Unmarshal(line, &d); err != nil {
			errs.add(jsonlErr(path, lineNo, line, err))
			continue
		}
		if d.NumPred == nil && d.TripletF1 == nil {
			continue // a trajectory line not yet evaluated
		}
		e, err := d.finish(path, lineNo, qidFromName(path), lineNo-1)
		if err != nil {
			errs.add(err)
			continue
		}
		out = append(out, e)
	}
	return out, errs.orNil()
}
