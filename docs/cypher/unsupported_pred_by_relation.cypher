// Predicted triples that support nothing: no coverage verdict cites them
// (they are in no supporting_pred_indices), by model and relation.
MATCH (r:Run {ns: $ns})<-[:OF_RUN]-(s:Sample)-[:HAS_TRIPLE]->(p:Pred)
WHERE s.judged AND NOT EXISTS { (:GT)-[:COVERED_BY]->(p) }
RETURN coalesce(r.model, r.name) AS model, p.relation AS relation, count(*) AS unsupported
ORDER BY model, unsupported DESC, relation
