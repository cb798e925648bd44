package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/matcher/calibrate"
)

func TestCalibrateCommand(t *testing.T) {
	dirs := []string{filepath.Join(fixtureDir, "d046"), filepath.Join(fixtureDir, "d073"), filepath.Join(fixtureDir, "p020")}
	out := filepath.Join(t.TempDir(), "w.json")
	var stdout, stderr bytes.Buffer
	args := []string{"kgjudge", "calibrate", "--out", out}
	for _, d := range dirs {
		args = append(args, "--labels", d)
	}
	if code := Main(t.Context(), args, &stdout, &stderr); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	m, err := calibrate.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.Labels, " ") != "d046 d073 p020" || m.CV == nil || m.CV.Samples != 3 {
		t.Errorf("labels %v, cv %+v", m.Labels, m.CV)
	}
	for _, want := range []string{"leave-one-sample-out over 3 samples", "pooled: coverage kappa", "largest standardised weights"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, stdout.String())
		}
	}
	if !strings.Contains(stderr.String(), "3/3 p020") {
		t.Errorf("no progress on stderr:\n%s", stderr.String())
	}
	// The refit model scores: score --offline-model uses it.
	gt, pred, _, _ := fixtureLayout(t)
	o := scoreOptions{GT: gt, Pred: pred, Judge: "offline", Protocol: "paper", Store: ":memory:", Out: t.TempDir(), Run: "refit", Model: out}
	res, err := runScore(t.Context(), o, &bytes.Buffer{}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if e := res.Summary.Estimate; e == nil || len(e.Calibration.Labels) != 3 || !strings.Contains(e.Text, "calibrated on 3 recorded samples") {
		t.Errorf("estimate %+v", e)
	}

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"too few samples", []string{"--labels", dirs[0], "--labels", dirs[1]}, "needs three or more"},
		{"missing directory", []string{"--labels", filepath.Join(t.TempDir(), "nope")}, "nope"},
		{"one sample twice", []string{"--labels", dirs[0], "--labels", dirs[0], "--labels", dirs[1]}, "two samples named d046"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var so, se bytes.Buffer
			a := append([]string{"kgjudge", "calibrate", "--out", filepath.Join(t.TempDir(), "x.json")}, tc.args...)
			if code := Main(t.Context(), a, &so, &se); code != ExitInput || !strings.Contains(se.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want %d mentioning %q", code, se.String(), ExitInput, tc.want)
			}
		})
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"format": 99}`), 0o644); err != nil {
		t.Fatal(err)
	}
	o.Model, o.Out = bad, t.TempDir()
	if _, err := runScore(t.Context(), o, &bytes.Buffer{}, &bytes.Buffer{}); exitCodeOf(err) != ExitInput || !strings.Contains(err.Error(), "format 99") {
		t.Errorf("bad model file: %v", err)
	}
}
