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
	p = newProgress(f, 3)
	if p.tty || !p.log {
		t.Fatalf("a log file: tty %v log %v", p.tty, p.log)
	}
	p.step("a", 0) // too early for a line
	p.last = time.Now().Add(-logEvery)
	p.step("b", 1)
	p.done()
	b, _ := os.ReadFile(f.Name())
	if got := string(b); strings.Count(got, "\n") != 1 || !strings.Contains(got, "scored 2/3 samples") || !strings.Contains(got, "b sample 1") {
		t.Errorf("log progress %q", got)
	}
}
