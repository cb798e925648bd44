package hierarchy

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/stats"
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

// labelledTriple is one hand label of testdata/labelled_triples.tsv or
// testdata/labelled_triples_heldout2.tsv.
type labelledTriple struct {
	file                 string
	line                 int
	fixture, side        string
	index                int
	head, relation, tail string
	class                Class
	// draw is how the triple was chosen (heldout2 only): "random" (drawn
	// with a fixed seed among the sample's unlabelled triples) or "scan"
	// (picked by the labeller reading the whole sample for the rarer
	// classes and their look-alikes).
	draw string
	why  string
}

const (
	labelsFile = "labelled_triples.tsv"
	// tuned5File are 405 more labels from the tuned samples (9 fields:
	// per sample 30 drawn at random with seed 20261204 among unlabelled
	// triples and about 25 picked by reading), labelled blind before the
	// fifth tuning round and tuned on in it.
	tuned5File = "labelled_triples_tuned5.tsv"
)

// blindSet is a held-out label file made blind after tuning began: the
// labellers saw only the package doc, the earlier labels and the samples,
// and labelled triples of the held-out samples that no earlier file holds
// (per sample 50 drawn at random with a fixed seed and about 45 picked by
// reading for the rarer classes). second is the same random draw labelled
// again by labellers who did not see the first labels: how far two people
// agree is the ceiling a classifier can be held to.
type blindSet struct {
	name, file, second string
	note               string // when it was made and measured
	accFloor           float64
	recallFloor        map[Class]float64
}

// blindSets in the order they were made; each file's triples must be new to
// the files before it.
var blindSets = []blindSet{
	{"held-out 2", "labelled_triples_heldout2.tsv", "labelled_triples_heldout2_second.tsv",
		"labelled blind during the fourth round (seed 20261203), never tuned on, measured after the fourth and fifth",
		heldOut2AccuracyFloor, heldOut2RecallFloor},
	{"held-out 3", "labelled_triples_heldout3.tsv", "labelled_triples_heldout3_second.tsv",
		"labelled blind during the fifth round (seed 20261205), never tuned on, measured once after it",
		heldOut3AccuracyFloor, heldOut3RecallFloor},
	{"held-out 4", "labelled_triples_heldout4.tsv", "labelled_triples_heldout4_second.tsv",
		"labelled blind before the sixth round (per sample 100 at random, seed 20261206, and up to 10 per rarer class by reading), never tuned on, measured once after it",
		heldOut4AccuracyFloor, heldOut4RecallFloor},
}

