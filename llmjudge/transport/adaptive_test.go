package transport

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestAdaptiveGrowsAndBacksOff: with a steady endpoint the limit climbs to
// its bound; 429s halve it; in-flight requests never exceed the limit.
func TestAdaptiveGrowsAndBacksOff(t *testing.T) {
	var inflight, peak atomic.Int64
	var throttle atomic.Bool
	ad := NewAdaptive(nil, 2, 12)
	bottom := Func(func(ctx context.Context, req *Request) (*Response, error) {
		n := inflight.Add(1)
		defer inflight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		if throttle.Load() {
			return nil, &StatusError{Code: 429, Message: "slow down"}
		}
		return &Response{Content: "{}"}, nil
	})
	c := ad.Wrap(ad.Observe(bottom))
	burst := func(n int) {
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.Complete(context.Background(), &Request{})
			}()
		}
		wg.Wait()
	}
	burst(200)
	st := ad.Stats()
	if st.Limit < 8 || st.Peak > 12 || peak.Load() > 12 || st.Peak < 8 {
		t.Fatalf("after a steady burst: %+v (observed peak %d), want it near its bound 12 and never above", st, peak.Load())
	}
	throttle.Store(true)
	burst(12)
	st = ad.Stats()
	if st.Limit > 2 || st.Throttled == 0 {
		t.Fatalf("after 429s: %+v, want the limit halved down", st)
	}
	// A cancelled caller waiting for a slot gets its context error.
	full := NewAdaptive(Func(func(ctx context.Context, req *Request) (*Response, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}), 1, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go full.Complete(ctx, &Request{})
	time.Sleep(10 * time.Millisecond)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	if _, err := full.Complete(ctx2, &Request{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting caller: %v", err)
	}
	cancel()
}
