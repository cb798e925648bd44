// Package ordered runs a function over indexes on a few goroutines and hands
// the results back in index order.
package ordered

import (
	"context"
	"runtime"
	"sync"
)

// Each computes read(ctx, i) for every i < n with a few workers and hands
// each result to deliver in index order, from the caller's goroutine (a
// panic in read is raised again there): the callers' results
// must not depend on which one finishes first. At most a window of results
// waits to be delivered, so a caller that keeps less than every result
// still holds little. deliver returns false to stop; results not yet
// delivered are then dropped.
func Each[T any](ctx context.Context, n int, read func(ctx context.Context, i int) (T, error), deliver func(i int, v T, err error) bool) {
	type result struct {
		v        T
		err      error
		panicked any
		done     chan struct{}
	}
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			v, err := read(ctx, i)
			if !deliver(i, v, err) {
				return
			}
		}
		return
	}
	results := make([]result, n)
	for i := range results {
		results[i].done = make(chan struct{})
	}
	stop := make(chan struct{})
	// window bounds the results read ahead of delivery.
	window := make(chan struct{}, 2*workers)
	next := make(chan int)
	var wg sync.WaitGroup
	go func() {
		defer close(next)
		for i := range n {
			select {
			case window <- struct{}{}:
			case <-stop:
				return
			}
			select {
			case next <- i:
			case <-stop:
				return
			}
		}
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := &results[i]
				func() {
					defer close(r.done)
					defer func() { r.panicked = recover() }()
					r.v, r.err = read(ctx, i)
				}()
			}
		}()
	}
	defer wg.Wait()
	defer close(stop)
	for i := range results {
		r := &results[i]
		<-r.done
		if r.panicked != nil {
			panic(r.panicked)
		}
		ok := deliver(i, r.v, r.err)
		var zero T
		r.v = zero
		<-window
		if !ok {
			return
		}
	}
}
