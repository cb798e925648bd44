// GT triples covered, but only ever compositionally (through several
// predicted triples joined by explicit relations), by any model.
MATCH (t:Task {ns: $ns})-[:HAS_TRIPLE]->(g:GT)<-[j:JUDGED {covered: true}]-(:Sample)
WITH t, g, collect(DISTINCT j.kind) AS kinds
WHERE kinds = ['compositional']
RETURN t.id AS task, g.index AS gt_index, g.head AS head, g.relation AS relation, g.tail AS tail
ORDER BY task, gt_index
