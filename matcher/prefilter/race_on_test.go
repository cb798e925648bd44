//go:build race

package prefilter

// raceEnabled: the race detector is on (the all-fixture figures, ten times
// slower under it, are measured by the plain run).
const raceEnabled = true
