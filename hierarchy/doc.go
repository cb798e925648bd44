// Package hierarchy owns the "why" of a score: it classifies triples (factual, organizational, bibliographic, subjective, meta), measures graph structure and breaks coverage and validity down by class, depth and invalidity type.
// It is a pure library over kg types: it must not read files, call judges, touch a store or change any verdict or metric.
// A chat model's second opinion on weakly decided classes lives in package llmclass, which hands the classes back (AnalyzeClassified).
//
// # Classes
//
// A class belongs to one triple, not to a relation string: the same relation
// name may be factual in one triple and meta in another. The class is read
// from the relation, the kinds of the head and tail values (entity, literal,
// yes/no, number, date, URL, identifier) and, for a predicted graph, the GT
// graph it is judged against. These definitions are what the hand labels in
// testdata/labelled_triples.tsv were decided by; the classifier is measured
// against them, never the other way round.
//
//   - factual: the triple states something about the world: an attribute of
//     an entity (price, founding year, headquarters), a relation between two
//     entities (author, located in, developed by), a measured value or rank in
//     a chart (sales rank, market share, count of hospitals). A yes/no or count
//     value is a reified fact ("within 5 km: Yes", "是否公立三甲: 是",
//     "number of branches: 12"): it is factual even when it restates one of
//     the user's conditions, because it can be true or false about the world.
//     Factual is the default.
//   - organizational: the graph's scaffolding or a classification rather than
//     a fact about the thing itself: topic -> dimension -> subtopic -> entity,
//     containment and membership in a list, chart, tier, batch or group
//     ("Platinum Tier Game", "入选名单", "第14名" from a ranking list node),
//     and assigning an entity to a type, class, category, tier, priority,
//     level or group ("hospital type: 综合", "priority: critical",
//     "Ambler分类: A类", an is-a link to a class node). A relation that lists
//     what a thing offers ("cover types: comprehensive, TPO") is factual; the
//     head being put into a type is organizational.
//   - bibliographic: the triple describes a published work as a record, or
//     points at one: the paper, book, article, report, blog post, reference
//     or repository that introduced or documents something, or that a person
//     wrote ("论文", "参考论文", "technical report", "代表著作", a dimension
//     node's "core paper"), and the record's fields: title, authors, first
//     author, editors, venue, publisher, publication date or year, edition,
//     volume, issue, pages, DOI, arXiv or other identifiers, URL, citations.
//     What a work says (its findings, dataset, method) is factual. A predicted bibliographic triple
//     is "asked for" when the GT graph holds bibliographic triples of the
//     same kind (the same concept: paper, venue, year, identifier, ...),
//     "unasked" otherwise; a GT bibliographic triple is always asked for.
//   - subjective: the value is a judgement rather than a checkable fact:
//     significance, impact, legacy, innovation, "pioneering direction",
//     strengths and weaknesses, evaluations, recommendations and their
//     reasons, advice, ratings and scores that express an opinion
//     ("舒适度评分", "Trustpilot score", "review score"). A relation named
//     like a judgement whose value is checkable ("impact: 250,000 servers
//     compromised") is factual.
//   - meta: the statement is about the answer itself, not the world: its
//     sources and data provenance ("数据来源", "recommendation source"),
//     notes, caveats and confidence, verification status, the search
//     process, and filtering: whether an item meets the user's criteria as
//     a whole, why it was filtered out, which criterion it fails, the final
//     recommendation or answer.
//
// When a triple could fit two classes, the order above is reversed: meta
// before bibliographic, bibliographic before subjective, subjective before
// organizational, organizational before factual.
package hierarchy
