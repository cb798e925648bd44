package llmjudge

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/llmjudge/fakeopenai"
)

type recordingTransport struct {
	mu   sync.Mutex
	urls []string
}

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.urls = append(r.urls, req.URL.String())
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

// TestURLQueryKey: a key in the judge URL's query (issue 9.9: the request
// went to ".../v1?key=X/chat/completions" and the key appeared in every
// unjudged reason) is sent after the path, and no verdict, reason or
// manifest shows it or a password in the URL.
func TestURLQueryKey(t *testing.T) {
	const key, pw = "KEY-in-query-9f8e7d", "pw-in-userinfo-1a2b"
	t.Run("reachable", func(t *testing.T) {
		s := fakeopenai.New()
		defer s.Close()
		rec := &recordingTransport{}
		cfg := baseConfig(s)
		cfg.BaseURL = s.BaseURL() + "?key=" + key
		cfg.HTTPClient = &http.Client{Transport: rec}
		j := newJudge(t, cfg)
		task, pred := sample(6)
		got, err := j.Judge(context.Background(), task, pred)
		if err != nil {
			t.Fatal(err)
		}
		checkCorrect(t, task, pred, got)
		if len(rec.urls) == 0 {
			t.Fatal("no request")
		}
		for _, u := range rec.urls {
			if !strings.HasSuffix(u, "/v1/chat/completions?key="+key) {
				t.Errorf("request to %s, want .../v1/chat/completions?key=...", u)
			}
		}
		noSecret(t, j, got, key, pw)
	})
	t.Run("unreachable", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // nothing listens there now
		cfg := Config{BaseURL: "http://judge:" + pw + "@" + addr + "/v1?key=" + key + "&org=acme-secret-org",
			APIKey: "sk-test", Model: "m", Batching: BatchingWhole, BatchSize: 4, MaxAttempts: 2,
			Timeout: time.Second, RetryBase: time.Millisecond, RetryMax: 2 * time.Millisecond}
		j := newJudge(t, cfg)
		task, pred := sample(6)
		got, _ := j.Judge(context.Background(), task, pred)
		if states(got)[kg.Unjudged] == 0 {
			t.Fatalf("states %v, want unjudged claims", states(got))
		}
		for _, v := range got.Coverage {
			if v.State == kg.Unjudged && !strings.Contains(v.Reason, "REDACTED") && !strings.Contains(v.Reason, "refused") {
				t.Errorf("reason %q says neither where nor why", v.Reason)
			}
		}
		noSecret(t, j, got, key, pw, "acme-secret-org")
	})
}

func noSecret(t *testing.T, j *Judge, got any, secrets ...string) {
	t.Helper()
	b, _ := json.Marshal(got)
	m, _ := json.Marshal(j.Manifest())
	for _, s := range secrets {
		for what, text := range map[string]string{"verdicts": string(b), "manifest": string(m)} {
			if strings.Contains(text, s) {
				i := strings.Index(text, s)
				t.Errorf("the %s show the secret %q: ...%s...", what, s, text[max(0, i-80):min(len(text), i+40)])
			}
		}
	}
}
