package gameloop

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Loop is a game loop: a state machine that delivers input, fixed-step updates and frames in the
// right order at the right time. Pull its events with Events (Piston's design: the loop is an
// object you can stop, pass to the next scene's function and resume), or hand it a Game with Run
// (the LWJGL book's design: the engine owns the loop and calls the game).
//
// One pass of the loop, when something is due:
//
//	clock ──now──▶ schedule: ticks owed, frame due?
//	   │
//	   ├─ Input × k           all input that arrived, each marked with the tick it precedes
//	   ├─ Update × n          fixed steps owed, back to back, n <= MaxTicksPerFrame; the rest dropped
//	   ├─ VariableUpdate   ┐
//	   ├─ Render           │  if a frame is due and the window has a size
//	   ├─ (swap buffers)   │
//	   ├─ AfterRender      ┘
//	   └─ Idle                then wait (pace) until the next tick or frame is due
//
// The methods that control a running loop (Pause, Resume, SetTimeScale, SetTickRate, SetMaxFPS)
// and Stats are safe to call from any goroutine; changes take effect before the next update.
// Events and Run must be called from one goroutine at a time.
type Loop struct {
	// What a pass touches comes first, so that it spans few cache lines (see prefetch); the
	// rest follows cold.

	// The state machine.
	state    loopState
	ended    bool // the window closed: the loop is over
	lazy     bool // Config.Lazy
	headless bool // no window was given: frames are drawn at 0x0, never skipped
	noFrames bool // Config.NoFrames
	// noIdle is set while Run drives the loop: it delivers no Idle to the game, and the loop
	// saves the clock reading that an Idle's Wait takes.
	noIdle      bool
	ticksSince  bool // ticks ran since the last frame
	lazyOwed    bool // lazy mode: input came, a tick and a frame are owed
	drawnAny    bool
	ctlPending  atomic.Bool
	now         time.Duration // the time this pass began
	deadline    time.Duration // what the coming wait waits for
	lastFrameAt time.Duration
	frame       uint64
	input       []Input // input polled this pass
	inputNext   int     // the next of input to deliver
	clock       Clock
	win         Window
	wake        chan struct{}
	// shared is the clock when it is a SharedClock, which the loop waits on with an entry of
	// its own (see waitLoop).
	shared      loopWaiter
	sharedEntry *waitEntry // &ownEntry, unless the waiter held it when a wait ended early
	ownEntry    waitEntry
	frames      frameGrid

	// The events, reused: an event is valid until the next one.
	evUpdate Update
	evVar    VariableUpdate
	evRender Render
	evAfter  AfterRender
	evIdle   Idle

	sched Schedule

	// Cold: read at the start and end of a sequence, or when something rare happens.
	cfg Config
	// simulated is true when the clock is a ManualClock: time passes only by waiting, so an
	// uncapped frame rate means one frame per tick rather than frames without end.
	simulated bool
	evInput   Input
	running   atomic.Bool
	err       error // why Events last stopped
	// warmer is the clock when it can run warm while it spins before a deadline; warm is
	// l.warmUp, made once so that waiting allocates nothing.
	warmer warmWaiter
	warm   func()
	// warmSink keeps warmUp's reads from being optimised away.
	warmSink int64
	ctlMu    sync.Mutex
	ctl      control

	stats statsState // its hot fields first (see statsHotBytes)
}

// control is what the control methods ask for, applied by the loop's goroutine.
type control struct {
	paused   bool
	scale    float64
	tickRate int
	maxFPS   int
}

type loopState uint8

const (
	stBegin loopState = iota
	stInput
	stTick
	stFrame
	stRender
	stSwap
	stWait
	stSleep
)

// ErrStop ends Run normally: a game's callback returns it (or wraps it) to end the loop, and
// Run returns nil.
var ErrStop = errors.New("gameloop: stop")

