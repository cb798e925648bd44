package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/hierarchy"
	"github.com/kgjudge/kgjudge/llmjudge/fakeopenai"
)

// classChat is the judge tests' scripted chat server answering the class
// pass: every triple asked about gets class, or every call fails with
// status. It counts the calls.
func classChat(t *testing.T, class string, status int) (*fakeopenai.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := fakeopenai.New()
	srv.Script = func(c *fakeopenai.Call) *fakeopenai.Reply {
		calls.Add(1)
		if status != 0 {
			return &fakeopenai.Reply{Status: status}
		}
		items := make([]fakeopenai.Item, len(c.Claims))
		for i, l := range c.Claims {
			items[i] = fakeopenai.Item{ID: l.ID, Class: class, Reason: "scripted"}
		}
		return &fakeopenai.Reply{Items: items}
	}
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestStructureLLMClassPass(t *testing.T) {
	gt, pred, verdicts, _ := fixtureLayout(t)
	store := filepath.Join(t.TempDir(), "store")
	if _, err := runScore(t.Context(), scoreOptions{GT: gt, Pred: pred, Judge: "replay", Verdicts: verdicts, Protocol: "paper",
		Store: store, Out: t.TempDir(), Run: "opus"}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	base := structureOptions{Run: "opus", Store: store, Protocol: "paper", Top: 5, LLMTimeout: 5 * time.Second, LLMAttempts: 2, LLMModel: "class-test"}
	rules, err := runStructure(t.Context(), base, &bytes.Buffer{}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if rules.LLMClasses != nil {
		t.Fatalf("rules only, but llm_classes is %+v", rules.LLMClasses)
	}
	metaOf := func(rr *hierarchy.RunReport) int {
		n := 0
		for _, c := range append(append([]hierarchy.ClassCount{}, rr.GTClasses...), rr.PredClasses...) {
			if c.Class == hierarchy.Meta {
				n += c.Triples
			}
		}
		return n
	}

	t.Run("answers", func(t *testing.T) {
		srv, calls := classChat(t, "meta", 0)
		o := base
		o.ClassifyLLM, o.LLMURL = "weak", srv.BaseURL()
		var stdout, stderr bytes.Buffer
		rr, err := runStructure(t.Context(), o, &stdout, &stderr)
		if err != nil {
			t.Fatal(err)
		}
		s := rr.LLMClasses
		if s == nil || s.Selected == 0 || s.Unjudged != 0 || s.Changed == 0 || int64(s.Requests) != calls.Load() || s.Model != "class-test" || s.Selection != "weak" {
			t.Fatalf("llm_classes %+v, %d calls", s, calls.Load())
		}
		if got, want := metaOf(rr), metaOf(rules)+s.Changed; got != want {
			t.Errorf("meta triples %d, want the rules' %d plus the %d changed", got, metaOf(rules), s.Changed)
		}
		if !strings.Contains(stdout.String(), "classes: rules, then class-test on the weak triples") || !strings.Contains(stdout.String(), "0 unjudged") {
			t.Errorf("output does not say what the pass did:\n%s", stdout.String()[:min(400, stdout.Len())])
		}
		// Again: every reply comes from STORE/class-cache.jsonl.
		before := calls.Load()
		again, err := runStructure(t.Context(), o, &bytes.Buffer{}, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		if calls.Load() != before || again.LLMClasses.Cached != s.Requests {
			t.Errorf("second run: %d calls, %d of %d requests cached", calls.Load()-before, again.LLMClasses.Cached, s.Requests)
		}
		a, _ := json.Marshal(again.PredClasses)
		b, _ := json.Marshal(rr.PredClasses)
		if !bytes.Equal(a, b) {
			t.Error("the cached run's classes differ")
		}
		o.LLMNoCache = true
		if _, err := runStructure(t.Context(), o, &bytes.Buffer{}, &bytes.Buffer{}); err != nil || calls.Load() == before {
			t.Errorf("--llm-no-cache: %v, %d calls", err, calls.Load()-before)
		}
	})

	t.Run("a failing endpoint leaves the rules' classes, counted", func(t *testing.T) {
		srv, _ := classChat(t, "", 500)
		o := base
		o.ClassifyLLM, o.LLMURL = "contestable", srv.BaseURL()
		o.LLMAttempts = 1   // no backoff: every call fails anyway
		o.LLMNoCache = true // the first subtest's replies are in the store
		var stdout bytes.Buffer
		rr, err := runStructure(t.Context(), o, &stdout, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		s := rr.LLMClasses
		if s == nil || s.Selected == 0 || s.Unjudged != s.Selected || s.Changed != 0 {
			t.Fatalf("llm_classes %+v, want every selected triple unjudged", s)
		}
		rr.LLMClasses, rules.LLMClasses = nil, nil
		a, _ := json.Marshal(rr)
		b, _ := json.Marshal(rules)
		if !bytes.Equal(a, b) {
			t.Error("with every triple unjudged the report differs from the rules' report")
		}
		if !strings.Contains(stdout.String(), "llm problem: ") || !strings.Contains(stdout.String(), "HTTP 500") || !strings.Contains(stdout.String(), " pred request 1: ") {
			t.Errorf("output does not show the failures:\n%s", stdout.String()[:min(600, stdout.Len())])
		}
	})

	for _, tc := range []struct {
		name string
		o    func(o *structureOptions)
		want string
	}{
		{"unknown selection", func(o *structureOptions) { o.ClassifyLLM, o.LLMURL = "most", "http://127.0.0.1:1/v1" }, "weak, contestable, all"},
		{"no endpoint", func(o *structureOptions) { o.ClassifyLLM = "weak" }, "--llm-url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := base
			tc.o(&o)
			if _, err := runStructure(t.Context(), o, &bytes.Buffer{}, &bytes.Buffer{}); exitCodeOf(err) != ExitInput || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want a user error naming %q", err, tc.want)
			}
		})
	}
}
