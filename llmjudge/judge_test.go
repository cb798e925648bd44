package llmjudge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/llmjudge/fakeopenai"
	"github.com/kgjudge/kgjudge/plan"
)

// sample has nGT GT triples; every third one is also predicted (exact
// text), plus some predicted triples that are not in the GT.
func sample(nGT int) (*kg.Task, *kg.Prediction) {
	t := &kg.Task{ID: "task_001_demo", Language: "en"}
	p := &kg.Prediction{QID: t.ID, TaskID: t.ID}
	for i := 0; i < nGT; i++ {
		tr := kg.Triple{Head: fmt.Sprintf("entity %d", i), Relation: "has property", Tail: fmt.Sprintf("value %d", i)}
		t.Triples = append(t.Triples, kg.GTTriple{Triple: tr})
		if i%3 == 0 {
			p.Triples = append(p.Triples, tr)
		}
	}
	for i := 0; i < 3; i++ {
		p.Triples = append(p.Triples, kg.Triple{Head: fmt.Sprintf("noise %d", i), Relation: "r", Tail: "x"})
	}
	return t, p
}

func baseConfig(s *fakeopenai.Server) Config {
	return Config{
		BaseURL: s.BaseURL(), APIKey: "sk-secret-test-key", Model: "judge-model",
		Batching: BatchingWhole, BatchSize: 4, Concurrency: 2,
		Timeout: 2 * time.Second, RetryBase: time.Millisecond, RetryMax: 5 * time.Millisecond,
	}
}

