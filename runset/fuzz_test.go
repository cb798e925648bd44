package runset

import (
	"os"
	"path/filepath"
	"testing"
)

// ReadMeta never panics, and what it returns names every run it read.
func FuzzReadMeta(f *testing.F) {
	for _, s := range []string{
		"run,model,framework\na,A,react\n",
		"name\tmodel\nb\tB\n",
		`[{"run": "a", "model": "A", "framework": "react"}]`,
		`[{"model": "A"}]`,
		"model\nx\n",
		"run,model\n\"unterminated\n",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := filepath.Join(t.TempDir(), "meta")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := ReadMeta(p)
		if err != nil {
			if _, ok := err.(*InputError); !ok {
				t.Errorf("not an input error: %T %v", err, err)
			}
			return
		}
		for name := range m {
			if name == "" {
				t.Errorf("a run with no name from %q", s)
			}
		}
	})
}
