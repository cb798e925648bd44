package transport

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// The wrappers' policies as plain calls, for clients that are not a
// Completer (the embeddings client, package embed): the same backoff,
// Retry-After, timeout and rate-limit rules apply to any request.

// Do runs fn under r's policy (MaxAttempts, Delay, Sleep) and returns the
// number of attempts made. Complete is Do around one completion.
func (r *Retry) Do(ctx context.Context, fn func(context.Context) error) (int, error) {
	max := r.MaxAttempts
	if max <= 0 {
		max = 5
	}
	sleep := r.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	for n := 1; ; n++ {
		err := fn(ctx)
		if err == nil {
			return n, nil
		}
		if ctx.Err() != nil || !Retryable(err) || n >= max {
			return n, &AttemptsError{Attempts: n, Err: err}
		}
		if serr := sleep(ctx, r.Delay(n, err)); serr != nil {
			return n, &AttemptsError{Attempts: n, Err: fmt.Errorf("%w (while backing off after: %v)", serr, err)}
		}
		r.retries.Add(1)
	}
}

// Do runs fn with the deadline D (none when D <= 0). Running past it
// fails with an error wrapping ErrTimeout (which Retry retries); a
// cancelled caller gets the caller's context error.
func (t Timeout) Do(ctx context.Context, fn func(context.Context) error) error {
	if t.D <= 0 {
		return fn(ctx)
	}
	c, cancel := context.WithTimeout(ctx, t.D)
	defer cancel()
	err := fn(c)
	if err != nil && ctx.Err() == nil && errors.Is(c.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w after %s: %v", ErrTimeout, t.D, err)
	}
	return err
}

// Wait holds the caller until one request of est tokens fits the limits
// (nil or zero limits: returns at once). Settle corrects the token charge
// with what the server reported.
func (r *RateLimit) Wait(ctx context.Context, est int) error {
	if r == nil {
		return ctx.Err()
	}
	sleep := r.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	if r.rpm != nil {
		if err := r.rpm.take(ctx, 1, sleep); err != nil {
			return err
		}
	}
	if r.tpm != nil {
		if err := r.tpm.take(ctx, float64(est), sleep); err != nil {
			return err
		}
	}
	return nil
}

// Settle charges (or refunds) the difference between the tokens a request
// used and the est it was admitted with.
func (r *RateLimit) Settle(est, used int) {
	if r != nil && r.tpm != nil {
		r.tpm.adjust(float64(used - est))
	}
}

// StatusOf turns a go-openai error into a *StatusError (with the response
// header's Retry-After) when it carries an HTTP status; other errors are
// returned unchanged.
func StatusOf(err error, h http.Header) error { return convertError(err, h) }
