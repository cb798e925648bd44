// Package fakeopenai is a scripted, in-process OpenAI chat-completions
// server for tests: POST /v1/chat/completions with JSON in and out,
// choices[0].message.content and usage. By default it answers every judge
// prompt correctly by exact text match (a claim is covered by candidates
// with the same triple text) and every triple of a class-pass prompt
// (hierarchy/llmclass) as factual; a Script can replace any answer with an
// error status, a hang, or different content. It must not be used outside
// tests.
package fakeopenai

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kgjudge/kgjudge/llmjudge/oracle"
	"github.com/kgjudge/kgjudge/plan"
)

// Kind is the prompt family the server recognised.
type Kind string

const (
	Coverage  Kind = "coverage"
	Validity  Kind = "validity"
	Reference Kind = "reference"
	// Classes is the hierarchy/llmclass prompt: the claims are the
	// triples "[ID] head | relation | tail" to classify.
	Classes Kind = "classes"
)

// Line is a numbered triple line of a prompt.
type Line struct {
	ID   int
	Text string
}

// Item is one verdict the server would give.
type Item struct {
	ID      int
	Covered bool
	Kind    string
	Support []int
	Reason  string
	// Class is the answer to a Classes call.
	Class string
}

// Call is one request as the server parsed it.
type Call struct {
	N          int // 0-based call number
	Body       map[string]json.RawMessage
	Kind       Kind
	Claims     []Line
	Candidates []Line
	Format     string // response_format.type, "" when absent
}

// Reply overrides the default answer. Zero fields keep defaults.
type Reply struct {
	Status  int               // non-2xx: send Body (or an OpenAI error) with this status
	Body    string            // raw body for an error status
	Header  map[string]string // extra response headers (e.g. Retry-After)
	Hang    time.Duration     // wait this long (or until the client gives up) first
	Content *string           // 200 with this content instead of the default
	Items   []Item            // 200 with these items instead of the default
}

// Server is the fake.
type Server struct {
	*httptest.Server
	// Script, when set, is asked for each call; nil keeps the default.
	Script func(c *Call) *Reply
	// RejectFormat answers 400 to any request with a response_format whose
	// type is listed ("json_schema", "json_object"), in the error body
	// style of OpenAI (default) or, with VLLMErrors, of vLLM.
	RejectFormat []string
	VLLMErrors   bool
	// RejectSeed answers 400 to any request with a seed.
	RejectSeed bool
	// Oracle decides a claim; nil matches candidate text exactly.
	Oracle func(claim Line, cands []Line) Item

	mu         sync.Mutex
	calls      []*Call
	claimCalls map[string]int
	statuses   []int
}

// New starts a server; close it with Close. Options run before the server
// starts: a script set there is visible to every request even when the
// requests come from another process (setting fields after New is fine when
// the test itself makes the requests).
func New(opts ...func(*Server)) *Server {
	s := &Server{claimCalls: map[string]int{}}
	for _, o := range opts {
		o(s)
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// URL is the base URL to configure (with /v1).
func (s *Server) BaseURL() string { return s.Server.URL + "/v1" }

// Calls returns the calls received so far.
func (s *Server) Calls() []*Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Call(nil), s.calls...)
}

// Statuses returns the HTTP status of each call, in order.
func (s *Server) Statuses() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.statuses...)
}

// ClaimCalls returns how many requests each claim text appeared in.
func (s *Server) ClaimCalls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.claimCalls))
	for k, v := range s.claimCalls {
		out[k] = v
	}
	return out
}

var (
	lineStartRE   = regexp.MustCompile(`^(GT|P)-(\d+): (.*)$`)
	classTripleRE = regexp.MustCompile(`^\[(\d+)\] (.*)$`)
)

