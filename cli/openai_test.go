package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/llmjudge/fakeopenai"
	"github.com/kgjudge/kgjudge/matcher"
)

// TestMain lets the test binary act as the kgjudge command (Exec, as
// cmd/kgjudge runs it, signal handling included), so a test can run it as a
// child process and signal or SIGKILL it mid-run.
func TestMain(m *testing.M) {
	if os.Getenv("KGJUDGE_TEST_MAIN") == "1" {
		os.Exit(Exec(append([]string{"kgjudge"}, os.Args[1:]...), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func openaiArgs(srv *fakeopenai.Server, store, out string, extra ...string) []string {
	return append([]string{"score", "--gt", "../examples/gt", "--pred", "../examples/pred", "--judge", "openai",
		"--judge-url", srv.BaseURL(), "--judge-model", "judge-test", "--store", store, "--out", out, "--run", "llm"}, extra...)
}

func runCLI(t *testing.T, args []string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = Main(t.Context(), append([]string{"kgjudge"}, args...), &o, &e)
	return code, o.String(), e.String()
}

func TestScoreOpenAIRerunFromCacheIsIdentical(t *testing.T) {
	srv := fakeopenai.New()
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "sk-test-secret")
	store := filepath.Join(t.TempDir(), "store")
	out1, out2 := t.TempDir(), t.TempDir()
	code, stdout, stderr := runCLI(t, openaiArgs(srv, store, out1))
	if code != ExitOK {
		t.Fatalf("first run exit %d\n%s\n%s", code, stdout, stderr)
	}
	calls := len(srv.Calls())
	if calls == 0 {
		t.Fatal("first run made no HTTP call")
	}
	if !strings.Contains(stdout, "judge openai:judge-test@") {
		t.Errorf("table lacks the judge spend line:\n%s", stdout)
	}
	code, _, stderr = runCLI(t, openaiArgs(srv, store, out2))
	if code != ExitOK {
		t.Fatalf("second run exit %d\n%s", code, stderr)
	}
	if n := len(srv.Calls()); n != calls {
		t.Errorf("second run made %d HTTP calls, want 0", n-calls)
	}
	for _, rel := range []string{"summary.json", "items/task_e01_Kyoto Weekend_sample1.json", "items/task_e02_咖啡豆选购_sample0.json"} {
		a, err1 := os.ReadFile(filepath.Join(out1, "llm", rel))
		b, err2 := os.ReadFile(filepath.Join(out2, "llm", rel))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between the run and its cached rerun (%v %v)", rel, err1, err2)
		}
	}
	sum, _ := os.ReadFile(filepath.Join(out1, "llm", "summary.json"))
	inv, _ := os.ReadFile(filepath.Join(out1, "llm", "invocation.json"))
	if bytes.Contains(sum, []byte("sk-test-secret")) || bytes.Contains(inv, []byte("sk-test-secret")) {
		t.Error("the API key leaked into the outputs")
	}
	if !bytes.Contains(sum, []byte(`"prompt_hash"`)) || !bytes.Contains(inv, []byte(`"hits"`)) {
		t.Errorf("manifest missing from summary.json or invocation.json")
	}
	// Rate limits, concurrency, budget and prices reach the judge and
	// invocation.json, and leave summary.json as it was: they decide how a
	// run gets its verdicts, not which.
	outRL := t.TempDir()
	if code, _, stderr := runCLI(t, openaiArgs(srv, store, outRL, "--rpm", "600", "--tpm", "1000000", "--concurrency", "1",
		"--max-tokens", "99999999", "--price-in", "2", "--price-out", "8")); code != ExitOK {
		t.Fatalf("rate-limited rerun: exit %d\n%s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(outRL, "llm", "invocation.json")); !bytes.Contains(b, []byte(`"rpm": 600`)) || !bytes.Contains(b, []byte(`"tpm": 1000000`)) || !bytes.Contains(b, []byte(`"concurrency": 1`)) {
		t.Errorf("rpm/tpm/concurrency not in invocation.json")
	}
	a, _ := os.ReadFile(filepath.Join(out1, "llm", "summary.json"))
	b, _ := os.ReadFile(filepath.Join(outRL, "llm", "summary.json"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("--rpm, --tpm, --concurrency, --max-tokens, --price-* changed summary.json")
	}
	for _, key := range []string{`"concurrency":`, `"rpm":`, `"price_in_per_million":`, `"token_budget":`, `"hits":`, `"calls":`} {
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("summary.json holds the invocation setting %s", key)
		}
	}
	// --cache-only now succeeds; with a fresh store it fails on the first miss.
	if code, _, stderr := runCLI(t, openaiArgs(srv, store, t.TempDir(), "--cache-only")); code != ExitOK {
		t.Errorf("--cache-only over a full cache: exit %d\n%s", code, stderr)
	}
	code, _, stderr = runCLI(t, openaiArgs(srv, filepath.Join(t.TempDir(), "empty"), t.TempDir(), "--cache-only"))
	if code != ExitInput || !strings.Contains(stderr, "--cache-only") {
		t.Errorf("--cache-only miss: exit %d, stderr %q", code, stderr)
	}
	if n := len(srv.Calls()); n != calls {
		t.Errorf("--cache-only made %d HTTP calls", n-calls)
	}
}

// examplesSent is how many GT and predicted claims of the examples the
// prefilter sends to a judge, as `kgjudge plan` reports them (the rest are
// decided without a call: deterministic tier or no candidate).
func examplesSent(t *testing.T) (gt, pred int) {
	t.Helper()
	out, err := runPlan(t.Context(), planOptions{GT: "../examples/gt", Pred: "../examples/pred"}, &bytes.Buffer{}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	return out.Totals.JudgeGTTriples, out.Totals.JudgePredTriples
}

func TestScoreOpenAIMalformedAnswersAreUnjudged(t *testing.T) {
	sentGT, sentPred := examplesSent(t)
	if sentGT == 0 || sentGT >= 50 || sentPred == 0 {
		t.Fatalf("plan sends %d GT and %d predicted claims: the examples must exercise both tiers", sentGT, sentPred)
	}
	for _, tc := range []struct {
		batching           string
		coverage, validity int
	}{
		// Reference batching sends every claim: 13+12 GT triples and
		// 11+6+9+5 predicted triples in the examples' 4 samples.
		{"reference", 50, 31},
		// The prefilter decides the others without the judge.
		{"prefilter", sentGT, sentPred},
	} {
		t.Run(tc.batching, func(t *testing.T) {
			srv := fakeopenai.New()
			defer srv.Close()
			bad := "this is not JSON {"
			srv.Script = func(c *fakeopenai.Call) *fakeopenai.Reply { return &fakeopenai.Reply{Content: &bad} }
			out := t.TempDir()
			code, stdout, stderr := runCLI(t, openaiArgs(srv, filepath.Join(t.TempDir(), "s"), out, "--batching", tc.batching))
			if code != ExitUnjudged {
				t.Fatalf("exit %d, want %d (unjudged)\n%s\n%s", code, ExitUnjudged, stdout, stderr)
			}
			want := fmt.Sprintf("unjudged: %d claim(s) in 4 sample(s) (coverage %d, validity %d)", tc.coverage+tc.validity, tc.coverage, tc.validity)
			if !strings.Contains(stdout, want) {
				t.Errorf("table lacks %q:\n%s", want, stdout)
			}
			sum, _ := os.ReadFile(filepath.Join(out, "llm", "summary.json"))
			if !bytes.Contains(sum, []byte(fmt.Sprintf(`"coverage": %d`, tc.coverage))) {
				t.Errorf("summary.json lacks the unjudged counts")
			}
		})
	}
}

// TestScoreOpenAIKilledAndResumed kills a run with SIGKILL after some judge
// calls were answered, reruns it, and checks that no claim was answered
// twice and that the results equal an uninterrupted run's.
func TestScoreOpenAIKilledAndResumed(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	var mu sync.Mutex
	answered := map[string]int{}
	hang := true
	nAnswered := 0
	script := func(c *fakeopenai.Call) *fakeopenai.Reply {
		mu.Lock()
		defer mu.Unlock()
		if hang && nAnswered >= 3 {
			return &fakeopenai.Reply{Hang: time.Minute}
		}
		nAnswered++
		for _, cl := range c.Claims {
			answered[claimKey(c, cl)]++
		}
		return nil
	}
	// The script is set before the server starts: the requests come from a
	// child process, which the race detector cannot see order them.
	srv := fakeopenai.New(func(s *fakeopenai.Server) { s.Script = script })
	defer srv.Close()
	store := filepath.Join(t.TempDir(), "store")
	cmd := exec.Command(os.Args[0], openaiArgs(srv, store, t.TempDir(), "--concurrency", "1")...)
	cmd.Env = append(os.Environ(), "KGJUDGE_TEST_MAIN=1")
	var childErr bytes.Buffer
	cmd.Stderr = &childErr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			t.Fatalf("child exited before it was killed (%v); stderr:\n%s", err, childErr.String())
		default:
		}
		mu.Lock()
		n, claims := nAnswered, len(answered)
		mu.Unlock()
		// Three answered, every claim of them in the child's cache (it
		// writes a batch as its answer arrives), and later requests hang:
		// the kill lands mid-run with nothing answered but unrecorded.
		if n >= 3 && cachedLines(filepath.Join(store, "judge-cache", "verdicts.jsonl")) >= claims {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("child never reached the 4th call; stderr:\n%s", childErr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	mu.Lock()
	hang = false
	mu.Unlock()

	outResumed := t.TempDir()
	if code, _, stderr := runCLI(t, openaiArgs(srv, store, outResumed)); code != ExitOK {
		t.Fatalf("resumed run exit %d\n%s", code, stderr)
	}
	for k, n := range answered {
		if n > 1 {
			t.Errorf("claim answered %d times: %q", n, k)
		}
	}
	// An uninterrupted run with a fresh store and a fresh server.
	srv2 := fakeopenai.New()
	defer srv2.Close()
	outFresh := t.TempDir()
	if code, _, stderr := runCLI(t, openaiArgs(srv2, filepath.Join(t.TempDir(), "fresh"), outFresh)); code != ExitOK {
		t.Fatalf("fresh run exit %d\n%s", code, stderr)
	}
	// The killed run's answered calls plus the resumed run's are exactly an
	// uninterrupted run's calls: nothing lost, nothing asked twice.
	mu.Lock()
	if nAnswered != len(srv2.Calls()) {
		t.Errorf("killed + resumed runs had %d answered calls, an uninterrupted run %d", nAnswered, len(srv2.Calls()))
	}
	mu.Unlock()
	for _, rel := range []string{"items/task_e01_Kyoto Weekend_sample0.json", "items/task_e02_咖啡豆选购_sample1.json"} {
		a, _ := os.ReadFile(filepath.Join(outResumed, "llm", rel))
		b, _ := os.ReadFile(filepath.Join(outFresh, "llm", rel))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: resumed run differs from an uninterrupted one", rel)
		}
	}
	a, _ := os.ReadFile(filepath.Join(outResumed, "llm", "summary.json"))
	b, _ := os.ReadFile(filepath.Join(outFresh, "llm", "summary.json"))
	// The endpoint (server port) differs between the two servers; nothing else may.
	a = bytes.ReplaceAll(a, []byte(strings.TrimPrefix(srv.URL, "http://")), []byte("HOST"))
	b = bytes.ReplaceAll(b, []byte(strings.TrimPrefix(srv2.URL, "http://")), []byte("HOST"))
	if !bytes.Equal(a, b) {
		t.Errorf("summary.json of the resumed run differs from an uninterrupted run's")
	}
}

func TestCacheStatsAndPrune(t *testing.T) {
	srv := fakeopenai.New()
	defer srv.Close()
	store := filepath.Join(t.TempDir(), "store")
	if code, _, stderr := runCLI(t, openaiArgs(srv, store, t.TempDir())); code != ExitOK {
		t.Fatalf("score: %d %s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, []string{"cache", "stats", "--store", store, "--json"})
	if code != ExitOK {
		t.Fatalf("stats: %d %s", code, stderr)
	}
	var st struct {
		Entries  int `json:"entries"`
		ByPrompt []struct {
			Model string `json:"model"`
		} `json:"by_prompt"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatal(err)
	}
	// One entry per distinct claim the judge was asked (same claim text and
	// candidates = same entry); claims the deterministic tier resolved are
	// never asked.
	asked := map[string]bool{}
	for _, c := range srv.Calls() {
		for _, cl := range c.Claims {
			asked[claimKey(c, cl)] = true
		}
	}
	if st.Entries != len(asked) || st.Entries == 0 || len(st.ByPrompt) == 0 || st.ByPrompt[0].Model != "judge-test" {
		t.Errorf("stats %+v", st)
	}
	// Current prompt versions survive --stale; then a cutoff in the future drops all.
	if code, stdout, _ := runCLI(t, []string{"cache", "prune", "--store", store, "--stale"}); code != ExitOK || !strings.Contains(stdout, fmt.Sprintf("kept %d, removed 0", st.Entries)) {
		t.Errorf("prune --stale: %d %s", code, stdout)
	}
	if err := runCachePrune(cacheOptions{Store: store, OlderThan: time.Hour}, time.Now().Add(2*time.Hour), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	calls := len(srv.Calls())
	if code, _, _ := runCLI(t, openaiArgs(srv, store, t.TempDir())); code != ExitOK || len(srv.Calls()) == calls {
		t.Errorf("after pruning everything the judge must be asked again (exit %d)", code)
	}
	if code, _, stderr := runCLI(t, []string{"cache", "stats", "--store", t.TempDir()}); code != ExitInput || !strings.Contains(stderr, "no judge cache") {
		t.Errorf("stats without cache: %d %s", code, stderr)
	}
}

// claimKey identifies a claim as the cache does: a claim is the same claim
// only with the same candidates shown (the same GT triple is a different
// claim in another sample).
func claimKey(c *fakeopenai.Call, cl fakeopenai.Line) string {
	var cands strings.Builder
	for _, cd := range c.Candidates {
		cands.WriteString(cd.Text + "\n")
	}
	return string(c.Kind) + "\x00" + cl.Text + "\x00" + cands.String()
}

// TestScoreOpenAIMisbehavingServer: every way an endpoint misbehaves ends in
// explicit verdict states and the matching exit code, never a silent zero.
func TestScoreOpenAIMisbehavingServer(t *testing.T) {
	sentGT, sentPred := examplesSent(t)
	dropLast := func(srv *fakeopenai.Server) func(c *fakeopenai.Call) *fakeopenai.Reply {
		return func(c *fakeopenai.Call) *fakeopenai.Reply {
			items := srv.DefaultItems(c)
			content := fakeopenai.Content(c, items[:len(items)-1])
			return &fakeopenai.Reply{Content: &content}
		}
	}
	badIDs := func(srv *fakeopenai.Server) func(c *fakeopenai.Call) *fakeopenai.Reply {
		return func(c *fakeopenai.Call) *fakeopenai.Reply {
			items := srv.DefaultItems(c)
			for i := range items {
				items[i].Covered, items[i].Kind, items[i].Support = true, "direct", []int{9999}
			}
			content := fakeopenai.Content(c, items)
			return &fakeopenai.Reply{Content: &content}
		}
	}
	var first sync.Once
	for _, tc := range []struct {
		name  string
		setup func(srv *fakeopenai.Server)
		args  []string
		code  int
		// all: every claim sent to the judge ends unjudged; none: none does.
		allUnjudged bool
		check       func(t *testing.T, inv string)
	}{
		{name: "correct", setup: func(*fakeopenai.Server) {}, code: ExitOK},
		{name: "wrong count", setup: func(s *fakeopenai.Server) { s.Script = dropLast(s) }, code: ExitUnjudged},
		{name: "out-of-range ids", setup: func(s *fakeopenai.Server) { s.Script = badIDs(s) }, code: ExitUnjudged, allUnjudged: true},
		{name: "429 then fine", setup: func(s *fakeopenai.Server) {
			first = sync.Once{}
			s.Script = func(c *fakeopenai.Call) *fakeopenai.Reply {
				var r *fakeopenai.Reply
				first.Do(func() { r = &fakeopenai.Reply{Status: 429, Header: map[string]string{"Retry-After": "1"}} })
				return r
			}
		}, code: ExitOK, check: func(t *testing.T, inv string) {
			if !strings.Contains(inv, `"retries": 1`) {
				t.Errorf("one 429 must show as one retry:\n%s", inv)
			}
		}},
		{name: "500 always", setup: func(s *fakeopenai.Server) {
			s.Script = func(*fakeopenai.Call) *fakeopenai.Reply { return &fakeopenai.Reply{Status: 500} }
		}, args: []string{"--judge-attempts", "2"}, code: ExitUnjudged, allUnjudged: true},
		{name: "hang past the timeout", setup: func(s *fakeopenai.Server) {
			s.Script = func(*fakeopenai.Call) *fakeopenai.Reply { return &fakeopenai.Reply{Hang: time.Minute} }
		}, args: []string{"--judge-timeout", "200ms", "--judge-attempts", "1"}, code: ExitUnjudged, allUnjudged: true},
		{name: "response_format rejected", setup: func(s *fakeopenai.Server) { s.RejectFormat = []string{"json_schema", "json_object"} },
			code: ExitOK, check: func(t *testing.T, inv string) {
				if !strings.Contains(inv, `"mode": "text"`) {
					t.Errorf("the fallback to text mode must be recorded:\n%s", inv)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeopenai.New()
			defer srv.Close()
			tc.setup(srv)
			out := t.TempDir()
			code, stdout, stderr := runCLI(t, openaiArgs(srv, filepath.Join(t.TempDir(), "s"), out, tc.args...))
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, stdout, stderr)
			}
			var sum struct {
				Unjudged struct{ Coverage, Validity int } `json:"unjudged"`
			}
			b, _ := os.ReadFile(filepath.Join(out, "llm", "summary.json"))
			if err := json.Unmarshal(b, &sum); err != nil {
				t.Fatal(err)
			}
			unjudged := sum.Unjudged.Coverage + sum.Unjudged.Validity
			switch {
			case tc.code == ExitOK && unjudged != 0:
				t.Errorf("%d unjudged in a successful run", unjudged)
			case tc.code == ExitUnjudged && unjudged == 0:
				t.Errorf("exit 3 without unjudged claims")
			case tc.allUnjudged && unjudged != sentGT+sentPred:
				t.Errorf("%d unjudged, want all %d claims that were sent", unjudged, sentGT+sentPred)
			}
			inv, _ := os.ReadFile(filepath.Join(out, "llm", "invocation.json"))
			if tc.check != nil {
				tc.check(t, string(inv))
			}
		})
	}
}

// TestScoreOpenAIBudget: a token budget stops the run cleanly (the rest is
// unjudged, exit 3) and a rerun with a fresh budget continues from the cache
// without asking any claim again, ending as an unbudgeted run does.
func TestScoreOpenAIBudget(t *testing.T) {
	srv := fakeopenai.New()
	defer srv.Close()
	store := filepath.Join(t.TempDir(), "s")
	out1 := t.TempDir()
	code, stdout, stderr := runCLI(t, openaiArgs(srv, store, out1, "--max-tokens", "3000", "--concurrency", "1"))
	if code != ExitUnjudged {
		t.Fatalf("budgeted run: exit %d, want %d\n%s\n%s", code, ExitUnjudged, stdout, stderr)
	}
	if !strings.Contains(stdout, "token budget reached") {
		t.Errorf("the table must say the budget was reached:\n%s", stdout)
	}
	inv, _ := os.ReadFile(filepath.Join(out1, "llm", "invocation.json"))
	if !bytes.Contains(inv, []byte(`"budget_reached": true`)) {
		t.Errorf("invocation.json: budget not recorded")
	}
	calls := len(srv.Calls())
	if calls == 0 {
		t.Fatal("the budget allowed no call at all: raise it")
	}
	out2 := t.TempDir()
	if code, _, stderr := runCLI(t, openaiArgs(srv, store, out2)); code != ExitOK {
		t.Fatalf("rerun: exit %d\n%s", code, stderr)
	}
	seen := map[string]int{}
	for _, c := range srv.Calls() {
		for _, cl := range c.Claims {
			seen[claimKey(c, cl)]++
		}
	}
	for k, n := range seen {
		if n > 1 {
			t.Errorf("claim asked %d times across the budgeted run and its rerun: %q", n, k)
		}
	}
	srv2 := fakeopenai.New()
	defer srv2.Close()
	out3 := t.TempDir()
	if code, _, stderr := runCLI(t, openaiArgs(srv2, filepath.Join(t.TempDir(), "fresh"), out3)); code != ExitOK {
		t.Fatalf("fresh run: exit %d\n%s", code, stderr)
	}
	a, _ := os.ReadFile(filepath.Join(out2, "llm", "items", "task_e01_Kyoto Weekend_sample0.json"))
	b, _ := os.ReadFile(filepath.Join(out3, "llm", "items", "task_e01_Kyoto Weekend_sample0.json"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Error("the continued run differs from an unbudgeted one")
	}
}

// cachedLines counts the complete lines of a judge cache file (0 if none).
func cachedLines(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return bytes.Count(b, []byte("\n"))
}

// TestScoreJudgeErrorsShown: when the judge cannot be reached or refuses,
// stderr says why, each distinct cause once with its count, besides the
// unjudged total (exit 3).
func TestScoreJudgeErrorsShown(t *testing.T) {
	sentGT, sentPred := examplesSent(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/v1"
	ln.Close() // nothing listens there now
	denied := fakeopenai.New(func(s *fakeopenai.Server) {
		s.Script = func(*fakeopenai.Call) *fakeopenai.Reply {
			return &fakeopenai.Reply{Status: 401, Body: `{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}`}
		}
	})
	defer denied.Close()
	for _, tc := range []struct {
		name, url, want string
	}{
		{"closed port", closed, "connection refused"},
		{"401", denied.BaseURL(), "401"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"score", "--gt", "../examples/gt", "--pred", "../examples/pred", "--judge", "openai", "--judge-url", tc.url,
				"--judge-model", "m", "--store", filepath.Join(t.TempDir(), "s"), "--out", t.TempDir(), "--judge-attempts", "1"}
			code, _, stderr := runCLI(t, args)
			if code != ExitUnjudged {
				t.Fatalf("exit %d, want %d\n%s", code, ExitUnjudged, stderr)
			}
			n := sentGT + sentPred
			if !strings.Contains(stderr, fmt.Sprintf("why %d claim(s) are unjudged", n)) {
				t.Errorf("stderr lacks the causes header for %d claims:\n%s", n, stderr)
			}
			var causes []string
			for _, l := range strings.Split(stderr, "\n") {
				if strings.HasPrefix(l, "  ") && strings.Contains(l, " x ") {
					causes = append(causes, l)
				}
			}
			if len(causes) == 0 || len(causes) > maxCauses || !strings.Contains(causes[0], tc.want) {
				t.Errorf("causes %q, want at most %d, the first naming %q", causes, maxCauses, tc.want)
			}
			total := 0
			for _, c := range causes {
				var k int
				fmt.Sscanf(strings.TrimSpace(c), "%d x", &k)
				total += k
			}
			if total != n {
				t.Errorf("causes count %d claims, %d were unjudged:\n%s", total, n, stderr)
			}
		})
	}
}

func TestUnjudgedCauses(t *testing.T) {
	it := matcher.Item{Record: kg.Record{Coverage: &matcher.CoverageDetails{PerGTTriple: []matcher.GTRecord{
		{State: kg.Unjudged, Reason: "b"}, {State: kg.Covered, Reason: "ok"}, {State: kg.Unjudged, Reason: "a"}, {State: kg.Unjudged, Reason: "a"},
		{State: kg.Unjudged, Reason: "c"}, {State: kg.Unjudged, Reason: "d"},
	}}, Validity: &matcher.ValidityDetails{PerPredTriple: []matcher.PredRecord{{State: kg.Unjudged, Reason: "b"}, {State: kg.Unjudged, Reason: "b"}, {State: kg.Unjudged}}}}}
	var b bytes.Buffer
	printUnjudgedCauses(&b, []matcher.Item{it}, 3)
	want := "kgjudge: why 8 claim(s) are unjudged, the first 3 of 5 distinct causes (every reason is in the item files):\n  3 x b\n  2 x a\n  1 x c\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	printUnjudgedCauses(&b, []matcher.Item{{}}, 3)
	if b.Len() != 0 {
		t.Errorf("nothing unjudged, yet %q", b.String())
	}
}
