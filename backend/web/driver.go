package web

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/gameloop-go/gameloop"
)

// Driver is the game loop of a page, without the page: the host (requestAnimationFrame) calls
// Frame with the time of each display frame, and the driver delivers the input that came since
// the last one, runs the fixed-step updates owed (by a gameloop.Schedule), and asks for one
// frame to be drawn, with Alpha and Ext for interpolation. It reads no clock and touches no
// browser API, so that it is tested natively, on made-up times; Canvas.Run drives it in a page.
//
// One frame, as Frame runs it:
//
//	rAF(now) ─▶ Input × k        the keys pressed since the last frame, marked with the tick they precede
//	          ├─ Update × n       the ticks owed at now, n <= MaxTicksPerFrame; the rest dropped
//	          ├─ VariableUpdate   once, with the real time since the last frame
//	          └─ Render           once, at the canvas's size in device pixels
//
// Game time starts a millisecond before the first frame, so that at a tick rate that divides
// the display's refresh rate each tick runs in the frame it falls in, whatever the rounding of
// the frames' times. The display paces the frames (Config.MaxFPS is not used). While the page
// is hidden the browser stops calling requestAnimationFrame; SetHidden pauses real time for
// that long, so that the game goes on where the player left it instead of dropping the time or
// catching up on it in a burst.
//
// Pause, Resume, SetTimeScale, SetTickRate, Push and Stats are safe to call from any goroutine;
// a change takes effect before the next update. Frame, Events and SetHidden are called by one
// goroutine at a time: the page's.
type Driver struct {
	sched *gameloop.Schedule
	cfg   gameloop.Config

	mu         sync.Mutex
	pending    []gameloop.Input // pushed since the last frame
	ctl        control
	ctlPending bool
	stats      statsState

	// The frame's state, owned by the goroutine that calls Frame.
	queue       []gameloop.Input // the input being delivered
	last        time.Duration    // the latest time handed in: time never goes backwards
	timed       bool             // a time has been handed in: game time has started
	paused      bool             // the player's pause, as applied to the schedule
	hidden      bool
	hiddenAt    time.Duration
	frame       uint64
	lastFrameAt time.Duration
	drawnAny    bool

	evInput  gameloop.Input
	evUpdate gameloop.Update
	evVar    gameloop.VariableUpdate
	evRender gameloop.Render
}

// control is what the control methods ask for, applied by Frame.
type control struct {
	paused   bool
	scale    float64
	tickRate int
}

// NewDriver returns a driver for cfg's TickRate, MaxTicksPerFrame, MaxFrameTime, TimeScale and
// FrameTimeSamples; zero fields take their defaults, as in gameloop.New, and the other fields
// are not used.
func NewDriver(cfg gameloop.Config) (*Driver, error) {
	sched, err := gameloop.NewSchedule(cfg)
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	if cfg.FrameTimeSamples == 0 {
		cfg.FrameTimeSamples = gameloop.DefaultFrameTimeSamples
	}
	d := &Driver{
		sched:   sched,
		cfg:     cfg,
		pending: make([]gameloop.Input, 0, 64),
		queue:   make([]gameloop.Input, 0, 64),
		ctl:     control{scale: sched.TimeScale(), tickRate: sched.TickRate()},
	}
	d.stats.init(cfg.FrameTimeSamples)
	return d, nil
}

// Push queues input for the next frame. The page's key handlers call it.
func (d *Driver) Push(in ...gameloop.Input) {
	d.mu.Lock()
	d.pending = append(d.pending, in...)
	d.mu.Unlock()
}

// Pause stops game time before the next update: frames go on, with Alpha and Ext frozen.
func (d *Driver) Pause() { d.request(func(c *control) { c.paused = true }) }

// Resume lets game time run again from where it stopped.
func (d *Driver) Resume() { d.request(func(c *control) { c.paused = false }) }

// Paused reports whether the game is paused by Pause (or will be, before its next update). A
// hidden page does not count.
func (d *Driver) Paused() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ctl.paused
}

// SetTimeScale makes game time run at scale times real time; see gameloop.Loop.SetTimeScale.
func (d *Driver) SetTimeScale(scale float64) error {
	if _, err := gameloop.NewSchedule(gameloop.Config{TimeScale: scale}); err != nil {
		return fmt.Errorf("web: %w", err)
	}
	d.request(func(c *control) { c.scale = scale })
	return nil
}

// SetTickRate changes the number of updates per second; see gameloop.Loop.SetTickRate.
func (d *Driver) SetTickRate(rate int) error {
	if rate <= 0 || rate > gameloop.MaxRate {
		return fmt.Errorf("web: %w", &gameloop.ConfigError{Field: "TickRate", Value: rate,
			Reason: fmt.Sprintf("must be between 1 and %d", gameloop.MaxRate)})
	}
	d.request(func(c *control) { c.tickRate = rate })
	return nil
}

