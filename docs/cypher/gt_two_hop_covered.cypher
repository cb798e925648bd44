// Two-hop GT paths (a)-[r1]->(b)-[r2]->(c) whose both triples a model covers
// in the same sample: chains of facts the model reproduced end to end.
// Params: run (run name)
MATCH (run:Run {ns: $ns, name: $run})<-[:OF_RUN]-(s:Sample)-[:OF_TASK]->(t:Task)
MATCH (t)-[:HAS_TRIPLE]->(g1:GT)-[:TAIL]->(b:Entity)<-[:HEAD]-(g2:GT)<-[:HAS_TRIPLE]-(t)
WHERE g1 <> g2
  AND EXISTS { (s)-[:JUDGED {covered: true}]->(g1) }
  AND EXISTS { (s)-[:JUDGED {covered: true}]->(g2) }
RETURN t.id AS task, count(*) AS covered_chains
ORDER BY task
