//go:build !linux

package gameloop

import "time"

// newSharedSleep reports that there is no sleep finer than Go's timers here: a SharedClock then
// sleeps on a Go timer at every resolution.
func newSharedSleep(func() time.Duration) func(target time.Duration) { return nil }
