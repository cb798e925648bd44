package transport

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Adaptive is a concurrency limit that finds how many requests the
// endpoint takes at once: it starts at Start, adds one slot for each
// success whose latency stays within twice the best latency seen (the
// endpoint is not yet queueing; a slower success holds the limit), and
// halves on a 429 or 503 (the endpoint says it is full); it
// never goes below 1 or above Max. Attempts are observed below the retry
// wrapper (Observe), so a 429 that Retry absorbs still slows new requests.
type Adaptive struct {
	next  Completer
	max   int
	mu    sync.Mutex
	limit float64
	cur   int
	peak  int
	best  time.Duration
	wake  chan struct{}
	// throttled counts 429/503 answers seen.
	throttled int64
}

var _ Completer = (*Adaptive)(nil)

// NewAdaptive returns an Adaptive around next, starting at start slots and
// bounded by max (max < 1 means 1; start is clamped to [1, max]).
func NewAdaptive(next Completer, start, max int) *Adaptive {
	max = maxInt(max, 1)
	start = min(maxInt(start, 1), max)
	return &Adaptive{next: next, max: max, limit: float64(start), wake: make(chan struct{})}
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// Wrap sets the Completer the limiter gates (for stacks built bottom-up,
// where Observe must be placed before the limiter's own next exists).
func (a *Adaptive) Wrap(next Completer) *Adaptive {
	a.next = next
	return a
}

// AdaptiveStats is what the limiter learned.
type AdaptiveStats struct {
	Max       int   `json:"max"`
	Limit     int   `json:"limit_now"`
	Peak      int   `json:"peak_in_flight"`
	Throttled int64 `json:"throttled"`
}

// Stats returns the bound, the current limit, the most requests seen in
// flight at once and the 429/503 answers seen.
func (a *Adaptive) Stats() AdaptiveStats {
	a.mu.Lock()
	defer a.mu.Unlock()
	return AdaptiveStats{Max: a.max, Limit: int(a.limit), Peak: a.peak, Throttled: a.throttled}
}

func (a *Adaptive) acquire(ctx context.Context) error {
	for {
		a.mu.Lock()
		if a.cur < int(a.limit) {
			a.cur++
			a.peak = maxInt(a.peak, a.cur)
			a.mu.Unlock()
			return nil
		}
		ch := a.wake
		a.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// signal wakes the waiters; the caller holds mu.
func (a *Adaptive) signal() {
	close(a.wake)
	a.wake = make(chan struct{})
}

// Complete implements Completer.
func (a *Adaptive) Complete(ctx context.Context, req *Request) (*Response, error) {
	if err := a.acquire(ctx); err != nil {
		return nil, err
	}
	defer func() {
		a.mu.Lock()
		a.cur--
		a.signal()
		a.mu.Unlock()
	}()
	return a.next.Complete(ctx, req)
}

// observe adjusts the limit after one HTTP attempt.
func (a *Adaptive) observe(d time.Duration, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var se *StatusError
	switch {
	case errors.As(err, &se) && (se.Code == 429 || se.Code == 503):
		a.throttled++
		a.limit = max(1, a.limit/2)
	case err != nil:
		// Other failures say nothing about capacity.
	default:
		if a.best == 0 || d < a.best {
			a.best = d
		}
		// An LLM's latency follows its answer's length, so a slow answer
		// alone is no sign of overload: it only stops the growth.
		if d <= 2*a.best+5*time.Millisecond {
			a.limit = min(float64(a.max), a.limit+1)
		}
	}
	a.signal()
}

// Observe returns a Completer that reports each attempt through next to
// the limiter; put it below Retry so every attempt is seen.
func (a *Adaptive) Observe(next Completer) Completer {
	return Func(func(ctx context.Context, req *Request) (*Response, error) {
		start := time.Now()
		resp, err := next.Complete(ctx, req)
		if ctx.Err() == nil {
			a.observe(time.Since(start), err)
		}
		return resp, err
	})
}
