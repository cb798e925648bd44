// Package alias finds who could match whom: for one task it indexes the
// entities and relations of a graph (the predicted graph for coverage, the
// GT graph for validity) on Bleve and, for a query string, returns the
// candidates worth showing a judge, each with how it was found (exact, alias,
// partial, fuzzy, crosslingual).
//
// It owns text analysis for mixed Chinese/English graphs, canonical value
// forms (Canon), alias sets (GT node aliases, user alias files) and the
// built-in bilingual relation-concept table (data/relation_concepts.tsv).
// It must not decide verdicts, compute metrics or read task files: a hit is
// a candidate, never a match.
package alias
