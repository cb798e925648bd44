package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
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
