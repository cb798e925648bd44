// Package decide owns turning one batch of claims into decisions: the
// Decider interface, the LLM decider (prompt, strict parse, re-ask only
// what is missing or invalid, unjudged after the limit) and the cache
// wrapper around any Decider. It must not plan batches, map local ids to a
// sample's indices, or score anything.
package decide

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/llmjudge/cache"
	"github.com/kgjudge/kgjudge/llmjudge/cost"
	"github.com/kgjudge/kgjudge/llmjudge/prompt"
	"github.com/kgjudge/kgjudge/llmjudge/transport"
)

// Ask is one batch to decide. Name ("task X sample N batch coverage#2")
// names it in errors.
type Ask struct {
	Name  string
	Style prompt.Style
	Batch prompt.Batch
}

// Source says where a decision came from.
type Source string

const (
	FromLLM   Source = "llm"
	FromCache Source = "cache"
	// FromFailure marks an unjudged decision (call failed, budget, invalid).
	FromFailure Source = "failure"
)

// Decision is the outcome for Ask.Batch.Claims[Claim]. Support holds
// candidate positions (local ids).
type Decision struct {
	Claim   int
	State   kg.State
	Kind    kg.CoverageKind
	Support []int
	Reason  string
	Source  Source
	Mode    transport.Mode
	Prompt  string // prompt variant hash the decision was made under
}

// Answer is the outcome of a batch. Decisions are sorted by Claim; when
// Decide returns no error there is exactly one per claim.
type Answer struct {
	Decisions []Decision
	Usage     cost.Usage
	Calls     int
	Attempts  int
	Reasks    int
	CacheHits int
	Modes     []transport.Mode // mode of each call, in call order
}

func (a *Answer) sort() {
	sort.Slice(a.Decisions, func(i, j int) bool { return a.Decisions[i].Claim < a.Decisions[j].Claim })
}

// Decider decides a batch. On error the Answer (never nil) holds the
// decisions made before the error, which callers may keep (e.g. cache).
type Decider interface {
	Decide(ctx context.Context, ask *Ask) (*Answer, error)
}

// Decoding is the sampling settings sent with every call.
type Decoding struct {
	Temperature float64
	Seed        *int
	MaxTokens   int
}

// String is the canonical form that goes into cache keys and manifests.
func (d Decoding) String() string {
	seed := "none"
	if d.Seed != nil {
		seed = fmt.Sprint(*d.Seed)
	}
	return fmt.Sprintf("temperature=%g seed=%s max_tokens=%d", d.Temperature, seed, d.MaxTokens)
}

// LLM decides by asking a model through a Completer. It re-asks, at most
// MaxReasks times, only the claims whose answer was missing or invalid;
// what is still invalid after that is unjudged with the last problem as the
// reason. A failed call (after the transport's own retries) leaves the
// batch's open claims unjudged; a spent budget leaves them unjudged with
// reason "budget". Only a cancelled context is returned as an error.
type LLM struct {
	C         transport.Completer
	Decoding  Decoding
	Mode      transport.Mode // strongest JSON mode to ask for (default json_schema)
	MaxReasks int
}

var _ Decider = (*LLM)(nil)

