package llmclass

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/hierarchy"
	"github.com/kgjudge/kgjudge/internal/fixtures"
	"github.com/kgjudge/kgjudge/llmjudge/fakeopenai"
	"github.com/kgjudge/kgjudge/llmjudge/transport"
)

const (
	Factual        = hierarchy.Factual
	Organizational = hierarchy.Organizational
	Bibliographic  = hierarchy.Bibliographic
	Subjective     = hierarchy.Subjective
	Meta           = hierarchy.Meta
)

var classes = hierarchy.Classes

// classServer is the scripted chat server of the judge's tests
// (llmjudge/fakeopenai), the only stand-in the tests use (no chat model
// runs here). answer decides each call from its number and the ids the
// prompt asks about: an HTTP status (0: 200), the message content, or a
// hang.
type classServer struct{ *fakeopenai.Server }

type classReply struct {
	status  int
	content string
	hang    time.Duration
}

func newClassServer(t *testing.T, answer func(call int, ids []int) classReply) *classServer {
	t.Helper()
	s := fakeopenai.New()
	s.Script = func(c *fakeopenai.Call) *fakeopenai.Reply {
		if c.Kind != fakeopenai.Classes {
			return &fakeopenai.Reply{Status: 400}
		}
		ids := make([]int, len(c.Claims))
		for i, l := range c.Claims {
			ids[i] = l.ID
		}
		r := answer(c.N, ids)
		return &fakeopenai.Reply{Status: r.status, Hang: r.hang, Content: &r.content}
	}
	t.Cleanup(s.Close)
	return &classServer{s}
}

// Calls is the number of requests received.
func (s *classServer) Calls() int { return len(s.Server.Calls()) }

// labelsReply answers every id with class (nil: organizational).
func labelsReply(ids []int, class func(id int) string) string {
	var b strings.Builder
	b.WriteString(`{"labels":[`)
	for k, id := range ids {
		if k > 0 {
			b.WriteString(",")
		}
		c := "organizational"
		if class != nil {
			c = class(id)
		}
		fmt.Fprintf(&b, `{"id":%d,"class":%q,"why":"scripted"}`, id, c)
	}
	b.WriteString("]}")
	return b.String()
}

func (s *classServer) pass() *Pass {
	c := transport.Completer(transport.NewOpenAI(s.BaseURL(), "test-key", "class-test", nil))
	c = transport.Timeout{Next: c, D: 300 * time.Millisecond}
	c = &transport.Retry{Next: c, MaxAttempts: 3, Base: time.Millisecond, Max: 2 * time.Millisecond,
		Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }}
	seed := 7
	return &Pass{Completer: c, Batch: 25, Seed: &seed}
}

