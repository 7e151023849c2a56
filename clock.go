package gameloop

import (
	"sync/atomic"
	"time"
)

// Clock is the loop's source of time: a monotonic clock that can wait for a deadline. Times are
// durations since an origin the clock chooses; they never go backwards.
type Clock interface {
	// Now returns the time since the clock's origin.
	Now() time.Duration
	// WaitUntil returns once Now() >= deadline, or earlier as soon as a value can be received
	// from wake (which it then consumes). A deadline of math.MaxInt64 never comes.
	WaitUntil(deadline time.Duration, wake <-chan struct{})
}

// SystemClock is the system's monotonic clock. It waits with a Pacer: sleeping cheaply until
// shortly before the deadline and spinning for the rest.
type SystemClock struct {
	origin time.Time
	pacer  *Pacer
}

// NewSystemClock returns the system's monotonic clock, with its origin at the time of the call.
func NewSystemClock() *SystemClock {
	c := &SystemClock{origin: time.Now()}
	c.pacer = NewPacer(c.Now)
	return c
}

// NewLowPowerClock returns the system's monotonic clock waiting with a low-power pacer
// (NewLowPowerPacer): a sleep to each deadline, no spin. Config.LowPower makes a loop use one.
func NewLowPowerClock() *SystemClock {
	c := &SystemClock{origin: time.Now()}
	c.pacer = NewLowPowerPacer(c.Now)
	return c
}

// Now returns the monotonic time since the clock was made.
func (c *SystemClock) Now() time.Duration { return time.Since(c.origin) }

// WaitUntil waits for deadline with the clock's Pacer.
func (c *SystemClock) WaitUntil(deadline time.Duration, wake <-chan struct{}) {
	c.pacer.WaitUntil(deadline, wake)
}

// waitUntilWarm is WaitUntil, calling warm as the spin before the deadline begins.
func (c *SystemClock) waitUntilWarm(deadline time.Duration, wake <-chan struct{}, warm func()) {
	c.pacer.waitUntil(deadline, wake, warm)
}

// Pacer returns the pacer the clock waits with, for its statistics.
func (c *SystemClock) Pacer() *Pacer { return c.pacer }

// ManualClock is a clock that moves only when told to, for tests and for bench mode: Advance
// moves it forward, and waiting for a deadline jumps straight to it. Every rule of the loop can
// so be checked deterministically, in microseconds. It is safe for concurrent use.
type ManualClock struct {
	now atomic.Int64
}

// NewManualClock returns a manual clock at time 0.
func NewManualClock() *ManualClock { return &ManualClock{} }

// Now returns the clock's time.
func (c *ManualClock) Now() time.Duration { return time.Duration(c.now.Load()) }

// Advance moves the clock forward by d; a negative d is ignored, as time does not go back.
// The clock stops at math.MaxInt64 nanoseconds (292 years) rather than wrap around.
func (c *ManualClock) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	for {
		old := c.now.Load()
		if c.now.CompareAndSwap(old, int64(addSat(time.Duration(old), d))) {
			return
		}
	}
}

// Set moves the clock forward to t; an earlier t is ignored.
func (c *ManualClock) Set(t time.Duration) {
	for {
		old := c.now.Load()
		if int64(t) <= old || c.now.CompareAndSwap(old, int64(t)) {
			return
		}
	}
}

// WaitUntil jumps the clock to deadline, unless a wake-up is pending, in which case it returns at
// once. A deadline that never comes blocks until woken.
func (c *ManualClock) WaitUntil(deadline time.Duration, wake <-chan struct{}) {
	select {
	case <-wake:
		return
	default:
	}
	if deadline == never {
		<-wake
		return
	}
	c.Set(deadline)
}