func (d *Driver) request(change func(*control)) {
	d.mu.Lock()
	change(&d.ctl)
	d.ctlPending = true
	d.mu.Unlock()
}

// applyControl applies what the control methods asked for, at time now.
func (d *Driver) applyControl(now time.Duration) {
	d.mu.Lock()
	c, pending := d.ctl, d.ctlPending
	d.ctlPending = false
	d.mu.Unlock()
	if !pending {
		return
	}
	if c.paused != d.paused {
		d.paused = c.paused
		d.syncPause(now)
	}
	if c.scale != d.sched.TimeScale() {
		_ = d.sched.SetTimeScale(now, c.scale) // checked by SetTimeScale
	}
	if c.tickRate != d.sched.TickRate() {
		_ = d.sched.SetTickRate(c.tickRate) // checked by SetTickRate
	}
}

// syncPause pauses the schedule while the player has paused or the page is hidden.
func (d *Driver) syncPause(now time.Duration) {
	if d.paused || d.hidden {
		d.sched.Pause(now)
	} else {
		d.sched.Resume(now)
	}
}

// SetHidden tells the driver that the page was hidden (or shown again) at now, on the clock of
// Frame's times (performance.now). A hidden page gets no frames: the driver pauses real time
// until it is shown, so that no tick is owed for the time away, nothing is dropped, and the
// frame time and the time since the last frame leave the time away out.
func (d *Driver) SetHidden(now time.Duration, hidden bool) {
	now = d.advanceTo(now)
	if hidden == d.hidden {
		return
	}
	d.hidden = hidden
	d.syncPause(now)
	if hidden {
		d.hiddenAt = now
		return
	}
	// A frame may still come after the page was hidden (a browser's last one): the time since
	// the last frame then leaves out only the time away after that frame, never more than it
	// holds, so that the next frame's DT is never negative.
	d.lastFrameAt += now - max(d.lastFrameAt, d.hiddenAt)
	d.stats.shift(d.hiddenAt, now)
}

// Hidden reports whether the page is hidden, as SetHidden last said.
func (d *Driver) Hidden() bool { return d.hidden }

// advanceTo returns now, or the latest time handed in if that is later: the times of
// requestAnimationFrame and of events are read at different points and must not make time go
// backwards. The first time handed in starts game time, gridLead before it.
func (d *Driver) advanceTo(now time.Duration) time.Duration {
	if !d.timed {
		d.timed = true
		d.last = now
		start := now - min(gridLead, d.sched.Step()/4)
		if start > now {
			start = math.MinInt64 // near the most negative time, the lead wraps around
		}
		d.sched.Advance(start)
	}
	d.last = max(d.last, now)
	return d.last
}

// gridLead is how long before the first frame game time starts (or a quarter of a tick, if
// that is less). A tick rate that divides the display's refresh rate (60 ticks a second on a
// 60 Hz display) puts every tick's time on a frame's time, and browsers round
// requestAnimationFrame's times down (Chromium to 0.1 ms): a grid that started at the first
// frame's time had each tick due a hair after the frame it belongs to, and run a frame late,
// a frame of input latency lost. Starting the grid a millisecond early puts each tick's time
// just before its frame.
const gridLead = time.Millisecond

// Frame runs one display frame at now (the time requestAnimationFrame gives, as a duration
// since any fixed origin) for a canvas of width by height device pixels: it delivers g the input
// pushed since the last frame, the updates owed, and a frame to draw (none when the canvas has
// no size). It returns nil, gameloop.ErrStop if g returned it (the game is over), or g's error,
// wrapped with the tick or frame; a panic in g is returned as a *gameloop.PanicError. Frame
// allocates nothing.
func (d *Driver) Frame(g gameloop.Game, now time.Duration, width, height int) error {
	input, _ := g.(gameloop.InputHandler)
	variable, _ := g.(gameloop.VariableUpdater)
	renderer, _ := g.(gameloop.Renderer)
	var err error
	d.run(now, width, height, func(ev gameloop.Event) bool {
		switch ev := ev.(type) {
		case *gameloop.Input:
			if input != nil {
				err = call(input.Input, ev, "Input before tick", ev.Tick)
			}
		case *gameloop.Update:
			err = call(g.Update, ev, "Update at tick", ev.Tick)
		case *gameloop.VariableUpdate:
			if variable != nil {
				err = call(variable.VariableUpdate, ev, "VariableUpdate of frame", ev.Frame)
			}
		case *gameloop.Render:
			if renderer != nil {
				err = call(renderer.Render, ev, "Render of frame", ev.Frame)
			}
		}
		return err == nil
	})
	return err
}

