//go:build !linux

package gameloop

import "time"

// newPreciseSleep reports that there is no sleep finer than Go's timers here: the pacer sleeps
// on a timer to its margin before the deadline, learning the margin from the timer's lateness,
// and spins from there.
func newPreciseSleep(func() time.Duration) (func(target time.Duration), time.Duration) {
	return nil, 0
}

// processCPUTime returns -1: the benchmarks measure CPU time on Linux only.
func processCPUTime() time.Duration { return -1 }
