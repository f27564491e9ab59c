//go:build unix

package measures

import (
	"syscall"
	"time"
)

// processCPU returns the user plus system CPU time of the process so far.
// Benchmarks report it per operation ("cpu-ns/op") next to the wall time,
// which on a shared machine also counts time spent waiting for a core.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
