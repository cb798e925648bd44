//go:build unix

package gen

import (
	"syscall"
	"time"
)

// CPU returns the CPU time (user + system) this process has used. On a
// machine shared with other work it is a steadier measure of a benchmark's
// cost than wall time.
func CPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
