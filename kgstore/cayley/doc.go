// Package cayley is the embedded kgstore.Store: graphs kept as labelled quads in a Cayley quadstore (bbolt or leveldb on disk, memstore for ":memory:").
// It owns the quad model and its IRIs; it must not parse input files, judge triples or compute metrics.
//
// # Backend choice
//
// New store directories use Cayley's kv quadstore on bbolt; leveldb is
// available through OpenBackend, and Open recognises an existing directory
// of either kind. BenchmarkPutSample writes generated samples (internal/gen:
// 100-450 GT and 200-800 predicted triples, their tasks first) with their
// verdicts, as a scoring run does; 200 samples, on the shared 2-core
// machine (load average about 20, so CPU time is the figure to read, wall
// time only roughly):
//
//	backend   CPU/sample  wall/sample  store/sample  written/sample
//	bbolt       0.041 s     0.22 s      0.68 MB        5.7 MB
//	leveldb     0.081 s     0.46 s      0.15 MB        3.7 MB   (bloom filter, 32 MiB cache)
//	memstore    0.013 s     0.08 s      1.6 MB heap     -
//
// and writing a sample's prediction and verdicts in one batch
// (kgstore.PutSample) instead of two Puts: bbolt 0.039 s CPU, 0.14 s wall,
// 5.5 MB written; leveldb 0.061 s, 2.2 MB written. Before the records (see
// the quad model) the same benchmark (100 samples) measured bbolt 0.22 s
// CPU, 3.5 MB on disk and 26 MB written per sample, leveldb 0.33 s and
// 0.70 MB, memstore 0.12 s and 8.0 MB of heap. bbolt stays the default:
// half leveldb's CPU per sample on a two-core machine, no background
// compaction; leveldb's store is a quarter of bbolt's size on disk.
// BenchmarkBackends (1,000 identical 300-triple graphs, read back too)
// found the same order with the older model. Rerun with
//
//	go test ./kgstore/cayley -run '^$' -bench PutSample -benchtime 1x -kgstore.samples 200
//	go test ./kgstore/cayley -run '^$' -bench BenchmarkBackends -benchtime 1x
//
// (-kgstore.samples, -kgstore.triples and -kgstore.backends change the set).
//
// # Quad model
//
// Every graph has its own label (the quad's fourth element):
//
//	<gt:TASK>               ground truth of one task
//	<pred:RUN/TASK/SAMPLE>  one predicted sample of a run
//	<verdict:RUN>           every verdict set of a run
//
// where TASK and RUN are escaped (every byte outside [A-Za-z0-9-._~] as %XX),
// so ids with spaces, slashes or CJK give stable, reversible IRIs.
//
// A graph's root node is its label IRI (a verdict set's root is
// <verdict:RUN/TASK/SAMPLE> inside <verdict:RUN>). Lists of metadata hang
// off their owner as item nodes <owner#name/i> with a kg:index, and the
// owner records the list's length (kg:aliasCount, kg:noteCount, ...;
// absent means a nil list), so order, duplicates and nil-versus-empty
// survive a round trip.
//
// A graph's triples are one record on its root, in order and with
// repeats: kg:tripleRecords (a prediction: a JSON array of [head,
// relation, tail]) or kg:gtTripleRecords (a task: objects that also carry
// the ids, weight, stage and kind). Every triple is also written as a
// direct edge in the same label,
//
//	<pred:R/T/0#entity/Marie%20Curie> "born in" <pred:R/T/0#entity/Warsaw> <pred:R/T/0> .
//
// so a path query can walk a graph entity to entity. A verdict set is
// records too: kg:coverageRecords and kg:validityRecords, one JSON array
// per pass (absent for a nil list). Earlier stores held a node per triple
// (<ROOT#triple/i> with kg:index, kg:head, kg:relation, kg:tail, linked
// from the root by kg:triple) and per verdict; those still read (and a
// Put rewrites them as records), and a graph with a string that is not
// valid UTF-8, which JSON would alter, is still written that way. Why the
// records: a generated benchmark sample (internal/gen: 100-450 GT and
// 200-800 predicted triples) was 2,928 quads with triple and verdict
// nodes and is 473 as records, and Cayley's cost per quad (node refcounts,
// two index entries, a log primitive; in memstore a B-tree per node and
// direction) is what a write and a stored sample cost. Nothing walked the
// triple or verdict nodes as a graph: graphs are read back whole, by key,
// and Neighbors filters the record (the last few decoded records are
// cached, a fixed number). The Neo4j store keeps the queryable graph of
// verdicts.
//
// Entity IRIs are scoped to their graph (<ROOT#entity/NAME>; ground-truth
// nodes link to theirs by kg:entity): an entity IRI shared by every graph
// would be a super-node whose index entries (one per subject-predicate
// pair, rewritten on each add) grow with every graph written; scoped IRIs
// keep a write's work proportional to its own graph and keep graphs
// apart. Which entity of one graph matches which of another is the alias
// and matcher packages' question, not the store's. Zero-valued scalars
// (empty strings, 0) are not written and read back as zero. Metadata
// (language, final query, parse report) are quads on the root or item
// nodes; supports are stored as given, out-of-range values included.
//
// Writes are batched: a Put reads the graph's old quads (walking from its
// root by subject, plus the direct edges its triple nodes imply), then
// applies the difference as two Cayley transactions, one deleting old-new
// and one adding new-old. Writing the same graph twice changes nothing the
// second time, and a smaller graph leaves no stale quads. (One mixed
// transaction is not used: in Cayley's kv layer a batch that both deletes
// and adds quads sharing nodes lost quads. The two batches are not atomic
// together; a failed add puts the deleted quads back.)
//
// Reads walk from the root by subject, never by label: Cayley's kv
// backends index quads by subject and by object only, so a label lookup
// scans the whole store. Listings (TaskIDs, Runs, Samples) use the object
// index (rdf:type kg:Task, kg:Prediction, kg:VerdictSet; kg:run "RUN") and
// read keys back from the root IRIs. Neighbors reads the prediction's
// record (which, unlike the direct edges, keeps each triple's index and
// repeats); for a prediction stored with triple nodes it starts at the
// entity node and follows kg:head/kg:tail back to them.
package cayley