// Events returns the events of one display frame at now, to range over: the pull style, for a
// page that runs its own requestAnimationFrame callback:
//
//	for ev := range driver.Events(now, width, height) {
//		switch ev := ev.(type) {
//		case *gameloop.Input: ...
//		case *gameloop.Update: ...
//		case *gameloop.Render: ...
//		}
//	}
//
// Each event is valid until the next; see gameloop.Event. Leaving the range early leaves the
// rest of the frame undone: the updates not run are owed at the next frame. Like Frame, it
// allocates nothing.
func (d *Driver) Events(now time.Duration, width, height int) iter.Seq[gameloop.Event] {
	return func(yield func(gameloop.Event) bool) { d.run(now, width, height, yield) }
}

// run runs one frame, handing each event to yield until it returns false.
func (d *Driver) run(now time.Duration, width, height int, yield func(gameloop.Event) bool) {
	now = d.advanceTo(now)
	d.applyControl(now)

	d.mu.Lock()
	d.queue, d.pending = d.pending, d.queue[:0]
	d.mu.Unlock()
	for i := range d.queue {
		d.evInput = d.queue[i]
		d.evInput.Tick = d.sched.Ticks() + 1
		if !yield(&d.evInput) {
			// The rest of the input is not lost: it goes first in the next frame.
			d.requeue(d.queue[i+1:])
			return
		}
	}
	d.applyControl(now)

	// Each tick's lateness against its ideal time on the grid: the first owed tick was due at
	// NextTickAt, the others a step of game time apart.
	dueFirst, scale := d.sched.NextTickAt(), d.sched.TimeScale()
	st := d.sched.Advance(now)
	// Not when ticks were dropped (the grid skipped slots), nor when no tick was due (paused,
	// with ticks owed from before the pause).
	measure := st.DroppedTicks == 0 && scale > 0 && dueFirst != math.MaxInt64
	if st.DroppedTicks > 0 {
		d.stats.drop(st.DroppedTicks, st.DroppedTime, now)
	}
	d.stats.pass(now)
	for k := 0; d.sched.Pending() > 0; k++ {
		tick, _ := d.sched.Next()
		if measure {
			d.stats.late(now - dueFirst - time.Duration(float64(k)*float64(d.sched.Step())/scale))
		}
		d.stats.tick()
		d.evUpdate = gameloop.Update{Tick: tick, DT: d.sched.Step(), Seconds: d.sched.StepSeconds()}
		if !yield(&d.evUpdate) {
			return
		}
		// A change asked for by the update (a pause, a new rate) applies before the next one,
		// and withdraws the ticks granted at the old settings.
		d.applyControl(now)
	}

	if width <= 0 || height <= 0 {
		d.stats.skip()
		return
	}
	var dt time.Duration
	if d.drawnAny {
		dt = now - d.lastFrameAt
	}
	d.frame++
	ext := d.sched.Ext(now)
	alpha := d.sched.Alpha(now)
	d.stats.frame(dt, !d.drawnAny)
	d.lastFrameAt, d.drawnAny = now, true
	d.evVar = gameloop.VariableUpdate{Frame: d.frame, DT: dt, Seconds: dt.Seconds(), Alpha: alpha, Ext: ext}
	if !yield(&d.evVar) {
		return
	}
	d.evRender = gameloop.Render{Frame: d.frame, Tick: d.sched.Ticks(), Alpha: alpha, Ext: ext, Width: width, Height: height}
	yield(&d.evRender)
}

// requeue puts input not delivered back in front of what was pushed since.
func (d *Driver) requeue(rest []gameloop.Input) {
	if len(rest) == 0 {
		return
	}
	d.mu.Lock()
	d.pending = slices.Insert(d.pending, 0, rest...)
	d.mu.Unlock()
}

// call calls f(ev), turning an error or a panic into an error that says where it happened, as
// gameloop.Loop.Run does.
func call[E any](f func(E) error, ev E, where string, n uint64) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &gameloop.PanicError{Value: v, Stack: debug.Stack(), Where: fmt.Sprintf("%s %d", where, n)}
		}
	}()
	if err := f(ev); err != nil {
		if errors.Is(err, gameloop.ErrStop) {
			return err
		}
		return fmt.Errorf("gameloop: %s %d: %w", where, n, err)
	}
	return nil
}

// Stats returns what the driver has done so far, as gameloop.Loop.Stats does. MaxFPS is 0: the
// display paces the frames.
func (d *Driver) Stats() gameloop.Stats {
	var st gameloop.Stats
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stats.snapshot(&st)
	st.Paused, st.TimeScale, st.TickRate = d.ctl.paused, d.ctl.scale, d.ctl.tickRate
	return st
}

// Lateness is how late ticks ran against their ideal times on the tick grid: tick n of a rate
// R is due n/R seconds of game time after the start, but in a page it can only run when a
// display frame comes, so it runs up to a frame late.
type Lateness struct {
	// P50, P99 and Max are over the most recent Config.FrameTimeSamples ticks.
	P50, P99, Max time.Duration
	// Ticks is the number of ticks they are over.
	Ticks int
}

// TickLateness returns how late the recent ticks ran.
func (d *Driver) TickLateness() Lateness { return d.stats.lateness() }
