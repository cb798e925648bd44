package llmjudge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/kgjudge/kgjudge/llmjudge/cache"
	"github.com/kgjudge/kgjudge/llmjudge/cost"
	"github.com/kgjudge/kgjudge/llmjudge/prompt"
	"github.com/kgjudge/kgjudge/llmjudge/transport"
)

// Decoding is the sampling settings as sent.
type Decoding struct {
	Temperature float64 `json:"temperature"`
	Seed        *int    `json:"seed"`
	SeedRefused bool    `json:"seed_refused,omitempty"`
	MaxTokens   int     `json:"max_tokens,omitempty"`
	Mode        string  `json:"mode_requested"`
}

// ModeCount is how many completions came back in a response mode.
type ModeCount struct {
	Mode  string `json:"mode"`
	Calls int64  `json:"calls"`
}

// CacheInfo is the cache's part of the manifest.
type CacheInfo struct {
	Enabled bool   `json:"enabled"`
	Only    bool   `json:"only,omitempty"`
	Path    string `json:"path,omitempty"`
	Hits    int64  `json:"hits"`
	Misses  int64  `json:"misses"`
}

// Manifest says how a run was judged. It never holds the API key.
type Manifest struct {
	Judge         string     `json:"judge"`
	Endpoint      string     `json:"endpoint"`
	Model         string     `json:"model"`
	PromptVersion string     `json:"prompt_version"`
	PromptStyle   string     `json:"prompt_style"`
	PromptHash    string     `json:"prompt_hash"`
	Prompts       []string   `json:"prompts"`
	Batching      string     `json:"batching"`
	Validity      bool       `json:"validity_pass"`
	Routing       *RouteInfo `json:"routing,omitempty"`
	Decoding      Decoding   `json:"decoding"`
	Concurrency   int        `json:"concurrency"`
	// Adaptive is what the adaptive concurrency limit learned (absent
	// with a fixed limit).
	Adaptive      *transport.AdaptiveStats `json:"adaptive_concurrency,omitempty"`
	RPM           int                      `json:"rpm,omitempty"`
	TPM           int                      `json:"tpm,omitempty"`
	TokenBudget   int64                    `json:"token_budget,omitempty"`
	BudgetReached bool                     `json:"budget_reached,omitempty"`
	Price         cost.Price               `json:"price"`
	Tokens        cost.Usage               `json:"tokens"`
	USD           float64                  `json:"usd"`
	Calls         int                      `json:"calls"`
	Attempts      int                      `json:"attempts"`
	Retries       int64                    `json:"retries"`
	Reasks        int                      `json:"reasks"`
	Unjudged      int64                    `json:"unjudged"`
	Cache         CacheInfo                `json:"cache"`
	ResponseModes []ModeCount              `json:"response_modes"`
}

// Manifest describes the judge and what it spent so far.
func (j *Judge) Manifest() Manifest {
	r := j.ledger.Report()
	m := Manifest{
		Judge: j.name, Endpoint: j.endpoint, Model: j.cfg.Model,
		PromptVersion: prompt.Version, PromptStyle: string(j.style), PromptHash: prompt.SetHash(j.style),
		Prompts: prompt.Variants(j.style), Batching: j.planner.Name(), Validity: !j.cfg.NoValidity,
		Routing: j.routeInfo(),
		Decoding: Decoding{Temperature: j.decoding.Temperature, Seed: j.decoding.Seed,
			SeedRefused: j.negotiate.SeedRefused(), MaxTokens: j.decoding.MaxTokens, Mode: string(j.cfg.Mode)},
		Concurrency: j.cfg.Concurrency, RPM: j.cfg.RPM, TPM: j.cfg.TPM,
		TokenBudget: j.cfg.TokenBudget, BudgetReached: j.budgetHit.Load() == 1,
		Price:  j.price(),
		Tokens: r.Usage, USD: r.USD, Calls: r.Calls, Attempts: r.Attempts, Retries: j.retry.Retries(), Reasks: r.Reasks,
		Unjudged:      j.unjudged.Load(),
		Cache:         CacheInfo{Enabled: j.store != nil, Only: j.cfg.CacheOnly, Hits: j.hits.Load(), Misses: j.misses.Load()},
		ResponseModes: []ModeCount{},
	}
	if j.store != nil {
		m.Cache.Path = j.store.Path()
	}
	if j.adaptive != nil {
		st := j.adaptive.Stats()
		m.Adaptive = &st
	}
	j.modesMu.Lock()
	for _, mode := range transport.Modes() {
		if n := j.modes[mode]; n > 0 {
			m.ResponseModes = append(m.ResponseModes, ModeCount{Mode: string(mode), Calls: n})
		}
	}
	j.modesMu.Unlock()
	return m
}

// CacheStats reads the judge cache in dir (the CLI's `kgjudge cache stats`).
func CacheStats(dir string) (cache.Stats, error) { return cache.ReadStats(dir) }

// PruneCache compacts the judge cache in dir and drops what opts says (the
// CLI's `kgjudge cache prune`). Do not run it while a judge uses dir.
//
// The per-sample memo (SampleMemoFile) is derived from the verdicts: when
// prune removes any verdict the memo is dropped whole, so a pruned claim is
// asked again instead of being served from a memoised sample; the next run
// rebuilds it.
func PruneCache(dir string, opts cache.PruneOptions) (cache.PruneResult, error) {
	res, err := cache.Prune(dir, opts)
	if err != nil || res.Removed == 0 {
		return res, err
	}
	if rerr := os.Remove(filepath.Join(dir, SampleMemoFile)); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		return res, fmt.Errorf("judge cache: drop the sample memo: %w", rerr)
	}
	return res, nil
}

// CurrentPrompts lists the prompt variants of both styles as the cache
// records them, for PruneOptions.KeepPrompts ("drop stale prompts").
func CurrentPrompts() []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range append(prompt.Variants(prompt.Default), prompt.Variants(prompt.Reference)...) {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}
