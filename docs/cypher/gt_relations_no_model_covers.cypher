// GT relations (per task) of which no model covers a single triple.
MATCH (t:Task {ns: $ns})-[:HAS_TRIPLE]->(g:GT)
WHERE EXISTS { (g)<-[:JUDGED]-(:Sample) }
WITH t, g.relation AS relation, collect(g) AS triples
WHERE none(x IN triples WHERE EXISTS { (x)<-[:JUDGED {covered: true}]-(:Sample) })
RETURN t.id AS task, relation, size(triples) AS gt_triples
ORDER BY task, relation
