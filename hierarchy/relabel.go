package hierarchy

import (
	"fmt"
	"strings"
)

// Weak reports whether the rules decided c by default: no class term, no
// value rule and no structure.
func Weak(c Classification) bool { return c.Evidence == EvidenceDefault }

// Contestable reports whether c is weak, organizational or decided by a
// value rule: where the rules' reading is most often a convention a reader
// may not share (of the tuned and external labels the rules called
// organizational by the "type" concept, 31 of 174 are factual: a type that
// only describes).
func Contestable(c Classification) bool {
	return Weak(c) || c.Class == Organizational || c.Evidence == EvidenceValue
}

// PassSelections name the triples a second class pass (package llmclass)
// may ask about.
func PassSelections() []string { return []string{"weak", "contestable", "all"} }

// PassSelection returns the selector named name (see PassSelections).
func PassSelection(name string) (func(Classification) bool, error) {
	switch name {
	case "weak":
		return Weak, nil
	case "contestable":
		return Contestable, nil
	case "all":
		return func(Classification) bool { return true }, nil
	}
	return nil, fmt.Errorf("class pass: selection %q, want one of %s", name, strings.Join(PassSelections(), ", "))
}
