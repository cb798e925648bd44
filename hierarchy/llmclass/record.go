package llmclass

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/kgjudge/kgjudge/llmjudge/transport"
)

// ReplyKey names one request: the model and every message.
func ReplyKey(model string, req *transport.Request) string {
	h := sha256.New()
	h.Write([]byte(model))
	for _, m := range req.Messages {
		fmt.Fprintf(h, "\x00%s\x00%s", m.Role, m.Content)
	}
	return hex.EncodeToString(h.Sum(nil))
}

type replyLine struct {
	Key     string `json:"key"`
	Model   string `json:"model"`
	Content string `json:"content"`
}

// Recorder appends every successful reply to a JSONL file (one
// {"key", "model", "content"} object per line), so that a measurement made
// against a live model can be replayed with no endpoint (ReadReplies).
type Recorder struct {
	mu    sync.Mutex
	f     *os.File
	model string
	next  transport.Completer
}

// NewRecorder opens path for appending; next makes the calls.
func NewRecorder(path, model string, next transport.Completer) (*Recorder, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	return &Recorder{f: f, model: model, next: next}, nil
}

// Complete implements transport.Completer.
func (r *Recorder) Complete(ctx context.Context, req *transport.Request) (*transport.Response, error) {
	resp, err := r.next.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	b, _ := json.Marshal(replyLine{Key: ReplyKey(r.model, req), Model: r.model, Content: resp.Content})
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.f.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	return resp, nil
}

// Close closes the file.
func (r *Recorder) Close() error { return r.f.Close() }

// Replies answers from a recording; a request it does not hold fails with
// ErrNotRecorded (its triples are unjudged).
type Replies struct {
	model string
	byKey map[string]string
}

// ReadReplies reads a recording written by Recorder.
func ReadReplies(path string) (*Replies, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := &Replies{byKey: map[string]string{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var l replyLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if r.model != "" && l.Model != r.model {
			return nil, fmt.Errorf("%s:%d: model %q, earlier lines %q", path, n, l.Model, r.model)
		}
		r.model, r.byKey[l.Key] = l.Model, l.Content
	}
	return r, sc.Err()
}

// Len is the number of recorded replies.
func (r *Replies) Len() int { return len(r.byKey) }

// ErrNotRecorded is the error for a request a recording does not hold.
var ErrNotRecorded = errors.New("request not in the recording")

// Complete implements transport.Completer.
func (r *Replies) Complete(_ context.Context, req *transport.Request) (*transport.Response, error) {
	c, ok := r.byKey[ReplyKey(r.model, req)]
	if !ok {
		return nil, ErrNotRecorded
	}
	return &transport.Response{Content: c, Attempts: 1}, nil
}
