// Package transport owns the judge's calls to an OpenAI-compatible
// chat-completions endpoint: one small interface (Completer), its go-openai
// implementation, and the features stacked around it as wrappers (retry with
// backoff, per-request timeout, concurrency limit, request/token rate limit,
// token budget, response-format and seed negotiation). It must not build
// prompts, parse verdicts or cache anything: it moves text and counts tokens.
package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kgjudge/kgjudge/llmjudge/cost"
)

// Mode is how the response is constrained to JSON, strongest first.
type Mode string

const (
	// ModeSchema sends response_format {type: json_schema, strict: true}.
	ModeSchema Mode = "json_schema"
	// ModeObject sends response_format {type: json_object}.
	ModeObject Mode = "json_object"
	// ModeText sends no response_format; the JSON is extracted from the text.
	ModeText Mode = "text"
)

// Modes lists the modes strongest first (a fresh slice each call).
func Modes() []Mode { return []Mode{ModeSchema, ModeObject, ModeText} }

func modeRank(m Mode) int {
	switch m {
	case ModeSchema:
		return 0
	case ModeObject:
		return 1
	}
	return 2
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is one chat completion to make.
type Request struct {
	Messages []Message
	// Mode is the strongest JSON mode wanted; Negotiate may weaken it.
	Mode       Mode
	SchemaName string
	Schema     json.RawMessage
	// Temperature is always sent, zero included.
	Temperature float64
	// Seed is sent when non-nil (Negotiate drops it if the server refuses).
	Seed *int
	// MaxTokens caps the completion; 0 sends no cap.
	MaxTokens int
}

// EstimatedTokens guesses the prompt size of r (see cost.EstimateTokens).
func (r *Request) EstimatedTokens() int {
	n := 0
	for _, m := range r.Messages {
		n += cost.EstimateTokens(m.Content) + 4
	}
	return n
}

// Response is a completion's text and what it cost.
type Response struct {
	Content string
	Usage   cost.Usage
	// Mode is the JSON mode the server accepted for this response.
	Mode Mode
	// SeedSent says whether the request that succeeded carried a seed.
	SeedSent bool
	// Attempts is the number of HTTP attempts made (Retry sets it; 1 otherwise).
	Attempts int
}

// Completer makes one chat completion. Implementations must be safe for
// concurrent use. A call is not idempotent in cost (each attempt may be
// billed) but is in effect: retrying it is always allowed.
type Completer interface {
	Complete(ctx context.Context, req *Request) (*Response, error)
}

// Func adapts a function to Completer.
type Func func(ctx context.Context, req *Request) (*Response, error)

// Complete implements Completer.
func (f Func) Complete(ctx context.Context, req *Request) (*Response, error) { return f(ctx, req) }

var _ Completer = Func(nil)

// StatusError is a non-2xx answer from the server.
type StatusError struct {
	Code    int
	Message string
	// RetryAfter is the server's Retry-After, 0 when absent.
	RetryAfter time.Duration
}

func (e *StatusError) Error() string {
	msg := e.Message
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	return fmt.Sprintf("HTTP %d: %s", e.Code, msg)
}

// Retryable says whether the status is worth retrying.
func (e *StatusError) Retryable() bool {
	return e.Code == 408 || e.Code == 409 || e.Code == 429 || e.Code >= 500
}

// mentions reports whether the error message names any of words.
func (e *StatusError) mentions(words ...string) bool {
	m := strings.ToLower(e.Message)
	for _, w := range words {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// ErrBudget is returned (wrapped) once the token budget is spent.
var ErrBudget = errors.New("token budget reached")

// ErrTimeout is returned (wrapped) when one request ran past its timeout.
var ErrTimeout = errors.New("request timed out")

// AttemptsError carries the number of HTTP attempts behind a failure.
type AttemptsError struct {
	Attempts int
	Err      error
}

func (e *AttemptsError) Error() string {
	return fmt.Sprintf("after %d attempt(s): %v", e.Attempts, e.Err)
}

func (e *AttemptsError) Unwrap() error { return e.Err }

// Attempts returns the attempts an error records, or 1.
func Attempts(err error) int {
	var ae *AttemptsError
	if errors.As(err, &ae) {
		return ae.Attempts
	}
	return 1
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
