package runs

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/matcher"
)

func TestItemFileName(t *testing.T) {
	long := strings.Repeat("x", 300)
	longCJK := strings.Repeat("咖啡", 100) // 600 bytes
	for _, tc := range []struct {
		id, want string
	}{
		// Ordinary ids keep today's names (the golden files depend on it).
		{"task_012", "task_012_sample0.json"},
		{"task_001_liquid foundation", "task_001_liquid foundation_sample0.json"},
		{"task_e02_咖啡豆选购", "task_e02_咖啡豆选购_sample0.json"},
		{"team_a", "team_a_sample0.json"},
		// Separators, the escape character and controls are %XX.
		{"team/a", "team%2Fa_sample0.json"},
		{`team\a`, "team%5Ca_sample0.json"},
		{"50%", "50%25_sample0.json"},
		{"nul\x00id", "nul%00id_sample0.json"},
		{"tab\tnl\n", "tab%09nl%0A_sample0.json"},
		{"del\x7f", "del%7F_sample0.json"},
		{"bad\xffutf8", "bad%FFutf8_sample0.json"},
		{"c1\u0085", "c1%C2%85_sample0.json"},
		{"..", ".._sample0.json"},
	} {
		if got := itemFileName(tc.id, 0); got != tc.want {
			t.Errorf("itemFileName(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
	for _, id := range []string{long, longCJK, strings.Repeat("/", 200), long + "a", long + "b"} {
		got := itemFileName(id, 12)
		if len(got) > maxItemName || !utf8.ValidString(got) || !strings.HasSuffix(got, "_sample12.json") || !strings.Contains(got, "%~") {
			t.Errorf("long id (%d bytes): %q (%d bytes)", len(id), got, len(got))
		}
	}
	// Distinct ids, distinct names: ids that escaping or cutting could
	// confuse.
	ids := []string{"team/a", "team_a", "team%2Fa", "team%252Fa", `team\a`, "team%5Ca", long, long + "a", long + "b",
		long[:200] + "%~", "a\x00", "a%00", "a", "a_sample0"}
	seen := map[string]string{}
	for _, id := range ids {
		for _, s := range []int{0, 1} {
			n := itemFileName(id, s)
			if prev, dup := seen[n]; dup {
				t.Errorf("%q and %q (sample %d) share the file name %q", prev, id, s, n)
			}
			seen[n] = id
			if strings.ContainsAny(n, "/\\\x00") {
				t.Errorf("%q: name %q holds a separator or NUL", id, n)
			}
		}
	}
}

// TestWriteOutputsKeepsGoing: an item file that cannot be written is
// reported with its task and why; the other items and the summary, which
// lists it, are written.
func TestWriteOutputsKeepsGoing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	items := []matcher.Item{{Record: kg.Record{QID: "a"}}, {Record: kg.Record{QID: "b"}}, {Record: kg.Record{QID: "c"}}}
	res := &ScoreResult{Items: items, Out: dir}
	res.Summary = matcher.Summarize(res.Items)
	// b's item cannot be encoded (as any one file may fail to be written).
	res.Items[1].Structure = make(chan int)
	err := WriteOutputs(res, nil)
	var oe *OutputError
	if !errors.As(err, &oe) || len(oe.Errs) != 1 || oe.Items != 1 {
		t.Fatalf("WriteOutputs: %v, want one failed item", err)
	}
	if msg := oe.Errs[0].Error(); !strings.Contains(msg, `task "b" sample 0`) || !strings.Contains(msg, "b_sample0.json") {
		t.Errorf("the failure must name the task and the file: %q", msg)
	}
	for _, name := range []string{"items/a_sample0.json", "items/c_sample0.json", "summary.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s not written: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "items", "b_sample0.json.tmp")); !os.IsNotExist(err) {
		t.Errorf("the temp file of the failed item was left behind (%v)", err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	var sum struct {
		Failed []string `json:"failed_outputs"`
	}
	if err := json.Unmarshal(b, &sum); err != nil || len(sum.Failed) != 1 || !strings.Contains(sum.Failed[0], "b_sample0.json") {
		t.Errorf("summary.json failed_outputs = %q (%v)", sum.Failed, err)
	}
}
