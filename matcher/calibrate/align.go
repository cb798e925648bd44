package calibrate

import (
	"strings"
	"unicode"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/matcher/prefilter"
	"github.com/kgjudge/kgjudge/matcher/rules"
)

// EquateAligned tells the rules which GT and predicted names the prefilter
// paired by something other than the names' text: structural alignment
// (translations and transliterations that share their neighbours' values:
// "London Gold Pool" / "伦敦黄金总库") and standalone acronyms ("Special
// Drawing Rights" / "SDR"). A candidate's Why names the GT end it matched
// ("head:structure"); the predicted end is the one that is not the other GT
// end's name.
func EquateAligned(rs *rules.Rules, task *kg.Task, pred *kg.Prediction, res *prefilter.Result) {
	for gi, c := range res.GT {
		gt := task.Triples[gi].Triple
		for _, x := range c.Candidates {
			end, how, ok := strings.Cut(x.Why, ":")
			if !ok || how != "structure" && how != "acronym" {
				continue
			}
			name, other := gt.Head, gt.Tail
			if end == "tail" {
				name, other = gt.Tail, gt.Head
			}
			p := pred.Triples[x.Index]
			// Alignment by structure is for names that do not cross
			// languages; within one script two siblings sharing a value
			// (two papers in one journal) are not one thing.
			if how == "structure" && hanName(name) == hanName(p.Head) && hanName(name) == hanName(p.Tail) {
				continue
			}
			switch {
			case !rs.SameEntity(other, p.Head) && !rs.SameEntity(name, p.Tail):
				rs.Equate(name, p.Head)
			case !rs.SameEntity(other, p.Tail):
				rs.Equate(name, p.Tail)
			}
		}
	}
}

func hanName(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}