func newJudge(t *testing.T, cfg Config) *Judge {
	t.Helper()
	j, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// wantJudgement is what an exact-match oracle must give for sample().
func checkCorrect(t *testing.T, task *kg.Task, pred *kg.Prediction, j kg.Judgement) {
	t.Helper()
	predAt := map[kg.Triple]int{}
	for i, tr := range pred.Triples {
		predAt[tr] = i
	}
	for gi, v := range j.Coverage {
		if v.GTIndex != gi {
			t.Fatalf("coverage[%d].GTIndex = %d", gi, v.GTIndex)
		}
		pi, ok := predAt[task.Triples[gi].Triple]
		switch {
		case ok && (v.State != kg.Covered || !reflect.DeepEqual(v.Support, []int{pi})):
			t.Errorf("GT %d: %+v, want covered by [%d]", gi, v, pi)
		case !ok && v.State != kg.Uncovered:
			t.Errorf("GT %d: %+v, want uncovered", gi, v)
		}
	}
	for pi, v := range j.Validity {
		want := kg.Uncovered
		if strings.HasPrefix(pred.Triples[pi].Head, "entity") {
			want = kg.Covered
		}
		if v.State != want || v.PredIndex != pi {
			t.Errorf("validity %d: %+v, want %s", pi, v, want)
		}
	}
}

func states(j kg.Judgement) map[kg.State]int {
	out := map[kg.State]int{}
	for _, v := range j.Coverage {
		out[v.State]++
	}
	for _, v := range j.Validity {
		out[v.State]++
	}
	return out
}

func TestCorrectAnswersTemperatureZeroAndSeed(t *testing.T) {
	s := fakeopenai.New()
	defer s.Close()
	j := newJudge(t, baseConfig(s))
	task, pred := sample(12)
	got, err := j.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	checkCorrect(t, task, pred, got)
	if !strings.HasPrefix(got.Judge, "openai:judge-model@") || got.Coverage[0].Judge != got.Judge {
		t.Fatalf("judge name %q / %q", got.Judge, got.Coverage[0].Judge)
	}
	calls := s.Calls()
	// 12 GT claims in batches of 4, 7 predicted in batches of 4.
	if len(calls) != 3+2 {
		t.Fatalf("%d calls, want 5", len(calls))
	}
	for _, c := range calls {
		if string(c.Body["temperature"]) != "0" {
			t.Fatalf("temperature sent as %q, want 0", c.Body["temperature"])
		}
		if string(c.Body["seed"]) != "0" {
			t.Fatalf("seed sent as %q", c.Body["seed"])
		}
		if c.Format != "json_schema" {
			t.Fatalf("format %q", c.Format)
		}
	}
	r := j.Ledger()
	if r.Calls != 5 || r.Attempts != 5 || r.Reasks != 0 || r.Usage.Total == 0 || len(r.Items) != 1 || len(r.Items[0].Batches) != 5 {
		t.Fatalf("ledger %+v", r)
	}
	m := j.Manifest()
	if m.Tokens != r.Usage || m.Endpoint != s.BaseURL() || len(m.ResponseModes) != 1 || m.ResponseModes[0].Calls != 5 {
		t.Fatalf("manifest %+v", m)
	}
	b, _ := json.Marshal(m)
	if strings.Contains(string(b), "sk-secret") {
		t.Fatal("manifest leaks the API key")
	}
}

func TestWrongCountReasksOnlyMissing(t *testing.T) {
	s := fakeopenai.New()
	defer s.Close()
	s.Script = func(c *fakeopenai.Call) *fakeopenai.Reply {
		if c.N == 0 { // drop the last verdict of the first call
			items := s.DefaultItems(c)
			return &fakeopenai.Reply{Items: items[:len(items)-1]}
		}
		return nil
	}
	cfg := baseConfig(s)
	cfg.Concurrency = 1
	cfg.NoValidity = true
	j := newJudge(t, cfg)
	task, pred := sample(4)
	got, err := j.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	checkCorrect(t, task, pred, got)
	calls := s.Calls()
	if len(calls) != 2 || len(calls[1].Claims) != 1 || calls[1].Claims[0].ID != 3 {
		t.Fatalf("calls: %d, re-ask claims %+v", len(calls), calls[len(calls)-1].Claims)
	}
	if r := j.Ledger(); r.Reasks != 1 || r.Calls != 2 {
		t.Fatalf("ledger %+v", r)
	}
}

func TestOutOfRangeIDsReasked(t *testing.T) {
	s := fakeopenai.New()
	defer s.Close()
	s.Script = func(c *fakeopenai.Call) *fakeopenai.Reply {
		if c.N == 0 {
			items := s.DefaultItems(c)
			items[0].Covered, items[0].Kind, items[0].Support = true, "direct", []int{99}
			return &fakeopenai.Reply{Items: items}
		}
		return nil
	}
	cfg := baseConfig(s)
	cfg.Concurrency, cfg.NoValidity = 1, true
	j := newJudge(t, cfg)
	task, pred := sample(4)
	got, err := j.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	checkCorrect(t, task, pred, got)
	calls := s.Calls()
	if len(calls) != 2 || len(calls[1].Claims) != 1 || calls[1].Claims[0].ID != 0 {
		t.Fatalf("re-ask: %d calls", len(calls))
	}
}

func TestMalformedJSONEndsUnjudged(t *testing.T) {
	s := fakeopenai.New()
	defer s.Close()
	bad := `{"verdicts": [{"claim": 0, "covered": tru`
	s.Script = func(c *fakeopenai.Call) *fakeopenai.Reply { return &fakeopenai.Reply{Content: &bad} }
	cfg := baseConfig(s)
	cfg.Concurrency, cfg.NoValidity = 1, true
	j := newJudge(t, cfg)
	task, pred := sample(4)
	got, err := j.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range got.Coverage {
		if v.State != kg.Unjudged || !strings.Contains(v.Reason, "malformed JSON") || !strings.Contains(v.Reason, "3 attempt") {
			t.Fatalf("verdict %+v", v)
		}
	}
	if n := len(s.Calls()); n != 3 {
		t.Fatalf("%d calls, want 3 (ask + 2 re-asks)", n)
	}
	if r := j.Ledger(); r.Reasks != 2 || r.Items[0].Batches[0].Unjudged != 4 {
		t.Fatalf("ledger %+v", r)
	}
}

func TestRetryAfterOn429(t *testing.T) {
	s := fakeopenai.New()
	defer s.Close()
	s.Script = func(c *fakeopenai.Call) *fakeopenai.Reply {
		if c.N == 0 {
			return &fakeopenai.Reply{Status: 429, Header: map[string]string{"Retry-After": "1"}}
		}
		return nil
	}
	cfg := baseConfig(s)
	cfg.Concurrency, cfg.NoValidity = 1, true
	j := newJudge(t, cfg)
	task, pred := sample(4)
	start := time.Now()
	got, err := j.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < time.Second {
		t.Fatalf("retried after %s, want >= Retry-After 1s", el)
	}
	checkCorrect(t, task, pred, got)
	if st := s.Statuses(); !reflect.DeepEqual(st, []int{429, 200}) {
		t.Fatalf("statuses %v", st)
	}
	if m := j.Manifest(); m.Retries != 1 || m.Attempts != 2 || m.Calls != 1 {
		t.Fatalf("manifest retries %d attempts %d calls %d", m.Retries, m.Attempts, m.Calls)
	}
}

func Test500RetriedThenUnjudged(t *testing.T) {
	s := fakeopenai.New()
	defer s.Close()
	var fail atomic.Int64
	fail.Store(2)
	s.Script = func(c *fakeopenai.Call) *fakeopenai.Reply {
		if fail.Add(-1) >= 0 {
			return &fakeopenai.Reply{Status: 500}
		}
		return nil
	}
	cfg := baseConfig(s)
	cfg.Concurrency, cfg.NoValidity, cfg.MaxAttempts = 1, true, 3
	j := newJudge(t, cfg)
	task, pred := sample(4)
	got, err := j.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	checkCorrect(t, task, pred, got)
	if st := s.Statuses(); !reflect.DeepEqual(st, []int{500, 500, 200}) {
		t.Fatalf("statuses %v", st)
	}

	// Always 500: the claims end unjudged with the reason, never uncovered.
	fail.Store(1 << 30)
	j2 := newJudge(t, cfg)
	got, err = j2.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range got.Coverage {
		if v.State != kg.Unjudged || !strings.Contains(v.Reason, "HTTP 500") || !strings.Contains(v.Reason, "3 attempt") {
			t.Fatalf("verdict %+v", v)
		}
	}
	if r := j2.Ledger(); r.Attempts != 3 || r.Calls != 0 {
		t.Fatalf("ledger %+v", r)
	}
}

func TestHangPastTimeoutIsRetried(t *testing.T) {
	s := fakeopenai.New()
	defer s.Close()
	s.Script = func(c *fakeopenai.Call) *fakeopenai.Reply {
		if c.N == 0 {
			return &fakeopenai.Reply{Hang: 30 * time.Second}
		}
		return nil
	}
	cfg := baseConfig(s)
	cfg.Concurrency, cfg.NoValidity, cfg.Timeout = 1, true, 200*time.Millisecond
	j := newJudge(t, cfg)
	task, pred := sample(4)
	start := time.Now()
	got, err := j.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("timeout not enforced")
	}
	checkCorrect(t, task, pred, got)
	if m := j.Manifest(); m.Retries != 1 || m.Attempts != 2 {
		t.Fatalf("retries %d attempts %d", m.Retries, m.Attempts)
	}
}

