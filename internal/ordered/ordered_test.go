package ordered

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestEach(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 100} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var got []int
			Each(context.Background(), n, func(_ context.Context, i int) (int, error) {
				// Later indexes finish first: the order must still be
				// index order.
				time.Sleep(time.Duration((n-i)%5) * time.Millisecond)
				if i%3 == 1 {
					return i * i, errors.New("odd one")
				}
				return i * i, nil
			}, func(i, v int, err error) bool {
				if v != i*i || (err != nil) != (i%3 == 1) {
					t.Errorf("index %d: %d, %v", i, v, err)
				}
				got = append(got, i)
				return true
			})
			if len(got) != n {
				t.Fatalf("%d delivered, want %d", len(got), n)
			}
			for i, g := range got {
				if g != i {
					t.Fatalf("delivered in order %v", got)
				}
			}
		})
	}
}

func TestEachStops(t *testing.T) {
	delivered := 0
	Each(context.Background(), 1000, func(_ context.Context, i int) (int, error) { return i, nil },
		func(i, _ int, _ error) bool { delivered++; return i < 9 })
	if delivered != 10 {
		t.Errorf("%d delivered after deliver said stop at 9, want 10", delivered)
	}
}

func TestEachPanicReachesCaller(t *testing.T) {
	defer func() {
		if r := recover(); r != "boom 5" {
			t.Errorf("recovered %v, want the worker's panic", r)
		}
	}()
	Each(context.Background(), 20, func(_ context.Context, i int) (int, error) {
		if i == 5 {
			panic(fmt.Sprintf("boom %d", i))
		}
		return i, nil
	}, func(int, int, error) bool { return true })
	t.Errorf("Each returned after a worker panicked")
}
