// Package redact keeps secrets that ride in URLs out of messages: a key in
// a judge URL's query (?key=...), a password in a URI's user info
// (bolt://neo4j:pw@host). It changes text only; it does not know where the
// text goes.
package redact

import (
	"net/url"
	"sort"
	"strings"
)

// Mark replaces every secret.
const Mark = "REDACTED"

// URL is s with its user info's password and every query value replaced
// by Mark and any fragment dropped; scheme, user name, host, path and
// query keys stay, so the message still says where. Text that does not
// parse as a URL is returned with its secrets replaced as far as they can
// be found (Secrets).
func URL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return String(s, Secrets(s)...)
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), Mark)
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			for i := range q[k] {
				q[k][i] = Mark
			}
		}
		u.RawQuery = q.Encode()
	}
	u.Fragment, u.RawFragment = "", ""
	out := u.String()
	// url.URL.String escapes the mark in user info; keep it readable.
	return strings.Replace(out, ":"+url.QueryEscape(Mark)+"@", ":"+Mark+"@", 1)
}

// Secrets returns the secret parts of the URL s (the user info's password,
// every query value and the fragment), raw and decoded, longest first:
// what String must replace in a message that quotes s in any form.
func Secrets(s string) []string {
	var out []string
	add := func(v string) {
		if len(v) >= 3 { // shorter values would redact innocent text
			out = append(out, v)
		}
	}
	rest := s
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	// User info by hand: url.Parse fails on some malformed URIs that still
	// reach error messages.
	if at := strings.LastIndex(strings.SplitN(rest, "/", 2)[0], "@"); at >= 0 {
		if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
			add(pw)
			if d, err := url.PathUnescape(pw); err == nil {
				add(d)
			}
		}
	}
	if _, q, ok := strings.Cut(s, "?"); ok {
		q, frag, _ := strings.Cut(q, "#")
		add(frag)
		for _, kv := range strings.Split(q, "&") {
			_, v, _ := strings.Cut(kv, "=")
			add(v)
			if d, err := url.QueryUnescape(v); err == nil {
				add(d)
				add(url.PathEscape(d))
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// String replaces every occurrence of each secret in msg by Mark.
func String(msg string, secrets ...string) string {
	for _, s := range secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, Mark)
		}
	}
	return msg
}

// Error wraps err so that its message has the secrets replaced; errors.Is
// and errors.As still see err.
func Error(err error, secrets ...string) error {
	if err == nil || len(secrets) == 0 {
		return err
	}
	msg := String(err.Error(), secrets...)
	if msg == err.Error() {
		return err
	}
	return &redacted{msg: msg, err: err}
}

type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }
