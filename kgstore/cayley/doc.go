// Package cayley is the embedded kgstore.Store: graphs kept as labelled quads in a Cayley quadstore (bbolt or leveldb on disk, memstore for ":memory:").
// It owns the quad model and its IRIs; it must not parse input files, judge triples or compute metrics.
//
// # Backend choice
//
// New store directories use Cayley's kv quadstore on bbolt; leveldb is
// available through OpenBackend, and Open recognises an existing directory
// of either kind. A single 100k-quad batch favours leveldb (about 1.5s
// against 11.5s for bbolt), but kgjudge writes many graph-sized batches
// into a growing store, and there leveldb's background compactions
// dominate. BenchmarkBackends writes 1,000 predicted graphs of 300 triples
// (1,809 quads each, 1.8M in all) through this quad model, then reads them
// all back; on a shared 2-core machine:
//
//	backend   write    read
//	bbolt     52.3s    6.6s
//	bolt      53.0s    6.2s
//	leveldb  177.6s   13.5s   (bloom filter, 32 MiB cache; stock options no better)
//	memstore  20.9s    4.2s   (":memory:", not persistent)
//
// At 50 graphs leveldb and bbolt are even (1.8s and 1.9s), so the gap is
// compaction as the store grows. bbolt rather than bolt: same speed, and
// go.etcd.io/bbolt is maintained. Rerun with
//
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
// <verdict:RUN/TASK/SAMPLE> inside <verdict:RUN>). Lists hang off their owner
// as item nodes <owner#name/i> with a kg:index, and the owner records the
// list's length (kg:tripleCount, kg:aliasCount, ...; absent means a nil
// list), so order, duplicates and nil-versus-empty survive a round trip.
// Triples are nodes:
//
//	<pred:R/T/0#triple/3> kg:index 3 ;
//	                      kg:head <pred:R/T/0#entity/Marie%20Curie> ;
//	                      kg:relation "born in" ;
//	                      kg:tail <pred:R/T/0#entity/Warsaw> .
//
// and every triple is also written as a direct edge in the same label,
//
//	<pred:R/T/0#entity/Marie%20Curie> "born in" <pred:R/T/0#entity/Warsaw> <pred:R/T/0> .
//
// so a path query can walk a graph entity to entity. Entity IRIs are
// scoped to their graph (<ROOT#entity/NAME>; ground-truth nodes link to
// theirs by kg:entity): an entity IRI shared by every graph would be a
// super-node whose index entries (one per subject-predicate pair, rewritten
// on each add) grow with every graph written; scoped IRIs keep a write's
// work proportional to its own graph and keep graphs apart. (On
// BenchmarkBackends, whose graphs are identical, the two models measured
// alike.) Which entity of one graph
// matches which of another is the alias and matcher packages' question, not
// the store's. Zero-valued scalars (empty strings, 0) are not written and
// read back as zero. Metadata (language, final query, parse report, verdict
// state/kind/judge/reason, supports) are quads on the root or item nodes;
// supports are stored as given, out-of-range values included.
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
// read keys back from the root IRIs. Neighbors starts at the entity node,
// filters on the label before resolving quads, and follows kg:head/kg:tail
// back to the triple nodes, which (unlike the direct edges) keep each
// triple's index and repeats.
package cayley