// Decide implements Decider.
func (l *LLM) Decide(ctx context.Context, ask *Ask) (*Answer, error) {
	ans := &Answer{}
	b := ask.Batch
	pos := map[int]int{} // label -> claim position
	for i, c := range b.Claims {
		pos[c.Label] = i
	}
	pending := append([]prompt.Claim(nil), b.Claims...)
	feedback, lastProblem := "", map[int]string{}
	mode := l.Mode
	if mode == "" {
		mode = transport.ModeSchema
	}
	cp := "GT-"
	if b.Pass == "validity" {
		cp = "P-"
	}
	for round := 0; round <= l.MaxReasks && len(pending) > 0; round++ {
		if err := ctx.Err(); err != nil {
			ans.sort()
			return ans, fmt.Errorf("%s: %w", ask.Name, err)
		}
		sub := b
		sub.Claims = pending
		r, err := prompt.Render(ask.Style, sub, feedback)
		if err != nil {
			return ans, fmt.Errorf("%s: %w", ask.Name, err)
		}
		if round > 0 {
			ans.Reasks++
		}
		resp, err := l.C.Complete(ctx, &transport.Request{
			Messages:    []transport.Message{{Role: "system", Content: r.System}, {Role: "user", Content: r.User}},
			Mode:        mode,
			SchemaName:  r.SchemaName,
			Schema:      r.Schema,
			Temperature: l.Decoding.Temperature,
			Seed:        l.Decoding.Seed,
			MaxTokens:   l.Decoding.MaxTokens,
		})
		if err != nil {
			ans.Attempts += transport.Attempts(err)
			if ctx.Err() != nil {
				ans.sort()
				return ans, fmt.Errorf("%s: %w", ask.Name, err)
			}
			reason := "judge call failed: " + err.Error()
			if errors.Is(err, transport.ErrBudget) {
				reason = "budget"
			}
			for _, c := range pending {
				ans.Decisions = append(ans.Decisions, Decision{Claim: pos[c.Label], State: kg.Unjudged, Support: []int{}, Reason: reason, Source: FromFailure, Prompt: r.Variant})
			}
			ans.sort()
			return ans, nil
		}
		ans.Calls++
		ans.Attempts += max(resp.Attempts, 1)
		ans.Usage.Add(resp.Usage)
		ans.Modes = append(ans.Modes, resp.Mode)
		res := prompt.Parse(ask.Style, sub, resp.Content)
		for _, a := range res.Answers {
			st := kg.Uncovered
			if a.Covered {
				st = kg.Covered
			}
			ans.Decisions = append(ans.Decisions, Decision{
				Claim: pos[a.Label], State: st, Kind: a.Kind, Support: a.Support,
				Reason: a.Reason, Source: FromLLM, Mode: resp.Mode, Prompt: r.Variant,
			})
		}
		var next []prompt.Claim
		for _, c := range pending {
			if why, bad := res.Problems[c.Label]; bad {
				next = append(next, c)
				lastProblem[c.Label] = why
			}
		}
		pending = next
		feedback = res.ProblemSummary(cp, 8)
	}
	for _, c := range pending {
		ans.Decisions = append(ans.Decisions, Decision{
			Claim: pos[c.Label], State: kg.Unjudged, Support: []int{}, Source: FromFailure,
			Reason: fmt.Sprintf("no valid verdict after %d attempt(s): %s", l.MaxReasks+1, lastProblem[c.Label]),
		})
	}
	ans.sort()
	return ans, nil
}

// CacheKeyer gives the cache key parts that do not come from the batch.
// The endpoint is deliberately not one of them (cache.KeyFormat).
type CacheKeyer struct {
	Model    string
	Decoding Decoding
}

// Cached answers claims from a Store and asks Next only for the rest (in one
// sub-batch with the same candidates, so local ids keep their meaning).
// Decided claims (covered or not) are written as soon as Next returns, even
// when it returns an error; unjudged ones are never written, so a rerun asks
// them again. With Only set, a miss fails the batch with cache.ErrMiss
// instead of calling out.
type Cached struct {
	Next  Decider
	Store cache.Store
	Keys  CacheKeyer
	Only  bool
	// Now stamps entries; nil uses time.Now.
	Now func() time.Time
}

var _ Decider = (*Cached)(nil)

// damagedStore is a Store that is told about entries found unusable on use
// (cache.File: it drops them and reports them in Problems).
type damagedStore interface {
	Damaged(key string, why error)
}

