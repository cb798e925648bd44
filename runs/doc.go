// Package runs owns a run: scoring predictions against ground truth (load and
// match the inputs, judge samples in a worker pool, commit them in input
// order to the store and the outputs, analyse and summarise), importing the
// benchmark's recorded runs, and exporting a store to Neo4j. It returns plain
// errors (an *InputError for what the user gave) and leaves flags, exit codes
// and rendering to cli. It does not parse flags or print tables.
package runs
