package redact

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://api.example.com/v1", "https://api.example.com/v1"},
		{"https://api.example.com/v1?key=sk-123456", "https://api.example.com/v1?key=REDACTED"},
		{"https://h/v1?api-version=2024&key=s3cr%2Ft", "https://h/v1?api-version=REDACTED&key=REDACTED"},
		{"bolt://neo4j:hunter22@db.example:7687", "bolt://neo4j:REDACTED@db.example:7687"},
		{"neo4j+s://alice@db:7687", "neo4j+s://alice@db:7687"},
		{"http://u:p%40ss@h/v1?k=v#frag", "http://u:REDACTED@h/v1?k=REDACTED"},
	} {
		if got := URL(tc.in); got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestErrorHidesSecrets(t *testing.T) {
	for _, u := range []string{
		"http://127.0.0.1:1/v1?key=sk-live-abcdef",
		"bolt://neo4j:hunter22@127.0.0.1:1",
		"bolt://neo4j:p%40ss%2Fword@127.0.0.1:1",
		"http://h/v1?key=a%20b%2Fc",
	} {
		sec := Secrets(u)
		if len(sec) == 0 {
			t.Fatalf("no secrets found in %q", u)
		}
		base := errors.New("dial tcp 127.0.0.1:1: connection refused")
		// The URL as a message may quote it: raw, decoded, with a path
		// appended.
		for _, quoted := range []string{u, u + "/chat/completions", strings.ReplaceAll(u, "%2F", "/")} {
			err := Error(fmt.Errorf("Post %q: %w", quoted, base), sec...)
			for _, s := range sec {
				if strings.Contains(err.Error(), s) {
					t.Errorf("%q still holds secret %q", err, s)
				}
			}
			if !errors.Is(err, base) {
				t.Errorf("the wrapped error is lost")
			}
		}
	}
	if err := Error(errors.New("plain"), "zzz"); err.Error() != "plain" {
		t.Errorf("unchanged message altered: %v", err)
	}
}
