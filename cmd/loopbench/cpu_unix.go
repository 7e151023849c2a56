//go:build unix

package main

import (
	"time"

	"golang.org/x/sys/unix"
)

// processCPU returns the CPU time the process has used, user and system; -1 if unknown. The
// whole process is counted (the Go runtime's threads too), so a strategy is charged for all it
// costs.
func processCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
