//go:build !race

package prefilter

const raceEnabled = false
