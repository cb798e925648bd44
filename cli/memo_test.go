package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/alias"
	"github.com/kgjudge/kgjudge/kg"
)

// TestRescoreMemoCLI: a rescore with a store directory takes every sample
// from the rescore memo and writes the golden outputs again; a changed
// alias file judges every sample again; --no-memo does not use it.
func TestRescoreMemoCLI(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store")
	args := func(out string, extra ...string) []string {
		return append([]string{"score", "--gt", "../examples/gt", "--pred", "../examples/pred", "--store", store, "--out", out, "--run", "demo", "--workers", "2"}, extra...)
	}
	golden := filepath.Join("testdata", "golden", "examples", "demo")
	check := func(out string) {
		t.Helper()
		err := filepath.WalkDir(golden, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(golden, p)
			want, _ := os.ReadFile(p)
			got, err := os.ReadFile(filepath.Join(out, "demo", rel))
			if err != nil || string(got) != string(want) {
				t.Errorf("%s differs from the golden file (%v)", rel, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range []struct {
		extra []string
		hits  string
	}{
		{nil, ""},
		{nil, "4 of 4 sample(s) unchanged"},
		{[]string{"--no-memo"}, ""},
	} {
		out := t.TempDir()
		code, stdout, stderr := runCLI(t, args(out, c.extra...))
		if code != ExitOK {
			t.Fatalf("run %d: exit %d\n%s\n%s", i+1, code, stdout, stderr)
		}
		if got := strings.Contains(stderr, "from the rescore memo"); got != (c.hits != "") || !strings.Contains(stderr, c.hits) {
			t.Errorf("run %d: stderr %q, want %q", i+1, stderr, c.hits)
		}
		check(out)
	}
	// An alias file whose entries bear on no sample (no shared word) keys
	// every sample as no file does.
	aliases := filepath.Join(t.TempDir(), "aliases.tsv")
	if err := os.WriteFile(aliases, []byte("alias\tZanzibar Archipelago\tUnguja\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, args(t.TempDir(), "--aliases", aliases))
	if code != ExitOK || !strings.Contains(stderr, "4 of 4 sample(s) unchanged") {
		t.Errorf("irrelevant alias file: exit %d, stderr %q (want every sample from the memo)", code, stderr)
	}
}

// TestRescoreMemoAliasScope: a changed --aliases entry judges again only
// the samples it is relevant to (aliasScope), and every output is the
// bytes a --no-memo scoring with the new file writes.
func TestRescoreMemoAliasScope(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store")
	dir := t.TempDir()
	score := func(t *testing.T, file string, extra ...string) (out, stderr string) {
		t.Helper()
		out = t.TempDir()
		st := store
		if len(extra) > 0 { // --no-memo: a store of its own
			st = filepath.Join(t.TempDir(), "store")
		}
		a := append([]string{"score", "--gt", "../examples/gt", "--pred", "../examples/pred", "--store", st, "--out", out, "--run", "demo", "--workers", "2", "--aliases", file}, extra...)
		code, stdout, stderr := runCLI(t, a)
		if code != ExitOK {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		return out, stderr
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// "World Heritage" is only in e01 sample 0 ("UNESCO World Heritage
	// Site"); "guest review" only in e01 sample 1.
	base := "alias\tUNESCO World Heritage Site\tWorld Heritage\nconcept\trating\tscore\n"
	score(t, write("base.tsv", base))
	for _, c := range []struct {
		name, file string
		hits       string
	}{
		{"alias set changed", base + "alias\tHeritage listing\tUNESCO listing\n", "3 of 4 sample(s) unchanged"},
		{"irrelevant alias set and concept term added", base + "alias\tZanzibar Archipelago\tUnguja\nconcept\tvolcano\tcaldera\n", "4 of 4 sample(s) unchanged"},
		{"concept term added", base + "concept\trating\tguest review\n", "3 of 4 sample(s) unchanged"},
		{"Han alias set added", base + "alias\t辛鹿咖啡\t辛鹿\n", "2 of 4 sample(s) unchanged"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := write(strings.ReplaceAll(c.name, " ", "_")+".tsv", c.file)
			// The memo keeps every entry it was given, base's among them.
			got, stderr := score(t, f)
			if !strings.Contains(stderr, c.hits) {
				t.Errorf("stderr %q, want %q", stderr, c.hits)
			}
			want, _ := score(t, f, "--no-memo")
			sameTree(t, want, got)
		})
	}
}

// sameTree fails unless the directories hold the same files, byte for byte.
func sameTree(t *testing.T, want, got string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(want, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		rel, _ := filepath.Rel(want, p)
		w, _ := os.ReadFile(p)
		g, err := os.ReadFile(filepath.Join(got, rel))
		if err != nil || string(g) != string(w) {
			t.Errorf("%s differs from the --no-memo scoring's (%v)", rel, err)
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("walk %s: %d files, %v", want, n, err)
	}
}

// TestAliasScopeRelevant: the cases the relevance rule must keep (a part
// cut at punctuation, a rewritten value, a stemmed word, a Han rune, a
// set found through another set's member) and entries it leaves out.
func TestAliasScopeRelevant(t *testing.T) {
	ua, err := alias.ParseAliases(strings.NewReader(strings.Join([]string{
		"alias\tOtowa\tOtowa Falls",         // 0: a part of "Kiyomizu-dera/Otowa"
		"alias\t11.16亿元\tTianshui turnover", // 1: a value: the sample has a digit
		"alias\tGion\t祇園",                   // 2: a word
		"alias\t祇園\t花見小路",                   // 3: only through set 2's 祇園
		"alias\tZanzibar\tUnguja",           // 4: nothing shared
		"concept\tprice\tpricing",           // 0: stems to "price"
		"concept\tprice\t售价",                // 1: shares 价 (over-approximation)
		"concept\tvolcano\tcaldera",         // 2: nothing shared
	}, "\n")), "test")
	if err != nil {
		t.Fatal(err)
	}
	a := newAliasScope(ua)
	task := &kg.Task{ID: "t", Triples: []kg.GTTriple{{Triple: kg.Triple{Head: "Kiyomizu-dera/Otowa", Relation: "price per night", Tail: "28,000 JPY"}}}}
	pred := &kg.Prediction{TaskID: "t", Triples: []kg.Triple{{Head: "Gion Hatanaka", Relation: "价格", Tail: "free"}}}
	sets, terms := a.relevant(task, pred)
	if fmt.Sprint(sets) != "[0 1 2 3]" || fmt.Sprint(terms) != "[0 1]" {
		t.Errorf("relevant sets %v, terms %v; want [0 1 2 3], [0 1]", sets, terms)
	}
	// Without a digit the value set is left out; without "Gion" so is the
	// set found through it.
	task.Triples[0].Tail = "free"
	pred.Triples[0].Head = "Hatanaka"
	if sets, _ := a.relevant(task, pred); fmt.Sprint(sets) != "[0]" {
		t.Errorf("relevant sets %v, want [0]", sets)
	}
	if fp := (&aliasScope{}).fingerprint(task, pred); fp != "" {
		t.Errorf("empty scope fingerprint %q, want \"\" (as without a file)", fp)
	}
}
