package decide

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/llmjudge/cache"
	"github.com/kgjudge/kgjudge/llmjudge/cost"
	"github.com/kgjudge/kgjudge/llmjudge/prompt"
	"github.com/kgjudge/kgjudge/llmjudge/transport"
	"github.com/kgjudge/kgjudge/plan"
)

type memStore struct{ m map[string]cache.Entry }

func (s *memStore) Get(k string) (cache.Entry, bool) { e, ok := s.m[k]; return e, ok }
func (s *memStore) Put(es []cache.Entry) error {
	for _, e := range es {
		s.m[e.Key] = e
	}
	return nil
}
func (s *memStore) Close() error { return nil }

func ask(n int) *Ask {
	b := prompt.Batch{Pass: plan.Coverage, Lang: "en", Candidates: []kg.Triple{{Head: "a", Relation: "r", Tail: "b"}}}
	for i := 0; i < n; i++ {
		b.Claims = append(b.Claims, prompt.Claim{Label: i, Triple: kg.Triple{Head: "h", Relation: "r", Tail: string(rune('a' + i))}})
	}
	return &Ask{Name: "task \"t\" sample 0 batch coverage#000", Style: prompt.Default, Batch: b}
}

// stub decides claim i as covered when i is even; it fails with err after
// deciding the first `upto` claims.
type stub struct {
	calls int
	upto  int
	err   error
}

func (s *stub) Decide(ctx context.Context, a *Ask) (*Answer, error) {
	s.calls++
	ans := &Answer{Calls: 1}
	for i := range a.Batch.Claims {
		if s.err != nil && i >= s.upto {
			break
		}
		st := kg.Uncovered
		if a.Batch.Claims[i].Label%2 == 0 {
			st = kg.Covered
		}
		ans.Decisions = append(ans.Decisions, Decision{Claim: i, State: st, Support: []int{0}, Source: FromLLM})
	}
	return ans, s.err
}

func TestCachedKeepsPartialWorkAndAsksOnlyMisses(t *testing.T) {
	st := &memStore{m: map[string]cache.Entry{}}
	next := &stub{upto: 2, err: context.Canceled}
	c := &Cached{Next: next, Store: st, Keys: CacheKeyer{Model: "m"}}
	if _, err := c.Decide(context.Background(), ask(4)); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if len(st.m) != 2 {
		t.Fatalf("stored %d decisions made before the error, want 2", len(st.m))
	}
	next.err = nil
	ans, err := c.Decide(context.Background(), ask(4))
	if err != nil || ans.CacheHits != 2 || len(ans.Decisions) != 4 {
		t.Fatalf("%+v %v", ans, err)
	}
	for i, d := range ans.Decisions {
		if d.Claim != i || (d.State == kg.Covered) != (i%2 == 0) {
			t.Fatalf("decision %d: %+v", i, d)
		}
	}
	c.Only = true
	if _, err := c.Decide(context.Background(), ask(5)); !errors.Is(err, cache.ErrMiss) || !strings.Contains(err.Error(), "coverage#000") {
		t.Fatalf("cache-only: %v", err)
	}
}

func TestLLMBudgetAndFailureAreUnjudged(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{transport.ErrBudget, "budget"},
		{&transport.StatusError{Code: 401, Message: "bad key"}, "judge call failed: HTTP 401"},
	} {
		l := &LLM{C: transport.Func(func(ctx context.Context, r *transport.Request) (*transport.Response, error) { return nil, tc.err })}
		ans, err := l.Decide(context.Background(), ask(3))
		if err != nil || len(ans.Decisions) != 3 {
			t.Fatalf("%v %+v", err, ans)
		}
		for _, d := range ans.Decisions {
			if d.State != kg.Unjudged || !strings.HasPrefix(d.Reason, tc.want) {
				t.Fatalf("%+v", d)
			}
		}
	}
	// Usage is summed over the re-asks.
	calls := 0
	l := &LLM{MaxReasks: 2, C: transport.Func(func(ctx context.Context, r *transport.Request) (*transport.Response, error) {
		calls++
		return &transport.Response{Content: "nope", Usage: cost.Usage{Prompt: 10, Completion: 1, Total: 11}, Mode: transport.ModeText, Attempts: 1}, nil
	})}
	ans, _ := l.Decide(context.Background(), ask(2))
	if calls != 3 || ans.Usage.Total != 33 || ans.Reasks != 2 || ans.Decisions[0].State != kg.Unjudged {
		t.Fatalf("calls %d %+v", calls, ans)
	}
}
