package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/hierarchy"
)

// classChat is a local chat-completions server for the LLM class pass:
// every triple asked about is answered with class, or every call fails
// with status.
func classChat(t *testing.T, class string, status int) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	id := regexp.MustCompile(`(?m)^\[(\d+)\] `)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if status != 0 {
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"message":"scripted %d"}}`, status)
			return
		}
		var body struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		var labels []map[string]any
		for _, m := range body.Messages {
			for _, g := range id.FindAllStringSubmatch(m.Content, -1) {
				labels = append(labels, map[string]any{"id": g[1], "class": class, "why": "scripted"})
			}
		}
		content, _ := json.Marshal(map[string]any{"labels": labels})
		out, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion", "model": "m",
			"choices": []map[string]any{{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": string(content)}}},
			"usage":   map[string]int{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	}))
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
		o.ClassifyLLM, o.LLMURL = "weak", srv.URL+"/v1"
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
		o.ClassifyLLM, o.LLMURL = "contestable", srv.URL+"/v1"
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
