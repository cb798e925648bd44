// Per sample: covered GT triples counted in the graph, next to the
// covered_count written with the sample (and the published one, for imports).
MATCH (r:Run {ns: $ns})<-[:OF_RUN]-(s:Sample)
WHERE s.judged
OPTIONAL MATCH (s)-[:JUDGED {covered: true}]->(g:GT)
RETURN r.name AS run, s.task AS task, s.sample AS sample, count(DISTINCT g) AS covered,
       s.covered_count AS covered_count, s.published_covered_count AS published_covered_count
ORDER BY run, task, sample
