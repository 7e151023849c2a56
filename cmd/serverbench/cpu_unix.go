//go:build unix

package main

import (
	"syscall"
	"time"
)

// processCPU returns the user and system CPU time of the whole process (the runtime's threads
// included), or -1.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
