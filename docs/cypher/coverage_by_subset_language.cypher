// Coverage per model, subset (pro / daily) and language.
MATCH (r:Run {ns: $ns})<-[:OF_RUN]-(s:Sample)-[:OF_TASK]->(t:Task)
WHERE s.judged
OPTIONAL MATCH (s)-[:JUDGED {covered: true}]->(g:GT)
WITH r, s, t, count(DISTINCT g) AS covered
RETURN coalesce(r.model, r.name) AS model, coalesce(t.subset, '?') AS subset, t.language AS language,
       count(s) AS samples, sum(covered) AS covered, sum(t.n_triples) AS gt_triples,
       round(toFloat(sum(covered)) / sum(t.n_triples), 4) AS recall
ORDER BY model, subset, language
