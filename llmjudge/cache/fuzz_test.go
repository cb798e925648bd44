package cache

import (
	"bytes"
	"testing"
)

// FuzzScan: a verdicts.jsonl of any content loads without a panic; every
// entry it keeps is usable (Entry.Check), and every non-blank line is
// counted once: kept, superseded, torn or damaged.
func FuzzScan(f *testing.F) {
	good := `{"key":"k1","at":"2025-01-01T00:00:00Z","model":"m","prompt":"p","pass":"coverage","state":"covered","kind":"direct","support":[0,2],"reason":"r"}`
	for _, s := range []string{
		good + "\n", good + "\n" + good + "\n", good + "\n" + `{"key":"k2","state":"uncovered","support":[]}` + "\n" + `{"key":"k3","sta`,
		`{"key":"k","state":"covered","support":[-1]}` + "\n", `{"key":"k","state":"maybe"}` + "\n", `{"key":"k","state":"covered","kind":"x"}`,
		`{"key":"k","state":"covered","support":[9999]}`, "\n\n", `{"key":1}`, `[]`, "\xff\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := scan(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("scan of an in-memory file: %v", err)
		}
		for k, e := range res.entries {
			if e.Key != k {
				t.Fatalf("entry under %q has key %q", k, e.Key)
			}
			if err := e.Check(-1); err != nil {
				t.Fatalf("kept an unusable entry %+v: %v", e, err)
			}
		}
		if got := len(res.entries) + res.superseded + res.torn + res.damaged; got != res.lines {
			t.Fatalf("%d lines, but %d kept + %d superseded + %d torn + %d damaged", res.lines, len(res.entries), res.superseded, res.torn, res.damaged)
		}
		if len(res.order) != len(res.entries) || len(res.problems) > maxProblems {
			t.Fatalf("order %d entries %d problems %d", len(res.order), len(res.entries), len(res.problems))
		}
		if int64(len(data)) != res.bytes {
			t.Fatalf("counted %d bytes of %d", res.bytes, len(data))
		}
	})
}