// Parse reads a judge prompt from a request body.
func Parse(body map[string]json.RawMessage) (*Call, error) {
	c := &Call{Body: body}
	var msgs []struct{ Role, Content string }
	if err := json.Unmarshal(body["messages"], &msgs); err != nil {
		return nil, fmt.Errorf("messages: %w", err)
	}
	user, all := "", ""
	for _, m := range msgs {
		if m.Role == "user" {
			user = m.Content
		}
		all += m.Content + "\n"
	}
	// The output format may sit in the system message (kgjudge's prompt
	// keeps its fixed instructions there); the triples are in the user's.
	switch {
	case strings.Contains(all, `{"labels":`):
		c.Kind = Classes
		for _, ln := range strings.Split(user, "\n") {
			if m := classTripleRE.FindStringSubmatch(ln); m != nil {
				id, _ := strconv.Atoi(m[1])
				c.Claims = append(c.Claims, Line{ID: id, Text: m[2]})
			}
		}
		c.Format = responseFormat(body)
		return c, nil
	case strings.Contains(all, `"results"`):
		c.Kind = Reference
	case strings.Contains(all, `"valid":`):
		c.Kind = Validity
	default:
		c.Kind = Coverage
	}
	claimPrefix := "GT"
	if c.Kind == Validity {
		claimPrefix = "P"
	}
	// A triple's text may hold line breaks: a line that does not start a
	// new numbered triple (or a section) continues the previous one.
	var cur *Line
	var curClaim bool
	flush := func() {
		if cur == nil {
			return
		}
		if curClaim {
			c.Claims = append(c.Claims, *cur)
		} else {
			c.Candidates = append(c.Candidates, *cur)
		}
		cur = nil
	}
	for _, ln := range strings.Split(user, "\n") {
		if m := lineStartRE.FindStringSubmatch(ln); m != nil {
			flush()
			id, _ := strconv.Atoi(m[2])
			cur, curClaim = &Line{ID: id, Text: m[3]}, m[1] == claimPrefix
			continue
		}
		if cur != nil && ln != "" && !strings.HasPrefix(ln, "## ") {
			cur.Text += "\n" + ln
			continue
		}
		flush()
	}
	flush()
	c.Format = responseFormat(body)
	return c, nil
}

// responseFormat is the request's response_format type, "" when absent.
func responseFormat(body map[string]json.RawMessage) string {
	var f struct{ Type string }
	if rf, ok := body["response_format"]; ok {
		json.Unmarshal(rf, &f)
	}
	return f.Type
}

// DefaultItems is what the server answers for c.
func (s *Server) DefaultItems(c *Call) []Item {
	var out []Item
	if c.Kind == Classes {
		for _, cl := range c.Claims {
			out = append(out, Item{ID: cl.ID, Class: "factual", Reason: "default"})
		}
		return out
	}
	for _, cl := range c.Claims {
		if s.Oracle != nil {
			it := s.Oracle(cl, c.Candidates)
			it.ID = cl.ID
			out = append(out, it)
			continue
		}
		it := Item{ID: cl.ID, Kind: "none", Support: []int{}, Reason: "no candidate states it"}
		for _, cd := range c.Candidates {
			if cd.Text == cl.Text {
				it.Covered, it.Kind, it.Reason = true, "direct", "same triple"
				it.Support = append(it.Support, cd.ID)
			}
		}
		out = append(out, it)
	}
	return out
}

