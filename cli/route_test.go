package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/llmjudge/fakeopenai"
)

// routedRun scores the examples with the LLM judge against a local
// endpoint and returns the calls made, the summary's routing and the
// number of verdicts judged "calibrated".
func routedRun(t *testing.T, extra ...string) (calls int, routing map[string]any, calibrated int) {
	t.Helper()
	srv := fakeopenai.New()
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "sk-test")
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, openaiArgs(srv, filepath.Join(t.TempDir(), "store"), out, extra...))
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "llm", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var find func(v any) map[string]any
	find = func(v any) map[string]any {
		switch x := v.(type) {
		case map[string]any:
			if r, ok := x["routing"].(map[string]any); ok {
				return r
			}
			for _, k := range sortedKeys(x) {
				if r := find(x[k]); r != nil {
					return r
				}
			}
		case []any:
			for _, e := range x {
				if r := find(e); r != nil {
					return r
				}
			}
		}
		return nil
	}
	var sum any
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	items, _ := filepath.Glob(filepath.Join(out, "llm", "items", "*.json"))
	for _, it := range items {
		b, err := os.ReadFile(it)
		if err != nil {
			t.Fatal(err)
		}
		calibrated += strings.Count(string(b), `"judge": "calibrated"`)
	}
	return len(srv.Calls()), find(sum), calibrated
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}

// TestRouteCalibrated: --route calibrated decides the claims the calibrated
// offline judge is sure about without a call (judge "calibrated"), names
// the router, its thresholds and the share routed in the manifest, and
// --route off sends everything.
func TestRouteCalibrated(t *testing.T) {
	offCalls, offRouting, offCal := routedRun(t, "--route", "off")
	if offRouting != nil || offCal != 0 {
		t.Fatalf("--route off: routing %v, %d calibrated verdicts", offRouting, offCal)
	}
	// The caller's thresholds against the model's raw probability.
	rawCalls, raw, rawCal := routedRun(t, "--route", "calibrated", "--route-low", "0.2", "--route-high", "0.8")
	if raw == nil {
		t.Fatal("--route calibrated: no routing in the summary")
	}
	if name, _ := raw["router"].(string); !strings.HasPrefix(name, "calibrated/1 weights ") || !strings.HasSuffix(name, "raw p") {
		t.Errorf("router %q", name)
	}
	if raw["low"] != 0.2 || raw["high"] != 0.8 {
		t.Errorf("thresholds %v / %v, want the flags' 0.2 / 0.8", raw["low"], raw["high"])
	}
	share, _ := raw["routed_share"].(float64)
	pos, _ := raw["routed_positive"].(float64)
	neg, _ := raw["routed_negative"].(float64)
	if share <= 0 || int(pos+neg) != rawCal || rawCal == 0 {
		t.Errorf("routed share %v, %v+%v routed, %d calibrated verdicts in the items", share, pos, neg, rawCal)
	}
	t.Logf("off: %d calls; raw [0.2, 0.8]: %d calls, share %v, %v+%v routed", offCalls, rawCalls, share, pos, neg)
	if rawCalls > offCalls {
		t.Errorf("routing made more calls (%d) than --route off (%d)", rawCalls, offCalls)
	}
	// Without the flags: the model's cross-validated thresholds per pass.
	_, own, _ := routedRun(t, "--route", "calibrated")
	if own == nil {
		t.Fatal("--route calibrated (model thresholds): no routing in the summary")
	}
	if name, _ := own["router"].(string); !strings.Contains(name, "coverage [") || !strings.Contains(name, "validity [") {
		t.Errorf("router %q does not name the model's thresholds", name)
	}
	lo, _ := own["low"].(float64)
	hi, _ := own["high"].(float64)
	if !(lo < 0.5 && hi > 0.5) {
		t.Errorf("routing [%v, %v] does not bracket the router's unsure 0.5", lo, hi)
	}
}

func TestRouteUnknown(t *testing.T) {
	srv := fakeopenai.New()
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "sk-test")
	code, _, stderr := runCLI(t, openaiArgs(srv, filepath.Join(t.TempDir(), "store"), t.TempDir(), "--route", "nope"))
	if code == ExitOK || !strings.Contains(stderr, "available: off, calibrated") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}
