package hierarchy

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/kgjudge/kgjudge/kg"
)

// Version names the classification data in use (a hash of the embedded
// lexicon), so that stores keeping classes can tell when they are stale.
func Version() string {
	sum := sha256.Sum256(lexiconTSV)
	return "lexicon-" + hex.EncodeToString(sum[:6])
}

// GraphClassifier classifies relations graph by graph, as ClassifyGraph
// does, for stores that keep a class on every stored triple.
type GraphClassifier struct{}

// Classify returns the class of each triple's relation, in graph order.
func (GraphClassifier) Classify(graph []kg.Triple) []string {
	byRel := map[string]string{}
	for _, c := range ClassifyGraph(graph, nil) {
		byRel[c.Relation] = string(c.Class)
	}
	out := make([]string, len(graph))
	for i, t := range graph {
		out[i] = byRel[t.Relation]
	}
	return out
}

// Version implements the stores' classifier seam.
func (GraphClassifier) Version() string { return Version() }