func TestResponseFormatFallback(t *testing.T) {
	for _, vllm := range []bool{false, true} {
		t.Run(fmt.Sprintf("vllm=%v", vllm), func(t *testing.T) {
			s := fakeopenai.New()
			defer s.Close()
			s.VLLMErrors = vllm
			s.RejectFormat = []string{"json_schema", "json_object"}
			// In text mode the model wraps its JSON in prose and a fence.
			s.Script = func(c *fakeopenai.Call) *fakeopenai.Reply {
				if c.Format != "" {
					return nil
				}
				txt := "<think>let me see</think>Here you go:\n```json\n" + fakeopenai.Content(c, s.DefaultItems(c)) + "\n```"
				return &fakeopenai.Reply{Content: &txt}
			}
			cfg := baseConfig(s)
			cfg.Concurrency = 1
			j := newJudge(t, cfg)
			task, pred := sample(4)
			got, err := j.Judge(context.Background(), task, pred)
			if err != nil {
				t.Fatal(err)
			}
			checkCorrect(t, task, pred, got)
			st := s.Statuses()
			// schema refused, object refused, then text for every batch.
			if !reflect.DeepEqual(st, []int{400, 400, 200, 200, 200}) {
				t.Fatalf("statuses %v", st)
			}
			m := j.Manifest()
			if !reflect.DeepEqual(m.ResponseModes, []ModeCount{{"text", 3}}) {
				t.Fatalf("modes %+v", m.ResponseModes)
			}
		})
	}
}

