package transport

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/llmjudge/cost"
)

func ok(content string, total int64) *Response {
	return &Response{Content: content, Usage: cost.Usage{Prompt: total, Total: total}, Mode: ModeText, Attempts: 1}
}

func TestOpenAISendsZeroTemperatureAndParsesReply(t *testing.T) {
	var body map[string]json.RawMessage
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer k" {
			t.Errorf("path %s auth %q", r.URL.Path, r.Header.Get("Authorization"))
		}
		b, _ := io.ReadAll(r.Body)
		body = nil
		json.Unmarshal(b, &body)
		io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"{\"a\":1}"}}],"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}`)
	}))
	defer srv.Close()
	o := NewOpenAI(srv.URL+"/v1", "k", "m", nil)
	seed := 0
	resp, err := o.Complete(context.Background(), &Request{
		Messages: []Message{{Role: "user", Content: "JSON please"}}, Mode: ModeSchema,
		SchemaName: "s", Schema: json.RawMessage(`{"type":"object"}`), Temperature: 0, Seed: &seed, MaxTokens: 100,
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(body["temperature"]) != "0" || string(body["seed"]) != "0" || string(body["max_tokens"]) != "100" {
		t.Fatalf("body temperature=%s seed=%s max_tokens=%s", body["temperature"], body["seed"], body["max_tokens"])
	}
	if !strings.Contains(string(body["response_format"]), `"json_schema"`) || !strings.Contains(string(body["response_format"]), `"strict":true`) {
		t.Fatalf("response_format %s", body["response_format"])
	}
	if resp.Content != `{"a":1}` || resp.Usage != (cost.Usage{Prompt: 7, Completion: 3, Total: 10}) || resp.Mode != ModeSchema {
		t.Fatalf("resp %+v", resp)
	}
	// A non-zero temperature is sent as is.
	if _, err := o.Complete(context.Background(), &Request{Messages: []Message{{Role: "user", Content: "x"}}, Temperature: 0.7}); err != nil {
		t.Fatal(err)
	}
	if string(body["temperature"]) != "0.7" || body["response_format"] != nil {
		t.Fatalf("temperature %s format %s", body["temperature"], body["response_format"])
	}
}

func TestOpenAIErrorsCarryStatusAndRetryAfter(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3")
		w.WriteHeader(429)
		io.WriteString(w, `{"error":{"message":"slow down","type":"rate_limit"}}`)
	}))
	defer srv.Close()
	_, err := NewOpenAI(srv.URL+"/v1", "", "m", nil).Complete(context.Background(), &Request{Messages: []Message{{Role: "user", Content: "x"}}})
	var se *StatusError
	if !errors.As(err, &se) || se.Code != 429 || se.RetryAfter != 3*time.Second || !se.Retryable() {
		t.Fatalf("err %v", err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	if d := ParseRetryAfter("2.5", now); d != 2500*time.Millisecond {
		t.Fatal(d)
	}
	if d := ParseRetryAfter(now.Add(10*time.Second).Format(http.TimeFormat), now); d != 10*time.Second {
		t.Fatal(d)
	}
	if ParseRetryAfter("soon", now) != 0 || ParseRetryAfter("", now) != 0 {
		t.Fatal("garbage should be 0")
	}
}

func TestRetryBackoffJitterAndRetryAfter(t *testing.T) {
	var calls int
	errs := []error{&StatusError{Code: 500}, &StatusError{Code: 429, RetryAfter: 7 * time.Second}, ErrTimeout}
	var slept []time.Duration
	r := &Retry{
		Next: Func(func(ctx context.Context, req *Request) (*Response, error) {
			calls++
			if calls <= len(errs) {
				return nil, errs[calls-1]
			}
			return ok("x", 1), nil
		}),
		Base: 100 * time.Millisecond, Max: time.Second, MaxAttempts: 5,
		Jitter: func() float64 { return 0.5 },
		Sleep:  func(ctx context.Context, d time.Duration) error { slept = append(slept, d); return nil },
	}
	resp, err := r.Complete(context.Background(), &Request{})
	if err != nil || resp.Attempts != 4 || r.Retries() != 3 {
		t.Fatalf("resp %+v err %v retries %d", resp, err, r.Retries())
	}
	// 100ms -> 75ms with equal jitter 0.5; then Retry-After 7s wins; then 400ms -> 300ms.
	want := []time.Duration{75 * time.Millisecond, 7 * time.Second, 300 * time.Millisecond}
	for i := range want {
		if slept[i] != want[i] {
			t.Fatalf("slept %v, want %v", slept, want)
		}
	}
	// Not retried: 400, budget; limit reached.
	for _, e := range []error{&StatusError{Code: 400}, ErrBudget} {
		calls = 0
		r.Next = Func(func(ctx context.Context, req *Request) (*Response, error) { calls++; return nil, e })
		if _, err := r.Complete(context.Background(), &Request{}); err == nil || calls != 1 || Attempts(err) != 1 {
			t.Fatalf("%v: calls %d", e, calls)
		}
	}
	calls = 0
	r.Next = Func(func(ctx context.Context, req *Request) (*Response, error) {
		calls++
		return nil, &StatusError{Code: 503}
	})
	if _, err := r.Complete(context.Background(), &Request{}); Attempts(err) != 5 || calls != 5 {
		t.Fatalf("attempts %d calls %d", Attempts(err), calls)
	}
}

func TestTimeout(t *testing.T) {
	tm := Timeout{D: 20 * time.Millisecond, Next: Func(func(ctx context.Context, req *Request) (*Response, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})}
	_, err := tm.Complete(context.Background(), &Request{})
	if !errors.Is(err, ErrTimeout) || !Retryable(err) {
		t.Fatalf("err %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tm.Complete(ctx, &Request{}); errors.Is(err, ErrTimeout) {
		t.Fatal("a cancelled caller is not a timeout")
	}
}

func TestLimit(t *testing.T) {
	var cur, peak atomic.Int64
	l := NewLimit(Func(func(ctx context.Context, req *Request) (*Response, error) {
		c := cur.Add(1)
		for p := peak.Load(); c > p && !peak.CompareAndSwap(p, c); p = peak.Load() {
		}
		time.Sleep(5 * time.Millisecond)
		cur.Add(-1)
		return ok("x", 1), nil
	}), 3)
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); l.Complete(context.Background(), &Request{}) }()
	}
	wg.Wait()
	if peak.Load() > 3 || l.Peak() > 3 || l.Peak() < 2 {
		t.Fatalf("peak %d / %d", peak.Load(), l.Peak())
	}
}

