//go:build !unix

package gen

import "time"

// CPU returns 0 where the process's CPU time is not available.
func CPU() time.Duration { return 0 }

// MaxRSS returns 0 where the peak RSS is not available.
func MaxRSS() int64 { return 0 }
