package gameloop

// A Match: one game of a Pool, its schedule and its pass (input, then the updates owed), its
// control methods and statistics, and how it goes back into the clock's queue after a pass.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// matchHotLines is how many cache lines of a Match a pass touches, from its start: the fields
// up to its context (the allocator may put the Match 8 bytes into a line: one more).
const matchHotLines = int(unsafe.Offsetof(Match{}.inMu))/64 + 1

// A match's slow passes (see PoolOptions.SlowPass) keep it off the waiter: the first for
// 2 passes, and each that follows for twice as many as the one before, up to slowHold. A
// match slow at every tick stays on the workers; a quick one whose pass was once measured
// slow (its thread was taken away, on a virtual machine, for a millisecond or more: it
// happens) waits for a worker, behind the slow matches, for 2 passes and is back: had every
// slow pass held a match for 64, such a quick match would wait behind a slow one at each of 64
// ticks (docs/server.md measures it). slowForgive quick passes in a row take
// one doubling back.
const (
	maxSlowStrikes = 6
	slowHold       = 1 << maxSlowStrikes
	slowForgive    = 64
)

// slowRecord decides from the match's passes whether it runs on the workers.
type slowRecord struct {
	left    int    // passes left to run on the workers
	strikes int    // slow passes not yet forgiven, at most maxSlowStrikes
	quick   uint16 // quick passes in a row since the last slow one or forgiveness
}

// note records a pass, slow or quick.
func (r *slowRecord) note(slow bool) {
	if slow {
		r.strikes = min(r.strikes+1, maxSlowStrikes)
		r.left, r.quick = 1<<r.strikes, 0
		return
	}
	if r.left > 0 {
		r.left--
	}
	if r.strikes > 0 {
		if r.quick++; r.quick == slowForgive {
			r.strikes--
			r.quick = 0
		}
	}
}

// Match is one match of a Pool: a Game run at a fixed tick rate. Its control methods (Pause,
// Resume, SetTimeScale, SetTickRate, Push, Stop) and Stats are safe to call from any goroutine.
type Match struct {
	// The fields a pass touches come first, so that they share as few cache lines as they
	// can: with thousands of matches, each pass begins with its match out of the cache.

	// The queue's entry and the state, guarded by the clock's mu.
	entry  waitEntry
	state  matchState
	kicked bool // a control change came while the match ran: run it again at once
	// kickQueued: the match is in its runner's kicks (see poolRunner.takeLocked).
	kickQueued bool

	stopping   atomic.Bool
	ctlPending atomic.Bool
	hasInput   atomic.Bool

	// Owned by whoever runs the match (one goroutine at a time, handed over through the
	// clock's mu and the pool's queues).
	slow     slowRecord    // whether it runs on the workers
	next     time.Duration // when the match is next due, after a pass
	winEnd   time.Duration // when the window TPS is measured over ends
	ticks    atomic.Uint64 // ticks run, for Stats
	lastPass atomic.Int64  // the time of the last pass, for Stats
	pool     *Pool
	due      time.Duration
	ev       Update
	sched    Schedule
	input    func(*Input) error
	evInput  Input
	inputs   []Input // the input being delivered

	game Game
	ctx  context.Context
	// stopCtx undoes the context.AfterFunc that ends the match with its context.
	stopCtx func() bool

	inMu    sync.Mutex
	pending []Input // input pushed since the last pass
	ended   bool    // set by finish: Push takes no more input

	endErr error // why Stop or Close ended the match, under inMu
	done   chan struct{}
	err    error

	ctlMu sync.Mutex
	ctl   control

	// Statistics, under statsMu, changed when something rare happens: a drop, the end of a
	// rate window.
	statsMu                 sync.Mutex
	statsStarted, anyDrop   bool
	statsStart, lastDrop    time.Duration
	droppedTime             time.Duration
	droppedTicks, winTicks0 uint64
	winStart                time.Duration
	tps                     float64
}

type matchState uint8

