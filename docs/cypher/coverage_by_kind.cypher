// How covered verdicts were reached (direct, subsumption, collective,
// compositional; "recorded" for imported verdicts), per model.
MATCH (r:Run {ns: $ns})<-[:OF_RUN]-(:Sample)-[j:JUDGED {covered: true}]->(:GT)
RETURN coalesce(r.model, r.name) AS model, j.kind AS kind, count(*) AS covered
ORDER BY model, kind