func TestPass(t *testing.T) {
	f := fixtures.Load(t, "d001")
	gt, pred := hierarchy.GTTriples(f.Task), f.Pred.Triples
	rules := hierarchy.ClassifyTriples(pred, gt)
	weak := 0
	for _, c := range rules {
		if hierarchy.Weak(c) {
			weak++
		}
	}
	if weak < 30 {
		t.Fatalf("d001 pred has %d weakly decided triples; the test needs more than one batch", weak)
	}
	batches := (weak + 24) / 25
	ctx := context.Background()

	t.Run("answers replace the weak classes only", func(t *testing.T) {
		s := newClassServer(t, func(_ int, ids []int) classReply { return classReply{content: labelsReply(ids, nil)} })
		got, st, err := s.pass().Classify(ctx, pred, gt)
		if err != nil {
			t.Fatal(err)
		}
		if st.Selected != weak || st.Requests != batches || st.Unjudged != 0 || len(st.Problems) != 0 || s.Calls() != batches {
			t.Fatalf("stats %+v, calls %d; want %d selected in %d requests, none unjudged", st, s.Calls(), weak, batches)
		}
		changed := 0
		for i, c := range got {
			switch {
			case hierarchy.Weak(rules[i]):
				if c.Class != Organizational || c.Evidence != hierarchy.EvidenceLLM || !strings.Contains(c.Reason, "rules: "+string(rules[i].Class)) {
					t.Fatalf("triple %d: %+v, want organizational from the llm with the rules' class in the reason", i, c)
				}
				if rules[i].Class != Organizational {
					changed++
				}
			case c.Class != rules[i].Class || c.Evidence != rules[i].Evidence || c.Reason != rules[i].Reason:
				t.Fatalf("triple %d decided by %s changed: %+v -> %+v", i, rules[i].Evidence, rules[i], c)
			}
		}
		if st.Changed != changed {
			t.Errorf("Changed %d, want %d", st.Changed, changed)
		}
		// The server reports at least a token a call each way.
		if st.PromptTokens < int64(batches) || st.CompletionTokens < int64(batches) {
			t.Errorf("tokens %d+%d, want the usage of %d calls", st.PromptTokens, st.CompletionTokens, batches)
		}
		var req struct {
			Temperature    *float64        `json:"temperature"`
			Seed           *int            `json:"seed"`
			ResponseFormat json.RawMessage `json:"response_format"`
		}
		_ = json.Unmarshal(mustJSON(t, s.Server.Calls()[0].Body), &req)
		if req.Temperature == nil || *req.Temperature != 0 || req.Seed == nil || *req.Seed != 7 || !strings.Contains(string(req.ResponseFormat), "json_object") {
			t.Errorf("request decoding: temperature %v seed %v format %s", req.Temperature, req.Seed, req.ResponseFormat)
		}
	})

	t.Run("same replies, byte-identical classes", func(t *testing.T) {
		s := newClassServer(t, func(_ int, ids []int) classReply {
			return classReply{content: labelsReply(ids, func(id int) string { return string(classes[id%len(classes)]) })}
		})
		a, _, _ := s.pass().Classify(ctx, pred, gt)
		b, _, _ := s.pass().Classify(ctx, pred, gt)
		if string(mustJSON(t, a)) != string(mustJSON(t, b)) {
			t.Error("two runs with the same replies differ")
		}
	})

	faults := []struct {
		name         string
		batch        int // 0: 25
		answer       func(call int, ids []int) classReply
		wantUnjudged int
		wantProblem  string
	}{
		{"malformed JSON", 0, func(int, []int) classReply { return classReply{content: `{"labels": [`} }, weak, "malformed reply"},
		{"no labels array", 0, func(int, []int) classReply { return classReply{content: `{"classes": []}`} }, weak, "no \"labels\""},
		{"half the ids missing", 0, func(_ int, ids []int) classReply { return classReply{content: labelsReply(ids[:len(ids)/2], nil)} },
			0, "unanswered"},
		{"unknown class", 0, func(_ int, ids []int) classReply {
			return classReply{content: labelsReply(ids, func(int) string { return "scaffolding" })}
		}, weak, "unknown class"},
		{"ids not asked about", 0, func(_ int, ids []int) classReply {
			return classReply{content: labelsReply([]int{-1, 100000}, nil)}
		}, weak, "not asked about"},
		{"server error every time", 0, func(int, []int) classReply { return classReply{status: 500} }, weak, "HTTP 500"},
		// One batch: every request waits out the timeout three times.
		{"hangs past the timeout", 1000, func(int, []int) classReply { return classReply{hang: 2 * time.Second} }, weak, "timed out"},
		{"429 once, then answers", 0, func(call int, ids []int) classReply {
			if call == 0 {
				return classReply{status: 429}
			}
			return classReply{content: labelsReply(ids, nil)}
		}, 0, ""},
		{"code fence around the JSON", 0, func(_ int, ids []int) classReply {
			return classReply{content: "```json\n" + labelsReply(ids, nil) + "\n```"}
		}, 0, ""},
	}
	for _, tc := range faults {
		t.Run(tc.name, func(t *testing.T) {
			s := newClassServer(t, tc.answer)
			p := s.pass()
			if tc.batch > 0 {
				p.Batch = tc.batch
			}
			got, st, err := p.Classify(ctx, pred, gt)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.wantUnjudged
			if tc.name == "half the ids missing" {
				// Per batch the second half is missing.
				want = 0
				for b := 0; b < batches; b++ {
					n := min(25, weak-25*b)
					want += n - n/2
				}
			}
			if st.Unjudged != want {
				t.Errorf("unjudged %d, want %d (stats %+v)", st.Unjudged, want, st)
			}
			problems := strings.Join(st.Problems, "\n")
			if tc.wantProblem != "" && !strings.Contains(problems, tc.wantProblem) {
				t.Errorf("problems %q do not mention %q", problems, tc.wantProblem)
			}
			if tc.wantProblem == "" && problems != "" {
				t.Errorf("unexpected problems %q", problems)
			}
			kept := 0
			for i, c := range got {
				if hierarchy.Weak(rules[i]) && c.Evidence != hierarchy.EvidenceLLM {
					kept++
					if string(mustJSON(t, c)) != string(mustJSON(t, rules[i])) {
						t.Fatalf("unjudged triple %d changed: %+v -> %+v", i, rules[i], c)
					}
				}
			}
			if kept != st.Unjudged {
				t.Errorf("%d triples kept the rules' class, stats say %d unjudged", kept, st.Unjudged)
			}
		})
	}

	t.Run("cancelled context", func(t *testing.T) {
		s := newClassServer(t, func(int, []int) classReply { return classReply{hang: time.Second} })
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if _, _, err := s.pass().Classify(ctx, pred, gt); err == nil {
			t.Fatal("no error from a cancelled context")
		}
	})
}

