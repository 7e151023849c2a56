package gameloop

import (
	"fmt"
	"time"
)

// Event is one step of the loop, delivered by Loop.Events: *Input, *Update, *VariableUpdate,
// *Render, *AfterRender or *Idle. Switch on its type.
//
// Events are pointers into the loop, reused so that a frame allocates nothing: an event is valid
// until the next one is delivered. Copy what you keep.
type Event interface {
	fmt.Stringer
	event()
}

// Update is a fixed step of the simulation. Every update of a tick rate has the same step, so
// the same input gives the same result at any frame rate.
type Update struct {
	// Tick is the number of this update, counting from 1; dropped ticks take no number.
	Tick uint64
	// DT is the step: 1s/TickRate, truncated to whole nanoseconds.
	DT time.Duration
	// Seconds is the step in seconds, exactly 1/TickRate.
	Seconds float64
}

func (*Update) event() {}

func (u *Update) String() string { return fmt.Sprintf("Update{tick=%d dt=%v}", u.Tick, u.DT) }

// VariableUpdate comes once per drawn frame, before Render: the place for work that follows the
// frame rate rather than the tick rate, such as particles, the camera, or blending interpolated
// state (Halogen's variable update).
type VariableUpdate struct {
	// Frame is the number of the frame about to be drawn, counting from 1.
	Frame uint64
	// DT is the real time since the previous drawn frame (0 for the first).
	DT time.Duration
	// Seconds is DT in seconds.
	Seconds float64
	// Alpha and Ext are as in the Render that follows.
	Alpha float64
	Ext   time.Duration
}

func (*VariableUpdate) event() {}

func (v *VariableUpdate) String() string {
	return fmt.Sprintf("VariableUpdate{frame=%d dt=%v}", v.Frame, v.DT)
}

// Render asks for a frame to be drawn.
type Render struct {
	// Frame is the number of this frame, counting from 1.
	Frame uint64
	// Tick is the number of the last update that ran before this frame.
	Tick uint64
	// Alpha is the fraction of the next tick's step already elapsed, in [0, 1): draw
	// previous + (current - previous) * Alpha to interpolate between the last two updates.
	Alpha float64
	// Ext is the game time since the last update (Piston's ext_dt): to extrapolate from
	// the current state, draw current + velocity * Ext.
	Ext time.Duration
	// Width and Height are the window's size; zero when headless.
	Width, Height int
}

func (*Render) event() {}

func (r *Render) String() string {
	return fmt.Sprintf("Render{frame=%d tick=%d alpha=%.3f ext=%v size=%dx%d}", r.Frame, r.Tick, r.Alpha, r.Ext, r.Width, r.Height)
}

// AfterRender follows Render once the window's buffers have been swapped.
type AfterRender struct {
	// Frame is the number of the frame just shown.
	Frame uint64
}

func (*AfterRender) event() {}

func (a *AfterRender) String() string { return fmt.Sprintf("AfterRender{frame=%d}", a.Frame) }

// Idle comes when the loop has nothing due and is about to wait.
type Idle struct {
	// Wait is the time until the next update or frame is due.
	Wait time.Duration
}

func (*Idle) event() {}

func (i *Idle) String() string { return fmt.Sprintf("Idle{wait=%v}", i.Wait) }
