// Package cost owns token accounting for the LLM judge: usage as the API
// reports it, the per-batch / per-item / per-run ledger, and a price and
// token estimate made from text length. It must not call out, sleep or decide
// anything: wrappers that stop work when a budget is spent live in transport.
package cost

import (
	"sort"
	"sync"

	"github.com/kgjudge/kgjudge/plan"
)

// Usage is token usage as the chat-completions API reports it.
type Usage struct {
	Prompt     int64 `json:"prompt_tokens"`
	Completion int64 `json:"completion_tokens"`
	Total      int64 `json:"total_tokens"`
	// Cached is the part of Prompt the provider read from its prompt cache
	// (usage.prompt_tokens_details.cached_tokens; 0 when not reported).
	Cached int64 `json:"cached_tokens,omitempty"`
}

// Add adds o to u. A missing total is taken as prompt + completion.
func (u *Usage) Add(o Usage) {
	t := o.Total
	if t == 0 {
		t = o.Prompt + o.Completion
	}
	u.Prompt += o.Prompt
	u.Cached += o.Cached
	u.Completion += o.Completion
	u.Total += t
}

// Price is in US dollars per million tokens. CachedInPerM prices the
// prompt tokens read from the provider's prompt cache (Usage.Cached); 0
// means the same as InPerM.
type Price struct {
	InPerM       float64 `json:"price_in_per_million"`
	OutPerM      float64 `json:"price_out_per_million"`
	CachedInPerM float64 `json:"price_cached_in_per_million,omitempty"`
}

// Cost is the price of u in US dollars.
func (p Price) Cost(u Usage) float64 {
	cached := p.CachedInPerM
	if cached <= 0 {
		cached = p.InPerM
	}
	c := min(u.Cached, u.Prompt)
	return (float64(u.Prompt-c)*p.InPerM + float64(c)*cached + float64(u.Completion)*p.OutPerM) / 1e6
}

// EstimateTokens guesses the token count of s from its characters (see
// plan.EstimateTokens, which batching planners size calls with).
func EstimateTokens(s string) int { return plan.EstimateTokens(s) }

// Estimate is a forecast of the tokens and dollars a run will spend.
type Estimate struct {
	Calls            int     `json:"calls"`
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	USD              float64 `json:"usd"`
	// InstructionChars is the fixed instruction text the calls repeat
	// (characters of the prompt rendered with one empty claim and one empty
	// candidate), which prompt-volume comparisons of claim and candidate
	// lines leave out.
	InstructionChars int `json:"instruction_chars"`
	// CacheableTokens is the part of PromptTokens that is a byte-identical
	// prefix shared by every call of its prompt variant (the system
	// message: fixed instructions), which providers' prompt caches reuse.
	// USD prices it at Price.CachedInPerM, i.e. assumes a warm cache (the
	// first call of each variant in a run actually writes it).
	CacheableTokens int64 `json:"cacheable_prompt_tokens"`
}

// CacheableShare is CacheableTokens over PromptTokens (0 when none).
func (e Estimate) CacheableShare() float64 {
	if e.PromptTokens == 0 {
		return 0
	}
	return float64(e.CacheableTokens) / float64(e.PromptTokens)
}

// Add adds o to e.
func (e *Estimate) Add(o Estimate) {
	e.Calls += o.Calls
	e.InstructionChars += o.InstructionChars
	e.CacheableTokens += o.CacheableTokens
	e.PromptTokens += o.PromptTokens
	e.CompletionTokens += o.CompletionTokens
	e.USD += o.USD
}

// Batch is the ledger line of one judge batch: every call made for it
// (first ask and re-asks) and what the cache answered.
type Batch struct {
	Batch     string `json:"batch"`
	Pass      string `json:"pass"`
	Claims    int    `json:"claims"`
	Usage     Usage  `json:"usage"`
	Calls     int    `json:"calls"`    // completions that returned
	Attempts  int    `json:"attempts"` // HTTP attempts, retries included
	Reasks    int    `json:"reasks"`
	CacheHits int    `json:"cache_hits"`
	Unjudged  int    `json:"unjudged"`
}

// Item is the ledger of one (task, sample).
type Item struct {
	Task    string  `json:"task_id"`
	Sample  int     `json:"sample_idx"`
	Usage   Usage   `json:"usage"`
	USD     float64 `json:"usd"`
	Batches []Batch `json:"batches"`
}

// Report is the ledger of a run, items sorted by task then sample.
type Report struct {
	Usage    Usage   `json:"usage"`
	USD      float64 `json:"usd"`
	Calls    int     `json:"calls"`
	Attempts int     `json:"attempts"`
	Reasks   int     `json:"reasks"`
	Items    []Item  `json:"items"`
}

// Ledger collects items as they finish. It is safe for concurrent use.
type Ledger struct {
	price Price
	mu    sync.Mutex
	items []Item
}

// NewLedger returns an empty ledger that prices usage with p.
func NewLedger(p Price) *Ledger { return &Ledger{price: p} }

// AddItem records one item; its usage is the sum of its batches.
func (l *Ledger) AddItem(it Item) {
	it.Usage = Usage{}
	sort.SliceStable(it.Batches, func(a, b int) bool { return it.Batches[a].Batch < it.Batches[b].Batch })
	for _, b := range it.Batches {
		it.Usage.Add(b.Usage)
	}
	it.USD = l.price.Cost(it.Usage)
	l.mu.Lock()
	l.items = append(l.items, it)
	l.mu.Unlock()
}

// Report returns the run's ledger, sorted.
func (l *Ledger) Report() Report {
	l.mu.Lock()
	items := append([]Item(nil), l.items...)
	l.mu.Unlock()
	sort.SliceStable(items, func(a, b int) bool {
		if items[a].Task != items[b].Task {
			return items[a].Task < items[b].Task
		}
		return items[a].Sample < items[b].Sample
	})
	r := Report{Items: items}
	for _, it := range items {
		r.Usage.Add(it.Usage)
		for _, b := range it.Batches {
			r.Calls += b.Calls
			r.Attempts += b.Attempts
			r.Reasks += b.Reasks
		}
	}
	if r.Items == nil {
		r.Items = []Item{}
	}
	r.USD = l.price.Cost(r.Usage)
	return r
}
