package runs

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadRunsFile: any runs file, JSON or CSV, is read or refused with an
// input error naming the file; what is read has a usable name and an
// existing path for every run, and no name twice.
func FuzzReadRunsFile(f *testing.F) {
	f.Add(`[{"name": "a", "path": "p"}, {"path": "p", "model": "m"}]`, false)
	f.Add(`{"runs": [{"name": "x", "framework": "react", "path": "p", "notes": "é"}]}`, false)
	f.Add("name,path,model\na,p,m\n,p,\n", true)
	f.Add("path\n\"p\"\n", true)
	f.Add(`[{"name": "a", "path": "p"}, {"name": "a", "path": "p"}]`, false)
	f.Fuzz(func(t *testing.T, body string, table bool) {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "p"), 0o755); err != nil {
			t.Fatal(err)
		}
		name := "runs.json"
		if table {
			name = "runs.csv"
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		specs, err := ReadRunsFile(path)
		if err != nil {
			if !IsInputError(err) {
				t.Fatalf("not an input error: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, sp := range specs {
			if err := CheckRunName(sp.Name); err != nil {
				t.Errorf("run %+v: %v", sp, err)
			}
			if _, err := os.Stat(sp.Path); err != nil {
				t.Errorf("run %+v: %v", sp, err)
			}
			if seen[sp.Name] {
				t.Errorf("run name %q twice", sp.Name)
			}
			seen[sp.Name] = true
		}
	})
}