const (
	matchNew matchState = iota // not started
	// matchWaiting: in the clock's queue, or taken out of it by the waiter, and queued or running
	// (the waiter does not touch a match before it runs it: see deadlineQueue).
	matchWaiting
	matchParked  // nothing due (paused, time scale 0): waits for a control change
	matchRunning // being ended by kick
	matchEnded
)

// Start starts the match now: its first tick is due one step later. Starting a match twice
// does nothing.
func (m *Match) Start() { m.StartAt(m.pool.clock.Now()) }

// StartAt starts the match at time at of the pool's clock: its tick grid begins at at, so its
// first tick is due one step later (ticks already due when at has passed run at once, as
// catch-up). A server uses it to spread the matches it starts together over a tick, or to put
// them all on one grid. Starting a match twice does nothing.
func (m *Match) StartAt(at time.Duration) {
	c := m.pool.clock
	c.mu.Lock()
	if m.state != matchNew {
		c.mu.Unlock()
		return
	}
	m.entry.deadline = at
	if c.closed {
		m.state = matchEnded
		c.mu.Unlock()
		m.err = ErrClosed
		m.finish()
		return
	}
	m.sched.start(at)
	if m.ctlPending.Load() {
		// A control change that came before the start (a pause, a time scale) holds from the
		// start, not from the first pass, which the waiter may run late: applied then, a pause
		// would count the time between the two as game time, and run the ticks it owes.
		m.applyControl(at)
	}
	m.state = matchWaiting
	c.queue.push(&m.entry)
	earlier := at < c.target
	c.mu.Unlock()
	if earlier {
		c.wakeWaiter()
	}
}

// Due returns the time on the pool's clock at which the update being run was due. Call it from
// the match's Update: it tells how late the update began (Clock().Now() - Due()).
func (m *Match) Due() time.Duration { return m.due }

// Done returns a channel that is closed when the match has ended.
func (m *Match) Done() <-chan struct{} { return m.done }

// Err returns why the match ended, once Done is closed: nil if its Update returned ErrStop,
// the context's error if it was cancelled, ErrStopped after Stop, ErrClosed if the pool
// closed, ErrGoexit if a callback called runtime.Goexit, or the game's error (wrapped with the
// tick; a panic is a *PanicError).
func (m *Match) Err() error {
	select {
	case <-m.done:
		return m.err
	default:
		return nil
	}
}

// Wait blocks until the match has ended and returns Err.
func (m *Match) Wait() error {
	<-m.done
	return m.err
}

// ErrGoexit is the Err of a match whose callback called runtime.Goexit (as t.Fatal does in a
// test). The match ends; the pool's other matches go on.
var ErrGoexit = errors.New("gameloop: a match's callback called runtime.Goexit")

// ErrStopped is the Err of a match ended by Stop.
var ErrStopped = errors.New("gameloop: match stopped")

// Stop ends the match before its next update; it does not wait for it (see Wait).
func (m *Match) Stop() { m.end(ErrStopped) }

// end asks the match to end with err, unless it is ending already, and runs it so that it does.
func (m *Match) end(err error) {
	m.markEnding(err)
	m.kick()
}

// markEnding asks the match to end with err, unless it is ending already: its next pass ends it,
// and runs no callback.
func (m *Match) markEnding(err error) {
	m.inMu.Lock()
	if m.endErr == nil {
		m.endErr = err
	}
	m.inMu.Unlock()
	m.stopping.Store(true)
}

// Push queues input for the match: it is delivered to the game's Input before the next tick,
// with Input.Tick set to that tick. It reports whether the match took the input: once the match
// has been asked to end (Stop, its context, the pool closing) or has ended, it takes none, and
// input it holds when it ends is never delivered. The queue holds all it is given: a server
// that takes input from clients it does not trust bounds how much it pushes between ticks (see
// the -max-input flag of cmd/matchserver, which counts the inputs pushed and not yet
// delivered).
func (m *Match) Push(in ...Input) bool {
	m.inMu.Lock()
	defer m.inMu.Unlock()
	if m.endErr != nil || m.ended {
		return false
	}
	m.pending = append(m.pending, in...)
	m.hasInput.Store(true)
	return true
}

