package ingest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"testing"
	"unicode/utf8"

	"github.com/kgjudge/kgjudge/kg"
)

// Fuzz targets for every reader of a user's file that FuzzDecodeTask and
// FuzzParseResponse do not cover: predictions as JSON, JSONL and CSV/TSV,
// the reference's evaluation records (JSON and trajectory JSONL), and the
// qid -> task map. Each must never panic, report a problem only as an
// input error, and return predictions whose parse report agrees with them.

func seedFixture(f *testing.F, name string, n int) {
	for _, dir := range []string{"d001", "p012", "p041"} {
		data, err := os.ReadFile(fixture(dir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), n)])
	}
}

// checkInputErr fails unless err is nil, a cancellation, or an input error
// all the way down.
func checkInputErr(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var fe *FileErrors
	if errors.As(err, &fe) {
		for _, e := range fe.Errs {
			checkInputErr(t, e)
		}
		return
	}
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error is not an input error: %T %v", err, err)
	}
	if ie.File == "" || ie.Msg == "" {
		t.Fatalf("input error without file or message: %+v", ie)
	}
}

func checkPreds(t *testing.T, preds []kg.Prediction) {
	t.Helper()
	for _, p := range preds {
		if p.Report.Triples != len(p.Triples) {
			t.Fatalf("report says %d triples, prediction has %d", p.Report.Triples, len(p.Triples))
		}
		if p.SampleIdx < 0 || p.QID == "" {
			t.Fatalf("sample %d qid %q", p.SampleIdx, p.QID)
		}
		for _, tr := range p.Triples {
			for _, s := range []string{tr.Head, tr.Relation, tr.Tail} {
				if !utf8.ValidString(s) {
					t.Fatalf("invalid UTF-8 kept in %q", s)
				}
			}
		}
	}
}

func FuzzDecodePredJSON(f *testing.F) {
	seedFixture(f, "pred.json", 3000)
	for _, s := range []string{`[]`, `{"qid": "t", "total": 1, "triplets": [{"head": "a", "relation": "r", "tail": "b"}]}`,
		`[["a", "r", "b"], {"subject": 1, "predicate": null, "object": true}]`, "\xef\xbb\xbf[[\"a\",\"r\",\"b\xff\"]]",
		"{\"head\": \"a\", \"relation\": \"r\", \"tail\": \"b\"}\n{\"head\": \"c\"}\n", `{"task_id": "t", "triples": []}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		preds, err := decodePredJSON(context.Background(), data, "fuzz.json")
		checkInputErr(t, err)
		checkPreds(t, preds)
	})
}

func FuzzDecodeJSONL(f *testing.F) {
	for _, s := range []string{
		"{\"qid\": \"t\", \"sample_idx\": 0, \"response\": \"[{\\\"head\\\": \\\"a\\\", \\\"relation\\\": \\\"r\\\", \\\"tail\\\": \\\"b\\\"}]\", \"messages\": [{\"role\": \"user\"}]}\n",
		"[\"a\", \"r\", \"b\"]\n[1, 2]\n", "{\"head\": \"a\", \"relation\": \"r\", \"tail\": \"b\"}\n\n{\"subject\": \"x\"}",
		"\xef\xbb\xbf{\"qid\": 12, \"response\": null}\n{\"qid\": \"t\", \"sample_idx\": -1, \"response\": \"\"}\n", "{\"qid\": \"t\"\n", "\xff\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		preds, err := DecodeJSONL(context.Background(), bufio.NewReader(bytes.NewReader(data)), "fuzz.jsonl")
		checkInputErr(t, err)
		checkPreds(t, preds)
	})
}

func FuzzDecodeCSV(f *testing.F) {
	for _, s := range []string{
		"head,relation,tail\na,r,b\n", "subject,predicate,object,qid,sample_idx\na,r,b,t,1\nc,r,d,t,x\n",
		"\xef\xbb\xbfhead,relation,tail\n\"a,b\",r,\"c\"\"d\"\n", "head\trelation\ttail\na\tr\tb\xff\n", "head,relation\na,r\n", "",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, tsv bool) {
		preds, err := decodeCSV(context.Background(), bufio.NewReader(bytes.NewReader(data)), "fuzz.csv", tsv)
		checkInputErr(t, err)
		checkPreds(t, preds)
	})
}

func FuzzDecodeEval(f *testing.F) {
	seedFixture(f, "eval.json", 4000)
	for _, s := range []string{`{"qid": "t", "sample_idx": 2, "triplet_f1": 0.5, "num_pred_triples": 0}`,
		`{"num_pred_triples": 1, "validity_details": {"per_pred_triple": [{"pred_index": 0, "valid": true, "supporting_gt_indices": ["P-1", 2.5, null]}]}}`,
		`{"triplet_f1": "x"}`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := DecodeEval(data, "task_x_sample3.json")
		checkInputErr(t, err)
		if err != nil {
			return
		}
		if e.QID == "" || e.SampleIdx < 0 {
			t.Fatalf("qid %q sample %d", e.QID, e.SampleIdx)
		}
		if e.Validity != nil && len(e.Validity.PerPredTriple) > 0 && len(e.Validity.PerPredTriple) != e.NumPredTriples {
			t.Fatalf("%d validity records for %d predicted triples", len(e.Validity.PerPredTriple), e.NumPredTriples)
		}
	})
}

func FuzzDecodeEvalJSONL(f *testing.F) {
	for _, s := range []string{
		"{\"qid\": \"t\", \"sample_idx\": 0, \"response\": \"x\"}\n{\"qid\": \"t\", \"sample_idx\": 1, \"triplet_f1\": 0.25, \"num_pred_triples\": 2}\n",
		"\xef\xbb\xbf{\"qid\": \"t\", \"num_pred_triples\": \"2\"}\n", "{\"triplet_f1\": 1}\n{\"triplet_f1\": 1,\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		evs, err := decodeEvalJSONL(context.Background(), bytes.NewReader(data), "fuzz.jsonl")
		checkInputErr(t, err)
		for _, e := range evs {
			if e.QID == "" || e.SampleIdx < 0 {
				t.Fatalf("qid %q sample %d", e.QID, e.SampleIdx)
			}
		}
	})
}

func FuzzDecodeMap(f *testing.F) {
	for _, s := range []string{`{"020": "task_020_x", "7": "task_007"}`, "qid,task_id\n020,task_020_x\n# c\n\n7,task_007\n",
		"a\tb\n", "a,b,c\n", `{"1": 2}`, "\xef\xbb\xbf1,t\n1,u\n", "\"a\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeMap(data, "fuzz.map")
		checkInputErr(t, err)
		if err != nil && m != nil {
			t.Fatalf("a mapping returned with an error")
		}
	})
}
