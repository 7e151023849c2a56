//go:build unix

package gameloop

import (
	"time"

	"golang.org/x/sys/unix"
)

// processCPUTime returns the user and system CPU time the process has used; -1 if unknown.
func processCPUTime() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
