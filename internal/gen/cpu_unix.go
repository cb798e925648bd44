//go:build unix

package gen

import (
	"runtime"
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

// MaxRSS returns the process's peak resident set size in bytes so far.
func MaxRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return ru.Maxrss // bytes there, KiB elsewhere
	}
	return ru.Maxrss << 10
}
