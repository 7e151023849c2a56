//go:build linux

package gameloop

import "time"

// newSharedSleep returns the precise sleep of a SharedClock's waiter: an absolute
// clock_nanosleep on CLOCK_MONOTONIC, on a thread whose timer slack is 1 ns.
//
// The system call is raw, as the Pacer's is (see newPreciseSleep): told of a blocking call, the
// Go scheduler wakes its monitor thread, which then polls every 20 µs for a while: that
// doubles a process's context switches and its CPU where the waiter sleeps often
// (docs/server.md). So the waiter keeps its processor (one of GOMAXPROCS) through the
// sleep, which is never longer than coarseLead: the goroutines it wakes run on the others, or
// on its own once it waits on a Go timer again.
func newSharedSleep(now func() time.Duration) func(target time.Duration) {
	s := &monoSleeper{now: now} // the Pacer's precise sleep, which allocates nothing
	return s.sleepUntil
}