// KeyFor returns the cache key of claim i of ask.
func (c *Cached) KeyFor(ask *Ask, i int) (string, string, error) {
	variant, err := prompt.VariantHash(ask.Style, ask.Batch.Pass, ask.Batch.Lang)
	if err != nil {
		return "", "", err
	}
	cands := make([]string, len(ask.Batch.Candidates))
	for j, t := range ask.Batch.Candidates {
		cands[j] = t.String()
	}
	return cache.Key(cache.KeyParts{
		Format: cache.KeyFormat, Model: c.Keys.Model, Prompt: variant,
		Decoding: c.Keys.Decoding.String(), Pass: string(ask.Batch.Pass),
		Claim: ask.Batch.Claims[i].Triple.String(), Candidates: cands,
	}), variant, nil
}

// Decide implements Decider.
func (c *Cached) Decide(ctx context.Context, ask *Ask) (*Answer, error) {
	ans := &Answer{}
	keys := make([]string, len(ask.Batch.Claims))
	var variant string
	var missIdx []int
	for i := range ask.Batch.Claims {
		k, v, err := c.KeyFor(ask, i)
		if err != nil {
			return ans, fmt.Errorf("%s: %w", ask.Name, err)
		}
		keys[i], variant = k, v
		e, ok := c.Store.Get(k)
		if ok {
			// A damaged entry (a support index beyond this batch's
			// candidates, from a hand-edited or corrupted file) is a
			// miss: asked again, and the new decision supersedes it.
			if err := e.Check(len(ask.Batch.Candidates)); err != nil {
				if d, isD := c.Store.(damagedStore); isD {
					d.Damaged(k, err)
				}
				ok = false
			}
		}
		if ok {
			sup := append([]int{}, e.Support...)
			ans.Decisions = append(ans.Decisions, Decision{Claim: i, State: e.State, Kind: e.Kind, Support: sup,
				Reason: e.Reason, Source: FromCache, Mode: transport.Mode(e.Mode), Prompt: e.Prompt})
			ans.CacheHits++
			continue
		}
		missIdx = append(missIdx, i)
	}
	if len(missIdx) == 0 {
		ans.sort()
		return ans, nil
	}
	if c.Only {
		ans.sort()
		var labels []string
		for _, i := range missIdx {
			labels = append(labels, fmt.Sprint(ask.Batch.Claims[i].Label))
		}
		return ans, fmt.Errorf("%s: %d claim(s) (labels %s): %w", ask.Name, len(missIdx), strings.Join(labels, ","), cache.ErrMiss)
	}
	sub := *ask
	sub.Batch.Claims = make([]prompt.Claim, len(missIdx))
	for j, i := range missIdx {
		sub.Batch.Claims[j] = ask.Batch.Claims[i]
	}
	got, err := c.Next.Decide(ctx, &sub)
	if got == nil {
		got = &Answer{}
	}
	ans.Usage.Add(got.Usage)
	ans.Calls += got.Calls
	ans.Attempts += got.Attempts
	ans.Reasks += got.Reasks
	ans.CacheHits += got.CacheHits
	ans.Modes = append(ans.Modes, got.Modes...)
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	var entries []cache.Entry
	for _, d := range got.Decisions {
		i := missIdx[d.Claim]
		d.Claim = i
		ans.Decisions = append(ans.Decisions, d)
		if d.Source == FromLLM && (d.State == kg.Covered || d.State == kg.Uncovered) {
			p := d.Prompt
			if p == "" {
				p = variant
			}
			entries = append(entries, cache.Entry{Key: keys[i], At: now().UTC(), Model: c.Keys.Model, Prompt: p,
				Pass: string(ask.Batch.Pass), Mode: string(d.Mode), State: d.State, Kind: d.Kind, Support: d.Support, Reason: d.Reason})
		}
	}
	ans.sort()
	if perr := c.Store.Put(entries); perr != nil {
		return ans, fmt.Errorf("%s: %w", ask.Name, errors.Join(perr, err))
	}
	return ans, err
}
