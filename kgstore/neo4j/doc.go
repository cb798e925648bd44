// Package neo4j is the Neo4j kgstore.Store: ground truth, predictions and verdicts as a property graph analysts can query in Cypher.
// It owns the graph model, its keys, constraints and batched writes; it must not parse input files, judge triples or compute metrics.
//
// # Graph model (docs/neo4j.md has the picture)
//
//	(:Task {key, ns, id, language, final_query, ...})-[:HAS_TRIPLE]->(:Triple:GT {index, head, relation, tail, class, ...})
//	(:Task)-[:HAS_NODE {pos, id, aliases}]->(:Entity {key, ns, task, name, norm})
//	(:Sample {key, ns, run, task, sample, parse_*, metrics...})-[:OF_RUN]->(:Run {key, ns, name, model, framework, n_samples, tasks, ...})
//	(:Sample)-[:OF_TASK]->(:Task)
//	(:Sample)-[:HAS_TRIPLE]->(:Triple:Pred {index, head, relation, tail, class, valid})
//	(:Triple)-[:HEAD]->(:Entity), (:Triple)-[:TAIL]->(:Entity)
//	(:Entity)-[:REL {relation, class, source: "GT"|"Pred", graph, task, run, sample, index}]->(:Entity)
//	(:Sample)-[:JUDGED {state, covered, kind, judge, reason, pos}]->(:Triple:GT)
//	(:Triple:GT)-[:COVERED_BY {state, kind, judge, run, sample, pos}]->(:Triple:Pred)
//	(:Triple:Pred)-[:SUPPORTED_BY {state, judge, run, sample, pos}]->(:Triple:GT)
//
// Entities are per task: one node per (namespace, task, exact name), shared
// by the task's ground truth and every prediction for it, so "which GT
// entities does no model mention" is one pattern. Every node has a key
// property (namespace, kind letter and ids joined by U+001F) with a
// uniqueness constraint, so every MERGE and lookup is an index seek; ids and
// run names must not contain U+001F.
//
// A namespace (Config.Namespace, property ns) keeps independent datasets
// apart in one database (Community has only one): every key starts with it,
// and queries anchor on it ({ns: $ns}; Query binds $ns).
//
// # Round trips
//
// Reads give back exactly what was written: list order from index/pos
// properties, nil versus empty lists from absent versus empty list
// properties (and nodes_nil / triples_nil flags). A verdict set is kept
// verbatim as JSON in the Sample's verdicts property (duplicates and
// out-of-range indices included); the JUDGED, COVERED_BY and SUPPORTED_BY
// relationships are derived from it for the indices that name a triple, and
// are rewritten whenever the verdicts, the prediction or the ground truth
// change, whatever the order of the writes.
//
// # Writes
//
// Every Put is one transaction of a few UNWIND statements with parameters
// (no Cypher is built from data). A Writer batches many graphs into
// transactions of about Config.BatchRows rows (Config.Parallel at once, on
// disjoint tasks). Each graph carries a content
// hash; writing the same graph again is skipped inside the transaction, so
// a second sync changes nothing. A changed graph replaces the old one
// (its triples deleted and recreated, orphaned entities removed).
package neo4j
