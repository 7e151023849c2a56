//go:build unix

package main

import (
	"syscall"
	"time"
)

// processCPU returns the user and the system CPU time of the whole process, or -1 and -1.
func processCPU() (user, sys time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1, -1
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
