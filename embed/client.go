package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/kgjudge/kgjudge/llmjudge/transport"
)

// Defaults of Config.
const (
	DefaultBatchSize   = 64
	DefaultTimeout     = 2 * time.Minute
	DefaultMaxAttempts = 5
)

// Config configures a Client. BaseURL and Model are required.
type Config struct {
	// BaseURL is the endpoint's base ("http://127.0.0.1:8000/v1"); the
	// client posts to BaseURL + "/embeddings".
	BaseURL string
	// APIKey is sent as a bearer token when set.
	APIKey string
	Model  string
	// Profile overrides the built-in profile of Model (ProfileFor).
	Profile *Profile
	// BatchSize is the most texts per request (default DefaultBatchSize).
	BatchSize int
	// Timeout bounds each request (default DefaultTimeout; < 0: none).
	Timeout time.Duration
	// MaxAttempts counts the first attempt (default DefaultMaxAttempts).
	MaxAttempts int
	// RPM and TPM limit requests and (estimated) tokens per minute; 0:
	// unlimited.
	RPM, TPM int
	// CacheDir keeps the vectors across runs (STORE/embed-cache); "": in
	// memory only.
	CacheDir string
	// HTTPClient may be nil.
	HTTPClient *http.Client
	// RetryBase is the first backoff (default: transport's, 500ms); tests
	// shorten it.
	RetryBase time.Duration
	// Sleep waits between attempts (nil: a timer); tests record the
	// backoff with it.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Client embeds texts through an OpenAI-compatible endpoint with a cache.
// Safe for concurrent use.
type Client struct {
	oa      *openai.Client
	model   string
	base    string
	profile Profile
	batch   int
	timeout transport.Timeout
	retry   *transport.Retry
	rate    *transport.RateLimit
	cache   *Cache

	requests, attempts, sent, hits atomic.Int64
}

// New returns a Client for cfg (opening its cache).
func New(cfg Config) (*Client, error) {
	if strings.TrimSpace(cfg.BaseURL) == "" {
		return nil, errors.New("embed: no endpoint URL (--embed-url or KGJUDGE_EMBED_URL)")
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("embed: endpoint URL %q: want http(s)://host[:port]/v1", cfg.BaseURL)
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("embed: no model (--embed-model or KGJUDGE_EMBED_MODEL)")
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.HTTPClient != nil {
		oc.HTTPClient = cfg.HTTPClient
	}
	p := ProfileFor(cfg.Model)
	if cfg.Profile != nil {
		p = *cfg.Profile
	}
	c := &Client{
		oa: openai.NewClientWithConfig(oc), model: cfg.Model, base: oc.BaseURL, profile: p,
		batch: cfg.BatchSize,
		retry: &transport.Retry{MaxAttempts: cfg.MaxAttempts, Base: cfg.RetryBase, Sleep: cfg.Sleep},
		rate:  transport.NewRateLimit(nil, cfg.RPM, cfg.TPM, nil),
	}
	if c.batch <= 0 {
		c.batch = DefaultBatchSize
	}
	if c.retry.MaxAttempts <= 0 {
		c.retry.MaxAttempts = DefaultMaxAttempts
	}
	switch {
	case cfg.Timeout == 0:
		c.timeout.D = DefaultTimeout
	case cfg.Timeout > 0:
		c.timeout.D = cfg.Timeout
	}
	if c.cache, err = OpenCache(cfg.CacheDir); err != nil {
		return nil, err
	}
	return c, nil
}

// Model is the model name sent.
func (c *Client) Model() string { return c.model }

// Profile is the input profile in use.
func (c *Client) Profile() Profile { return c.profile }

// Endpoint is the base URL (never the key).
func (c *Client) Endpoint() string { return c.base }

// Stats counts what a Client did.
type Stats struct {
	// Requests is the number of batches sent (successful or not);
	// Attempts counts their HTTP attempts, retries included.
	Requests int64 `json:"requests"`
	Attempts int64 `json:"attempts"`
	// Embedded is the number of texts sent; CacheHits the texts answered
	// from the cache.
	Embedded  int64 `json:"embedded"`
	CacheHits int64 `json:"cache_hits"`
}

// Stats returns the counts so far.
func (c *Client) Stats() Stats {
	return Stats{Requests: c.requests.Load(), Attempts: c.attempts.Load(), Embedded: c.sent.Load(), CacheHits: c.hits.Load()}
}

// Close closes the cache.
func (c *Client) Close() error { return c.cache.Close() }

func (c *Client) inputType(r Role) string {
	if c.profile.InputType {
		return string(r)
	}
	return ""
}

// Embed returns one unit vector per text, in order, all of one dimension.
// Texts already cached cost nothing; the rest go in batches. On error
// nothing of the failed batch is cached (earlier batches stay cached).
func (c *Client) Embed(ctx context.Context, role Role, texts []string) ([][]float32, error) {
	if role != Query && role != Passage {
		return nil, fmt.Errorf("embed: unknown role %q", role)
	}
	it := c.inputType(role)
	pfx := c.profile.prefix(role)
	out := make([][]float32, len(texts))
	keys := make([]string, len(texts))
	var todo []string // distinct keys to fetch, in first-seen order
	sendText := map[string]string{}
	for i, t := range texts {
		k := Key(c.model, it, pfx+t)
		keys[i] = k
		if v, ok := c.cache.Get(k); ok {
			out[i] = v
			c.hits.Add(1)
			continue
		}
		if _, ok := sendText[k]; !ok {
			sendText[k] = pfx + t
			todo = append(todo, k)
		}
	}
	for from := 0; from < len(todo); from += c.batch {
		chunk := todo[from:min(from+c.batch, len(todo))]
		in := make([]string, len(chunk))
		for i, k := range chunk {
			in[i] = sendText[k]
		}
		vecs, err := c.call(ctx, it, in)
		if err != nil {
			return nil, err
		}
		if err := c.cache.Put(chunk, vecs); err != nil {
			return nil, err
		}
	}
	dim := -1
	for i := range out {
		if out[i] == nil {
			v, ok := c.cache.Get(keys[i])
			if !ok {
				return nil, fmt.Errorf("embed: internal: text %d not embedded", i)
			}
			out[i] = v
		}
		if dim >= 0 && len(out[i]) != dim {
			return nil, fmt.Errorf("embed: model %q gave vectors of %d and %d dimensions (a cache mixing two models of one name?)", c.model, dim, len(out[i]))
		}
		dim = len(out[i])
	}
	return out, nil
}

// call embeds one batch under the transport policies and checks the answer.
func (c *Client) call(ctx context.Context, inputType string, in []string) ([][]float32, error) {
	est := 0
	for _, s := range in {
		est += utf8.RuneCountInString(s)/3 + 2
	}
	if err := c.rate.Wait(ctx, est); err != nil {
		return nil, err
	}
	req := openai.EmbeddingRequestStrings{Input: in, Model: openai.EmbeddingModel(c.model), EncodingFormat: openai.EmbeddingEncodingFormatFloat}
	if inputType != "" {
		req.ExtraBody = map[string]any{"input_type": inputType}
	}
	c.requests.Add(1)
	var resp openai.EmbeddingResponse
	n, err := c.retry.Do(ctx, func(ctx context.Context) error {
		c.attempts.Add(1)
		return c.timeout.Do(ctx, func(ctx context.Context) error {
			var err error
			resp, err = c.oa.CreateEmbeddings(ctx, req)
			if err != nil {
				return transport.StatusOf(err, resp.Header())
			}
			return nil
		})
	})
	if err != nil {
		var se *transport.StatusError
		var ne interface{ Timeout() bool }
		if !errors.As(err, &se) && !errors.Is(err, transport.ErrTimeout) && !errors.As(err, &ne) && ctx.Err() == nil {
			return nil, fmt.Errorf("embed: %s: malformed response to %d texts (after %d attempt(s)): %w", c.base, len(in), n, err)
		}
		return nil, fmt.Errorf("embed: %s: model %q, %d texts: %w", c.base, c.model, len(in), err)
	}
	c.rate.Settle(est, resp.Usage.TotalTokens)
	c.sent.Add(int64(len(in)))
	vecs, err := checkResponse(resp, len(in))
	if err != nil {
		return nil, fmt.Errorf("embed: %s: model %q, %d texts: %w", c.base, c.model, len(in), err)
	}
	return vecs, nil
}

// checkResponse orders the vectors by index and normalises them; any
// missing, extra, duplicate, empty, non-finite or zero vector, or two
// dimensions in one answer, is an error.
func checkResponse(resp openai.EmbeddingResponse, n int) ([][]float32, error) {
	if len(resp.Data) != n {
		return nil, fmt.Errorf("server returned %d vectors for %d inputs", len(resp.Data), n)
	}
	out := make([][]float32, n)
	dim := len(resp.Data[0].Embedding)
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= n {
			return nil, fmt.Errorf("vector index %d out of range [0, %d)", d.Index, n)
		}
		if out[d.Index] != nil {
			return nil, fmt.Errorf("vector index %d returned twice", d.Index)
		}
		if len(d.Embedding) == 0 || len(d.Embedding) != dim {
			return nil, fmt.Errorf("vector %d has %d dimensions, want %d", d.Index, len(d.Embedding), dim)
		}
		v, err := unit(d.Embedding)
		if err != nil {
			return nil, fmt.Errorf("vector %d: %w", d.Index, err)
		}
		out[d.Index] = v
	}
	return out, nil
}

// unit returns v scaled to length 1 (a fresh slice).
func unit(v []float32) ([]float32, error) {
	s := 0.0
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, errors.New("not finite")
		}
		s += f * f
	}
	if s == 0 {
		return nil, errors.New("zero vector")
	}
	inv := 1 / math.Sqrt(s)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out, nil
}

// Cosine is the cosine similarity of two unit vectors (their dot product,
// summed in float64 in index order, so it is the same on every run); 0
// when the lengths differ.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	s := 0.0
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
