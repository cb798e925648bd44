// Predicted triples the validity pass judged not supported by the GT graph
// (valid = 'uncovered'), by model and relation.
MATCH (r:Run {ns: $ns})<-[:OF_RUN]-(s:Sample)-[:HAS_TRIPLE]->(p:Pred)
WHERE p.valid = 'uncovered'
RETURN coalesce(r.model, r.name) AS model, p.relation AS relation, count(*) AS invalid
ORDER BY model, invalid DESC, relation