// kick makes the match run a pass at once: after a control change, or to end it.
func (m *Match) kick() {
	c := m.pool.clock
	c.mu.Lock()
	switch m.state {
	case matchWaiting:
		if !c.closed {
			// The waiter takes it out of the queue and runs it, with the others kicked since
			// its last look (see poolRunner.takeLocked).
			if !m.kickQueued {
				m.kickQueued = true
				m.pool.runner.kicks = append(m.pool.runner.kicks, m)
			}
			c.mu.Unlock()
			c.wakeWaiter()
			return
		}
		if !c.queue.remove(&m.entry) {
			// Taken out by the waiter: it runs now, or is about to.
			m.kicked = true
			c.mu.Unlock()
			return
		}
	case matchParked:
	case matchNew:
		if !m.stopping.Load() {
			c.mu.Unlock() // a control change before the start: StartAt applies it
			return
		}
		m.state = matchEnded
		c.mu.Unlock()
		m.err = m.endReason()
		m.finish()
		return
	default: // ended
		c.mu.Unlock()
		return
	}
	if c.closed {
		m.state = matchRunning
		c.mu.Unlock()
		// The clock is closed: the match ends, on the calling goroutine, running none of its
		// callbacks there.
		m.markEnding(ErrClosed)
		m.run()
		return
	}
	m.entry.deadline = 0
	m.state = matchWaiting
	c.queue.push(&m.entry)
	c.mu.Unlock()
	c.wakeWaiter()
}

// run runs one pass of the match, then puts it back in the clock's queue, or ends it.
func (m *Match) run() {
	if ok, _ := m.runPass(m.pool.clock.Now()); !ok {
		return
	}
	c := m.pool.clock
	c.mu.Lock()
	earlier, closed := m.requeueLocked()
	c.mu.Unlock()
	if closed {
		m.finish()
	}
	if earlier {
		c.wakeWaiter()
	}
}

// runPass runs one pass of the match at start, the clock's time just read, and notes when it is
// next due. It reports false if the match ended, and returns the clock's time once it is done,
// which a caller running matches one after another passes to the next.
func (m *Match) runPass(start time.Duration) (ok bool, end time.Duration) {
	c := m.pool.clock
	returned := false
	defer func() {
		if !returned {
			// A callback called runtime.Goexit, which ends the goroutine that runs the match,
			// and cannot be stopped: the match ends, and whoever ran it puts back the rest of
			// what it held as its goroutine ends (see runDue, runChunk, worker, wait).
			m.err = ErrGoexit
			c.mu.Lock()
			m.state = matchEnded
			c.mu.Unlock()
			m.finish()
		}
	}()
	next, ended := m.pass(start)
	returned = true
	end = c.Now()
	if ended {
		c.mu.Lock()
		m.state = matchEnded
		c.mu.Unlock()
		m.finish()
		return false, end
	}
	m.slow.note(end-start > m.pool.slowPass)
	m.next = next
	// For the dispatch of its next pass (see planDispatch); the clock's mu, taken to requeue
	// the match, hands them to the waiter.
	m.entry.info = makeDueInfo(end-start, m.slow.left > 0)
	return true, end
}

// requeueLocked puts the match back in the clock's queue after a pass, with the clock's mu held.
// It reports whether its deadline comes before what the waiter sleeps for, and whether the
// clock has closed, in which case the match has ended and the caller must finish it.
func (m *Match) requeueLocked() (earlier, closed bool) {
	c := m.pool.clock
	if c.closed {
		m.state = matchEnded
		m.err = ErrClosed
		return false, true
	}
	next := m.next
	if m.kicked {
		m.kicked, next = false, 0
	}
	if next == never {
		m.state = matchParked
		return false, false
	}
	m.entry.deadline = next
	m.state = matchWaiting
	c.queue.push(&m.entry)
	return next < c.target, false
}

