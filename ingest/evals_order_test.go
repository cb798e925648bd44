package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

// TestReadEvalsOrder: the records of a directory come back in the walk's
// (sorted) order and its bad files in that order too, although several
// workers decode the files: the same records, in the same order, as a
// serial read.
func TestReadEvalsOrder(t *testing.T) {
	names := []string{"d001", "d012", "d038", "p012", "p020", "p033"}
	dir := t.TempDir()
	var want []string
	var wantBad []string
	for i := 0; i < 24; i++ {
		name := names[i%len(names)]
		b, err := os.ReadFile(fixture(name, "eval.json"))
		if err != nil {
			t.Fatal(err)
		}
		sub := filepath.Join(dir, fmt.Sprintf("d%d", i%3))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(sub, fmt.Sprintf("r%02d.json", i))
		if i%7 == 3 {
			b = []byte(`{"qid": "broken",`)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The expected order: directories d0, d1, d2, then the files in each.
	for d := 0; d < 3; d++ {
		for i := d; i < 24; i += 3 {
			p := filepath.Join(dir, fmt.Sprintf("d%d", d), fmt.Sprintf("r%02d.json", i))
			if i%7 == 3 {
				wantBad = append(wantBad, p)
			} else {
				want = append(want, p)
			}
		}
	}
	for run := 0; run < 3; run++ {
		evs, err := ReadEvals(context.Background(), dir)
		var fe *FileErrors
		if !errors.As(err, &fe) {
			t.Fatalf("ReadEvals: err = %v, want the bad files as *FileErrors", err)
		}
		var got []string
		for _, e := range evs {
			got = append(got, e.Source)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("records in order\n%q\nwant\n%q", got, want)
		}
		var bad []string
		for _, e := range fe.Errs {
			var ie *InputError
			if !errors.As(e, &ie) {
				t.Fatalf("bad file error %v is not an *InputError", e)
			}
			bad = append(bad, ie.File)
		}
		if fmt.Sprint(bad) != fmt.Sprint(wantBad) {
			t.Fatalf("bad files in order\n%q\nwant\n%q", bad, wantBad)
		}
	}
}

// TestReadPredictionsEachOrder: each receives the files in walk order, one
// at a time from the caller's goroutine, with the bad files' errors in that
// order, although a few workers decode ahead.
func TestReadPredictionsEachOrder(t *testing.T) {
	names := []string{"d001", "d012", "p012", "p020"}
	dir := t.TempDir()
	var want, wantBad []string
	for i := 0; i < 30; i++ {
		b, err := os.ReadFile(fixture(names[i%len(names)], "pred.json"))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("task_%02d.json", i))
		if i%9 == 4 {
			b = []byte(`[{"head": "a", "relation": "b"`)
			wantBad = append(wantBad, p)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		want = append(want, p) // a bad file is handed on too, with what parsed
	}
	isBad := map[string]bool{}
	for _, b := range wantBad {
		isBad[b] = true
	}
	var got []string
	inside := false
	err := ReadPredictionsEach(context.Background(), dir, func(file string, preds []kg.Prediction) {
		if inside {
			t.Errorf("each called again while it runs")
		}
		inside = true
		defer func() { inside = false }()
		if len(preds) == 0 && !isBad[file] {
			t.Errorf("%s: no predictions", file)
		}
		got = append(got, file)
	})
	var fe *FileErrors
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want the bad files as *FileErrors", err)
	}
	var bad []string
	for _, e := range fe.Errs {
		var ie *InputError
		if errors.As(e, &ie) {
			bad = append(bad, ie.File)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("files in order\n%q\nwant\n%q", got, want)
	}
	if fmt.Sprint(bad) != fmt.Sprint(wantBad) {
		t.Errorf("bad files\n%q\nwant\n%q", bad, wantBad)
	}
}
