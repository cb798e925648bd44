// GT triples that no judged sample of any model covers, counted by relation.
MATCH (t:Task {ns: $ns})-[:HAS_TRIPLE]->(g:GT)
WHERE EXISTS { (g)<-[:JUDGED]-(:Sample) }
  AND NOT EXISTS { (g)<-[:JUDGED {covered: true}]-(:Sample) }
RETURN g.relation AS relation, count(*) AS uncovered
ORDER BY uncovered DESC, relation
