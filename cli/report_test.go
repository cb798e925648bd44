package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Runs the leaderboard cannot rank together (two protocols) still get a
// report, which says why it has no leaderboard; a bad --by is a usage error
// naming the dimension.
func TestReportLeaderboardErrors(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store")
	root := t.TempDir()
	for _, r := range []struct{ run, proto string }{{"paper", "paper"}, {"code", "code"}} {
		o := scoreOptions{GT: "../examples/gt", Pred: "../examples/pred", Judge: "offline", Protocol: r.proto, Store: store, Out: root, Run: r.run, Workers: 2}
		if _, err := runScore(t.Context(), o, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
			t.Fatalf("score %s: %v", r.run, err)
		}
	}
	outs := []string{filepath.Join(root, "paper"), filepath.Join(root, "code")}
	md := filepath.Join(t.TempDir(), "r.md")
	in, err := runReport(t.Context(), reportOptions{Store: store, MD: md, Title: "t"}, outs, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(md)
	if len(in.Leaderboards) != 0 || !strings.Contains(in.LeaderboardNote, "protocol") || !strings.Contains(string(b), in.LeaderboardNote) {
		t.Errorf("mixed protocols: %d leaderboards, note %q, markdown:\n%s", len(in.Leaderboards), in.LeaderboardNote, b)
	}
	in, err = runReport(t.Context(), reportOptions{Store: store, MD: md, Title: "t", By: []string{"model,subset"}}, outs[:1], &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Leaderboards) != 1 || strings.Join(in.Leaderboards[0].By, ",") != "model,subset" || in.ModelBySubset == nil {
		t.Errorf("--by model,subset: %d boards (%v)", len(in.Leaderboards), in.Leaderboards)
	}
	_, err = runReport(t.Context(), reportOptions{Store: store, MD: md, By: []string{"modle"}}, outs[:1], &bytes.Buffer{})
	var ue *UserError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `"modle"`) {
		t.Errorf("--by modle: %v, want a usage error naming it", err)
	}
}
