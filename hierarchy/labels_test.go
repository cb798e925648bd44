package hierarchy

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

// The split of the hand-labelled triples (testdata/labelled_triples.tsv) is
// fixed by sample and was decided before any tuning:
// TUNE on the old labels (labelled_relations.tsv) plus new-label samples
// d012, d073, p033, p085, and triple labels of the old fixtures d001, p012,
// p041 (tuning data from the start: the old relation labels are theirs);
// HELD OUT (never tuned on, never looked at while tuning): d038, d046,
// p020, p070.
const (
	tunedSamples   = "d001 d012 d073 p012 p033 p041 p085"
	heldOutSamples = "d038 d046 p020 p070"
)

// labelledTriple is one hand label of testdata/labelled_triples.tsv.
type labelledTriple struct {
	line                 int
	fixture, side        string
	index                int
	head, relation, tail string
	class                Class
	why                  string
}

func readLabelledTriples(t *testing.T) []labelledTriple {
	t.Helper()
	path := filepath.Join("testdata", "labelled_triples.tsv")
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	valid := map[Class]bool{}
	for _, c := range Classes {
		valid[c] = true
	}
	var out []labelledTriple
	seen := map[string]bool{}
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if n == 1 {
			continue // header
		}
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 8 {
			t.Fatalf("%s:%d: %d fields, want 8", path, n, len(f))
		}
		idx, err := strconv.Atoi(f[2])
		if err != nil {
			t.Fatalf("%s:%d: index %q: %v", path, n, f[2], err)
		}
		r := labelledTriple{n, f[0], f[1], idx, f[3], f[4], f[5], Class(f[6]), f[7]}
		if !valid[r.class] || (r.side != "gt" && r.side != "pred") || r.why == "" {
			t.Fatalf("%s:%d: bad class %q, side %q or empty why", path, n, r.class, r.side)
		}
		key := r.fixture + "/" + r.side + "/" + f[2]
		if seen[key] {
			t.Fatalf("%s:%d: %s labelled twice", path, n, key)
		}
		seen[key] = true
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sampleGraphs are the GT and predicted triples of one fixture.
type sampleGraphs struct{ gt, pred []kg.Triple }

func (g sampleGraphs) side(s string) []kg.Triple {
	if s == "gt" {
		return g.gt
	}
	return g.pred
}

// classifier gives the class of every triple of a graph; reference is the GT
// graph for a predicted graph, nil for a GT graph.
type classifier func(graph, reference []kg.Triple) []Class

// tripleClassifier is the product's classifier.
func tripleClassifier(graph, reference []kg.Triple) []Class {
	cls := ClassifyTriples(graph, reference)
	out := make([]Class, len(cls))
	for i, c := range cls {
		out[i] = c.Class
	}
	return out
}

// confusion counts labels (rows) against classifier output (columns).
type confusion map[Class]map[Class]int

func newConfusion() confusion {
	c := confusion{}
	for _, a := range Classes {
		c[a] = map[Class]int{}
	}
	return c
}

func (c confusion) total() (n, correct int) {
	for want, row := range c {
		for got, k := range row {
			n += k
			if got == want {
				correct += k
			}
		}
	}
	return n, correct
}

func (c confusion) accuracy() float64 {
	n, k := c.total()
	return ratio(k, n)
}

// recall of class cl, and its support; precision, and the number predicted.
func (c confusion) recall(cl Class) (float64, int) {
	n := 0
	for _, k := range c[cl] {
		n += k
	}
	return ratio(c[cl][cl], n), n
}

func (c confusion) precision(cl Class) (float64, int) {
	n := 0
	for _, row := range c {
		n += row[cl]
	}
	return ratio(c[cl][cl], n), n
}

func (c confusion) String() string {
	var b strings.Builder
	n, k := c.total()
	fmt.Fprintf(&b, "accuracy %d/%d = %.3f\n", k, n, ratio(k, n))
	fmt.Fprintf(&b, "%-15s %9s %9s %9s %9s\n", "class", "support", "recall", "predicted", "precision")
	for _, cl := range Classes {
		r, s := c.recall(cl)
		p, m := c.precision(cl)
		fmt.Fprintf(&b, "%-15s %9d %9.3f %9d %9.3f\n", cl, s, r, m, p)
	}
	b.WriteString("confusion (rows: label, columns: classifier)\n")
	fmt.Fprintf(&b, "%-15s", "")
	for _, cl := range Classes {
		fmt.Fprintf(&b, "%15s", cl)
	}
	b.WriteString("\n")
	for _, want := range Classes {
		fmt.Fprintf(&b, "%-15s", want)
		for _, got := range Classes {
			fmt.Fprintf(&b, "%15d", c[want][got])
		}
		b.WriteString("\n")
	}
	return b.String()
}

func loadSampleGraphs(t *testing.T, names []string) map[string]sampleGraphs {
	t.Helper()
	out := map[string]sampleGraphs{}
	for _, name := range names {
		f := loadFixture(t, name)
		out[name] = sampleGraphs{gt: gtTriples(f.task), pred: f.pred.Triples}
	}
	return out
}

// evaluation is a classifier measured on the labelled sets.
type evaluation struct {
	old, tuned, heldOut confusion
	// misses of the tuned sets only: held-out misses are never printed, so
	// that nobody tunes on them by reading the test log.
	misses []string
}

// evaluate measures cls on the new triple labels (split by sample) and on
// the old relation labels (in-sample: a relation label is right when the
// majority of that relation's triples in its graph get its class).
func evaluate(t *testing.T, cls classifier) evaluation {
	t.Helper()
	rows := readLabelledTriples(t)
	names := map[string]bool{}
	for _, r := range rows {
		names[r.fixture] = true
	}
	for _, n := range fixtureNames {
		names[n] = true
	}
	var list []string
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	graphs := loadSampleGraphs(t, list)
	classes := map[string][]Class{}
	for _, n := range list {
		g := graphs[n]
		classes[n+"/gt"] = cls(g.gt, nil)
		classes[n+"/pred"] = cls(g.pred, g.gt)
	}
	ev := evaluation{old: newConfusion(), tuned: newConfusion(), heldOut: newConfusion()}
	tuned, held := strings.Fields(tunedSamples), strings.Fields(heldOutSamples)
	in := func(s string, set []string) bool {
		for _, x := range set {
			if x == s {
				return true
			}
		}
		return false
	}
	for _, r := range rows {
		ts := graphs[r.fixture].side(r.side)
		if r.index < 0 || r.index >= len(ts) {
			t.Fatalf("labelled_triples.tsv:%d: index %d out of range", r.line, r.index)
		}
		tr := ts[r.index]
		if clean(tr.Head) != r.head || clean(tr.Relation) != r.relation || clean(tr.Tail) != r.tail {
			t.Fatalf("labelled_triples.tsv:%d: %s/%s[%d] is %v, label says %q %q %q", r.line, r.fixture, r.side, r.index, tr, r.head, r.relation, r.tail)
		}
		got := classes[r.fixture+"/"+r.side][r.index]
		switch {
		case in(r.fixture, tuned):
			ev.tuned[r.class][got]++
			if got != r.class {
				ev.misses = append(ev.misses, fmt.Sprintf("%s/%s[%d] %q -%s-> %q: label %s (%s), got %s", r.fixture, r.side, r.index, r.head, r.relation, r.tail, r.class, r.why, got))
			}
		case in(r.fixture, held):
			ev.heldOut[r.class][got]++
		default:
			t.Fatalf("labelled_triples.tsv:%d: sample %s is in neither split", r.line, r.fixture)
		}
	}
	for _, r := range readLabelled(t) {
		name, side, _ := strings.Cut(r.source, "/")
		ts := graphs[name].side(side)
		votes := map[Class]int{}
		for i, tr := range ts {
			if tr.Relation == r.rel {
				votes[classes[r.source][i]]++
			}
		}
		var best Class
		for _, c := range Classes {
			if votes[c] > votes[best] {
				best = c
			}
		}
		if best == "" {
			t.Fatalf("labelled_relations.tsv: %q is not a relation of %s", r.rel, r.source)
		}
		ev.old[r.class][best]++
		if best != r.class {
			ev.misses = append(ev.misses, fmt.Sprintf("old %s %q: label %s (%s), got %s", r.source, r.rel, r.class, r.why, best))
		}
	}
	return ev
}

// clean is how labelled_triples.tsv writes a value: whitespace runs (tabs,
// newlines) as one space.
func clean(s string) string { return strings.Join(strings.Fields(s), " ") }

// Floors on the held-out samples, set from the held-out measurements.
// First (commit "hierarchy: per-triple classes"): accuracy 209/239 = 0.875;
// recall factual 0.908, organizational 0.821, bibliographic 0.963,
// subjective 0.565, meta 0.947. Second, after the second tuning round on
// the tuned samples only (commit "hierarchy: second tuning round"):
// accuracy 211/239 = 0.883; recall factual 0.908, organizational 0.821,
// bibliographic 0.963, subjective 0.652, meta 0.947. Third, after 121 more
// tuning labels and the third tuning round on the tuned samples only
// (commit "hierarchy: held-out measured once after the third tuning
// round"): accuracy 212/239 = 0.887; recall factual 0.915, organizational
// 0.821, bibliographic 0.963, subjective 0.652, meta 0.947. Each floor sits
// just under the latest measurement, so any regression fails. The issue-15
// targets (accuracy >= 0.90, every recall >= 0.70) are NOT met on held-out
// samples: accuracy and subjective recall fall short; see targetsMet.
const heldOutAccuracyFloor = 0.88

var heldOutRecallFloor = map[Class]float64{
	Factual: 0.91, Organizational: 0.82, Bibliographic: 0.96, Subjective: 0.65, Meta: 0.94,
}

// targets are the issue-15 goals, reported (not enforced) by the test.
const (
	targetAccuracy = 0.90
	targetRecall   = 0.70
)

// TestLabelledTriples measures the classifier on the hand labels: in-sample
// (the old relation labels and the tuned samples) and held out (samples
// nothing was tuned on), and fails under the held-out floors. The baseline
// before issue 15 is in testdata/labelled_triples_baseline.txt.
//
// KGJUDGE_TUNING=1 hides every held-out figure (for tuning runs).
func TestLabelledTriples(t *testing.T) {
	ev := evaluate(t, tripleClassifier)
	t.Logf("in-sample, old relation labels (labelled_relations.tsv, majority class of the relation's triples):\n%s", ev.old)
	t.Logf("in-sample, tuned samples (%s):\n%s", tunedSamples, ev.tuned)
	if testing.Verbose() {
		for _, m := range ev.misses {
			t.Log("in-sample miss: " + m)
		}
	}
	if os.Getenv("KGJUDGE_TUNING") != "" {
		t.Log("KGJUDGE_TUNING set: held-out figures hidden")
		return
	}
	t.Logf("HELD OUT (%s), nothing was tuned on these:\n%s", heldOutSamples, ev.heldOut)
	acc := ev.heldOut.accuracy()
	if acc < heldOutAccuracyFloor {
		t.Errorf("held-out accuracy %.3f < floor %.2f", acc, heldOutAccuracyFloor)
	}
	met := acc >= targetAccuracy
	for _, c := range Classes {
		r, n := ev.heldOut.recall(c)
		if n > 0 && r < heldOutRecallFloor[c] {
			t.Errorf("held-out recall of %s %.3f < floor %.2f", c, r, heldOutRecallFloor[c])
		}
		met = met && r >= targetRecall
	}
	t.Logf("issue-15 targets (held-out accuracy >= %.2f, every recall >= %.2f) met: %v", targetAccuracy, targetRecall, met)
	if n, _ := ev.heldOut.total(); n < 150 {
		t.Errorf("%d held-out labels, want >= 150", n)
	}
}
