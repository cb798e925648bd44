// GT entities (the task's node list) that a model never mentions, as head or
// tail of any predicted triple in any of its samples (exact names; use
// e.norm for a looser match).
MATCH (r:Run {ns: $ns})<-[:OF_RUN]-(:Sample)-[:OF_TASK]->(t:Task)
WITH DISTINCT r, t
MATCH (t)-[:HAS_NODE]->(e:Entity)
WITH DISTINCT r, t, e
WHERE NOT EXISTS { (e)<-[:HEAD|TAIL]-(:Pred)<-[:HAS_TRIPLE]-(:Sample)-[:OF_RUN]->(r) }
RETURN coalesce(r.model, r.name) AS model, t.id AS task, count(e) AS never_mentioned,
       collect(e.name)[0..5] AS examples
ORDER BY model, task