func FuzzParseLLMLabels(f *testing.F) {
	f.Add(`{"labels":[{"id":3,"class":"meta","why":"x"}]}`)
	f.Add(`{"labels":[{"id":"3","class":"META"},{"id":3,"class":"factual"}]}`)
	f.Add("```json\n{\"labels\":[]}\n```")
	f.Add(`{"labels":null}`)
	f.Add(`[1,2]`)
	f.Fuzz(func(t *testing.T, s string) {
		ids := map[int]bool{1: true, 3: true, 7: true}
		got, _, err := parseLLMLabels(s, ids)
		if err != nil && got != nil {
			t.Fatal("answers with an error")
		}
		for id, a := range got {
			if !ids[id] {
				t.Fatalf("answer for id %d, not asked", id)
			}
			ok := false
			for _, c := range classes {
				ok = ok || c == a.class
			}
			if !ok {
				t.Fatalf("class %q", a.class)
			}
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReplayRoundTrip: a recording made through the recorder answers
// the same requests when replayed, and a request it lacks is unjudged.
func TestCache(t *testing.T) {
	var calls atomic.Int64
	s := newClassServer(t, func(n int, ids []int) classReply {
		calls.Add(1)
		return classReply{content: labelsReply(ids, func(id int) string { return string(classes[id%len(classes)]) })}
	})
	f := fixtures.Load(t, "p041")
	gt, pred := hierarchy.GTTriples(f.Task), f.Pred.Triples
	path := filepath.Join(t.TempDir(), "class-cache.jsonl")
	ctx := context.Background()

	c, err := OpenCache(path)
	if err != nil {
		t.Fatal(err)
	}
	live := s.pass()
	live.Model, live.Cache = "class-test", c
	want, st, err := live.Classify(ctx, pred, gt)
	if err != nil || st.Unjudged != 0 || st.Selected == 0 || c.Len() != st.Requests || c.Hits() != 0 {
		t.Fatalf("live run: %v, %+v, cache %d replies %d hits", err, st, c.Len(), c.Hits())
	}
	asked := calls.Load()

	t.Run("a second run asks nothing", func(t *testing.T) {
		got, st2, err := live.Classify(ctx, pred, gt)
		if err != nil || calls.Load() != asked || c.Hits() != st.Requests || string(mustJSON(t, got)) != string(mustJSON(t, want)) || st2.Unjudged != 0 || st2.Cached != st.Requests || st2.PromptTokens != 0 {
			t.Fatalf("err %v, %d new calls, %d hits, stats %+v", err, calls.Load()-asked, c.Hits(), st2)
		}
	})
	_ = c.Close()

	t.Run("replay with no endpoint", func(t *testing.T) {
		r, err := ReadCache(path)
		if err != nil {
			t.Fatal(err)
		}
		if m := r.Models(); len(m) != 1 || m[0] != "class-test" {
			t.Errorf("models %v", m)
		}
		got, st2, err := (&Pass{Model: "class-test", Cache: r, Batch: 25}).Classify(ctx, pred, gt)
		if err != nil || st2.Unjudged != 0 || string(mustJSON(t, got)) != string(mustJSON(t, want)) {
			t.Fatalf("replay differs from the live run (err %v, stats %+v)", err, st2)
		}
		// Another batch size asks other requests: none is cached.
		_, st3, _ := (&Pass{Model: "class-test", Cache: r, Batch: 10}).Classify(ctx, pred, gt)
		if st3.Unjudged != st3.Selected || !strings.Contains(strings.Join(st3.Problems, " "), ErrNotCached.Error()) {
			t.Fatalf("uncached requests: %+v, want every selected triple unjudged", st3)
		}
		// Another model name keys other requests.
		_, st4, _ := (&Pass{Model: "other", Cache: r, Batch: 25}).Classify(ctx, pred, gt)
		if st4.Unjudged != st4.Selected {
			t.Fatalf("another model: %+v, want every selected triple unjudged", st4)
		}
	})

	t.Run("incomplete replies are not kept", func(t *testing.T) {
		half := newClassServer(t, func(_ int, ids []int) classReply { return classReply{content: labelsReply(ids[:len(ids)/2], nil)} })
		p2 := filepath.Join(t.TempDir(), "c.jsonl")
		c2, err := OpenCache(p2)
		if err != nil {
			t.Fatal(err)
		}
		defer c2.Close()
		p := half.pass()
		p.Model, p.Cache = "m", c2
		if _, st, _ := p.Classify(ctx, pred, gt); st.Unjudged == 0 || c2.Len() != 0 {
			t.Fatalf("stats %+v, cache holds %d replies; want none kept", st, c2.Len())
		}
	})

	t.Run("damaged files", func(t *testing.T) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		cut := filepath.Join(t.TempDir(), "cut.jsonl")
		// A crash while appending leaves a last line without its newline.
		if err := os.WriteFile(cut, append(append([]byte{}, b...), `{"key":"abc","mod`...), 0o644); err != nil {
			t.Fatal(err)
		}
		c3, err := OpenCache(cut)
		if err != nil || c3.Len() != st.Requests {
			t.Fatalf("cut-short last line: %v, %d replies, want %d", err, c3.Len(), st.Requests)
		}
		_ = c3.Close()
		if after, _ := os.ReadFile(cut); !bytes.Equal(after, b) {
			t.Error("the cut-short line was not dropped from the file")
		}
		bad := filepath.Join(t.TempDir(), "bad.jsonl")
		if err := os.WriteFile(bad, append([]byte("not json\n"), b...), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenCache(bad); err == nil || !strings.Contains(err.Error(), "bad.jsonl line 1") {
			t.Errorf("a malformed line: %v, want an error naming the file and line", err)
		}
		if _, err := ReadCache(filepath.Join(t.TempDir(), "none.jsonl")); err == nil {
			t.Error("replaying a missing file: no error")
		}
	})
}
