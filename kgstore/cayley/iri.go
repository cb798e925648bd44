package cayley

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/kgjudge/kgjudge/kgstore"
)

// Predicates of the quad model. Values (texts) are quad.String, numbers
// quad.Int or quad.Float, nodes quad.IRI.
const (
	pType = quad.IRI("rdf:type")

	tTask       = quad.IRI("kg:Task")
	tPrediction = quad.IRI("kg:Prediction")
	tVerdictSet = quad.IRI("kg:VerdictSet")

	pIndex = quad.IRI("kg:index")
	pValue = quad.IRI("kg:value")

	// Task.
	pTaskID     = quad.IRI("kg:taskId")
	pLanguage   = quad.IRI("kg:language")
	pSubset     = quad.IRI("kg:subset")
	pFinalQuery = quad.IRI("kg:finalQuery")
	pNode       = quad.IRI("kg:node")
	pNodeID     = quad.IRI("kg:nodeId")
	pEntity     = quad.IRI("kg:entity")
	pAlias      = quad.IRI("kg:alias")
	pWarning    = quad.IRI("kg:warning")

	// Triples.
	pTriple   = quad.IRI("kg:triple")
	pHead     = quad.IRI("kg:head")
	pRelation = quad.IRI("kg:relation")
	pTail     = quad.IRI("kg:tail")
	pHeadID   = quad.IRI("kg:headId")
	pTailID   = quad.IRI("kg:tailId")
	pWeight   = quad.IRI("kg:weight")
	pStage    = quad.IRI("kg:stage")
	pKind     = quad.IRI("kg:kind")

	// Sample keys (predictions and verdict sets).
	pRun        = quad.IRI("kg:run")
	pKeyTask    = quad.IRI("kg:keyTask")
	pKeySample  = quad.IRI("kg:keySample")
	pQID        = quad.IRI("kg:qid")
	pPredTaskID = quad.IRI("kg:predTaskId")
	pSampleIdx  = quad.IRI("kg:sampleIdx")

	// Parse report.
	pParseStatus      = quad.IRI("kg:parseStatus")
	pParseMethod      = quad.IRI("kg:parseMethod")
	pParseTriples     = quad.IRI("kg:parseTriples")
	pParseSalvaged    = quad.IRI("kg:parseSalvaged")
	pParseStringified = quad.IRI("kg:parseStringified")
	pParseSkipped     = quad.IRI("kg:parseSkipped")
	pParseMisaligned  = quad.IRI("kg:parseMisaligned")
	pNote             = quad.IRI("kg:note")

	// Verdicts.
	pCoverage  = quad.IRI("kg:coverage")
	pValidity  = quad.IRI("kg:validity")
	pGTIndex   = quad.IRI("kg:gtIndex")
	pPredIndex = quad.IRI("kg:predIndex")
	pState     = quad.IRI("kg:state")
	pJudge     = quad.IRI("kg:judge")
	pReason    = quad.IRI("kg:reason")
	pSupport   = quad.IRI("kg:support")
	// A prediction's triples as a record (see encodePrediction).
	pTripleRecords = quad.IRI("kg:tripleRecords")
	// A task's GT triples as a record (see encodeTask).
	pGTTripleRecords = quad.IRI("kg:gtTripleRecords")
	// A verdict set's passes as records (see encodeVerdicts).
	pCoverageRecords = quad.IRI("kg:coverageRecords")
	pValidityRecords = quad.IRI("kg:validityRecords")
)

// countPred names the predicate holding the length of the list pred.
func countPred(pred quad.IRI) quad.IRI { return pred + "Count" }

const (
	gtPrefix      = "gt:"
	predPrefix    = "pred:"
	verdictPrefix = "verdict:"
	entityInfix   = "#entity/"
)

// escape percent-encodes every byte outside [A-Za-z0-9-._~]: deterministic,
// reversible, and free of '/', '#', '>' and spaces.
func escape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("bad escape in %q", s)
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("bad escape in %q", s)
		}
		b = append(b, byte(v))
		i += 2
	}
	return string(b), nil
}

func gtLabel(taskID string) quad.IRI { return quad.IRI(gtPrefix + escape(taskID)) }

func keyPath(k kgstore.SampleKey) string {
	return escape(k.Run) + "/" + escape(k.TaskID) + "/" + strconv.Itoa(k.Sample)
}

func predLabel(k kgstore.SampleKey) quad.IRI { return quad.IRI(predPrefix + keyPath(k)) }

func verdictLabel(run string) quad.IRI { return quad.IRI(verdictPrefix + escape(run)) }

func verdictRoot(k kgstore.SampleKey) quad.IRI { return quad.IRI(verdictPrefix + keyPath(k)) }

// entityIRI names the entity called name inside the graph rooted at root.
// Entities are per graph: an entity shared by thousands of graphs would be
// a super-node whose index entries Cayley rewrites on every write.
func entityIRI(root quad.IRI, name string) quad.IRI {
	return quad.IRI(string(root) + entityInfix + escape(name))
}

func isEntity(v quad.Value) bool {
	iri, ok := v.(quad.IRI)
	return ok && strings.Contains(string(iri), entityInfix)
}

func entityName(v quad.Value) (string, error) {
	iri, ok := v.(quad.IRI)
	i := strings.Index(string(iri), entityInfix)
	if !ok || i < 0 {
		return "", fmt.Errorf("not an entity: %v", v)
	}
	return unescape(string(iri)[i+len(entityInfix):])
}

func item(owner quad.IRI, list string, i int) quad.IRI {
	sep := "#"
	if strings.Contains(string(owner), "#") {
		sep = "/"
	}
	return quad.IRI(string(owner) + sep + list + "/" + strconv.Itoa(i))
}

// decodeRoot splits a root IRI prefix+esc(a)/esc(b)/... into its unescaped
// parts.
func decodeRoot(v quad.Value, prefix string) ([]string, error) {
	iri, ok := v.(quad.IRI)
	if !ok || !strings.HasPrefix(string(iri), prefix) {
		return nil, fmt.Errorf("not a %s root: %v", prefix, v)
	}
	parts := strings.Split(string(iri)[len(prefix):], "/")
	for i, p := range parts {
		u, err := unescape(p)
		if err != nil {
			return nil, err
		}
		parts[i] = u
	}
	return parts, nil
}

// decodeKeyIRI reads the sample key out of a prediction label or verdict
// set root (prefix RUN/TASK/SAMPLE).
func decodeKeyIRI(v quad.Value, prefix string) (kgstore.SampleKey, error) {
	parts, err := decodeRoot(v, prefix)
	if err != nil {
		return kgstore.SampleKey{}, err
	}
	if len(parts) != 3 {
		return kgstore.SampleKey{}, fmt.Errorf("not a sample key: %v", v)
	}
	n, err := strconv.Atoi(parts[2])
	if err != nil {
		return kgstore.SampleKey{}, fmt.Errorf("not a sample key: %v", v)
	}
	return kgstore.SampleKey{Run: parts[0], TaskID: parts[1], Sample: n}, nil
}
