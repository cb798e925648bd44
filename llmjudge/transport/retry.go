package transport

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"sync/atomic"
	"time"
)

// Retry retries transient failures (429, 408, 409, 5xx, timeouts, network
// errors) with exponential backoff and jitter. On 429 and 503 it waits at
// least the server's Retry-After (capped by MaxRetryAfter). It never retries
// 4xx answers, ErrBudget, or a cancelled caller.
type Retry struct {
	Next Completer
	// MaxAttempts counts the first attempt; 0 means 5.
	MaxAttempts int
	// Base is the first backoff (0: 500ms); Max caps any backoff (0: 30s).
	Base, Max time.Duration
	// MaxRetryAfter caps a server's Retry-After (0: 2m).
	MaxRetryAfter time.Duration
	// Jitter returns a number in [0,1); nil uses math/rand/v2.
	Jitter func() float64
	// Sleep waits; nil sleeps on a timer. Tests record the delays with it.
	Sleep func(ctx context.Context, d time.Duration) error

	retries atomic.Int64
}

var _ Completer = (*Retry)(nil)

// Retries returns the number of retries made so far (attempts after the first).
func (r *Retry) Retries() int64 { return r.retries.Load() }

// Retryable says whether err is transient.
func Retryable(err error) bool {
	var se *StatusError
	switch {
	case errors.Is(err, ErrBudget):
		return false
	case errors.As(err, &se):
		return se.Retryable()
	case errors.Is(err, ErrTimeout), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// Delay is the backoff before retry number n (1-based) after err.
func (r *Retry) Delay(n int, err error) time.Duration {
	base, max := r.Base, r.Max
	if base <= 0 {
		base = 500 * time.Millisecond
	}
	if max <= 0 {
		max = 30 * time.Second
	}
	d := base << min(n-1, 20)
	if d > max || d <= 0 {
		d = max
	}
	j := r.Jitter
	if j == nil {
		j = rand.Float64
	}
	// Equal jitter: half fixed, half random.
	d = d/2 + time.Duration(j()*float64(d/2))
	var se *StatusError
	if errors.As(err, &se) && (se.Code == 429 || se.Code == 503) && se.RetryAfter > 0 {
		ra, capRA := se.RetryAfter, r.MaxRetryAfter
		if capRA <= 0 {
			capRA = 2 * time.Minute
		}
		if ra > capRA {
			ra = capRA
		}
		if ra > d {
			d = ra
		}
	}
	return d
}

// Complete implements Completer.
func (r *Retry) Complete(ctx context.Context, req *Request) (*Response, error) {
	var resp *Response
	n, err := r.Do(ctx, func(ctx context.Context) error {
		var err error
		resp, err = r.Next.Complete(ctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	resp.Attempts = n
	return resp, nil
}
