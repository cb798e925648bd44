// Package prefilter narrows what a judge must read. For each GT triple it
// ranks the few predicted triples that could cover it (and, for the paper
// protocol's validity pass, the GT triples that could support each predicted
// triple), resolves the unambiguous claims without any judge, and cuts the
// rest into small, entity-coherent batches (Planner, an llmjudge/plan.Planner).
//
// It owns candidate generation (alias.Canon keys, name variants, alias sets,
// acronyms, Chinese abbreviations by deletion, bilingual relation concepts,
// IDF-weighted token overlap, literal values, structural alignment of names
// that do not cross languages by their shared neighbour values, and
// expansion through the predicted graph via a store), the deterministic
// tier and the batching plan with its prompt-volume accounting. It must not
// call a model, compute metrics, or decide anything that is not unambiguous:
// a candidate is never a verdict.
package prefilter