func TestSeedRefusedIsDropped(t *testing.T) {
	s := fakeopenai.New()
	defer s.Close()
	s.RejectSeed = true
	cfg := baseConfig(s)
	cfg.Concurrency, cfg.NoValidity = 1, true
	j := newJudge(t, cfg)
	task, pred := sample(8)
	got, err := j.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	checkCorrect(t, task, pred, got)
	if st := s.Statuses(); !reflect.DeepEqual(st, []int{400, 200, 200}) {
		t.Fatalf("statuses %v", st)
	}
	if !j.Manifest().Decoding.SeedRefused {
		t.Fatal("manifest does not record the refused seed")
	}
}

func TestCacheSecondRunMakesNoCalls(t *testing.T) {
	s := fakeopenai.New()
	defer s.Close()
	cfg := baseConfig(s)
	cfg.CacheDir = t.TempDir()
	task, pred := sample(12)
	j1 := newJudge(t, cfg)
	first, err := j1.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	j1.Close()
	n := len(s.Calls())
	j2 := newJudge(t, cfg)
	second, err := j2.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Calls()) != n {
		t.Fatalf("second run made %d calls", len(s.Calls())-n)
	}
	if !reflect.DeepEqual(first, second) {
		t.Fatalf("cached verdicts differ:\n%+v\n%+v", first, second)
	}
	m := j2.Manifest()
	if m.Cache.Hits != 19 || m.Cache.Misses != 0 || m.Calls != 0 {
		t.Fatalf("cache %+v calls %d", m.Cache, m.Calls)
	}
	// Cache-only with a cold cache fails instead of calling out.
	cfg2 := cfg
	cfg2.CacheDir, cfg2.CacheOnly = t.TempDir(), true
	j3 := newJudge(t, cfg2)
	if _, err := j3.Judge(context.Background(), task, pred); !IsCacheMiss(err) || !strings.Contains(err.Error(), task.ID) {
		t.Fatalf("cache-only miss: %v", err)
	}
	if len(s.Calls()) != n {
		t.Fatal("cache-only mode called out")
	}
	// Any change in the key parts misses.
	for name, mut := range map[string]func(*Config){
		"model":       func(c *Config) { c.Model = "other-model" },
		"temperature": func(c *Config) { c.Temperature = 0.5 },
		"seed":        func(c *Config) { c.Seed = 7 },
		"prompt":      func(c *Config) { c.PromptStyle = "reference" },
	} {
		c := cfg
		c.CacheOnly = true
		mut(&c)
		jx := newJudge(t, c)
		if _, err := jx.Judge(context.Background(), task, pred); !IsCacheMiss(err) {
			t.Errorf("%s change: want a miss, got %v", name, err)
		}
	}
	pred2 := *pred
	pred2.Triples = append([]kg.Triple(nil), pred.Triples...)
	pred2.Triples[len(pred2.Triples)-1].Tail = "changed"
	c := cfg
	c.CacheOnly = true
	jx := newJudge(t, c)
	if _, err := jx.Judge(context.Background(), task, &pred2); !IsCacheMiss(err) {
		t.Errorf("candidate change: want a miss, got %v", err)
	}
}