func TestBudget(t *testing.T) {
	calls := 0
	b := NewBudget(Func(func(ctx context.Context, req *Request) (*Response, error) { calls++; return ok("x", 60), nil }), 100)
	for i := 0; i < 2; i++ {
		if _, err := b.Complete(context.Background(), &Request{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Complete(context.Background(), &Request{}); !errors.Is(err, ErrBudget) || calls != 2 || b.Spent() != 120 {
		t.Fatalf("err %v calls %d spent %d", err, calls, b.Spent())
	}
}

func TestRateLimitRPM(t *testing.T) {
	now := time.Unix(0, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	var slept time.Duration
	r := NewRateLimit(Func(func(ctx context.Context, req *Request) (*Response, error) { return ok("x", 1), nil }), 60, 0, clock)
	r.Sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		now = now.Add(d)
		mu.Unlock()
		slept += d
		return nil
	}
	for i := 0; i < 62; i++ { // 60 burst, then one per second
		if _, err := r.Complete(context.Background(), &Request{}); err != nil {
			t.Fatal(err)
		}
	}
	if slept < 2*time.Second || slept > 2100*time.Millisecond {
		t.Fatalf("slept %s, want about 2s", slept)
	}
}

func TestRateLimitTPM(t *testing.T) {
	now := time.Unix(0, 0)
	var slept time.Duration
	r := NewRateLimit(Func(func(ctx context.Context, req *Request) (*Response, error) { return ok("x", 600), nil }), 0, 600, func() time.Time { return now })
	r.Sleep = func(ctx context.Context, d time.Duration) error { now = now.Add(d); slept += d; return nil }
	req := &Request{Messages: []Message{{Content: strings.Repeat("abcd", 100)}}}
	r.Complete(context.Background(), req) // reports 600: the whole minute's tokens
	r.Complete(context.Background(), req) // needs its estimate (104) back: 10.4s at 10/s
	if slept < 10*time.Second || slept > 11*time.Second {
		t.Fatalf("slept %s, want about 10.4s", slept)
	}
}

func TestNegotiateStepsDownAndRemembers(t *testing.T) {
	var modes []Mode
	var seeds []bool
	n := NewNegotiate(Func(func(ctx context.Context, req *Request) (*Response, error) {
		modes = append(modes, req.Mode)
		seeds = append(seeds, req.Seed != nil)
		if req.Seed != nil {
			return nil, &StatusError{Code: 400, Message: "Unrecognized request argument supplied: seed"}
		}
		if req.Mode == ModeSchema {
			return nil, &StatusError{Code: 400, Message: "response_format json_schema is not supported"}
		}
		return &Response{Mode: req.Mode}, nil
	}))
	seed := 1
	resp, err := n.Complete(context.Background(), &Request{Mode: ModeSchema, Seed: &seed})
	if err != nil || resp.Mode != ModeObject {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	modes = nil
	if _, err := n.Complete(context.Background(), &Request{Mode: ModeSchema, Seed: &seed}); err != nil || len(modes) != 1 || modes[0] != ModeObject {
		t.Fatalf("second request modes %v err %v", modes, err)
	}
	if !n.SeedRefused() || n.ModeCounts()[ModeObject] != 2 {
		t.Fatalf("seed refused %v counts %v", n.SeedRefused(), n.ModeCounts())
	}
	// An unrelated 400 is returned as is.
	n2 := NewNegotiate(Func(func(ctx context.Context, req *Request) (*Response, error) {
		return nil, &StatusError{Code: 400, Message: "context length exceeded"}
	}))
	if _, err := n2.Complete(context.Background(), &Request{Mode: ModeSchema}); err == nil {
		t.Fatal("want the error")
	}
}
