// Package hierarchy owns the "why" of a score: it classifies relations (factual, organizational, bibliographic, subjective, meta), measures graph structure and breaks coverage and validity down by class, depth and invalidity type.
// It is a pure library over kg types: it must not read files, call judges, touch a store or change any verdict or metric.
package hierarchy
