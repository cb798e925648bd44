package prefilter

import (
	"slices"
	"testing"

	"github.com/kgjudge/kgjudge/plan"
)

type tb struct {
	claims []int
	union  map[int]bool
}

func set(xs ...int) map[int]bool {
	m := map[int]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

func TestMergeSmall(t *testing.T) {
	view := func(b *tb) (map[int]bool, int, int) { return b.union, len(b.claims), 0 }
	one := func(int) int { return 1 }
	merge := func(a, b *tb) {
		a.claims = append(a.claims, b.claims...)
		for x := range b.union {
			a.union[x] = true
		}
	}
	bs := []*tb{
		{claims: []int{0}, union: set(1, 2, 3)},
		{claims: []int{1}, union: set(7, 8, 9)},
		{claims: []int{2}, union: set(2, 3, 4)}, // shares 2 with the first
		{claims: []int{3}, union: set(10, 11, 12, 13, 14)},
	}
	got := mergeSmall(bs, plan.Budget{Tokens: 6}, one, view, merge)
	// First {0,2} (2 shared, union {1,2,3,4}); then nothing else fits in 6
	// but {1} with {3} would be 8: stays apart; {0,2}+{1} = 7: apart.
	if len(got) != 3 || !slices.Equal(got[0].claims, []int{0, 2}) || len(got[0].union) != 4 {
		t.Fatalf("merged %+v", got)
	}
	// With room for everything, all merge into one batch.
	got = mergeSmall(got, plan.Budget{Tokens: 100}, one, view, merge)
	if len(got) != 1 || len(got[0].union) != 12 || len(got[0].claims) != 4 {
		t.Fatalf("merged %+v", got)
	}
}
