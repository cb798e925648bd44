// Coverage per model: GT triples covered (micro recall over all judged samples)
// and the mean per-sample triplet recall.
MATCH (r:Run {ns: $ns})<-[:OF_RUN]-(s:Sample)-[:OF_TASK]->(t:Task)
WHERE s.judged
OPTIONAL MATCH (s)-[:JUDGED {covered: true}]->(g:GT)
WITH r, s, t, count(DISTINCT g) AS covered
WITH coalesce(r.model, r.name) AS model, count(s) AS samples,
     sum(covered) AS covered, sum(t.n_triples) AS gt_triples,
     avg(toFloat(covered) / t.n_triples) AS mean_recall
RETURN model, samples, covered, gt_triples,
       round(toFloat(covered) / gt_triples, 4) AS recall, round(mean_recall, 4) AS mean_recall
ORDER BY model
