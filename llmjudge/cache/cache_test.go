package cache

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore/lock"
)

func entry(key, prompt string, at time.Time) Entry {
	return Entry{Key: key, At: at, Model: "m", Prompt: prompt, Pass: "coverage", State: kg.Covered, Kind: kg.KindDirect, Support: []int{1}, Reason: "r"}
}

func TestKeyChangesWithEveryPart(t *testing.T) {
	base := KeyParts{Endpoint: "http://h/v1", Model: "m", Prompt: "p@1", Decoding: "t=0", Pass: "coverage", Claim: "c", Candidates: []string{"a", "b"}}
	k := Key(base)
	muts := []func(*KeyParts){
		func(p *KeyParts) { p.Endpoint = "http://h2/v1" },
		func(p *KeyParts) { p.Model = "m2" },
		func(p *KeyParts) { p.Prompt = "p@2" },
		func(p *KeyParts) { p.Decoding = "t=1" },
		func(p *KeyParts) { p.Pass = "validity" },
		func(p *KeyParts) { p.Claim = "c2" },
		func(p *KeyParts) { p.Candidates = []string{"b", "a"} },
		func(p *KeyParts) { p.Candidates = []string{"a"} },
	}
	for i, m := range muts {
		p := base
		p.Candidates = append([]string(nil), base.Candidates...)
		m(&p)
		if Key(p) == k {
			t.Errorf("mutation %d did not change the key", i)
		}
	}
	if Key(base) != k {
		t.Fatal("key not deterministic")
	}
}

