package cost

import "testing"

func TestEstimateAndPrice(t *testing.T) {
	if n := EstimateTokens("abcdefgh"); n != 2 {
		t.Fatalf("latin: %d", n)
	}
	if n := EstimateTokens("北京大学"); n != 4 {
		t.Fatalf("cjk: %d", n)
	}
	p := Price{InPerM: 2, OutPerM: 8}
	if c := p.Cost(Usage{Prompt: 1_000_000, Completion: 500_000}); c != 6 {
		t.Fatalf("cost %v", c)
	}
}

func TestLedgerSortsAndSums(t *testing.T) {
	l := NewLedger(Price{InPerM: 1})
	l.AddItem(Item{Task: "b", Batches: []Batch{{Batch: "coverage#001", Usage: Usage{Prompt: 10, Completion: 5}, Calls: 1, Attempts: 2}}})
	l.AddItem(Item{Task: "a", Sample: 1, Batches: []Batch{{Batch: "x", Usage: Usage{Prompt: 1, Total: 1}, Reasks: 1}}})
	r := l.Report()
	if r.Items[0].Task != "a" || r.Usage.Total != 16 || r.Calls != 1 || r.Attempts != 2 || r.Reasks != 1 || r.Items[1].Usage.Total != 15 {
		t.Fatalf("%+v", r)
	}
}
