// Package prefilter narrows what a judge must read. For each GT triple it
// ranks the few predicted triples that could cover it (and, for the paper
// protocol's validity pass, the GT triples that could support each predicted
// triple), resolves the unambiguous claims without any judge, and cuts the
// rest into small, entity-coherent batches (Planner, an llmjudge/plan.Planner).
//
// Retrieval runs in stages, per GT head and tail; every stage only proposes
// predicted entities, and one ranker (matchEntity, then the triple score of
// rank) scores them all:
//
//  1. Token and variant indexes over the predicted entities (in memory):
//     shared words and CJK bigrams, alias.Canon keys, name variants ("MAC /
//     魅可"), alias-set keys, acronyms, Chinese abbreviations by deletion,
//     bilingual relation concepts.
//  2. A Bleve index (alias.Build, in memory, batched) of the predicted
//     entities and relations, with the GT node alias sets and
//     Options.Aliases as its synonym sets, queried with Index.Entities. It
//     adds what the first stage cannot retrieve: names containing (or
//     sharing words with) another member of the GT entity's alias set,
//     scored through that member, and words equal up to a typo, scored as
//     shared words discounted (index.go). A match only this stage found is
//     tagged in the candidate's Why ("head:bleve:alias", "tail:bleve:fuzzy").
//     Options.NoIndex turns it off. On the repository fixtures the first
//     stage already retrieves every Bleve hit the ranker keeps, so there the
//     stage changes no candidate; it pays off on alias files and typos.
//  3. Structural alignment of names that do not cross languages, by their
//     shared neighbour values (for GT entities with no fair name match
//     from stage 1).
//  4. One hop along bridge edges from the strongest matches, through the
//     predicted graph via a store (Graph).
//  5. Optionally (Options.Embedder, embedstage.go), embeddings over any
//     OpenAI-compatible endpoint (package embed): every GT triple as a
//     query, every predicted triple as a passage; each GT triple's
//     nearest predicted triples join its pool with a bonus by rank, and
//     each predicted triple's nearest GT triple is kept among its
//     validity candidates whatever its score (displacing the
//     lowest-ranked at the cap; EmbedParams). Ranks, not a cosine cut:
//     with e5 unrelated pairs score about 0.84. Candidate.Cosine carries
//     the cosine for later stages (the offline judge's features).
//
// Loose name forms (loose.go) propose and score matches that Canon keys
// keep apart: spacing at Latin/CJK boundaries, written-out abbreviations,
// a number with and without its unit, a relation carrying the unit.
//
// Predicted triples touching a retrieved entity, or sharing a distinctive
// word with the GT triple (IDF-weighted bag of words), are ranked and cut
// (MaxCandidates, MinScore, RelativeCut). Validity candidates are the
// coverage ranking read backwards, so they see every stage's matches.
//
// The package owns candidate generation, the deterministic tier and the
// batching plan with its prompt-volume accounting. It must not call a model,
// compute metrics, or decide anything that is not unambiguous: a candidate
// is never a verdict.
package prefilter