// requeue puts back in the clock's queue the matches the waiter or a worker ran, under one lock,
// and wakes the waiter if one of them is due before what it sleeps for: a match kicked while it
// ran (a control change, an end) goes back due at once, and a worker that did not wake the
// waiter for it left it waiting for the waiter's next wake-up, for ever where nothing else was
// queued (the matches of a pool whose context was cancelled while workers ran some of them
// did not all end). On the waiter, which looks at the queue again before it sleeps, the wake-up
// is one spare turn of its loop.
func requeue(c *SharedClock, ran []*Match) {
	if len(ran) == 0 {
		return
	}
	var ended []*Match
	wake := false
	c.mu.Lock()
	for _, m := range ran {
		earlier, closed := m.requeueLocked()
		wake = wake || earlier
		if closed {
			ended = append(ended, m)
		}
	}
	c.mu.Unlock()
	if wake {
		c.wakeWaiter()
	}
	for _, m := range ended {
		m.finish()
	}
}

// pass delivers the input pushed since the last pass and runs the ticks owed at now. It returns
// when the next tick is due (never while paused), or ended.
func (m *Match) pass(now time.Duration) (next time.Duration, ended bool) {
	if m.stopping.Load() {
		m.err = m.endReason()
		return 0, true
	}
	if m.ctlPending.Load() {
		m.applyControl(now)
	}
	if m.hasInput.Load() {
		m.inMu.Lock()
		m.inputs, m.pending = m.pending, m.inputs[:0]
		m.hasInput.Store(false)
		m.inMu.Unlock()
	}

	if dropped, droppedTime := m.sched.advance(now); dropped > 0 {
		m.drop(dropped, droppedTime, now)
	}
	m.lastPass.Store(int64(now))
	if now >= m.winEnd {
		m.closeWindow(now)
	}
	for i := range m.inputs {
		m.evInput = m.inputs[i]
		m.evInput.Tick = m.sched.Ticks() + 1
		m.due = 0
		if m.input != nil {
			if err := call(m.input, &m.evInput, "Input before tick", m.evInput.Tick); err != nil {
				return 0, m.fail(err)
			}
		}
	}
	clear(m.inputs)
	m.inputs = m.inputs[:0]
	for {
		// Stop, Close and cancellation are honoured between updates, as in Loop: with
		// permissive catch-up settings one pass can owe many.
		if m.stopping.Load() {
			m.err = m.endReason()
			return 0, true
		}
		if err := m.ctx.Err(); err != nil {
			return 0, m.fail(err)
		}
		tick, ok := m.sched.Next()
		if !ok {
			break
		}
		m.due = m.sched.realDueLast()
		m.ev = Update{Tick: tick, DT: m.sched.Step(), Seconds: m.sched.StepSeconds()}
		m.ticks.Add(1)
		if err := callUpdate(m.game, &m.ev); err != nil {
			return 0, m.fail(err)
		}
	}
	return m.sched.NextTickAt(), false
}

// endReason returns why Stop, the context or Close ended the match.
func (m *Match) endReason() error {
	m.inMu.Lock()
	err := m.endErr
	m.inMu.Unlock()
	if errors.Is(err, ErrStopped) && m.ctx.Err() != nil {
		return m.ctx.Err()
	}
	return err
}

// fail records why the game ended the match; a returned ErrStop (which call reports as
// errStopped) is a normal end, and a panic, whatever its value, is not.
func (m *Match) fail(err error) bool {
	if err != errStopped {
		m.err = err
	}
	return true
}

// finish releases what the match holds and tells its waiters it has ended.
func (m *Match) finish() {
	m.inMu.Lock()
	stop := m.stopCtx
	m.ended, m.pending = true, nil
	m.inMu.Unlock()
	if stop != nil {
		stop()
	}
	p := m.pool
	p.mu.Lock()
	delete(p.matches, m)
	p.mu.Unlock()
	close(m.done)
}

