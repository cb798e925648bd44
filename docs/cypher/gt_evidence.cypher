// The evidence for one GT triple: every predicted triple a judge cited for it.
// Params: task (task id), index (GT triple index)
MATCH (:Task {ns: $ns, id: $task})-[:HAS_TRIPLE]->(g:GT {index: $index})
MATCH (g)-[c:COVERED_BY]->(p:Pred)
RETURN c.run AS run, c.sample AS sample, c.state AS state, c.kind AS kind,
       p.index AS pred_index, p.head AS head, p.relation AS relation, p.tail AS tail
ORDER BY run, sample, pred_index
