package transport

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Timeout bounds each request it passes to Next.
type Timeout struct {
	Next Completer
	D    time.Duration
}

var _ Completer = Timeout{}

// Complete implements Completer. A request that runs past D fails with an
// error wrapping ErrTimeout (which Retry retries); a cancelled caller gets
// the caller's context error.
func (t Timeout) Complete(ctx context.Context, req *Request) (*Response, error) {
	var resp *Response
	err := t.Do(ctx, func(ctx context.Context) error {
		var err error
		resp, err = t.Next.Complete(ctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// Limit lets at most N requests run through it at once.
type Limit struct {
	next Completer
	sem  chan struct{}
	peak atomic.Int64
	cur  atomic.Int64
}

var _ Completer = (*Limit)(nil)

// NewLimit returns a Limit of n (n < 1 means 1).
func NewLimit(next Completer, n int) *Limit {
	return &Limit{next: next, sem: make(chan struct{}, max(n, 1))}
}

// Peak is the most requests seen in flight at once.
func (l *Limit) Peak() int64 { return l.peak.Load() }

// Complete implements Completer.
func (l *Limit) Complete(ctx context.Context, req *Request) (*Response, error) {
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { l.cur.Add(-1); <-l.sem }()
	c := l.cur.Add(1)
	for {
		p := l.peak.Load()
		if c <= p || l.peak.CompareAndSwap(p, c) {
			break
		}
	}
	return l.next.Complete(ctx, req)
}

// Budget refuses new requests once the tokens spent through it reach Max.
// Requests already in flight finish, so a run may overshoot Max by at most
// what its concurrent requests spend.
type Budget struct {
	next  Completer
	max   int64
	spent atomic.Int64
}

var _ Completer = (*Budget)(nil)

// NewBudget returns a Budget of max tokens (max <= 0: unlimited); spent
// starts the count (e.g. tokens already spent by earlier items).
func NewBudget(next Completer, max int64) *Budget { return &Budget{next: next, max: max} }

// Spent returns the tokens counted so far.
func (b *Budget) Spent() int64 { return b.spent.Load() }

// Complete implements Completer.
func (b *Budget) Complete(ctx context.Context, req *Request) (*Response, error) {
	if b.max > 0 {
		if s := b.spent.Load(); s >= b.max {
			return nil, fmt.Errorf("%w: %d of %d tokens spent", ErrBudget, s, b.max)
		}
	}
	resp, err := b.next.Complete(ctx, req)
	if err == nil {
		t := resp.Usage.Total
		if t == 0 {
			t = resp.Usage.Prompt + resp.Usage.Completion
		}
		b.spent.Add(t)
	}
	return resp, err
}

// bucket is a token bucket refilled continuously at rate per second.
type bucket struct {
	mu    sync.Mutex
	cap   float64
	level float64
	rate  float64
	last  time.Time
	now   func() time.Time
}

func newBucket(perMinute int, now func() time.Time) *bucket {
	c := float64(perMinute)
	return &bucket{cap: c, level: c, rate: c / 60, last: now(), now: now}
}

func (b *bucket) refill() {
	t := b.now()
	b.level += t.Sub(b.last).Seconds() * b.rate
	if b.level > b.cap {
		b.level = b.cap
	}
	b.last = t
}

// take waits until n units are available and takes them.
func (b *bucket) take(ctx context.Context, n float64, sleep func(context.Context, time.Duration) error) error {
	if n > b.cap {
		n = b.cap
	}
	for {
		b.mu.Lock()
		b.refill()
		if b.level >= n {
			b.level -= n
			b.mu.Unlock()
			return nil
		}
		wait := time.Duration((n - b.level) / b.rate * float64(time.Second))
		b.mu.Unlock()
		if err := sleep(ctx, wait+time.Millisecond); err != nil {
			return err
		}
	}
}

// adjust charges (or refunds) d units after the fact.
func (b *bucket) adjust(d float64) {
	b.mu.Lock()
	b.refill()
	b.level -= d
	if b.level > b.cap {
		b.level = b.cap
	}
	b.mu.Unlock()
}

// RateLimit holds requests to RPM requests and TPM tokens per minute (either
// 0: unlimited). Tokens are charged up front from the prompt estimate and
// corrected with the usage the server reports.
type RateLimit struct {
	next Completer
	rpm  *bucket
	tpm  *bucket
	// Sleep waits; nil sleeps on a timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

var _ Completer = (*RateLimit)(nil)

// NewRateLimit returns a RateLimit; now may be nil (time.Now).
func NewRateLimit(next Completer, rpm, tpm int, now func() time.Time) *RateLimit {
	if now == nil {
		now = time.Now
	}
	r := &RateLimit{next: next}
	if rpm > 0 {
		r.rpm = newBucket(rpm, now)
	}
	if tpm > 0 {
		r.tpm = newBucket(tpm, now)
	}
	return r
}

// Complete implements Completer.
func (r *RateLimit) Complete(ctx context.Context, req *Request) (*Response, error) {
	est := req.EstimatedTokens()
	if err := r.Wait(ctx, est); err != nil {
		return nil, err
	}
	resp, err := r.next.Complete(ctx, req)
	if err == nil {
		r.Settle(est, int(resp.Usage.Total))
	}
	return resp, err
}

// Negotiate finds what the server accepts: it starts each request at the
// strongest JSON mode not yet refused, steps down (json_schema ->
// json_object -> text) when the server answers 400/422 about the response
// format, and drops the seed when the server refuses it. What it learns is
// kept for later requests. Response.Mode and SeedSent say what was used.
type Negotiate struct {
	next   Completer
	floor  atomic.Int32 // rank of the strongest mode still allowed
	noSeed atomic.Bool
	counts sync.Map // Mode -> *atomic.Int64
}

var _ Completer = (*Negotiate)(nil)

// NewNegotiate returns a Negotiate around next.
func NewNegotiate(next Completer) *Negotiate { return &Negotiate{next: next} }

// SeedRefused says whether the server refused the seed.
func (n *Negotiate) SeedRefused() bool { return n.noSeed.Load() }

// ModeCounts returns how many responses came in each mode, strongest first.
func (n *Negotiate) ModeCounts() map[Mode]int64 {
	out := map[Mode]int64{}
	for _, m := range Modes() {
		if v, ok := n.counts.Load(m); ok {
			out[m] = v.(*atomic.Int64).Load()
		}
	}
	return out
}

func (n *Negotiate) lower(to Mode) {
	r := int32(modeRank(to))
	for {
		cur := n.floor.Load()
		if cur >= r || n.floor.CompareAndSwap(cur, r) {
			return
		}
	}
}

// Complete implements Completer.
func (n *Negotiate) Complete(ctx context.Context, req *Request) (*Response, error) {
	r := *req
	if r.Mode == "" {
		r.Mode = ModeText
	}
	for {
		if f := int(n.floor.Load()); modeRank(r.Mode) < f {
			r.Mode = Modes()[f]
		}
		if n.noSeed.Load() {
			r.Seed = nil
		}
		resp, err := n.next.Complete(ctx, &r)
		if err == nil {
			v, _ := n.counts.LoadOrStore(resp.Mode, new(atomic.Int64))
			v.(*atomic.Int64).Add(1)
			return resp, nil
		}
		var se *StatusError
		if !errors.As(err, &se) || (se.Code != 400 && se.Code != 422) {
			return nil, err
		}
		switch {
		case r.Seed != nil && se.mentions("seed"):
			n.noSeed.Store(true)
		case r.Mode != ModeText && se.mentions("response_format", "json_schema", "json_object", "schema", "format", "guided", "structured", "grammar"):
			n.lower(Modes()[modeRank(r.Mode)+1])
		default:
			return nil, err
		}
	}
}