func TestKillAndResume(t *testing.T) {
	task, pred := sample(24)

	// Uninterrupted reference run.
	ref := fakeopenai.New()
	defer ref.Close()
	cfg := baseConfig(ref)
	cfg.Concurrency = 1
	jr := newJudge(t, cfg)
	want, err := jr.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}

	s := fakeopenai.New()
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	s.Script = func(c *fakeopenai.Call) *fakeopenai.Reply {
		if c.N == 3 { // killed while the 4th call is in flight
			cancel()
			return &fakeopenai.Reply{Hang: time.Minute}
		}
		return nil
	}
	cfg = baseConfig(s)
	cfg.Concurrency = 1
	cfg.CacheDir = t.TempDir()
	j1 := newJudge(t, cfg)
	if _, err := j1.Judge(ctx, task, pred); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "batch") {
		t.Fatalf("interrupted run: %v", err)
	}
	j1.Close()
	s.Script = nil
	j2 := newJudge(t, cfg)
	got, err := j2.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("resumed verdicts differ")
	}
	cc := s.ClaimCalls()
	if len(cc) != len(task.Triples)+len(pred.Triples) {
		t.Fatalf("%d claims judged, want %d", len(cc), len(task.Triples)+len(pred.Triples))
	}
	for k, n := range cc {
		if n != 1 {
			t.Errorf("claim %q judged %d times", k, n)
		}
	}
	// Three calls completed before the kill; their claims come from the cache.
	if h := j2.Manifest().Cache.Hits; h < 9 {
		t.Fatalf("resume hits %d, want those of the 3 completed batches", h)
	}
}

func TestBudgetStopsCleanlyAndRerunContinues(t *testing.T) {
	task, pred := sample(12)
	s := fakeopenai.New()
	defer s.Close()
	cfg := baseConfig(s)
	cfg.Concurrency = 1
	cfg.NoValidity = true
	cfg.CacheDir = t.TempDir()
	cfg.TokenBudget = 1 // the first call spends it
	j1 := newJudge(t, cfg)
	got, err := j1.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	st := states(got)
	if st[kg.Unjudged] != 8 || len(s.Calls()) != 1 {
		t.Fatalf("states %v after %d calls", st, len(s.Calls()))
	}
	for _, v := range got.Coverage {
		if v.State == kg.Unjudged && v.Reason != "budget" {
			t.Fatalf("unjudged reason %q", v.Reason)
		}
	}
	if m := j1.Manifest(); !m.BudgetReached || m.Unjudged != 8 {
		t.Fatalf("manifest budget %v unjudged %d", m.BudgetReached, m.Unjudged)
	}
	j1.Close()
	cfg.TokenBudget = 0
	j2 := newJudge(t, cfg)
	got, err = j2.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	checkCorrect(t, task, pred, got)
	for k, n := range s.ClaimCalls() {
		if n != 1 {
			t.Errorf("claim %q judged %d times", k, n)
		}
	}
}

func TestReferenceBatching(t *testing.T) {
	s := fakeopenai.New()
	defer s.Close()
	cfg := baseConfig(s)
	cfg.Batching = BatchingReference
	j := newJudge(t, cfg)
	task, pred := sample(12)
	got, err := j.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	checkCorrect(t, task, pred, got)
	var ref []*fakeopenai.Call
	for _, c := range s.Calls() {
		if c.Kind == fakeopenai.Reference {
			ref = append(ref, c)
		}
	}
	if len(ref) != 5 {
		t.Fatalf("%d reference coverage calls, want 5", len(ref))
	}
	seen := map[int]bool{}
	for _, c := range ref {
		if len(c.Candidates) != len(pred.Triples) {
			t.Fatalf("batch shows %d predicted triples, want the whole list", len(c.Candidates))
		}
		for _, cl := range c.Claims {
			seen[cl.ID] = true // global GT numbering
		}
	}
	if len(seen) != 12 || !seen[11] {
		t.Fatalf("GT ids %v", seen)
	}
	if j.Manifest().PromptStyle != "reference" {
		t.Fatal("reference batching should use the reference prompt")
	}
}