// readLabelledTriples reads testdata/name: 8 tab-separated fields
// (fixture side index head relation tail class why), or 9 with the draw
// before the why.
func readLabelledTriples(t *testing.T, name string) []labelledTriple {
	t.Helper()
	path := filepath.Join("testdata", name)
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
	want := 0
	for n := 1; sc.Scan(); n++ {
		f := strings.Split(sc.Text(), "\t")
		if n == 1 {
			want = len(f) // the header says which layout
			if want != 8 && want != 9 {
				t.Fatalf("%s:1: header has %d fields, want 8 or 9", path, want)
			}
			continue
		}
		if len(f) != want {
			t.Fatalf("%s:%d: %d fields, want %d", path, n, len(f), want)
		}
		idx, err := strconv.Atoi(f[2])
		if err != nil {
			t.Fatalf("%s:%d: index %q: %v", path, n, f[2], err)
		}
		r := labelledTriple{file: name, line: n, fixture: f[0], side: f[1], index: idx, head: f[3], relation: f[4], tail: f[5], class: Class(f[6]), why: f[want-1]}
		if want == 9 {
			r.draw = f[7]
			if r.draw != "random" && r.draw != "scan" {
				t.Fatalf("%s:%d: draw %q, want random or scan", path, n, r.draw)
			}
		}
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

// blindResult is the classifier on one blind set: all its labels, its
// random draw alone (the figure whose class mix is the samples' own), the
// first labelling of the draw (rows) against the second (columns), and the
// second against the classifier.
type blindResult struct {
	set                           blindSet
	all, random, humans, vsSecond confusion
}

// evaluation is a classifier measured on the labelled sets.
type evaluation struct {
	old, tuned, heldOut confusion
	// blind are the blindSets, in order.
	blind []blindResult
	// uniform is the classifier on each uniform draw (uniformSets): the
	// held-out samples' own class mix.
	uniform []uniformResult
	// misses of the tuned sets only: held-out misses are never printed, so
	// that nobody tunes on them by reading the test log.
	misses []string
}

// evaluate measures cls on the new triple labels (split by sample) and on
// the old relation labels (in-sample: a relation label is right when the
// majority of that relation's triples in its graph get its class).
func evaluate(t *testing.T, cls classifier) evaluation {
	t.Helper()
	return evaluateBySample(t, func(_ string, graph, reference []kg.Triple) []Class { return cls(graph, reference) })
}

// evaluateBySample is evaluate with a classifier told which sample each
// graph is (the LLM pass's recorded measurement asks only about the
// held-out samples).
func evaluateBySample(t *testing.T, cls func(sample string, graph, reference []kg.Triple) []Class) evaluation {
	t.Helper()
	rows := readLabelledTriples(t, labelsFile)
	more := readLabelledTriples(t, tuned5File)
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
		classes[n+"/gt"] = cls(n, g.gt, nil)
		classes[n+"/pred"] = cls(n, g.pred, g.gt)
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
	// labelled says where each labelled triple is (file:line), so that no
	// file labels a triple an earlier one holds.
	labelled := map[string]string{}
	key := func(r labelledTriple) string { return fmt.Sprintf("%s/%s/%d", r.fixture, r.side, r.index) }
	claim := func(r labelledTriple) {
		if at, ok := labelled[key(r)]; ok {
			t.Fatalf("%s:%d: already labelled in %s", r.file, r.line, at)
		}
		labelled[key(r)] = fmt.Sprintf("%s:%d", r.file, r.line)
	}
	for _, r := range rows {
		claim(r)
	}
	for _, r := range more {
		if !in(r.fixture, tuned) {
			t.Fatalf("%s:%d: sample %s is not a tuned sample", r.file, r.line, r.fixture)
		}
		claim(r)
	}
	rows = append(rows, more...)
	check := func(r labelledTriple) Class {
		ts := graphs[r.fixture].side(r.side)
		if r.index < 0 || r.index >= len(ts) {
			t.Fatalf("%s:%d: index %d out of range", r.file, r.line, r.index)
		}
		tr := ts[r.index]
		if clean(tr.Head) != r.head || clean(tr.Relation) != r.relation || clean(tr.Tail) != r.tail {
			t.Fatalf("%s:%d: %s/%s[%d] is %v, label says %q %q %q", r.file, r.line, r.fixture, r.side, r.index, tr, r.head, r.relation, r.tail)
		}
		return classes[r.fixture+"/"+r.side][r.index]
	}
	for _, set := range blindSets {
		res := blindResult{set: set, all: newConfusion(), random: newConfusion(), humans: newConfusion(), vsSecond: newConfusion()}
		first := map[string]labelledTriple{}
		for _, r := range readLabelledTriples(t, set.file) {
			if !in(r.fixture, held) {
				t.Fatalf("%s:%d: sample %s is not held out", r.file, r.line, r.fixture)
			}
			claim(r)
			first[key(r)] = r
			got := check(r)
			res.all[r.class][got]++
			if r.draw == "random" {
				res.random[r.class][got]++
			}
		}
		for _, r := range readLabelledTriples(t, set.second) {
			f, ok := first[key(r)]
			if !ok || f.draw != "random" || r.draw != "random" {
				t.Fatalf("%s:%d: %s/%s[%d] is not in %s's random draw", r.file, r.line, r.fixture, r.side, r.index, set.file)
			}
			got := check(r)
			res.humans[f.class][r.class]++
			res.vsSecond[r.class][got]++
		}
		if n, _ := res.humans.total(); n != func() int { k, _ := res.random.total(); return k }() {
			t.Fatalf("%s labels %d triples, want all of %s's random draw", set.second, n, set.file)
		}
		ev.blind = append(ev.blind, res)
	}
	labels := heldOutLabels(t, rows, claim)
	for _, u := range uniformSets {
		ev.uniform = append(ev.uniform, uniformDraw(t, u, labels, check))
	}
	for _, r := range rows {
		got := check(r)
		switch {
		case in(r.fixture, tuned):
			ev.tuned[r.class][got]++
			if got != r.class {
				ev.misses = append(ev.misses, fmt.Sprintf("%s/%s[%d] %q -%s-> %q: label %s (%s), got %s", r.fixture, r.side, r.index, r.head, r.relation, r.tail, r.class, r.why, got))
			}
		case in(r.fixture, held):
			ev.heldOut[r.class][got]++
		default:
			t.Fatalf("%s:%d: sample %s is in neither split", r.file, r.line, r.fixture)
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

// Every earlier held-out set was drawn among the triples no file labelled
// yet, and the scans before it had taken out many of the rarer classes: the
// fourth set's random draw is 83% factual, where the second's was 74%. So a
// uniform draw takes per held-out sample a fixed number of triples uniformly
// at random among all its triples, labelled or not, and labels the ones no
// file held: its accuracy is the samples' own.
type uniformSet struct {
	name string
	// draw lists the drawn triples (fixture side index); labels holds the
	// labels of the drawn triples that no earlier file held, and second
	// (if any) the same rows labelled again. independent (if any) labels
	// every drawn triple again by labellers who read only the class
	// definitions and the samples, never an earlier label.
	draw, labels, second, independent string
	perSample                         int
	note                              string
	accFloor                          float64
	recallFloor                       map[Class]float64
}

// uniformSets in the order they were made.
var uniformSets = []uniformSet{
	{"uniform draw", "heldout_uniform_draw.tsv", "labelled_triples_heldout5.tsv", "", "", 100,
		"per sample 100 drawn uniformly among all its triples, seed 20261208 (labelling/draw_uniform.py); measured once after the sixth round",
		uniformAccuracyFloor, uniformRecallFloor},
	{"uniform draw 2", "heldout_uniform_draw2.tsv", "labelled_triples_heldout6.tsv", "labelled_triples_heldout6_second.tsv", "labelled_triples_heldout6_independent.tsv", 150,
		"per sample 150 drawn uniformly among all its triples, seed 20261209 (labelling/draw_uniform.py 20261209 150), labelled after the sixth round; measured once, with the sixth round's classifier",
		uniform2AccuracyFloor, uniform2RecallFloor},
	{"uniform draw 3", "heldout_uniform_draw3.tsv", "labelled_triples_heldout7.tsv", "", "labelled_triples_heldout7_independent.tsv", 150,
		"per sample 150 drawn uniformly among all its triples, seed 20261210 (labelling/draw_uniform.py 20261210 150), labelled in the eighth stop; measured once, with the sixth round's classifier (unchanged)",
		uniform3AccuracyFloor, uniform3RecallFloor},
}

// heldOutLabels claims the uniform draws' new labels and returns the class
// of every labelled held-out triple, by fixture/side/index: the held-out rows
// of rows, every blind set and the uniform draws' own labels.
func heldOutLabels(t *testing.T, rows []labelledTriple, claim func(labelledTriple)) map[string]labelledTriple {
	t.Helper()
	held := strings.Fields(heldOutSamples)
	isHeld := func(s string) bool { return slices.Contains(held, s) }
	out := map[string]labelledTriple{}
	add := func(r labelledTriple) { out[fmt.Sprintf("%s/%s/%d", r.fixture, r.side, r.index)] = r }
	for _, r := range rows {
		if isHeld(r.fixture) {
			add(r)
		}
	}
	for _, set := range blindSets {
		for _, r := range readLabelledTriples(t, set.file) {
			add(r)
		}
	}
	for _, u := range uniformSets {
		for _, r := range readLabelledTriples(t, u.labels) {
			if !isHeld(r.fixture) || r.draw != "random" {
				t.Fatalf("%s:%d: %s/%s: a uniform draw's labels are held-out random rows", r.file, r.line, r.fixture, r.draw)
			}
			claim(r)
			add(r)
		}
	}
	return out
}

// uniformResult is the classifier on one uniform draw, and for a draw
// labelled twice, the first labelling of its new rows (rows) against the
// second (columns).
type uniformResult struct {
	set            uniformSet
	c, humans, vs2 confusion
	// indep is the team's label (rows) against the independent one
	// (columns), vsIndep the independent label against the classifier.
	indep, vsIndep confusion
	// drawn holds every drawn triple's label and class, by
	// fixture/side/index: the draws overlap, and pooling them counts a
	// triple once.
	drawn map[string]drawnTriple
}

// interval says how sure the draw's accuracy is: Wilson's interval counts
// every triple as an independent draw; the cluster bootstrap resamples
// whole relation strings (stats.RatioBootstrap), which is the honest one
// when a relation's triples are right or wrong together (they share a
// labelling convention and a rule, so they are not independent draws).
func (u uniformResult) interval() string {
	n, k := u.c.total()
	// Per relation string of a sample: the triples the classifier gets
	// right, and the drawn ones.
	clusters := map[string][2]int{}
	for _, d := range u.drawn {
		cl := clusters[d.cluster]
		cl[1]++
		if d.got == d.label {
			cl[0]++
		}
		clusters[d.cluster] = cl
	}
	keys := make([]string, 0, len(clusters))
	for key := range clusters {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	ks, ns := make([]int, len(keys)), make([]int, len(keys))
	for i, key := range keys {
		ks[i], ns[i] = clusters[key][0], clusters[key][1]
	}
	w := stats.Wilson95(k, n)
	b := stats.RatioBootstrap(ks, ns, 0, stats.BootstrapSeed)
	return fmt.Sprintf("accuracy %d/%d = %.3f, 95%% Wilson [%.3f, %.3f], 95%% bootstrap over %d relation strings [%.3f, %.3f]", k, n, ratio(k, n), w.Low, w.High, b.Clusters, b.Low, b.High)
}

// recallIntervals gives each class's recall with its 95% Wilson interval.
func (u uniformResult) recallIntervals() string {
	var b strings.Builder
	b.WriteString("recall, 95% Wilson:")
	for _, cl := range Classes {
		_, n := u.c.recall(cl)
		w := stats.Wilson95(u.c[cl][cl], n)
		fmt.Fprintf(&b, " %s %d/%d [%.3f, %.3f]", cl, u.c[cl][cl], n, w.Low, w.High)
	}
	return b.String()
}

// uniformDraw measures the classifier (check) on the uniform draw u, each
// triple with its label from labels.
func uniformDraw(t *testing.T, u uniformSet, labels map[string]labelledTriple, check func(labelledTriple) Class) uniformResult {
	t.Helper()
	path := filepath.Join("testdata", u.draw)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res := uniformResult{set: u, c: newConfusion(), humans: newConfusion(), vs2: newConfusion(), indep: newConfusion(), vsIndep: newConfusion(), drawn: map[string]drawnTriple{}}
	seen := map[string]bool{}
	for n, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if n == 0 {
			continue // header
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("%s:%d: %d fields, want fixture side index", path, n+1, len(f))
		}
		key := strings.Join(f, "/")
		if seen[key] {
			t.Fatalf("%s:%d: %s drawn twice", path, n+1, key)
		}
		seen[key] = true
		r, ok := labels[key]
		if !ok {
			t.Fatalf("%s:%d: %s has no label in any held-out file", path, n+1, key)
		}
		got := check(r)
		res.c[r.class][got]++
		res.drawn[key] = drawnTriple{r.class, got, r.fixture + "\x1f" + r.relation}
	}
	if n, _ := res.c.total(); n != 4*u.perSample {
		t.Fatalf("%s: %d triples, want %d per held-out sample", path, n, u.perSample)
	}
	if u.independent != "" {
		for _, r := range readLabelledTriples(t, u.independent) {
			key := fmt.Sprintf("%s/%s/%d", r.fixture, r.side, r.index)
			team, ok := labels[key]
			if !ok || !seen[key] {
				t.Fatalf("%s:%d: %s is not in %s", r.file, r.line, key, u.draw)
			}
			res.indep[team.class][r.class]++
			res.vsIndep[r.class][check(r)]++
		}
		if n, _ := res.indep.total(); n != 4*u.perSample {
			t.Fatalf("%s labels %d triples, want all %d of %s", u.independent, n, 4*u.perSample, u.draw)
		}
	}
	if u.second == "" {
		return res
	}
	first := map[string]labelledTriple{}
	for _, r := range readLabelledTriples(t, u.labels) {
		first[fmt.Sprintf("%s/%s/%d", r.fixture, r.side, r.index)] = r
	}
	for _, r := range readLabelledTriples(t, u.second) {
		f, ok := first[fmt.Sprintf("%s/%s/%d", r.fixture, r.side, r.index)]
		if !ok {
			t.Fatalf("%s:%d: %s/%s[%d] is not in %s", r.file, r.line, r.fixture, r.side, r.index, u.labels)
		}
		res.humans[f.class][r.class]++
		res.vs2[r.class][check(r)]++
	}
	if n, _ := res.humans.total(); n != len(first) {
		t.Fatalf("%s labels %d triples, want all %d of %s", u.second, n, len(first), u.labels)
	}
	return res
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
// 0.821, bibliographic 0.963, subjective 0.652, meta 0.947. Fourth, after
// 207 more tuning labels and the fourth tuning round on the tuned samples
// only (in-sample 751/773 = 0.972): accuracy 211/239 = 0.883; recall
// factual 0.915, organizational 0.821, bibliographic 0.963, subjective
// 0.609, meta 0.947 (one subjective triple lost); the fifth round changed
// none of its triples. Sixth (the external samples' round): accuracy 211/239
// = 0.883, one factual triple lost (recall 0.915 -> 0.908) and one
// subjective won (0.609 -> 0.652). Each floor sits just under
// the latest measurement, so any regression fails. The issue-15 targets
// (accuracy >= 0.90, every recall >= 0.70) are NOT met on held-out samples:
// accuracy and subjective recall fall short; see targetsMet.
const heldOutAccuracyFloor = 0.88

var heldOutRecallFloor = map[Class]float64{
	Factual: 0.90, Organizational: 0.82, Bibliographic: 0.96, Subjective: 0.65, Meta: 0.94,
}

// Floors on the second held-out labels, set from their first measurement,
// after the fourth tuning round (the fifth round changed none of them): accuracy 298/380 = 0.784 (random draw
// 167/200 = 0.835); recall factual 0.874, organizational 0.636,
// bibliographic 0.812, subjective 0.710, meta 0.606. Far under the first
// held-out set and the in-sample 0.972: the first set had been measured
// after every round (four times), so choices that happened to suit it
// survived; a fresh set is the honest figure. After the sixth round:
// 300/380 = 0.789 (random draw 167/200 = 0.835, unchanged); recall
// organizational 0.649, meta 0.636, the others unchanged.
const heldOut2AccuracyFloor = 0.78

var heldOut2RecallFloor = map[Class]float64{
	Factual: 0.87, Organizational: 0.64, Bibliographic: 0.81, Subjective: 0.70, Meta: 0.63,
}

// Floors on the third held-out labels, set from their one measurement,
// after the fifth tuning round (in-sample 1131/1178 = 0.960; the first and
// second held-out sets did not move in that round, not one triple): accuracy
// 303/380 = 0.797 (random draw 176/200 = 0.880); recall factual 0.882,
// organizational 0.632, bibliographic 0.758, subjective 0.966, meta 0.333.
// After the sixth round: 307/380 = 0.808 (random draw 176/200 = 0.880,
// unchanged); recall meta 0.524, the others unchanged.
const heldOut3AccuracyFloor = 0.80

var heldOut3RecallFloor = map[Class]float64{
	Factual: 0.88, Organizational: 0.63, Bibliographic: 0.75, Subjective: 0.96, Meta: 0.52,
}

// Floors on the fourth held-out labels, set from their one measurement,
// after the sixth round: accuracy 419/454 = 0.923 (random draw 375/400 =
// 0.938); recall factual 0.949, organizational 0.788, bibliographic 0.933,
// subjective 1.000 (17), meta 0.750 (8). That meets the issue-15 targets,
// and it is NOT evidence that they are met: the classifier before the sixth
// round scores 417/454 = 0.918 (random draw 0.935) on the same labels. The
// set was drawn among the triples no earlier file held, after three scans
// had taken many of the rarer and harder triples out: its random draw is 83%
// factual, the second set's 74%. The uniform draw below is the honest one.
// Its second labelling agrees on 400 of 400 (kappa 1.000): the labellers
// followed the earlier files' labels of the same relations, so it is no
// independent check of the labels.
const heldOut4AccuracyFloor = 0.92

var heldOut4RecallFloor = map[Class]float64{
	Factual: 0.94, Organizational: 0.78, Bibliographic: 0.93, Subjective: 0.94, Meta: 0.74,
}

// Floors on the uniform draw, set from its one measurement after the sixth
// round: accuracy 348/400 = 0.870; recall factual 0.911, organizational
// 0.723 (47), bibliographic 0.840 (25), subjective 0.760 (25), meta 0.700
// (10). Every class recall reaches 0.70; accuracy does not reach 0.90. The
// classifier before the sixth round scores the same 348/400, class by class:
// the round's rules and words, made on 36 external samples, changed no
// triple of the draw.
const uniformAccuracyFloor = 0.86

var uniformRecallFloor = map[Class]float64{
	Factual: 0.91, Organizational: 0.72, Bibliographic: 0.83, Subjective: 0.75, Meta: 0.69,
}

// Floors on the second uniform draw (150 per held-out sample, seed
// 20261209; 378 of its 600 triples had labels in earlier files, 222 were
// labelled for it), set from its one measurement with the sixth round's
// classifier (nothing changed between the draw and the measurement):
// accuracy 538/600 = 0.897, 95% Wilson [0.870, 0.919], bootstrap over its
// 338 relation strings [0.853, 0.934]; recall factual 0.932 (453),
// organizational 0.732 (56), bibliographic 0.927 (41), subjective 0.781
// (32), meta 0.667 (18). Accuracy is short of 0.90 by two triples and meta
// recall short of 0.70 by one triple; both targets lie inside the
// intervals. Its new rows' second labelling agrees on 222 of 222, and 174
// of the 222 "why" texts are identical: the labellers followed the earlier
// files' labels of the same relations, so that is no independent check.
const uniform2AccuracyFloor = 0.89

var uniform2RecallFloor = map[Class]float64{
	Factual: 0.93, Organizational: 0.73, Bibliographic: 0.92, Subjective: 0.78, Meta: 0.66,
}

// Floors on the third uniform draw (150 per held-out sample, seed
// 20261210; 413 of its 600 triples had labels in earlier files, 187 were
// labelled for it), set from its one measurement with the sixth round's
// classifier, unchanged since before the draw: accuracy 529/600 = 0.882,
// 95% Wilson [0.853, 0.905], bootstrap over its 339 relation strings
// [0.833, 0.924]; recall factual 0.930 (444), organizational 0.750 (80),
// bibliographic 0.821 (39), subjective 0.818 (22), meta 0.400 (15). A
// seventh round of rules tuned on the training labels only (training
// accuracy 0.9205 -> 0.9328) was dropped before this draw was measured,
// because the older held-out sets moved down with it (1237 -> 1233 of
// 1453); measured on this draw afterwards for the record, it gave 528/600.
const uniform3AccuracyFloor = 0.88

var uniform3RecallFloor = map[Class]float64{
	Factual: 0.92, Organizational: 0.75, Bibliographic: 0.82, Subjective: 0.81, Meta: 0.40,
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
	t.Logf("HELD OUT (%s), nothing was tuned on these; measured after each tuning round since the first:\n%s", heldOutSamples, ev.heldOut)
	all := newConfusion()
	all.add(ev.heldOut)
	for _, b := range ev.blind {
		title := strings.ToUpper(strings.ReplaceAll(b.set.name, "-", " "))
		t.Logf("%s (%s, %s: %s):\n%s", title, heldOutSamples, b.set.file, b.set.note, b.all)
		t.Logf("%s, its random draw alone:\n%s", title, b.random)
		all.add(b.all)
	}
	for _, b := range ev.blind {
		title := strings.ToUpper(strings.ReplaceAll(b.set.name, "-", " "))
		t.Logf("%s random draw, two labellers (rows: first labelling, columns: second, %s): kappa %.3f\n%s", title, b.set.second, b.humans.kappa(), b.humans)
		t.Logf("%s random draw, second labelling against the classifier: kappa %.3f\n%s", title, b.vsSecond.kappa(), b.vsSecond)
	}
	t.Logf("HELD OUT, all %d sets:\n%s", 1+len(ev.blind), all)
	for _, u := range ev.uniform {
		t.Logf("HELD OUT, %s (%s: %s; labels from every held-out file, %s for the ones none held):\n%s%s", strings.ToUpper(u.set.name), u.set.draw, u.set.note, u.set.labels, u.c, u.interval())
		if u.set.independent != "" {
			t.Logf("%s, the team's labels (rows) against an independent labelling that saw no earlier label (columns, %s): kappa %.3f\n%s", strings.ToUpper(u.set.name), u.set.independent, u.indep.kappa(), u.indep.between("the team", "independent"))
			t.Logf("%s, the independent labelling (rows) against the classifier (columns): kappa %.3f\n%s", strings.ToUpper(u.set.name), u.vsIndep.kappa(), u.vsIndep)
		}
		if u.set.second != "" {
			t.Logf("%s, its new rows labelled twice (rows: %s, columns: %s): kappa %.3f\n%s", strings.ToUpper(u.set.name), u.set.labels, u.set.second, u.humans.kappa(), u.humans.between("first", "second"))
		}
	}
	pooled := pooledUniform(ev.uniform)
	t.Logf("HELD OUT, UNIFORM DRAWS POOLED (every triple of %d uniform draws once; the draws overlap; issue 15's verdict figure since the eighth stop):\n%s%s\n%s", len(ev.uniform), pooled.c, pooled.interval(), pooled.recallIntervals())
	type floor struct {
		name   string
		c      confusion
		acc    float64
		recall map[Class]float64
		min    int
	}
	floors := []floor{{"held-out", ev.heldOut, heldOutAccuracyFloor, heldOutRecallFloor, 150}}
	for _, b := range ev.blind {
		floors = append(floors, floor{b.set.name, b.all, b.set.accFloor, b.set.recallFloor, 300})
	}
	for _, u := range ev.uniform {
		// The uniform draws were appended after this check until the seventh
		// stop, so their floors were printed but not enforced.
		floors = append(floors, floor{u.set.name, u.c, u.set.accFloor, u.set.recallFloor, 4 * u.set.perSample})
	}
	for _, f := range floors {
		if n, _ := f.c.total(); n < f.min {
			t.Errorf("%s: %d labels, want >= %d", f.name, n, f.min)
		}
		if acc := f.c.accuracy(); acc < f.acc {
			t.Errorf("%s accuracy %.3f < floor %.2f", f.name, acc, f.acc)
		}
		for _, c := range Classes {
			if r, n := f.c.recall(c); n > 0 && r < f.recall[c] {
				t.Errorf("%s recall of %s %.3f < floor %.2f", f.name, c, r, f.recall[c])
			}
		}
	}
	for _, f := range append(floors, floor{name: "all held-out sets", c: all}, floor{name: "the uniform draws pooled", c: pooled.c}) {
		t.Logf("issue-15 targets on %s (accuracy >= %.2f, every recall >= %.2f) met: %v", f.name, targetAccuracy, targetRecall, targetsMet(f.c))
	}
	// A blind set's scan rows were picked for the rarer classes and their
	// look-alikes, so the accuracy of all its labels weighs those up; the
	// random draw's accuracy is the figure for a sample's own class mix,
	// and the recall of a class is best measured on all its labels.
	for _, b := range ev.blind {
		met := b.random.accuracy() >= targetAccuracy
		for _, c := range Classes {
			r, _ := b.all.recall(c)
			met = met && r >= targetRecall
		}
		t.Logf("issue-15 targets on %s, accuracy of its random draw %.3f, recall over all its labels: met: %v", b.set.name, b.random.accuracy(), met)
	}
}

// drawnTriple is one triple of a uniform draw: its label, the classifier's
// class and its relation cluster (sample and relation string).
type drawnTriple struct {
	label, got Class
	cluster    string
}

// pooledUniform is the classifier on every triple of the uniform draws,
// each counted once however many draws took it, as a uniformResult (its set
// is zero) so that it has the draws' interval.
func pooledUniform(us []uniformResult) uniformResult {
	seen := map[string]drawnTriple{}
	for _, u := range us {
		for key, d := range u.drawn {
			seen[key] = d
		}
	}
	res := uniformResult{c: newConfusion(), drawn: seen}
	for _, d := range seen {
		res.c[d.label][d.got]++
	}
	return res
}

// targetsMet reports whether c meets the issue-15 targets.
func targetsMet(c confusion) bool {
	met := c.accuracy() >= targetAccuracy
	for _, cl := range Classes {
		r, _ := c.recall(cl)
		met = met && r >= targetRecall
	}
	return met
}

// kappa is Cohen's kappa of the two raters of c (rows and columns).
func (c confusion) kappa() float64 {
	n, k := c.total()
	if n == 0 {
		return 0
	}
	var pe float64
	for _, a := range Classes {
		var row, col int
		for _, b := range Classes {
			row += c[a][b]
			col += c[b][a]
		}
		pe += float64(row) * float64(col) / float64(n) / float64(n)
	}
	if pe == 1 {
		return 1
	}
	return (float64(k)/float64(n) - pe) / (1 - pe)
}

// between is String for two labellings instead of a label and the
// classifier: rows and columns named.
func (c confusion) between(rows, cols string) string {
	return strings.Replace(c.String(), "confusion (rows: label, columns: classifier)", "confusion (rows: "+rows+", columns: "+cols+")", 1)
}

// add adds o's counts to c.
func (c confusion) add(o confusion) {
	for want, row := range o {
		for got, k := range row {
			c[want][got] += k
		}
	}
}
