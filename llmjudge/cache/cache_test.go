package cache

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/kg"
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