// closeWindow measures TPS over the window that ends at now, and starts the next.
func (m *Match) closeWindow(now time.Duration) {
	ticks := m.ticks.Load()
	m.statsMu.Lock()
	if !m.statsStarted {
		m.statsStarted, m.statsStart = true, now
	} else if d := now - m.winStart; d > 0 {
		m.tps = float64(ticks-m.winTicks0) * float64(time.Second) / float64(d)
	}
	m.winStart, m.winTicks0 = now, ticks
	m.statsMu.Unlock()
	m.winEnd = now + rateWindow
}

// drop records ticks dropped at now.
func (m *Match) drop(ticks uint64, gameTime, now time.Duration) {
	m.statsMu.Lock()
	m.droppedTicks += ticks
	m.droppedTime = addSat(m.droppedTime, gameTime)
	m.lastDrop, m.anyDrop = now, true
	m.statsMu.Unlock()
}

// realDueLast returns the real time at which the last tick taken was due.
func (s *Schedule) realDueLast() time.Duration {
	return addSat(s.realBase, s.scale.unscale(s.dueLast-s.gameBase))
}

func (m *Match) applyControl(now time.Duration) {
	m.ctlMu.Lock()
	c := m.ctl
	m.ctlPending.Store(false)
	m.ctlMu.Unlock()
	if c.paused != m.sched.Paused() {
		if c.paused {
			m.sched.Pause(now)
		} else {
			m.sched.Resume(now)
		}
	}
	if c.scale != m.sched.TimeScale() {
		_ = m.sched.SetTimeScale(now, c.scale) // validated by SetTimeScale
	}
	if c.tickRate != m.sched.TickRate() {
		_ = m.sched.SetTickRate(c.tickRate) // validated by SetTickRate
	}
}

func (m *Match) request(change func(*control)) {
	m.ctlMu.Lock()
	change(&m.ctl)
	m.ctlPending.Store(true)
	m.ctlMu.Unlock()
	m.kick()
}

// Pause stops the match's game time: no updates run until Resume.
func (m *Match) Pause() { m.request(func(c *control) { c.paused = true }) }

// Resume lets the match's game time run again from where it was paused.
func (m *Match) Resume() { m.request(func(c *control) { c.paused = false }) }

// SetTimeScale makes the match's game time run at scale times real time; 0 stops it. A
// negative, NaN or infinite scale is an error.
func (m *Match) SetTimeScale(scale float64) error {
	if err := checkScale("TimeScale", scale); err != nil {
		return inSetter("SetTimeScale", err)
	}
	m.request(func(c *control) { c.scale = scale })
	return nil
}

// SetTickRate changes the match's updates per second; none is lost or repeated.
func (m *Match) SetTickRate(rate int) error {
	if rate <= 0 || rate > MaxRate {
		return inSetter("SetTickRate", badField("TickRate", rate, fmt.Sprintf("must be between 1 and %d", MaxRate)))
	}
	m.request(func(c *control) { c.tickRate = rate })
	return nil
}

// Stats returns what the match has done so far: its ticks, drops, TPS and settings. Matches
// draw no frames: the frame fields are 0.
func (m *Match) Stats() Stats {
	st := Stats{Ticks: m.ticks.Load()}
	m.statsMu.Lock()
	st.DroppedTicks, st.DroppedTime = m.droppedTicks, m.droppedTime
	st.RunningSlowly = m.anyDrop && time.Duration(m.lastPass.Load())-m.lastDrop < rateWindow
	st.TPS = m.tps
	if m.statsStarted {
		st.RealTime = time.Duration(m.lastPass.Load()) - m.statsStart
	}
	m.statsMu.Unlock()
	m.ctlMu.Lock()
	st.Paused, st.TimeScale, st.TickRate = m.ctl.paused, m.ctl.scale, m.ctl.tickRate
	m.ctlMu.Unlock()
	return st
}
