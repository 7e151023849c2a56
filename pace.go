package gameloop

import (
	"time"
)

// Pacer waits until absolute deadlines: it blocks cheaply until shortly before a deadline, then
// spins on the clock for the rest, so that it wakes on time at little CPU cost. A Pacer is used
// by one goroutine at a time and allocates nothing per wait.
type Pacer struct {
	now    func() time.Duration
	timer  *time.Timer
	margin time.Duration // how long before the deadline the coarse wait ends
}

// defaultSpinMargin covers the Go runtime's timer overshoot, up to about a millisecond on Linux
// (golang/go#44343).
const defaultSpinMargin = 1500 * time.Microsecond

// NewPacer returns a pacer on the clock now.
func NewPacer(now func() time.Duration) *Pacer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &Pacer{now: now, timer: t, margin: defaultSpinMargin}
}

// WaitUntil returns once now() >= deadline, or as soon as a value can be received from wake.
func (p *Pacer) WaitUntil(deadline time.Duration, wake <-chan struct{}) {
	if d := deadline - p.now() - p.margin; d > 0 {
		p.timer.Reset(d)
		select {
		case <-p.timer.C:
		case <-wake:
			p.timer.Stop()
			return
		}
	}
	for p.now() < deadline {
		select {
		case <-wake:
			return
		default:
		}
	}
}
