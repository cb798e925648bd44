package plan

import (
	"context"
	"reflect"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

func sample(nGT, nPred int) (*kg.Task, *kg.Prediction) {
	t := &kg.Task{ID: "t"}
	for i := 0; i < nGT; i++ {
		t.Triples = append(t.Triples, kg.GTTriple{Triple: kg.Triple{Head: "h", Relation: "r", Tail: "t"}})
	}
	p := &kg.Prediction{}
	for i := 0; i < nPred; i++ {
		p.Triples = append(p.Triples, kg.Triple{Head: "h"})
	}
	return t, p
}

func TestSplitMatchesReference(t *testing.T) {
	// Python: divmod(12, 5) = (2, 2): sizes 3,3,2,2,2.
	got := Split(12, 5)
	want := [][2]int{{0, 3}, {3, 6}, {6, 8}, {8, 10}, {10, 12}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Split(12,5) = %v, want %v", got, want)
	}
	if got := Split(3, 5); len(got) != 3 {
		t.Fatalf("Split(3,5) = %v, want 3 batches of 1", got)
	}
	if Split(0, 5) != nil {
		t.Fatal("Split(0,5) should be empty")
	}
}

func TestPlannersCheck(t *testing.T) {
	task, pred := sample(12, 7)
	for _, p := range []Planner{Reference{}, WholeGraph{Size: 4}} {
		bs, err := p.Plan(context.Background(), task, pred)
		if err != nil {
			t.Fatal(err)
		}
		missing, err := Check(bs, 12, 7)
		if err != nil {
			t.Fatalf("%s: %v", p.Name(), err)
		}
		if len(missing[Coverage])+len(missing[Validity]) != 0 {
			t.Fatalf("%s: missing %v", p.Name(), missing)
		}
	}
	if _, err := Check([]Batch{{Pass: Coverage, Claims: []int{1, 1}}}, 3, 3); err == nil {
		t.Fatal("duplicate claim not caught")
	}
	if _, err := Check([]Batch{{Pass: Coverage, Claims: []int{0}, Candidates: []int{3}}}, 3, 3); err == nil {
		t.Fatal("out-of-range candidate not caught")
	}
	m, err := Check([]Batch{{Pass: Coverage, Claims: []int{0}, Candidates: []int{0, 1}}}, 3, 2)
	if err != nil || !reflect.DeepEqual(m[Coverage], []int{1, 2}) || !reflect.DeepEqual(m[Validity], []int{0, 1}) {
		t.Fatalf("missing = %v, %v", m, err)
	}
}
