// Package ingest turns files into kg values: ground-truth task files,
// predictions (agent response text, trajectory JSONL, final extractions,
// JSON/JSONL/CSV triple lists) and the reference evaluator's records.
// It does not score, judge or store anything.
//
// Every problem with an input is reported as an *InputError naming the file,
// the line (JSONL, CSV) or JSON path and what was wrong; readers that take a
// directory return the good files' values together with a *FileErrors that
// lists every bad file. Problems that do not stop a file from being used
// are Warnings (TaskWarnings, PredictionWarnings), for the caller to print.
// Input files are opened through internal/inputfile, so a FIFO or a device
// among them is a bad input, never a blocked read.
package ingest