// New returns a loop for cfg. Zero fields take their defaults (see Config); a bad value is
// reported as a *ConfigError naming the field.
func New(cfg Config) (*Loop, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	l := &Loop{
		cfg:   cfg,
		clock: cfg.Clock,
		win:   cfg.Window,
		sched: *newSchedule(cfg),
		lazy:  cfg.Lazy,
		wake:  make(chan struct{}, 1),
		input: make([]Input, 0, 64),
	}
	if cfg.Bench && l.clock == nil {
		l.clock = NewManualClock()
	}
	switch {
	case l.clock == nil && cfg.LowPower:
		l.clock = NewLowPowerClock()
	case l.clock == nil:
		l.clock = NewSystemClock()
	}
	_, l.simulated = l.clock.(*ManualClock)
	if w, ok := l.clock.(warmWaiter); ok {
		l.warmer, l.warm = w, l.warmUp
	}
	l.shared, _ = l.clock.(loopWaiter)
	l.sharedEntry = &l.ownEntry
	l.headless = l.win == nil
	l.noFrames = cfg.NoFrames
	l.frames.fps = int64(cfg.MaxFPS)
	l.ctl = control{scale: cfg.TimeScale, tickRate: cfg.TickRate, maxFPS: cfg.MaxFPS}
	samples := cfg.FrameTimeSamples
	if cfg.NoFrames {
		samples = 0 // no frame times to keep
	}
	l.stats.init(samples)
	return l, nil
}

// Config returns the loop's configuration, with defaults filled in.
func (l *Loop) Config() Config { return l.cfg }

// Clock returns the clock the loop runs on.
func (l *Loop) Clock() Clock { return l.clock }

// Window returns the loop's window, nil when headless.
func (l *Loop) Window() Window { return l.win }

// Events returns the loop's events, to range over:
//
//	for ev := range loop.Events(ctx) {
//		switch ev := ev.(type) {
//		case *gameloop.Update: ...
//		case *gameloop.Render: ...
//		}
//	}
//	if err := loop.Err(); err != nil { ... }
//
// The sequence ends when the window should close, ctx is cancelled, or the window fails; Err
// then says why. With a nil ctx it ends at once, and Err returns an error wrapping
// ErrNilContext. Breaking out of the range leaves the loop where it stopped: the next call of
// Events goes on from there, with no tick lost and none repeated, so each scene of a game can
// have its own function and its own range over the same loop. Real time goes on between the
// two; call Pause first to stop game time too.
//
// Each event is valid until the next one is delivered; see Event.
//
// A loop runs one sequence at a time: ranging over Events (or calling Run) while another range
// or Run of the same loop is under way, in this goroutine or another, is a programming error,
// and the second range panics with an error that wraps ErrAlreadyRunning. The running sequence
// is not disturbed.
func (l *Loop) Events(ctx context.Context) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		if !l.running.CompareAndSwap(false, true) {
			panic(fmt.Errorf("gameloop: ranging over Events: %w", ErrAlreadyRunning))
		}
		defer l.running.Store(false)
		l.noIdle = false
		l.events(ctx, yield)
	}
}

// ErrAlreadyRunning is the error Run returns, and a range over Events panics with, when the loop
// is already running: a loop runs one sequence at a time.
var ErrAlreadyRunning = errors.New("gameloop: the loop is already running")

// events delivers the loop's events to yield until the sequence ends. The caller holds
// l.running.
func (l *Loop) events(ctx context.Context, yield func(Event) bool) {
	l.err = nil
	if ctx == nil {
		l.err = fmt.Errorf("gameloop: Events: %w", ErrNilContext)
		return
	}
	if err := ctx.Err(); err != nil {
		l.err = err
		return
	}
	stop := context.AfterFunc(ctx, l.wakeUp)
	defer stop()
	for {
		ev := l.next(ctx)
		if ev == nil || !yield(ev) {
			return
		}
	}
}

// Err returns why the last Events sequence ended: nil if the window closed or the range was
// left with break, the context's error if it was cancelled, or the window's error.
func (l *Loop) Err() error { return l.err }

// wakeUp interrupts a wait of the loop: for a control change or cancellation.
func (l *Loop) wakeUp() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
	if l.win != nil {
		l.win.Wake()
	}
}

