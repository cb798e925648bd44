// Coverage per model and relation class of the GT triple (factual,
// organizational, bibliographic, subjective, meta; package hierarchy).
MATCH (r:Run {ns: $ns})<-[:OF_RUN]-(s:Sample)-[:OF_TASK]->(t:Task)-[:HAS_TRIPLE]->(g:GT)
WHERE s.judged
WITH r, s, g, EXISTS { (s)-[:JUDGED {covered: true}]->(g) } AS covered
RETURN coalesce(r.model, r.name) AS model, g.class AS class, count(*) AS gt_triples,
       sum(CASE WHEN covered THEN 1 ELSE 0 END) AS covered,
       round(toFloat(sum(CASE WHEN covered THEN 1 ELSE 0 END)) / count(*), 4) AS recall
ORDER BY model, class
