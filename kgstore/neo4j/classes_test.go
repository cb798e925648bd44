package neo4j

import (
	"testing"

	"github.com/kgjudge/kgjudge/hierarchy"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/storetest"
)

// TestClassConformance runs the class conformance suite the Cayley store passes.
func TestClassConformance(t *testing.T) {
	storetest.RunClasses(t, func(t *testing.T, c kgstore.Classifier) kgstore.Store {
		cfg := testConfig(t)
		cfg.Classes = c
		return openTest(t, cfg)
	}, hierarchy.GraphClassifier{})
}