// next runs the state machine to the next event; nil means the sequence is over (l.err says
// why).
func (l *Loop) next(ctx context.Context) Event {
	for {
		switch l.state {
		case stBegin:
			if l.ended {
				return nil
			}
			if err := ctx.Err(); err != nil {
				l.err = err
				return nil
			}
			if l.win != nil && l.win.ShouldClose() {
				l.ended = true
				return nil
			}
			l.beginPass()
			l.state = stInput

		case stInput:
			if l.inputNext < len(l.input) {
				l.evInput = l.input[l.inputNext]
				l.inputNext++
				l.evInput.Tick = l.sched.Ticks() + 1
				return &l.evInput
			}
			l.state = stTick

		case stTick:
			// Cancellation is honoured between updates too, not only between passes: with
			// permissive catch-up settings one pass can owe millions of updates. The check
			// costs an atomic load.
			if err := ctx.Err(); err != nil {
				l.err = err
				return nil
			}
			if l.ctlPending.Load() {
				l.applyControl()
			}
			if ev := l.nextTick(); ev != nil {
				return ev
			}
			l.state = stFrame

		case stFrame:
			if !l.frameDue() {
				l.state = stWait
				continue
			}
			if ev := l.beginFrame(); ev != nil {
				l.state = stRender
				return ev
			}
			l.state = stWait

		case stRender:
			l.state = stSwap
			return &l.evRender

		case stSwap:
			l.state = stWait
			if l.win == nil {
				// Headless: nothing to show.
			} else if err := l.win.SwapBuffers(); err != nil {
				l.err = fmt.Errorf("gameloop: swapping buffers after frame %d: %w", l.frame, err)
				return nil
			}
			l.evAfter = AfterRender{Frame: l.frame}
			return &l.evAfter

		case stWait:
			l.deadline = l.nextDeadline()
			l.state = stSleep
			// Idle tells how long the loop will wait; when nothing is scheduled (a lazy loop
			// waiting for input, a paused loop without a frame cap) there is no such time.
			if l.noIdle {
				continue
			}
			if wait := l.deadline - l.clock.Now(); wait > 0 && l.deadline != never {
				l.evIdle = Idle{Wait: wait}
				return &l.evIdle
			}

		case stSleep:
			l.state = stBegin
			if l.shared != nil && !l.lazy {
				// It checks the time itself.
				if l.shared.waitLoop(l.sharedEntry, l.deadline, l.wake) {
					// Woken (cancelled, a control change) while the clock's waiter held the
					// entry to fire it, busy with others before it: the loop does not wait
					// for the waiter, and waits with another entry from now on.
					l.sharedEntry = new(waitEntry)
				}
				l.prefetch()
				continue
			}
			if l.clock.Now() >= l.deadline {
				continue
			}
			if l.lazy && !l.lazyOwed && l.win != nil {
				// Nothing is owed until input comes: wait on the window, which input wakes.
				l.win.WaitInput(time.Hour)
				continue
			}
			if l.warmer != nil {
				l.warmer.waitUntilWarm(l.deadline, l.wake, l.warm)
			} else {
				l.clock.WaitUntil(l.deadline, l.wake)
				l.prefetch()
			}
		}
	}
}

// prefetch asks for the memory the next pass touches, after a wait: the loop's hot fields, its
// statistics, the slot of its frame-time ring that the next frame writes, and the stack frames
// the pass returns through. A server's loop has all of it out of the cache when its wait ends,
// and a pass stalls on the lines one after another, in the order it comes to them; asked for
// at once, they arrive together: a cold pass takes a good part less time so, which
// BenchmarkLoopPassCold measures (see docs/server.md).
func (l *Loop) prefetch() {
	prefetchRange(unsafe.Pointer(l), loopHotBytes)
	prefetchRange(unsafe.Pointer(&l.stats), statsHotBytes)
	prefetchStack()
	if len(l.stats.frameTimes) > 0 {
		prefetchRange(unsafe.Pointer(&l.stats.frameTimes[l.stats.frameTop]), 8)
	}
}

// loopHotBytes is how much of the start of a Loop a pass touches.
const loopHotBytes = unsafe.Offsetof(Loop{}.cfg)

// loopWaiter is a clock that a Loop waits on with an entry of its own: a SharedClock, or a
// type that embeds one.
type loopWaiter interface {
	waitLoop(e *waitEntry, deadline time.Duration, wake chan struct{}) (held bool)
}

// warmWaiter is a clock that can call a function while it spins the last stretch before a
// deadline.
type warmWaiter interface {
	waitUntilWarm(deadline time.Duration, wake <-chan struct{}, warm func())
}

