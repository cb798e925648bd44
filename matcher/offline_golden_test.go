package matcher

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kgjudge/kgjudge/internal/fixtures"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// offlineGolden renders a judgement one claim per line (coverage, then
// validity), so a changed verdict shows as a one-line diff.
func offlineGolden(j Judgement) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "judge %s: %d coverage, %d validity, %d problems\n", j.Judge, len(j.Coverage), len(j.Validity), len(j.Problems))
	for _, v := range j.Coverage {
		line, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		b.WriteString("cov ")
		b.Write(line)
		b.WriteByte('\n')
	}
	for _, v := range j.Validity {
		line, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		b.WriteString("val ")
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// TestOfflineGolden pins every verdict (state, kind, support, reason) the
// offline judge gives on all 11 fixtures, so that a speed-up that changes
// any decision fails here. The golden files were written by the judge as it
// was before the issue-10 optimisations; review the diff of
// `go test ./matcher -run OfflineGolden -update` before accepting one.
func TestOfflineGolden(t *testing.T) {
	for _, name := range fixtures.All() {
		t.Run(name, func(t *testing.T) {
			f := loadFixture(t, name)
			j, err := Offline{}.Judge(t.Context(), &f.task, &f.pred)
			if err != nil {
				t.Fatal(err)
			}
			got, err := offlineGolden(j)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "offline", name+".txt")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
				for i := 0; i < len(gl) || i < len(wl); i++ {
					var g, w []byte
					if i < len(gl) {
						g = gl[i]
					}
					if i < len(wl) {
						w = wl[i]
					}
					if !bytes.Equal(g, w) {
						t.Fatalf("%s line %d:\n got  %s\n want %s", path, i+1, g, w)
					}
				}
			}
		})
	}
}
