package llmjudge

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/kgjudge/kgjudge/llmjudge/decide"
	"github.com/kgjudge/kgjudge/llmjudge/transport"
	"github.com/kgjudge/kgjudge/plan"
)

// Environment variables ConfigFromEnv reads.
const (
	EnvJudgeURL   = "KGJUDGE_JUDGE_URL"   // base URL, e.g. http://host:8000/v1 (first choice)
	EnvBaseURL    = "OPENAI_BASE_URL"     // base URL (second choice)
	EnvJudgeModel = "KGJUDGE_JUDGE_MODEL" // model name
	EnvAPIKey     = "OPENAI_API_KEY"      // API key (may be empty for local servers)
)

// Default concurrency: the bound, and where the adaptive limit starts. The
// reference evaluator keeps 31-49 requests in flight with its 16 threads;
// 64 lets kgjudge's fewer, larger calls of several samples overlap, and the
// adaptive limit backs off on 429s long before a provider bans anyone.
const (
	DefaultConcurrency      = 64
	DefaultConcurrencyStart = 16
)

// DefaultBaseURL is used when no base URL is configured.
const DefaultBaseURL = "https://api.openai.com/v1"

// Batching names.
const (
	BatchingReference = "reference" // the reference evaluator's 5 batches, whole list
	BatchingWhole     = "whole"     // WholeGraph planner, BatchSize claims per batch
	BatchingPrefilter = "prefilter" // Config.Planner, supplied by the caller
)

// Config configures an OpenAI-compatible LLM judge. The zero value plus a
// Model (and usually a BaseURL) is usable; New fills the defaults noted.
type Config struct {
	BaseURL string // default DefaultBaseURL; must include /v1 for OpenAI-style servers
	APIKey  string // never logged, never in the manifest or cache
	Model   string // required

	// Decoding. Temperature is always sent, 0 included. Seed is sent unless
	// NoSeed; if the server refuses it the judge drops it and says so in the
	// manifest.
	Temperature     float64
	Seed            int
	NoSeed          bool
	MaxOutputTokens int // max_tokens per call; 0 sends none

	// Mode is the strongest JSON mode to try: json_schema (default),
	// json_object or text. The judge steps down when the server refuses.
	Mode transport.Mode

	// Batching is "reference" (default), "whole" or "prefilter". Planner,
	// when set, is used whatever Batching says (the prefilter planner is
	// passed in here).
	Batching  string
	Planner   plan.Planner
	BatchSize int // claims per batch for "whole" (default 40)
	// PlanKey names what the Planner depends on beyond the sample and its
	// name (e.g. a hash of the alias file): it is part of the per-sample
	// memo key, so a changed alias file re-plans instead of reusing.
	PlanKey string
	// PromptStyle is "kgjudge" or "reference"; empty means "reference" for
	// reference batching and "kgjudge" otherwise.
	PromptStyle string
	// Route, when set, lets a Router decide the claims it is sure about
	// without a call (judge CalibratedJudge); nil sends every planned
	// claim to the model (--route off).
	Route *Routing
	// NoValidity skips the validity pass (then only the code protocol can
	// score the judgement).
	NoValidity bool

	// CacheDir is the verdict cache directory (the CLI passes
	// <store dir>/judge-cache). Empty or NoCache: no cache. CacheOnly
	// fails on a miss instead of calling out.
	CacheDir  string
	NoCache   bool
	CacheOnly bool

	// TokenBudget stops new calls once this many tokens (prompt +
	// completion, as the API reports them) were spent by this judge; the
	// claims left are unjudged with reason "budget". 0: no budget.
	TokenBudget int64
	// PriceIn and PriceOut are US dollars per million prompt / completion tokens.
	PriceIn, PriceOut float64
	// PriceCachedIn is US dollars per million prompt tokens served from
	// the provider's prompt cache (0: the same as PriceIn).
	PriceCachedIn float64

	// Transport.
	// Concurrency bounds the requests in flight at once (default
	// DefaultConcurrency). Unless FixedConcurrency, the judge adapts below
	// the bound: it starts at DefaultConcurrencyStart, grows while latency
	// stays flat and halves on 429/503 (transport.Adaptive).
	Concurrency      int
	FixedConcurrency bool
	RPM, TPM         int           // requests / tokens per minute (0: unlimited)
	Timeout          time.Duration // per request (default 3m)
	MaxAttempts      int           // HTTP attempts per call, first included (default 5)
	RetryBase        time.Duration // first backoff (default 500ms)
	RetryMax         time.Duration // backoff cap (default 30s)
	MaxReasks        int           // re-asks for missing/invalid verdicts (default 2, i.e. 3 asks in all, as the reference)
	// NoReasks sets MaxReasks to 0.
	NoReasks bool

	// HTTPClient is used under go-openai (nil: a plain http.Client).
	HTTPClient *http.Client
	// Completer, when set, replaces the OpenAI client at the bottom of the
	// transport stack (other backends, tests). The wrappers still apply.
	Completer transport.Completer
	// Decider, when set, replaces the whole decision stack (cache,
	// re-asks, transport): every batch is answered by it. `kgjudge plan
	// --oracle` passes the recorded-verdict oracle here.
	Decider decide.Decider
}