func TestNoPredictionsNoCall(t *testing.T) {
	s := fakeopenai.New()
	defer s.Close()
	j := newJudge(t, baseConfig(s))
	task, _ := sample(3)
	got, err := j.Judge(context.Background(), task, &kg.Prediction{})
	if err != nil || len(s.Calls()) != 0 || got.Coverage[0].State != kg.Uncovered {
		t.Fatalf("%+v %v", got, err)
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Setenv(EnvJudgeURL, "")
	t.Setenv(EnvBaseURL, "http://base:1/v1")
	t.Setenv(EnvJudgeModel, "m")
	t.Setenv(EnvAPIKey, "k")
	c := ConfigFromEnv()
	if c.BaseURL != "http://base:1/v1" || c.Model != "m" || c.APIKey != "k" {
		t.Fatalf("%+v", c)
	}
	t.Setenv(EnvJudgeURL, "http://judge:2/v1")
	if ConfigFromEnv().BaseURL != "http://judge:2/v1" {
		t.Fatal("KGJUDGE_JUDGE_URL should win")
	}
	if _, err := New(context.Background(), Config{Model: "m", Batching: "prefilter"}); err == nil {
		t.Fatal("prefilter without a planner accepted")
	}
	if _, err := New(context.Background(), Config{}); err == nil {
		t.Fatal("no model accepted")
	}
}

// TestCacheHitFromAnotherURL: the cache key is the model, the prompt, the
// decoding and what was shown, never the endpoint: the same model behind
// another server (another port, another key) is answered from the cache.
func TestCacheHitFromAnotherURL(t *testing.T) {
	a, b := fakeopenai.New(), fakeopenai.New()
	defer a.Close()
	defer b.Close()
	cfg := baseConfig(a)
	cfg.CacheDir = t.TempDir()
	task, pred := sample(12)
	first, err := newJudge(t, cfg).Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Calls()) == 0 {
		t.Fatal("first run made no call")
	}
	cfg.BaseURL, cfg.APIKey = b.BaseURL(), "sk-another-key"
	jb := newJudge(t, cfg)
	second, err := jb.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(b.Calls()); n != 0 {
		t.Fatalf("the run against another URL made %d calls, want 0", n)
	}
	if !reflect.DeepEqual(first, second) {
		t.Fatalf("verdicts differ:\n%+v\n%+v", first, second)
	}
	if m := jb.Manifest(); m.Cache.Misses != 0 || m.Cache.Hits == 0 {
		t.Fatalf("cache %+v", m.Cache)
	}
}

// countingPlanner counts how often it is asked to plan.
type countingPlanner struct {
	plan.Planner
	n *atomic.Int64
}

func (c countingPlanner) Plan(ctx context.Context, task *kg.Task, pred *kg.Prediction) ([]plan.Batch, error) {
	c.n.Add(1)
	return c.Planner.Plan(ctx, task, pred)
}

// TestRerunSkipsPlanning: a rerun over unchanged inputs takes each fully
// decided sample's judgement from the sample memo: no call, no planning;
// a changed sample is planned again.
func TestRerunSkipsPlanning(t *testing.T) {
	s := fakeopenai.New()
	defer s.Close()
	var planned atomic.Int64
	cfg := baseConfig(s)
	cfg.CacheDir = t.TempDir()
	cfg.Planner = countingPlanner{Planner: plan.WholeGraph{Size: 4}, n: &planned}
	cfg.Batching = BatchingPrefilter
	task, pred := sample(12)
	first, err := newJudge(t, cfg).Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	calls, plans := len(s.Calls()), planned.Load()
	j2 := newJudge(t, cfg)
	second, err := j2.Judge(context.Background(), task, pred)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Calls()) != calls || planned.Load() != plans {
		t.Fatalf("rerun made %d calls and %d plans, want 0 and 0", len(s.Calls())-calls, planned.Load()-plans)
	}
	if !reflect.DeepEqual(first, second) {
		t.Fatalf("memoised judgement differs:\n%+v\n%+v", first, second)
	}
	if m := j2.Manifest(); m.Calls != 0 || m.Cache.Hits != int64(len(first.Coverage)+len(first.Validity)) {
		t.Fatalf("manifest %+v calls %d", m.Cache, m.Calls)
	}
	// A changed sample is planned again (its unchanged claims still come
	// from the verdict cache).
	pred2 := *pred
	pred2.Triples = append([]kg.Triple(nil), pred.Triples...)
	pred2.Triples[0].Tail = "changed"
	if _, err := j2.Judge(context.Background(), task, &pred2); err != nil {
		t.Fatal(err)
	}
	if planned.Load() != plans+1 {
		t.Fatalf("a changed sample was planned %d times, want 1", planned.Load()-plans)
	}
}