// warmUp runs the arithmetic of the next pass on copies, so that its code and data are in the
// caches when the deadline comes. After a sleep they are not: on a virtual machine the first
// pass after a wake-up runs many times slower than a warm one; warming takes part of that off
// (the rest seems to be the core itself coming back up to speed; see docs/pacing.md).
// It is called while the pacer spins to the deadline, where the time is free, and changes
// nothing.
func (l *Loop) warmUp() {
	sched, frames := l.sched, l.frames
	frames.start(l.deadline)
	if sched.advance(l.deadline); sched.reserved > 0 {
		sched.Next()
	}
	// The sum is kept so that the compiler keeps the reads.
	l.warmSink = int64(frames.dueAt()) + int64(sched.Step()) + l.stats.now.Load() + int64(l.evUpdate.Tick)
}

// beginPass reads the clock, applies control changes, works out what is owed and polls input.
func (l *Loop) beginPass() {
	if l.ctlPending.Load() {
		l.applyControl()
	}
	now := l.clock.Now()
	l.now = now
	l.frames.start(now)

	l.input, l.inputNext = l.input[:0], 0
	if l.win != nil {
		l.input = l.win.PollInput(l.input)
	}
	if l.lazy {
		if len(l.input) > 0 {
			l.lazyOwed = true
		}
	} else {
		if dropped, droppedTime := l.sched.advance(now); dropped > 0 {
			l.stats.drop(dropped, droppedTime, now)
		}
	}
	l.stats.pass(now)
}

// nextTick returns the next Update owed in this pass, or nil.
func (l *Loop) nextTick() Event {
	var tick uint64
	if l.lazy {
		if !l.lazyOwed || l.ticksSince || l.sched.Paused() {
			return nil
		}
		tick = l.sched.force()
	} else {
		var ok bool
		if tick, ok = l.sched.Next(); !ok {
			return nil
		}
	}
	l.ticksSince = true
	l.evUpdate = Update{Tick: tick, DT: l.sched.Step(), Seconds: l.sched.StepSeconds()}
	l.stats.tick()
	return &l.evUpdate
}

// frameDue reports whether a frame is due in this pass.
func (l *Loop) frameDue() bool {
	switch {
	case l.noFrames:
		return false
	case l.lazy:
		return l.lazyOwed && (l.frames.fps == 0 || l.now >= l.frames.dueAt())
	case l.frames.fps > 0:
		return l.now >= l.frames.dueAt()
	case l.followTicks():
		return l.ticksSince || !l.drawnAny
	default:
		return !l.drawnAny || l.now > l.lastFrameAt
	}
}

// followTicks reports whether, without a frame cap, frames follow ticks: headless there is no
// swap to pace frames, and on simulated time frames without end would all fall at one instant.
func (l *Loop) followTicks() bool {
	return l.frames.fps == 0 && (l.headless || l.simulated)
}

// beginFrame takes the frame slot and returns the VariableUpdate of the frame, or nil if the
// window has no size and the frame is skipped.
func (l *Loop) beginFrame() Event {
	now := l.now
	l.frames.taken(now)
	l.ticksSince, l.lazyOwed = false, false
	var w, h int
	if l.win != nil {
		if w, h = l.win.Size(); w <= 0 || h <= 0 {
			l.stats.skip()
			return nil
		}
	}
	var dt time.Duration
	if l.drawnAny {
		dt = now - l.lastFrameAt
	}
	l.frame++
	ext := l.sched.Ext(now)
	alpha := l.sched.alphaOf(ext)
	l.evVar = VariableUpdate{Frame: l.frame, DT: dt, Seconds: dt.Seconds(), Alpha: alpha, Ext: ext}
	l.evRender = Render{Frame: l.frame, Tick: l.sched.Ticks(), Alpha: alpha, Ext: ext, Width: w, Height: h}

	l.stats.frame(dt, !l.drawnAny)
	l.lastFrameAt, l.drawnAny = now, true
	return &l.evVar
}

