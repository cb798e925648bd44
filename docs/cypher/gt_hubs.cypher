// The knowledge graph itself: GT entities with the most outgoing relations
// (walking the direct entity-to-entity REL edges of the ground truth).
// Params: limit (integer)
MATCH (e:Entity {ns: $ns})-[x:REL {source: 'GT'}]->()
RETURN e.task AS task, e.name AS entity, count(x) AS out_degree
ORDER BY out_degree DESC, task, entity
LIMIT $limit
