package cayley

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cayleygraph/quad"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
)

// The class of every triple of a graph is kept on the graph's root as one
// record (a JSON array of strings, in triple order), with the version of
// the classifier that gave it: two quads per graph, not one per triple, so
// that classes add nothing to a sample's write beyond one string. A graph
// written again with another classifier version differs in both quads, so
// replace rewrites them.
var (
	pTripleClasses = quad.IRI("kg:tripleClasses")
	pClassVersion  = quad.IRI("kg:classVersion")
)

var _ kgstore.ClassReader = (*Store)(nil)

// SetClassifier makes the store keep c's class on every triple of every
// task and prediction written from now on (nil: no classes). The store does
// not classify by itself: its caller passes the analyzer in use
// (hierarchy.GraphClassifier), as for the Neo4j store.
func (s *Store) SetClassifier(c kgstore.Classifier) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.classifier = c
}

// classQuads are the class quads of the graph at root (none without a
// classifier). Called with s.mu held.
func (s *Store) classQuads(root quad.IRI, graph []kg.Triple) []quad.Quad {
	return classQuadsOf(s.classifier, root, graph)
}

// currentClassifier is the classifier in use, for the batch writes that
// classify their graphs before they take the write lock.
func (s *Store) currentClassifier() kgstore.Classifier {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.classifier
}

// classQuadsOf are c's class quads of the graph at root (none for a nil c).
func classQuadsOf(c kgstore.Classifier, root quad.IRI, graph []kg.Triple) []quad.Quad {
	if c == nil {
		return nil
	}
	cls := c.Classify(graph)
	if len(cls) != len(graph) {
		panic(fmt.Sprintf("kgstore/cayley: classifier gave %d classes for %d triples", len(cls), len(graph)))
	}
	if cls == nil {
		cls = []string{}
	}
	js, err := json.Marshal(cls)
	if err != nil {
		panic(err) // strings always encode
	}
	return []quad.Quad{
		{Subject: root, Predicate: pTripleClasses, Object: quad.String(js), Label: root},
		{Subject: root, Predicate: pClassVersion, Object: quad.String(c.Version()), Label: root},
	}
}

// gtGraph is a task's GT triples as the classifier sees them.
func gtGraph(t kg.Task) []kg.Triple {
	out := make([]kg.Triple, len(t.Triples))
	for i, tr := range t.Triples {
		out[i] = tr.Triple
	}
	return out
}

// TaskClasses implements kgstore.ClassReader.
func (s *Store) TaskClasses(ctx context.Context, taskID string) (_ []string, rerr error) {
	defer s.guard(&rerr)
	cls, err := s.readClasses(ctx, gtLabel(taskID))
	if err != nil {
		return nil, fmt.Errorf("kgstore/cayley: classes of task %q: %w", taskID, err)
	}
	return cls, nil
}

// PredictionClasses implements kgstore.ClassReader.
func (s *Store) PredictionClasses(ctx context.Context, key kgstore.SampleKey) (_ []string, rerr error) {
	defer s.guard(&rerr)
	cls, err := s.readClasses(ctx, predLabel(key))
	if err != nil {
		return nil, fmt.Errorf("kgstore/cayley: classes of prediction %s: %w", keyString(key), err)
	}
	return cls, nil
}

func (s *Store) readClasses(ctx context.Context, root quad.IRI) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	found := false
	var rec quad.Value
	err := s.scan(ctx, s.resolver(), quad.Subject, root, func(q quad.Quad) error {
		found = true
		if q.Predicate == pTripleClasses {
			rec = q.Object
		}
		return nil
	}, filter{quad.Label, root})
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, kgstore.ErrNotFound
	case rec == nil:
		return nil, kgstore.ErrNoClasses
	}
	str, ok := rec.(quad.String)
	if !ok {
		return nil, fmt.Errorf("%s: class record is %T, not a string", root, rec)
	}
	var cls []string
	if err := json.Unmarshal([]byte(str), &cls); err != nil {
		return nil, fmt.Errorf("%s: class record: %w", root, err)
	}
	return cls, nil
}