// Content renders items in the shape c's prompt asks for.
func Content(c *Call, items []Item) string {
	type cov struct {
		Claim   int    `json:"claim"`
		Covered bool   `json:"covered"`
		Kind    string `json:"kind"`
		Support []int  `json:"support"`
		Reason  string `json:"reason"`
	}
	type val struct {
		Claim   int    `json:"claim"`
		Valid   bool   `json:"valid"`
		Support []int  `json:"support"`
		Reason  string `json:"reason"`
	}
	type ref struct {
		Index   int   `json:"index"`
		Covered bool  `json:"covered"`
		Support []int `json:"supporting_pred_indices"`
	}
	type label struct {
		ID    int    `json:"id"`
		Class string `json:"class"`
		Why   string `json:"why"`
	}
	var v any
	switch c.Kind {
	case Classes:
		out := []label{}
		for _, it := range items {
			out = append(out, label{it.ID, it.Class, it.Reason})
		}
		v = map[string]any{"labels": out}
	case Reference:
		out := []ref{}
		for _, it := range items {
			out = append(out, ref{it.ID, it.Covered, nz(it.Support)})
		}
		v = map[string]any{"results": out}
	case Validity:
		out := []val{}
		for _, it := range items {
			out = append(out, val{it.ID, it.Covered, nz(it.Support), it.Reason})
		}
		v = map[string]any{"verdicts": out}
	default:
		out := []cov{}
		for _, it := range items {
			out = append(out, cov{it.ID, it.Covered, it.Kind, nz(it.Support), it.Reason})
		}
		v = map[string]any{"verdicts": out}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func nz(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

func (s *Server) writeError(w http.ResponseWriter, status int, msg, param string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if s.VLLMErrors {
		json.NewEncoder(w).Encode(map[string]any{"object": "error", "message": msg, "type": "BadRequestError", "param": nil, "code": status})
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": param, "code": nil}})
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var body map[string]json.RawMessage
	if err := json.Unmarshal(raw, &body); err != nil {
		s.writeError(w, 400, "body is not JSON", "")
		return
	}
	c, err := Parse(body)
	if err != nil {
		s.writeError(w, 400, err.Error(), "messages")
		return
	}
	s.mu.Lock()
	c.N = len(s.calls)
	s.calls = append(s.calls, c)
	s.mu.Unlock()
	status := 200
	defer func() {
		s.mu.Lock()
		s.statuses = append(s.statuses, status)
		s.mu.Unlock()
	}()

	for _, f := range s.RejectFormat {
		if c.Format == f {
			status = 400
			if s.VLLMErrors {
				s.writeError(w, 400, fmt.Sprintf("1 validation error: response_format type %q is not supported by this server", f), "")
			} else {
				s.writeError(w, 400, fmt.Sprintf("Invalid parameter: 'response_format' of type '%s' is not supported with this model.", f), "response_format")
			}
			return
		}
	}
	if _, ok := body["seed"]; ok && s.RejectSeed {
		status = 400
		s.writeError(w, 400, "Unrecognized request argument supplied: seed", "seed")
		return
	}
	var rep *Reply
	if s.Script != nil {
		rep = s.Script(c)
	}
	if rep == nil {
		rep = &Reply{}
	}
	if rep.Hang > 0 {
		select {
		case <-time.After(rep.Hang):
		case <-r.Context().Done():
			status = 499
			return
		}
	}
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	if rep.Status != 0 && rep.Status != 200 {
		status = rep.Status
		if rep.Body != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(rep.Status)
			io.WriteString(w, rep.Body)
			return
		}
		s.writeError(w, rep.Status, http.StatusText(rep.Status), "")
		return
	}
	// Only claims that get a real answer count as judged.
	s.mu.Lock()
	for _, cl := range c.Claims {
		s.claimCalls[string(c.Kind)+"|"+cl.Text]++
	}
	s.mu.Unlock()
	var content string
	switch {
	case rep.Content != nil:
		content = *rep.Content
	case rep.Items != nil:
		content = Content(c, rep.Items)
	default:
		content = Content(c, s.DefaultItems(c))
	}
	prompt := len(raw) / 4
	completion := len(content)/4 + 1
	resp := map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", c.N), "object": "chat.completion", "created": 0, "model": "fake",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

// WithOracle makes the server answer every judge call as the recorded
// judge would given only what the call shows (llmjudge/oracle): the same
// answers `kgjudge plan --oracle` computes, so a real run against this
// server must reproduce the plan's F1. A call the oracle cannot place in
// any recorded sample gets HTTP 422.
func WithOracle(o *oracle.Oracle) func(*Server) {
	return func(s *Server) {
		s.Script = func(c *Call) *Reply {
			pass := plan.Coverage
			if c.Kind == Validity {
				pass = plan.Validity
			}
			claims := make([]string, len(c.Claims))
			for i, l := range c.Claims {
				claims[i] = l.Text
			}
			cands := make([]string, len(c.Candidates))
			for i, l := range c.Candidates {
				cands[i] = l.Text
			}
			vs, err := o.Answer(pass, claims, cands)
			if err != nil {
				return &Reply{Status: 422, Body: fmt.Sprintf(`{"error":{"message":%q}}`, err.Error())}
			}
			items := make([]Item, len(vs))
			for i, v := range vs {
				sup := make([]int, len(v.Support))
				for k, pos := range v.Support {
					sup[k] = c.Candidates[pos].ID
				}
				items[i] = Item{ID: c.Claims[i].ID, Covered: v.Covered, Kind: "none", Support: sup, Reason: v.Reason}
				if v.Covered {
					items[i].Kind = "direct"
				}
			}
			return &Reply{Items: items}
		}
	}
}
