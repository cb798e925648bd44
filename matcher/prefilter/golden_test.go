package prefilter

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/internal/fixtures"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestBuildGolden pins the prefilter's whole output on all 11 fixtures:
// every claim's candidates (index, score, why) and resolution, and the
// planner's batches and volume. The outputs are large, so the golden file
// holds their SHA-256 per fixture; a mismatch names the fixture and part
// (`go test ./matcher/prefilter -run BuildGolden -update` rewrites it, only
// for a change meant to move candidates).
func TestBuildGolden(t *testing.T) {
	path := filepath.Join("testdata", "build.sha256")
	got := map[string]string{}
	for _, name := range fixtures.All() {
		f := loadFixture(t, name)
		res, err := Build(t.Context(), &f.task, &f.pred, Options{})
		if err != nil {
			t.Fatal(err)
		}
		pl, err := (Planner{}).Sample(t.Context(), &f.task, &f.pred)
		if err != nil {
			t.Fatal(err)
		}
		for part, v := range map[string]any{"build": res, "plan": pl} {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			got[name+" "+part] = fmt.Sprintf("%x", sha256.Sum256(b))
		}
	}
	if *update {
		keys := make([]string, 0, len(got))
		for k := range got {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "%s %s\n", k, got[k])
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			t.Fatalf("%s: bad line %q", path, sc.Text())
		}
		want[f[0]+" "+f[1]] = f[2]
	}
	if len(want) != len(got) {
		t.Errorf("%s has %d entries, want %d", path, len(want), len(got))
	}
	for k, h := range got {
		if want[k] != h {
			t.Errorf("%s: output changed (sha256 %s, golden %s)", k, h, want[k])
		}
	}
}
