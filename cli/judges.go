package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/kgjudge/kgjudge/alias"
	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/llmjudge"
	"github.com/kgjudge/kgjudge/llmjudge/cost"
	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/matcher/prefilter"
)

// newJudge builds the judge named by --judge. The returned close func is
// never nil.
func newJudge(ctx context.Context, o scoreOptions, taskIDs []string, mapping map[string]string) (matcher.Judge, func() error, error) {
	nop := func() error { return nil }
	if o.judge != nil {
		return o.judge, nop, nil
	}
	switch o.Judge {
	case "offline":
		ua, err := loadAliases(o.Aliases)
		if err != nil {
			return nil, nop, err
		}
		off := matcher.Offline{Concepts: ua.concepts, Aliases: ua.sets}
		if o.embedder != nil {
			off.Embedder = o.embedder
		}
		return off, nop, nil
	case "replay":
		src := o.Verdicts
		if src == "" {
			src = o.Pred
		}
		evals, err := ingest.ReadEvals(ctx, src)
		if err != nil {
			// A replay with some unreadable records would silently score
			// fewer samples: refuse it whole.
			var fe *ingest.FileErrors
			if errors.As(err, &fe) || ingest.IsInputError(err) {
				return nil, nop, &UserError{Err: err}
			}
			return nil, nop, err
		}
		if len(evals) == 0 {
			return nil, nop, userErrorf("--judge replay: no recorded verdicts found in %s (expected reference eval outputs or trajectory lines ending with coverage_details)", src)
		}
		r, err := matcher.NewReplay(evals, taskIDs, mapping)
		if err != nil {
			return nil, nop, &UserError{Err: err}
		}
		return r, nop, nil
	case "openai":
		cfg := llmjudgeConfig(o)
		if cfg.Batching == llmjudge.BatchingPrefilter {
			ua, err := loadAliases(o.Aliases)
			if err != nil {
				return nil, nop, err
			}
			po := prefilter.Options{Concepts: ua.concepts, Aliases: ua.sets}
			if o.embedder != nil {
				po.Embedder = o.embedder
			}
			cfg.Planner = prefilter.Planner{Options: po}
		}
		j, err := llmjudge.New(ctx, cfg)
		if err != nil {
			// Configuration the user gave: model, URL, cache directory.
			return nil, nop, &UserError{Err: err}
		}
		return j, j.Close, nil
	}
	return nil, nop, userErrorf("--judge: unknown judge %q", o.Judge)
}

// userAliases is an --aliases file, ready for the matchers (nil: none).
type userAliases struct {
	concepts *alias.Concepts
	sets     [][]string
}

func loadAliases(path string) (userAliases, error) {
	if path == "" {
		return userAliases{}, nil
	}
	ua, err := alias.LoadAliasFile(path)
	if err != nil {
		return userAliases{}, &UserError{Err: fmt.Errorf("--aliases: %w", err)}
	}
	return userAliases{concepts: alias.BuiltinConcepts().With(ua.Concepts), sets: ua.Sets}, nil
}

func llmjudgeConfig(o scoreOptions) llmjudge.Config {
	cfg := llmjudge.ConfigFromEnv()
	if o.JudgeURL != "" {
		cfg.BaseURL = o.JudgeURL
	}
	if o.JudgeModel != "" {
		cfg.Model = o.JudgeModel
	}
	if o.Store != ":memory:" {
		cfg.CacheDir = filepath.Join(o.Store, "judge-cache")
	}
	cfg.NoCache, cfg.CacheOnly = o.NoCache, o.CacheOnly
	cfg.TokenBudget = o.MaxTokens
	cfg.PriceIn, cfg.PriceOut = o.PriceIn, o.PriceOut
	cfg.Concurrency = o.Concurrency
	cfg.Timeout, cfg.MaxAttempts = o.Timeout, o.Attempts
	cfg.RPM, cfg.TPM = o.RPM, o.TPM
	cfg.Batching = o.Batching
	return cfg
}

// runManifest is summary.json's "manifest": everything that decides the
// numbers, and nothing that changes between two identical runs (tokens spent
// and cache hits of one invocation go to invocation.json), so that a rerun
// from the cache writes a byte-identical summary.
type runManifest struct {
	Version  string             `json:"kgjudge_version"`
	Protocol matcher.Protocol   `json:"protocol"`
	Judge    string             `json:"judge"`
	LLM      *llmjudge.Manifest `json:"llm_judge,omitempty"`
	// Embedding says whether the prefilter's embedding stage was on.
	Embedding embedManifest `json:"embedding"`
}

// invocation is OUT/invocation.json: what this run of the command spent.
type invocation struct {
	LLM    *llmjudge.Manifest `json:"llm_judge,omitempty"`
	Ledger *cost.Report       `json:"ledger,omitempty"`
}

// stableManifest drops what one invocation spent or found out from a judge
// manifest (a rerun from the cache makes no call, so it cannot know them).
func stableManifest(m llmjudge.Manifest) *llmjudge.Manifest {
	m.BudgetReached = false
	m.Tokens = cost.Usage{}
	m.USD, m.Calls, m.Attempts, m.Retries, m.Reasks, m.Unjudged = 0, 0, 0, 0, 0, 0
	m.Cache.Hits, m.Cache.Misses, m.Cache.Path = 0, 0, ""
	m.Decoding.SeedRefused = false
	m.ResponseModes = nil
	return &m
}