func TestPersistsAndToleratesTornLine(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Put([]Entry{entry("a", "p1", now), entry("b", "p1", now)}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	// A crash mid-write leaves a torn last line.
	f, _ := os.OpenFile(filepath.Join(dir, FileName), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"key":"c","at":"2025-01-0`)
	f.Close()
	c, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get("a"); !ok || c.Len() != 2 {
		t.Fatalf("len %d", c.Len())
	}
	// The next record is not swallowed by the torn line.
	if err := c.Put([]Entry{entry("d", "p2", now.Add(time.Hour))}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	c, _ = Open(dir)
	got, ok := c.Get("d")
	if !ok || !reflect.DeepEqual(got, entry("d", "p2", now.Add(time.Hour))) {
		t.Fatalf("after torn line: %+v %v", got, ok)
	}
	c.Close()
	st, err := ReadStats(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Entries != 3 || st.Torn != 1 || st.Lines != 4 || len(st.ByPrompt) != 2 || !st.Oldest.Equal(now) {
		t.Fatalf("stats %+v", st)
	}
}

func TestPrune(t *testing.T) {
	dir := t.TempDir()
	old := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	recent := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	c, _ := Open(dir)
	c.Put([]Entry{entry("a", "p1", old), entry("b", "p1", recent), entry("c", "p2", recent)})
	c.Put([]Entry{entry("b", "p1", recent)}) // superseded duplicate
	c.Close()
	res, err := Prune(dir, PruneOptions{Before: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), KeepPrompts: []string{"p1"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kept != 1 || res.Removed != 2 || res.Superseded != 1 {
		t.Fatalf("prune %+v", res)
	}
	c, _ = Open(dir)
	defer c.Close()
	if _, ok := c.Get("b"); !ok || c.Len() != 1 {
		t.Fatal("prune kept the wrong entries")
	}
	if st, _ := ReadStats(t.TempDir()); st.Entries != 0 {
		t.Fatal("missing cache should be empty")
	}
}

// TestDamagedLines: lines that parse but cannot be a decision are ignored
// and named (file and line), never used; Prune drops them.
func TestDamagedLines(t *testing.T) {
	good := `{"key":"ok","at":"2025-01-01T00:00:00Z","model":"m","prompt":"p","pass":"coverage","state":"covered","kind":"direct","support":[0]}`
	for _, tc := range []struct {
		name, line, want string
	}{
		{"negative support", `{"key":"k","state":"covered","support":[-1]}`, "line 2: damaged entry: support index -1 is negative"},
		{"unknown state", `{"key":"k","state":"maybe","support":[]}`, `line 2: damaged entry: state "maybe" is not covered or uncovered`},
		{"unjudged state", `{"key":"k","state":"unjudged","support":[]}`, `state "unjudged" is not covered or uncovered`},
		{"unknown kind", `{"key":"k","state":"covered","kind":"telepathic","support":[1]}`, `kind "telepathic" is not a coverage kind`},
		{"support not a list", `{"key":"k","state":"covered","support":"all"}`, "line 2: not a cache entry"},
		{"not JSON", `{"key":"k","state":`, "line 2: not a cache entry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName)
			if err := os.WriteFile(path, []byte(good+"\n"+tc.line+"\n"+good+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, ok := c.Get("k"); ok {
				t.Fatal("the bad line was loaded")
			}
			if _, ok := c.Get("ok"); !ok {
				t.Fatal("the good line was lost")
			}
			probs := c.Problems()
			if len(probs) != 1 || !strings.Contains(probs[0], path+" line 2") || !strings.Contains(probs[0], tc.want) {
				t.Fatalf("problems %q, want one naming %s line 2: %s", probs, path, tc.want)
			}
			st, err := ReadStats(dir)
			if err != nil {
				t.Fatal(err)
			}
			if st.Torn+st.Damaged != 1 || st.Entries != 1 || len(st.Problems) != 1 {
				t.Fatalf("stats %+v", st)
			}
			c.Close()
			res, err := Prune(dir, PruneOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Kept != 1 || res.Torn+res.Damaged != 1 {
				t.Fatalf("prune %+v", res)
			}
		})
	}
}

func TestEntryCheckSupportRange(t *testing.T) {
	e := entry("k", "p", time.Time{})
	e.Support = []int{0, 9999}
	if err := e.Check(-1); err != nil {
		t.Fatalf("without a candidate count: %v", err)
	}
	err := e.Check(6)
	if err == nil || !strings.Contains(err.Error(), "support index 9999 is out of range for 6 candidate(s)") {
		t.Fatalf("Check(6) = %v", err)
	}
}

// TestPruneWhileInUse: issue 9.6: `cache prune` while a score ran on the
// same store lost 1,260 of its 1,421 verdicts. Prune takes the cache
// directory's lock exclusively: with a judge's cache open it fails naming
// the holder and changes nothing; several runs may still share the cache.
func TestPruneWhileInUse(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	run1, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	run2, err := Open(dir) // a second run appending beside the first
	if err != nil {
		t.Fatalf("second run on the same cache: %v", err)
	}
	if err := run1.Put([]Entry{entry("a", "p1", now), entry("b", "p1", now)}); err != nil {
		t.Fatal(err)
	}
	if err := run2.Put([]Entry{entry("c", "p1", now)}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, FileName))
	_, err = Prune(dir, PruneOptions{Before: now.Add(time.Hour)})
	var he *lock.HeldError
	if !errors.As(err, &he) || !strings.Contains(err.Error(), "cannot prune the judge cache") || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("prune while in use: %v, want a *lock.HeldError naming this process", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, FileName)); !bytes.Equal(before, after) {
		t.Fatal("a refused prune changed the cache")
	}
	run1.Close()
	if _, err := Prune(dir, PruneOptions{}); !errors.Is(err, lock.ErrHeld) {
		t.Fatalf("prune with one run left: %v", err)
	}
	run2.Close()
	res, err := Prune(dir, PruneOptions{Before: now.Add(time.Hour)})
	if err != nil || res.Removed != 3 {
		t.Fatalf("prune after the runs: %+v %v", res, err)
	}
	// And a run cannot start while a prune holds the directory.
	lk, err := lock.Acquire(dir, lock.Exclusive, "prune the judge cache")
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Release()
	if c, err := Open(dir); !errors.Is(err, lock.ErrHeld) || !strings.Contains(err.Error(), "cannot use the judge cache") {
		if c != nil {
			c.Close()
		}
		t.Fatalf("open during a prune: %v", err)
	}
}