// nextDeadline returns when the next tick or frame is due.
func (l *Loop) nextDeadline() time.Duration {
	if l.lazy {
		if l.lazyOwed && l.frames.fps > 0 {
			return l.frames.dueAt()
		}
		if l.lazyOwed {
			return l.now
		}
		return never
	}
	next := l.sched.NextTickAt()
	switch {
	case l.frames.fps > 0:
		next = min(next, l.frames.dueAt())
	case l.noFrames, l.followTicks():
	default:
		// No cap and a window to pace frames: the next frame is due as soon as time moves.
		next = min(next, l.now+1)
	}
	return next
}

// applyControl applies what the control methods asked for.
func (l *Loop) applyControl() {
	l.ctlMu.Lock()
	c := l.ctl
	l.ctlPending.Store(false)
	l.ctlMu.Unlock()

	now := l.clock.Now()
	if c.paused != l.sched.Paused() {
		if c.paused {
			l.sched.Pause(now)
		} else {
			l.sched.Resume(now)
		}
	}
	if c.scale != l.sched.TimeScale() {
		_ = l.sched.SetTimeScale(now, c.scale) // validated by SetTimeScale
	}
	if c.tickRate != l.sched.TickRate() {
		_ = l.sched.SetTickRate(c.tickRate) // validated by SetTickRate
	}
	if int64(c.maxFPS) != l.frames.fps {
		l.frames.setRate(c.maxFPS, l.lastFrameAt, l.drawnAny)
	}
}

// request records a control change and wakes the loop to apply it.
func (l *Loop) request(change func(*control)) {
	l.ctlMu.Lock()
	change(&l.ctl)
	l.ctlPending.Store(true)
	l.ctlMu.Unlock()
	l.wakeUp()
}

// Pause stops game time: no updates run, and frames go on being drawn with Alpha and Ext frozen,
// so that a pause menu can be drawn over the game.
func (l *Loop) Pause() { l.request(func(c *control) { c.paused = true }) }

// Resume lets game time run again from where it was paused; the pause is not made up for.
func (l *Loop) Resume() { l.request(func(c *control) { c.paused = false }) }

// Paused reports whether the loop is paused (or will be, before its next update).
func (l *Loop) Paused() bool {
	l.ctlMu.Lock()
	defer l.ctlMu.Unlock()
	return l.ctl.paused
}

// SetTimeScale makes game time run at scale times real time: 0.5 gives half as many updates per
// real second, each with the same step, so the game stays deterministic. 0 stops game time.
// A negative, NaN or infinite scale is an error.
func (l *Loop) SetTimeScale(scale float64) error {
	if err := checkScale("TimeScale", scale); err != nil {
		return inSetter("SetTimeScale", err)
	}
	l.request(func(c *control) { c.scale = scale })
	return nil
}

// SetTickRate changes the number of updates per second. The game time since the last update
// counts toward the first at the new rate: none is lost or repeated.
func (l *Loop) SetTickRate(rate int) error {
	if rate <= 0 || rate > MaxRate {
		return inSetter("SetTickRate", badField("TickRate", rate, fmt.Sprintf("must be between 1 and %d", MaxRate)))
	}
	l.request(func(c *control) { c.tickRate = rate })
	return nil
}

// SetMaxFPS changes the frame cap; 0 removes it. A loop without frames (Config.NoFrames) takes
// no cap: any other value is an error.
func (l *Loop) SetMaxFPS(fps int) error {
	if err := checkRate("MaxFPS", fps); err != nil {
		return inSetter("SetMaxFPS", err)
	}
	if l.noFrames && fps != 0 {
		return inSetter("SetMaxFPS", badField("MaxFPS", fps, "the loop draws no frames (Config.NoFrames)"))
	}
	l.request(func(c *control) { c.maxFPS = fps })
	return nil
}

// Stats returns what the loop has done so far.
func (l *Loop) Stats() Stats {
	var st Stats
	l.stats.snapshot(&st)
	l.ctlMu.Lock()
	st.Paused, st.TimeScale, st.TickRate, st.MaxFPS = l.ctl.paused, l.ctl.scale, l.ctl.tickRate, l.ctl.maxFPS
	l.ctlMu.Unlock()
	return st
}

// Alpha returns the interpolation weight at the loop's current time, as Render reports it.
// Call it from the loop's goroutine.
func (l *Loop) Alpha() float64 { return l.sched.Alpha(l.clock.Now()) }
