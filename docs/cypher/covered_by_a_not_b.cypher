// GT triples run $a covers (in some sample) and run $b, which judged them,
// covers in none of its samples.
// Params: a, b (run names)
MATCH (ra:Run {ns: $ns, name: $a}), (rb:Run {ns: $ns, name: $b})
MATCH (ra)<-[:OF_RUN]-(:Sample)-[:JUDGED {covered: true}]->(g:GT)
WHERE EXISTS { (rb)<-[:OF_RUN]-(:Sample)-[:JUDGED]->(g) }
  AND NOT EXISTS { (rb)<-[:OF_RUN]-(:Sample)-[:JUDGED {covered: true}]->(g) }
RETURN DISTINCT g.task AS task, g.index AS gt_index, g.head AS head, g.relation AS relation, g.tail AS tail
ORDER BY task, gt_index
