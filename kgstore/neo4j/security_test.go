package neo4j

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUnreachableURIRedacted: a NEO4J_URI with a password (issue 9.9: it
// was printed in full when the server was unreachable) is redacted in the
// error, and so is NEO4J_PASSWORD. No server needed.
func TestUnreachableURIRedacted(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	const pw, envPW = "uri-pass-7c6b5a", "env-pass-0f1e2d"
	for _, cfg := range []Config{
		{URI: "bolt://neo4j:" + pw + "@" + addr},
		{URI: "neo4j://neo4j:" + pw + "@" + addr + "?policy=" + pw, Password: envPW},
		{URI: "bolt://" + addr, User: "neo4j", Password: envPW},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		s, err := Open(ctx, cfg)
		cancel()
		if err == nil {
			s.Close()
			t.Fatalf("Open(%s): no error with nothing listening", addr)
		}
		msg := err.Error()
		for _, secret := range []string{pw, envPW} {
			if strings.Contains(msg, secret) {
				t.Errorf("error shows a password: %s", msg)
			}
		}
		if !strings.Contains(msg, addr) {
			t.Errorf("error does not say where: %s", msg)
		}
	}
}

// TestNoFileAccessFromCypher: the bundled server (tools/neo4j-launcher,
// auth off) must not let a read query read the host's files (issue 9.9:
// LOAD CSV FROM 'file:///etc/passwd' worked).
func TestNoFileAccessFromCypher(t *testing.T) {
	cfg := testConfig(t)
	s := openTest(t, cfg)
	defer s.Close()
	secret := filepath.Join(t.TempDir(), "secret.csv")
	if err := os.WriteFile(secret, []byte("top-secret-line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"file://" + secret, "file:///etc/passwd"} {
		res, err := s.Query(context.Background(), "LOAD CSV FROM $u AS row RETURN row LIMIT 1", map[string]any{"u": u}, false)
		if err == nil {
			t.Fatalf("LOAD CSV FROM %q: read %v", u, res.Rows)
		}
		if !strings.Contains(err.Error(), "file") {
			t.Errorf("LOAD CSV FROM %q: %v", u, err)
		}
	}
}
