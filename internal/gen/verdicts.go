package gen

import (
	"math/rand/v2"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
)

// reasons are the offline judge's reasons, which verdicts carry.
var reasons = []string{
	"same triple after normalisation",
	"alias-equivalent head and tail, same relation concept",
	"same head and tail (Canon, alias or name part), same relation concept",
	"GT value contained in a richer predicted value of the same head and relation",
	"no rule matched",
}

// Verdicts returns verdicts shaped like the offline judge's for sample i
// of run (about a third of the GT covered with one to three supports, a
// quarter of the predictions valid), seeded by i: for stages after the
// judge (store writes, analysis) measured without judging.
func (r *Run) Verdicts(i int, key kgstore.SampleKey) kgstore.Verdicts {
	rng := rand.New(rand.NewPCG(uint64(i), 0x76657264696374)) // "verdict"
	task, pred := r.Task(i), &r.Preds[i]
	v := kgstore.Verdicts{Key: key, Coverage: make([]kg.Verdict, len(task.Triples)), Validity: make([]kg.Validity, len(pred.Triples))}
	n := max(1, len(pred.Triples))
	for gi := range task.Triples {
		c := kg.Verdict{GTIndex: gi, State: kg.Uncovered, Judge: "offline", Support: []int{}, Reason: reasons[len(reasons)-1]}
		if rng.IntN(3) == 0 {
			c.State, c.Kind, c.Reason = kg.Covered, kg.KindDirect, reasons[rng.IntN(len(reasons)-1)]
			for k := 0; k < 1+rng.IntN(3); k++ {
				c.Support = append(c.Support, rng.IntN(n))
			}
		}
		v.Coverage[gi] = c
	}
	for pi := range pred.Triples {
		c := kg.Validity{PredIndex: pi, State: kg.Uncovered, Judge: "offline", Support: []int{}, Reason: reasons[len(reasons)-1]}
		if rng.IntN(4) == 0 && len(task.Triples) > 0 {
			c.State, c.Reason = kg.Covered, reasons[0]
			c.Support = append(c.Support, rng.IntN(len(task.Triples)))
		}
		v.Validity[pi] = c
	}
	return v
}
