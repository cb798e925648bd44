package neo4j

import (
	"fmt"

	"github.com/kgjudge/kgjudge/kg"
	"os"
	"strconv"
	"strings"
)

// Environment variables read by ConfigFromEnv.
const (
	EnvURI       = "NEO4J_URI"
	EnvUser      = "NEO4J_USER"
	EnvPassword  = "NEO4J_PASSWORD"
	EnvDatabase  = "NEO4J_DATABASE"
	EnvNamespace = "KGJUDGE_NEO4J_NAMESPACE"
	EnvBatchRows = "KGJUDGE_NEO4J_BATCH"
	EnvParallel  = "KGJUDGE_NEO4J_PARALLEL"
)

// DefaultNamespace is the namespace used when none is configured.
const DefaultNamespace = "default"

// DefaultBatchRows is how many rows (triples, verdicts, graph nodes) a
// Writer gathers before it commits a transaction.
const DefaultBatchRows = 10000

// DefaultParallel is how many write transactions a Writer runs at once.
const DefaultParallel = 1

// Config says how to reach Neo4j and where in it kgjudge's graphs live.
type Config struct {
	// URI is the Bolt URI (bolt://host:7687, neo4j://..., neo4j+s://...).
	URI string
	// User and Password: both empty means no authentication.
	User     string
	Password string
	// Database is the Neo4j database; empty means the server's default
	// ("neo4j"; Community has only that one).
	Database string
	// Namespace separates independent datasets in one database (Community
	// has a single database): every node carries it as property ns and every
	// key starts with it. Empty means DefaultNamespace.
	Namespace string
	// BatchRows bounds the rows of one write transaction; 0 means
	// DefaultBatchRows.
	BatchRows int
	// Parallel bounds the write transactions a Writer runs at once (on
	// different tasks); 0 means DefaultParallel.
	Parallel int
	// Trace prints each write statement's time to stderr
	// (KGJUDGE_NEO4J_TRACE=1), for tuning the sync.
	Trace bool
	// Classes gives the relation class written on every stored triple
	// (nil: no class). The store does not classify: its caller passes the
	// analyzer in use, and the analyzer's Version is part of every graph's
	// content hash, so a changed lexicon rewrites the stored classes.
	Classes Classifier
}

// Classifier assigns each triple of a graph its relation class.
type Classifier interface {
	// Classify returns one class per triple of graph, in order.
	Classify(graph []kg.Triple) []string
	// Version names the classification data (a lexicon hash).
	Version() string
}

// ConfigFromEnv reads NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE,
// KGJUDGE_NEO4J_NAMESPACE, KGJUDGE_NEO4J_BATCH and KGJUDGE_NEO4J_PARALLEL. Unset variables leave
// fields empty (zero), which Open fills with defaults.
func ConfigFromEnv() Config {
	c := Config{
		URI:       os.Getenv(EnvURI),
		User:      os.Getenv(EnvUser),
		Password:  os.Getenv(EnvPassword),
		Database:  os.Getenv(EnvDatabase),
		Namespace: os.Getenv(EnvNamespace),
	}
	if n, err := strconv.Atoi(os.Getenv(EnvBatchRows)); err == nil {
		c.BatchRows = n
	}
	if n, err := strconv.Atoi(os.Getenv(EnvParallel)); err == nil {
		c.Parallel = n
	}
	c.Trace = os.Getenv("KGJUDGE_NEO4J_TRACE") != ""
	return c
}

// withDefaults fills empty fields and checks the rest.
func (c Config) withDefaults() (Config, error) {
	if c.URI == "" {
		return c, fmt.Errorf("neo4j: no URI (set --neo4j-uri or %s)", EnvURI)
	}
	if c.Namespace == "" {
		c.Namespace = DefaultNamespace
	}
	if strings.Contains(c.Namespace, sep) {
		return c, fmt.Errorf("neo4j: namespace %q contains U+001F", c.Namespace)
	}
	if c.BatchRows <= 0 {
		c.BatchRows = DefaultBatchRows
	}
	if c.Parallel <= 0 {
		c.Parallel = DefaultParallel
	}
	return c, nil
}
