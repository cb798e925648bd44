package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kgjudge/kgjudge/internal/redact"
	"github.com/kgjudge/kgjudge/llmjudge/cost"
	openai "github.com/sashabaranov/go-openai"
)

// OpenAI is the Completer that talks to an OpenAI-compatible
// /chat/completions endpoint through github.com/sashabaranov/go-openai.
//
// go-openai tags temperature with omitempty, so a zero temperature would
// never reach the server. OpenAI therefore installs a BodyPatch HTTP client
// under go-openai that sets "temperature" in the JSON body of every request
// to exactly the requested value.
type OpenAI struct {
	client *openai.Client
	model  string
	// secrets are the parts of the base URL no message may show (query
	// values, a password): see internal/redact.
	secrets []string
}

var _ Completer = (*OpenAI)(nil)

// NewOpenAI returns a Completer for baseURL (e.g. "https://api.openai.com/v1"
// or "http://host:8000/v1"), key and model. hc may be nil.
//
// A query in baseURL ("https://host/v1?api-key=K", as some gateways want)
// is sent with every request, after the path: go-openai appends
// "/chat/completions" to the base URL as text, which would put the path
// inside the query ("/v1?api-key=K/chat/completions"). Query values and a
// password in baseURL never appear in an error message.
func NewOpenAI(baseURL, apiKey, model string, hc *http.Client) *OpenAI {
	cfg := openai.DefaultConfig(apiKey)
	var query string
	if baseURL != "" {
		base, q, _ := strings.Cut(baseURL, "?")
		base, _, _ = strings.Cut(base, "#")
		if q, _, _ = strings.Cut(q, "#"); q != "" {
			query = q
		}
		cfg.BaseURL = strings.TrimRight(base, "/")
	}
	if hc == nil {
		hc = &http.Client{}
	}
	var doer HTTPDoer = hc
	if query != "" {
		doer = addQuery{query: query, next: hc}
	}
	cfg.HTTPClient = &BodyPatch{Next: doer}
	return &OpenAI{client: openai.NewClientWithConfig(cfg), model: model, secrets: redact.Secrets(baseURL)}
}

// addQuery adds the base URL's query to each request's own.
type addQuery struct {
	query string
	next  HTTPDoer
}

func (a addQuery) Do(r *http.Request) (*http.Response, error) {
	u := *r.URL
	if u.RawQuery == "" {
		u.RawQuery = a.query
	} else {
		u.RawQuery += "&" + a.query
	}
	r = r.Clone(r.Context())
	r.URL = &u
	return a.next.Do(r)
}

// reasoningModel reports models that take max_completion_tokens only.
func reasoningModel(m string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "gpt-6"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

// Complete implements Completer.
func (o *OpenAI) Complete(ctx context.Context, req *Request) (*Response, error) {
	creq := openai.ChatCompletionRequest{Model: o.model, Seed: req.Seed}
	for _, m := range req.Messages {
		creq.Messages = append(creq.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
	}
	if req.MaxTokens > 0 {
		if reasoningModel(o.model) {
			creq.MaxCompletionTokens = req.MaxTokens
		} else {
			// vLLM, Ollama and older OpenAI-compatible servers know only
			// max_tokens; the replacement is for o1-style models (above).
			//lint:ignore SA1019 deliberate, see above
			creq.MaxTokens = req.MaxTokens
		}
	}
	mode := req.Mode
	if mode == "" {
		mode = ModeText
	}
	switch mode {
	case ModeSchema:
		creq.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name: req.SchemaName, Schema: req.Schema, Strict: true,
			},
		}
	case ModeObject:
		creq.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	temp, err := json.Marshal(req.Temperature)
	if err != nil {
		return nil, fmt.Errorf("temperature %v: %w", req.Temperature, err)
	}
	ctx = WithBodyFields(ctx, map[string]json.RawMessage{"temperature": temp})
	resp, err := o.client.CreateChatCompletion(ctx, creq)
	if err != nil {
		err = convertError(err, resp.Header())
		var se *StatusError
		if errors.As(err, &se) {
			se.Message = redact.String(se.Message, o.secrets...)
		}
		// Transport errors quote the request URL (`Post "https://...?key=K"`).
		return nil, redact.Error(err, o.secrets...)
	}
	if len(resp.Choices) == 0 {
		return nil, &StatusError{Code: 502, Message: "response has no choices"}
	}
	return &Response{
		Content:  resp.Choices[0].Message.Content,
		Usage:    withCached(costUsage(resp.Usage.PromptTokens, resp.Usage.CompletionTokens, resp.Usage.TotalTokens), resp.Usage.PromptTokensDetails),
		Mode:     mode,
		SeedSent: req.Seed != nil,
		Attempts: 1,
	}, nil
}

func convertError(err error, h http.Header) error {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	se := &StatusError{}
	switch {
	case errors.As(err, &apiErr):
		se.Code, se.Message = apiErr.HTTPStatusCode, apiErr.Message
		if apiErr.Param != nil && *apiErr.Param != "" {
			se.Message += " (param " + *apiErr.Param + ")"
		}
	case errors.As(err, &reqErr):
		se.Code, se.Message = reqErr.HTTPStatusCode, strings.TrimSpace(string(reqErr.Body))
		if se.Message == "" && reqErr.Err != nil {
			se.Message = reqErr.Err.Error()
		}
	default:
		return err
	}
	if se.Code == 0 {
		return err
	}
	se.RetryAfter = ParseRetryAfter(h.Get("Retry-After"), time.Now())
	return se
}

// ParseRetryAfter reads a Retry-After header: delay seconds or an HTTP date.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

type bodyFieldsKey struct{}

// WithBodyFields returns a context that makes BodyPatch set fields in the
// JSON body of requests made with it.
func WithBodyFields(ctx context.Context, fields map[string]json.RawMessage) context.Context {
	return context.WithValue(ctx, bodyFieldsKey{}, fields)
}

// HTTPDoer is what go-openai needs from an HTTP client.
type HTTPDoer interface {
	Do(*http.Request) (*http.Response, error)
}

// BodyPatch is an HTTP client wrapper that rewrites a JSON request body,
// setting the fields its request's context carries (see WithBodyFields).
// Requests without fields, or without a JSON object body, pass unchanged.
type BodyPatch struct {
	Next HTTPDoer
}

// Do implements HTTPDoer.
func (p *BodyPatch) Do(r *http.Request) (*http.Response, error) {
	fields, _ := r.Context().Value(bodyFieldsKey{}).(map[string]json.RawMessage)
	if len(fields) == 0 || r.Body == nil {
		return p.Next.Do(r)
	}
	raw, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err == nil && obj != nil {
		for k, v := range fields {
			obj[k] = v
		}
		if b, err := json.Marshal(obj); err == nil {
			raw = b
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	r.ContentLength = int64(len(raw))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw)), nil }
	return p.Next.Do(r)
}

func costUsage(p, c, t int) cost.Usage {
	if t == 0 {
		t = p + c
	}
	return cost.Usage{Prompt: int64(p), Completion: int64(c), Total: int64(t)}
}

// withCached records the prompt tokens the provider served from its prompt
// cache, when it says.
func withCached(u cost.Usage, d *openai.PromptTokensDetails) cost.Usage {
	if d != nil {
		u.Cached = int64(d.CachedTokens)
	}
	return u
}
