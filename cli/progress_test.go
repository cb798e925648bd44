package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestProgressOnlyOnFiles(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, 10)
	p.step("t", 0)
	p.done()
	if buf.Len() != 0 {
		t.Errorf("progress written to a captured writer: %q", buf.String())
	}

	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p = newProgressVerb(f, 3, "planning", "planned")
	if p.tty || !p.log {
		t.Fatalf("a log file: tty %v log %v", p.tty, p.log)
	}
	p.step("a", 0) // too early for a line
	p.start = time.Now().Add(-20 * time.Second)
	p.last = time.Now().Add(-logEvery)
	p.step("b", 1)
	p.done()
	b, _ := os.ReadFile(f.Name())
	got := string(b)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "planning 3 sample(s)") {
		t.Fatalf("log progress: a first line at once, then one per %s; got %q", logEvery, got)
	}
	// 2 of 3 in 20 s: 0.1/s, 10 s left.
	for _, want := range []string{"planned 2/3 sample(s) (66%) in 20s, 0.1/s, ETA 10s", "(last: b sample 1)"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("progress line lacks %q: %q", want, lines[1])
		}
	}
}

func TestProgressRate(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		n, total int
		after    time.Duration
		want     string
	}{
		{0, 40, time.Second, "0/40 (0%)"},
		{10, 40, 5 * time.Second, "10/40 (25%), 2/s, ETA 15s"},
		{40, 40, 8 * time.Second, "40/40 (100%), 5/s, ETA 0s"},
		{1, 3, 90 * time.Second, "1/3 (33%), 0.0111/s, ETA 3m0s"},
	} {
		p := &progress{n: tc.n, total: tc.total, start: start}
		if got := p.rate(start.Add(tc.after)); got != tc.want {
			t.Errorf("%d/%d after %v: %q, want %q", tc.n, tc.total, tc.after, got, tc.want)
		}
	}
}
