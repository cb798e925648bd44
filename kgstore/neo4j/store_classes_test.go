package neo4j

import (
	"testing"

	"github.com/kgjudge/kgjudge/hierarchy"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/storetest"
)

// TestClassConformance runs the class conformance suite the Cayley store
// passes. (In this file so that it runs after the other tests: the first
// test on a fresh server pays its warm-up.)
func TestClassConformance(t *testing.T) {
	storetest.RunClasses(t, func(t *testing.T, c kgstore.Classifier) kgstore.Store {
		cfg := testConfig(t)
		cfg.Classes = c
		return openTest(t, cfg)
	}, hierarchy.GraphClassifier{})
}