// ConfigFromEnv returns a Config filled from the environment: base URL from
// KGJUDGE_JUDGE_URL, else OPENAI_BASE_URL; model from KGJUDGE_JUDGE_MODEL;
// key from OPENAI_API_KEY. Everything else keeps its default.
func ConfigFromEnv() Config {
	c := Config{
		BaseURL: strings.TrimSpace(os.Getenv(EnvJudgeURL)),
		Model:   strings.TrimSpace(os.Getenv(EnvJudgeModel)),
		APIKey:  strings.TrimSpace(os.Getenv(EnvAPIKey)),
	}
	if c.BaseURL == "" {
		c.BaseURL = strings.TrimSpace(os.Getenv(EnvBaseURL))
	}
	return c
}

func (c Config) withDefaults() Config {
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	if c.Mode == "" {
		c.Mode = transport.ModeSchema
	}
	if c.Batching == "" {
		c.Batching = BatchingReference
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.Timeout <= 0 {
		c.Timeout = 3 * time.Minute
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 5
	}
	if c.MaxReasks <= 0 {
		c.MaxReasks = 2
	}
	if c.NoReasks {
		c.MaxReasks = 0
	}
	return c
}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	if c.Model == "" {
		return fmt.Errorf("llmjudge: no judge model (set --judge-model or %s)", EnvJudgeModel)
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("llmjudge: judge URL %q is not an http(s) URL", redactURL(c.BaseURL))
	}
	switch c.Mode {
	case transport.ModeSchema, transport.ModeObject, transport.ModeText:
	default:
		return fmt.Errorf("llmjudge: unknown response mode %q", c.Mode)
	}
	switch c.Batching {
	case BatchingReference, BatchingWhole:
	case BatchingPrefilter:
		if c.Planner == nil {
			return fmt.Errorf("llmjudge: batching %q needs a Planner", c.Batching)
		}
	default:
		return fmt.Errorf("llmjudge: unknown batching %q (want reference, whole or prefilter)", c.Batching)
	}
	if err := c.Route.Validate(); err != nil {
		return err
	}
	if c.CacheOnly && (c.NoCache || c.CacheDir == "") {
		return fmt.Errorf("llmjudge: cache-only mode needs a cache directory (and not --no-cache)")
	}
	if c.TokenBudget < 0 || c.PriceIn < 0 || c.PriceOut < 0 || c.PriceCachedIn < 0 {
		return fmt.Errorf("llmjudge: budget and prices must not be negative")
	}
	return nil
}

// redactURL keeps scheme, host and path: no user info, query or fragment.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return "(unparseable URL)"
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: strings.TrimRight(u.Path, "/")}).String()
}
