package cayley

import (
	"context"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/storetest"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"task-001", "task-001"},
		{"a b/c#d", "a%20b%2Fc%23d"},
		{"名前", "%E5%90%8D%E5%89%8D"},
		{"", ""},
		{"<>%", "%3C%3E%25"},
	} {
		if got := escape(c.in); got != c.want {
			t.Errorf("escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "a b", "名前 / 1", "%", "%zz", "\xff\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := escape(s)
		back, err := unescape(e)
		if err != nil || back != s {
			t.Fatalf("unescape(escape(%q)) = %q, %v", s, back, err)
		}
		if e != escape(s) {
			t.Fatalf("escape(%q) not deterministic", s)
		}
	})
}

func bothBackends(t *testing.T, fn func(t *testing.T, s *Store)) {
	for name, path := range map[string]string{"leveldb": t.TempDir(), "memstore": Memory} {
		t.Run(name, func(t *testing.T) {
			s := openT(t, path)
			defer s.Close()
			fn(t, s)
		})
	}
}

// TestPutTwiceWritesNothing: the second write of an unchanged graph
// applies no quad change at all.
func TestPutTwiceWritesNothing(t *testing.T) {
	bothBackends(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		task := storetest.Tasks()[0]
		p := storetest.Predictions()[0]
		v := storetest.VerdictSets()[0]
		for i := 0; i < 2; i++ {
			if err := s.PutTask(ctx, task); err != nil {
				t.Fatal(err)
			}
			if i == 1 && s.deltas != 0 {
				t.Errorf("second PutTask applied %d deltas", s.deltas)
			}
			if err := s.PutPrediction(ctx, p.Key, p.Prediction); err != nil {
				t.Fatal(err)
			}
			if i == 1 && s.deltas != 0 {
				t.Errorf("second PutPrediction applied %d deltas", s.deltas)
			}
			if err := s.PutVerdicts(ctx, v); err != nil {
				t.Fatal(err)
			}
			if i == 1 && s.deltas != 0 {
				t.Errorf("second PutVerdicts applied %d deltas", s.deltas)
			}
		}
	})
}

// TestQuadModel pins the labels, IRIs and direct edges other tools rely on.
func TestQuadModel(t *testing.T) {
	bothBackends(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		key := kgstore.SampleKey{Run: "run/b", TaskID: "名前 1", Sample: 2}
		p := kg.Prediction{Triples: []kg.Triple{
			{Head: "Marie Curie", Relation: "born in", Tail: "Warsaw"},
			{Head: "Marie Curie", Relation: "born in", Tail: "Warsaw"},
		}}
		if err := s.PutPrediction(ctx, key, p); err != nil {
			t.Fatal(err)
		}
		label := quad.IRI("pred:run%2Fb/%E5%90%8D%E5%89%8D%201/2")
		if got := predLabel(key); got != label {
			t.Fatalf("predLabel = %v, want %v", got, label)
		}
		quads, err := s.graphQuads(ctx, label)
		if err != nil {
			t.Fatal(err)
		}
		have := map[quad.Quad]bool{}
		for _, q := range quads {
			have[q] = true
		}
		for _, q := range []quad.Quad{
			{Subject: quad.IRI(string(label) + "#entity/Marie%20Curie"), Predicate: quad.String("born in"), Object: quad.IRI(string(label) + "#entity/Warsaw"), Label: label},
			{Subject: label, Predicate: pType, Object: tPrediction, Label: label},
			{Subject: label, Predicate: pRun, Object: quad.String("run/b"), Label: label},
			// The triples, in order and with repeats, as one record.
			{Subject: label, Predicate: pTripleRecords, Object: quad.String(`[["Marie Curie","born in","Warsaw"],["Marie Curie","born in","Warsaw"]]`), Label: label},
		} {
			if !have[q] {
				t.Errorf("missing quad %v", q)
			}
		}
		// Two identical triples: two records, one stored direct edge.
		var direct []quad.Quad
		err = s.scan(ctx, s.resolver(), quad.Subject, entityIRI(label, "Marie Curie"), func(q quad.Quad) error {
			direct = append(direct, q)
			return nil
		}, filter{quad.Label, label})
		if err != nil {
			t.Fatal(err)
		}
		if len(direct) != 1 || direct[0].Predicate != quad.String("born in") || direct[0].Object != quad.IRI(string(label)+"#entity/Warsaw") {
			t.Errorf("stored direct edges = %v, want one <#entity/Marie%%20Curie> \"born in\" <#entity/Warsaw>", direct)
		}
		if got := verdictLabel("run/b"); got != "verdict:run%2Fb" {
			t.Errorf("verdictLabel = %v", got)
		}
		if got := gtLabel("名前 1"); got != "gt:%E5%90%8D%E5%89%8D%201" {
			t.Errorf("gtLabel = %v", got)
		}
	})
}

// TestClosed: a closed store refuses work instead of panicking.
func TestClosed(t *testing.T) {
	s := openT(t, Memory)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.TaskIDs(context.Background()); err == nil {
		t.Errorf("TaskIDs on a closed store: no error")
	}
}
