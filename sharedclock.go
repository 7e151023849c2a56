package gameloop

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// DefaultResolution is a SharedClock's resolution when SharedClockOptions.Resolution is 0: one
// millisecond, which is as fine as Go's own timers wake on Linux. At it, many deadlines waited
// for on the clock cost about what a goroutine and a time.Ticker each cost, with the same
// lateness; a finer resolution buys lateness with CPU (docs/server.md has the figures, and the
// commands that measure them).
const DefaultResolution = time.Millisecond

// timerResolution is the resolution of Go's timers on Linux: they wait in epoll_wait, whose
// timeout is in whole milliseconds (golang/go#44343), so a Go timer wakes up to about a
// millisecond late. At this resolution and coarser, a SharedClock sleeps on a Go timer alone.
const timerResolution = time.Millisecond

// coarseLead is how long before its target the waiter's Go timer ends when a precise sleep
// follows it: more than a Go timer's lateness.
const coarseLead = 2 * time.Millisecond

// SharedClockOptions are the settings of a SharedClock. The zero value is ready to use.
type SharedClockOptions struct {
	// Resolution is how far past the earliest deadline a wake-up of the waiter may go to
	// gather the deadlines that follow it, so that one wake-up serves them all. Every wake-up
	// costs CPU (tens of µs on a virtual machine); with many deadlines close together, the
	// waiter's CPU is about its wake-ups per second times that cost, and a coarser resolution
	// means fewer of them. No deadline is ever woken for early. 0 means DefaultResolution.
	//
	// From a millisecond up (Go's timer resolution on Linux), while loops' goroutines wait on
	// the clock, the waiter sleeps on a Go timer, so that they can run on its processor. Below
	// a millisecond, and whenever only deadlines that the waiter runs itself wait (those of a
	// client of the clock that runs on the waiter), it sleeps on Linux with an absolute
	// clock_nanosleep for the last stretch, which is precise to tens of µs but cannot be
	// interrupted: a new deadline earlier than the one being slept for can then be served up
	// to about 2 ms late. Elsewhere a resolution under a millisecond acts as one millisecond,
	// unless the waiter spins (Spin).
	Resolution time.Duration

	// Spin makes the waiter spin through the last 2 ms before each wake-up rather than sleep;
	// once it has woken goroutines (loops, a client's workers), it yields its processor to them
	// at every turn of the spin. A sleeping thread on a virtual machine now and then wakes a
	// millisecond or more late, and every deadline gathered by that wake-up is as late; a
	// spinning one does not sleep. The cost is a processor: with deadlines less than 2 ms apart
	// (many games spread over the tick) the waiter never sleeps, and holds a core. Choose it
	// where a resolution under a millisecond must hold at the p99 on such a machine and a core
	// can be given to it (docs/server.md measures both). Spinning also works where there is no
	// precise sleep (outside Linux), at any resolution, except in a browser (js/wasm), where
	// the program shares its one thread with the page: there Spin is ignored.
	Spin bool
}

// SharedClock is a clock that many loops share, for a server that runs many games in one
// process: each game has its own Loop (Config.Clock set to the shared clock), with the whole
// Loop API, but the loops do not each keep a thread busy pacing their deadlines. They all wait
// through one timer queue and one waiter goroutine, which sleeps until the earliest deadline
// (and as far past it as the resolution allows, to gather others), then wakes every loop whose
// deadline has come. Other clients of the clock run their games on the same waiter without a
// goroutine each (docs/server.md). A server's loop draws nothing: Config.NoFrames spares it
// the headless frame after every tick.
//
//	clock := gameloop.NewSharedClock(nil)
//	defer clock.Close()
//	for each game {
//		loop, err := gameloop.New(gameloop.Config{TickRate: 20, Clock: clock, NoFrames: true})
//		go loop.Run(ctx, game)
//	}
//
// A game client should keep the default clock (a SystemClock), whose Pacer is far more
// precise for one loop. A SharedClock's times are durations since it was made. Its methods are
// safe for concurrent use; in steady state a wait allocates nothing. Make one with
// NewSharedClock: the zero SharedClock is not usable.
type SharedClock struct {
	origin time.Time
	res    time.Duration
	spin   bool
	// precise sleeps until an absolute time on the clock, or is nil where there is no sleep
	// finer than Go's timers.
	precise func(target time.Duration)

	mu     sync.Mutex
	queue  deadlineQueue
	target time.Duration // what the waiter sleeps for now; never while it runs
	closed bool
	batch  []*waitEntry // the entries due at the last wake-up, reused
	infos  []dueInfo    // their dueInfos, for the runner's dispatch, reused
	// runner runs the entries of the clock's clients (see dueRunner); nil until one registers
	// (see setRunnerLocked). Guarded by mu; the waiter reads it once a wake-up.
	runner  dueRunner
	entries sync.Pool // *waitEntry for WaitUntil

	kick    chan struct{} // wakes the waiter from its Go timer: a deadline came before its target
	done    chan struct{} // closed by Close
	stopped chan struct{} // closed when the waiter has returned
	timer   *time.Timer
	// ticker wakes the waiter every res while deadlines are close together, on a Go timer:
	// resetting a timer to the earliest time in the process, every wake-up, makes the runtime
	// wake a thread to look at it (netpollBreak), which doubles the cost of a wake-up.
	ticker  *time.Ticker
	ticking bool
	// lastFire is when the waiter last found something due.
	lastFire time.Duration
	// wokeGoroutines is whether the waiter woke a goroutine's wait (WaitUntil, a Loop) at its
	// last wake-up, rather than only running its clients' entries.
	wokeGoroutines bool
	// waiterID is the id of the waiter's goroutine (see goid), for Close to tell a call from a
	// callback run by the waiter, which would wait for itself.
	waiterID atomic.Uint64
}

// dueRunner is what the clock asks of a client that keeps entries of its own in the clock's
// queue (their owner set) and runs them on the waiter's goroutine when they are due, rather
// than have the waiter wake a goroutine for each. The clock keeps the deadlines and wakes up for
// them; the runner decides what running an entry means. A clock has one runner at most, which
// serves every such client of the clock.
type dueRunner interface {
	// takeLocked appends to batch, and takes out of the queue, the entries the runner wants
	// run at this wake-up besides those due (a control change, an end); the clock's mu is held.
	takeLocked(batch []*waitEntry) []*waitEntry
	// runDue is handed the entries of a wake-up, due or taken by takeLocked, in the queue's
	// order, on the waiter's goroutine: it runs those with an owner, wakes the goroutines of
	// the others (wakeGoroutine) as it comes to them, and reports whether it woke any. infos
	// holds each entry's dueInfo, at the same index. Once it returns, the waiter reuses batch
	// and infos. If a callback ends the waiter's goroutine (runtime.Goexit) in it, the runner
	// puts back what it has not run (putBack), and the waiter, going on on a new goroutine,
	// drops batch and infos, which the runner may still hold.
	runDue(batch []*waitEntry, infos []dueInfo) (wokeGoroutines bool)
	// burstLead is how long before an isolated deadline (one far from the others, which may
	// have many behind it) the waiter wakes to call beforeBurst; 0 for not at all.
	burstLead() time.Duration
	// beforeBurst is called burstLead before an isolated deadline, on the waiter's goroutine.
	beforeBurst()
	// runsCallbacks reports whether goroutine id is one of the runner's own (not the waiter),
	// which run its clients' callbacks; the clock's mu is not held.
	runsCallbacks(id uint64) bool
	// close ends the runner's clients, once the clock is closed and its waiter has returned.
	close()
}

// setRunnerLocked returns the clock's runner, made by newRunner if the clock has none yet;
// the clock's mu is held.
func (c *SharedClock) setRunnerLocked(newRunner func() dueRunner) dueRunner {
	if c.runner == nil {
		c.runner = newRunner()
	}
	return c.runner
}

// onWaiter reports whether goroutine id (see goid) is the clock's waiter.
func (c *SharedClock) onWaiter(id uint64) bool { return id != 0 && id == c.waiterID.Load() }

// waitEntry is one deadline in the queue: a goroutine blocked in WaitUntil (ready), a Loop's
// wait (wake, see waitLoop), or a client's entry (owner), which the clock's runner runs.
type waitEntry struct {
	deadline time.Duration
	ready    chan struct{}
	timer    *time.Timer // for waits after Close
	// owner is the object of the client whose entry this is, which only the runner looks at;
	// nil for a goroutine's wait.
	owner unsafe.Pointer
	wake  chan struct{} // the Loop's wake channel, for waitLoop
	// fired is set by the waiter once it has sent on wake for the entry; waitLoop clears it.
	fired atomic.Bool
	// info is what running a client's entry cost its runner last time, and whether the runner
	// must not run it on the waiter's goroutine: the runner's to set, for it to share a
	// wake-up's entries out (see planDispatch); the queue copies it beside the deadline when the
	// entry is queued. Four bytes, in what would be the padding after fired, so that the entry,
	// at the start of a Match, takes no more of the Match's cache lines for it.
	info dueInfo
}

// NewSharedClock returns a shared clock with its origin at the time of the call, and starts its
// waiter. A nil opts means the defaults. Close it when every loop on it has ended. A negative
// Resolution is a programming error: NewSharedClock panics.
func NewSharedClock(opts *SharedClockOptions) *SharedClock {
	var o SharedClockOptions
	if opts != nil {
		o = *opts
	}
	if o.Resolution < 0 {
		panic(fmt.Sprintf("gameloop: NewSharedClock with a negative SharedClockOptions.Resolution (%v)", o.Resolution))
	}
	if o.Resolution <= 0 {
		o.Resolution = DefaultResolution
	}
	c := newSharedClock(o)
	go c.wait()
	return c
}

// newSharedClock returns a shared clock with valid options whose waiter is not started: tests
// play the waiter's part on it.
func newSharedClock(o SharedClockOptions) *SharedClock {
	c := &SharedClock{
		origin:  time.Now(),
		res:     o.Resolution,
		spin:    o.Spin && runtime.GOOS != "js", // a spin would keep the page from running
		target:  never,
		kick:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		stopped: make(chan struct{}),
		timer:   time.NewTimer(time.Hour),
		ticker:  time.NewTicker(time.Hour),
	}
	c.timer.Stop()
	c.ticker.Stop()
	// The precise sleep serves every resolution where there is one: under a millisecond always,
	// and at coarser ones for a deadline far from the others (see sleep).
	c.precise = newSharedSleep(c.Now)
	c.entries.New = func() any {
		t := time.NewTimer(time.Hour)
		t.Stop()
		return &waitEntry{ready: make(chan struct{}, 1), timer: t}
	}
	return c
}

// Resolution returns how far past the earliest deadline a wake-up may go to gather others.
func (c *SharedClock) Resolution() time.Duration { return c.res }

// Now returns the monotonic time since the clock was made.
func (c *SharedClock) Now() time.Duration { return time.Since(c.origin) }

// WaitUntil returns once Now() >= deadline, or earlier as soon as a value can be received from
// wake (which it then consumes). The calling goroutine blocks on a channel; the clock's waiter
// wakes it when its deadline has come. After Close it waits on a Go timer of its own.
func (c *SharedClock) WaitUntil(deadline time.Duration, wake <-chan struct{}) {
	if deadline != never && c.Now() >= deadline {
		return
	}
	if deadline == never {
		select {
		case <-wake:
		case <-c.done:
			<-wake
		}
		return
	}
	e := c.entries.Get().(*waitEntry)
	e.deadline = deadline
	if !c.add(e) {
		// Closed: no waiter any more.
		e.timer.Reset(deadline - c.Now())
		select {
		case <-e.timer.C:
		case <-wake:
			e.timer.Stop()
		}
		c.entries.Put(e)
		return
	}
	select {
	case <-e.ready:
		c.entries.Put(e)
		if c.Now() < deadline {
			// Released by Close: wait for the rest on a timer.
			c.WaitUntil(deadline, wake)
		}
	case <-wake:
		if c.remove(e) {
			c.entries.Put(e)
			return
		}
		select {
		case <-e.ready: // fired as wake came: the entry is clean
			c.entries.Put(e)
		default:
			// Taken out by the waiter, which has not fired it yet (it may be running a slow
			// entry of a client first): WaitUntil does not wait for it, and leaves the entry
			// to it, whose token fills the entry's channel for nobody.
		}
	}
}

// waitLoop is WaitUntil for a Loop: the loop's own entry, reused from wait to wait, and its
// own wake channel, on which the waiter sends when the deadline comes, so that the loop blocks
// on one channel. It may return before the deadline without a value sent on wake (the caller
// checks the time again); a value sent on wake while it returns may be consumed, as the caller
// looks at what a wake-up asks for (control changes, cancellation) after every wait.
//
// It reports whether the waiter still holds e when it returns: woken early while the waiter
// had taken e out of the queue to fire it, and had not yet (it may be running a client's slow
// entry before it), it returns at once rather than wait for the waiter. The caller must then
// wait with another entry: the waiter fires e later, and its value on wake ends a later wait
// early.
func (c *SharedClock) waitLoop(e *waitEntry, deadline time.Duration, wake chan struct{}) (held bool) {
	if deadline == never || c.Now() >= deadline {
		c.WaitUntil(deadline, wake)
		return false
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		c.WaitUntil(deadline, wake)
		return false
	}
	e.deadline, e.wake = deadline, wake
	e.fired.Store(false)
	c.queue.push(e)
	earlier := deadline < c.target
	c.mu.Unlock()
	if earlier {
		c.wakeWaiter()
	}
	<-wake
	if !e.fired.Load() {
		if c.remove(e) {
			return false // woken before the deadline
		}
		if !e.fired.Load() {
			return true // taken out by the waiter, which has not fired it yet
		}
	}
	// The waiter's value may have come after the one received: take it, so that the next wait
	// does not end at once. (If it comes later still, the next wait ends early, which the
	// caller allows for.)
	select {
	case <-wake:
	default:
	}
	return false
}

// add puts e in the queue and wakes the waiter if e comes before what it sleeps for. It reports
// false, doing nothing, once the clock is closed.
func (c *SharedClock) add(e *waitEntry) bool {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return false
	}
	c.queue.push(e)
	earlier := e.deadline < c.target
	c.mu.Unlock()
	if earlier {
		c.wakeWaiter()
	}
	return true
}

// remove takes e out of the queue; it reports false if e was not in it (the waiter fired it).
func (c *SharedClock) remove(e *waitEntry) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.queue.remove(e)
}

func (c *SharedClock) wakeWaiter() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// Close stops the waiter and ends the games of the clock's other clients (their own Close).
// Loops still waiting on it go on, each on a Go timer of its own. Closing twice does nothing.
// Called from a callback that the waiter or a client's worker runs, it would wait for itself:
// it returns ErrCloseFromCallback and closes nothing.
func (c *SharedClock) Close() error {
	if c.calledFromCallback() {
		return ErrCloseFromCallback
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		<-c.stopped
		return nil
	}
	c.closed = true
	r := c.runner
	c.mu.Unlock()
	close(c.done)
	<-c.stopped
	if r != nil {
		r.close()
	}
	return nil
}

// calledFromCallback reports whether the caller is the clock's waiter or one of its runner's
// goroutines: those that run its clients' callbacks.
func (c *SharedClock) calledFromCallback() bool {
	id := goid()
	if id == 0 {
		return false
	}
	if id == c.waiterID.Load() {
		return true
	}
	c.mu.Lock()
	r := c.runner
	c.mu.Unlock()
	return r != nil && r.runsCallbacks(id)
}

// wait is the waiter: it fires what is due, then sleeps until the next target. If a callback
// that the runner runs ends the waiter's goroutine with runtime.Goexit (t.Fatal in a test
// does), the runner puts back the rest of the wake-up (see dueRunner.runDue), and the waiter
// goes on, on a goroutine of its own, with a batch of its own: no other deadline is left
// without one.
func (c *SharedClock) wait() {
	returned := false
	defer func() {
		if !returned {
			c.batch, c.infos = nil, nil
			go c.wait()
			return
		}
		c.ticker.Stop()
		c.timer.Stop()
		close(c.stopped)
	}()
	c.serve()
	returned = true
}

// serve runs the waiter until the clock closes.
func (c *SharedClock) serve() {
	c.waiterID.Store(goid())
	for {
		now := c.Now()
		c.mu.Lock()
		if c.closed {
			c.releaseLocked()
			c.mu.Unlock()
			return
		}
		c.batch, c.infos = c.queue.popDue(now, c.batch[:0], c.infos[:0])
		r := c.runner
		if r != nil {
			c.batch = r.takeLocked(c.batch)
			// The entries taken besides the due ones (kicked, few): their infos from them.
			for _, e := range c.batch[len(c.infos):] {
				c.infos = append(c.infos, infoOf(e))
			}
		}
		// The target stays the one just slept for, now past, while the due entries run: the
		// deadlines added meanwhile are later and kick nothing, and the waiter sees them when
		// it chooses its next target.
		c.mu.Unlock()
		if len(c.batch) > 0 {
			c.lastFire = now
			c.fire(r, c.batch, c.infos)
			clear(c.batch)
			continue // time has passed: look again before sleeping
		}
		c.mu.Lock()
		target := c.queue.target(c.res, c.spin || c.precise != nil && (c.res < timerResolution || !c.wokeGoroutines))
		c.target = target
		c.mu.Unlock()
		c.sleep(target, r)
	}
}

// releaseLocked wakes every goroutine still waiting in the queue, once the clock is closed: each
// waits for the rest of its deadline on a timer of its own. The clients' entries stay, for
// the runner's close to end.
func (c *SharedClock) releaseLocked() {
	for _, e := range c.queue.takeAll(nil) {
		if e.owner != nil {
			c.queue.push(e)
		} else {
			e.wakeGoroutine()
		}
	}
}

// fire wakes the goroutines of due entries and has the runner, if any, run its clients'.
func (c *SharedClock) fire(r dueRunner, batch []*waitEntry, infos []dueInfo) {
	if r != nil {
		// The runner takes each entry as it comes to it: looking at every entry first, to
		// sort the clients' from the goroutines', would fetch a thousand cache lines before
		// the first of a burst runs.
		c.wokeGoroutines = r.runDue(batch, infos)
		return
	}
	for _, e := range batch {
		e.wakeGoroutine()
	}
	c.wokeGoroutines = true
}

// putBack puts entries taken out of the queue as due, and not fired, back in it, after a
// callback ended the waiter's goroutine with runtime.Goexit (see dueRunner.runDue): the next
// waiter fires them at once. Once the clock is closed, the goroutines' waits are woken and the
// clients' entries are left in the queue for the runner's close, as releaseLocked does.
func (c *SharedClock) putBack(es []*waitEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range es {
		if e.owner == nil && c.closed {
			e.wakeGoroutine()
			continue
		}
		c.queue.push(e)
	}
}

// wakeGoroutine wakes the goroutine waiting on e, which is not a client's entry.
func (e *waitEntry) wakeGoroutine() {
	if e.wake != nil {
		e.fire()
	} else {
		e.ready <- struct{}{}
	}
}

// fire wakes the Loop waiting on e (see waitLoop).
func (e *waitEntry) fire() {
	// Marked first, so that the loop, woken by the value, sees it fired; the channel is read
	// before, as the loop may reuse the entry for its next wait as soon as it sees it fired.
	wake := e.wake
	e.fired.Store(true)
	select {
	case wake <- struct{}{}:
	default: // a value is there already
	}
}

// sleep waits until target, or until kicked or closed while on a Go timer; r is the clock's
// runner, or nil.
func (c *SharedClock) sleep(target time.Duration, r dueRunner) {
	if target == never {
		select {
		case <-c.kick:
		case <-c.done:
		}
		return
	}
	now := c.Now()
	if target <= now {
		return
	}
	if c.spin {
		c.stopTicker()
		if !c.timerToLead(target, now, spinLead) {
			c.spinUntil(target)
		}
		return
	}
	// Dense: deadlines follow each other within a few resolutions (games spread over the
	// tick), and the waiter wakes every res on its ticker.
	dense := target-c.lastFire <= tickSpan*c.res
	if c.precise != nil && (c.res < timerResolution || !dense || !c.wokeGoroutines) {
		// A precise sleep: at a fine resolution; for a deadline far from the others (all
		// games on one grid), where the few wake-ups had better be on time; and whenever
		// only the runner's entries are waiting, which the waiter runs itself, so that
		// holding its processor through the sleep holds up no goroutine it wakes. Loops' goroutines need
		// the processor the waiter would hold: while they wait, the ticker serves them at
		// less CPU (docs/server.md has both sides measured).
		c.stopTicker()
		if c.timerToLead(target, now, coarseLead) {
			return
		}
		if dense {
			c.precise(target)
			return
		}
		// An isolated deadline, which often has many behind it (games on one grid): the
		// sleep ends a little before it, as a precise sleep wakes tens of µs late, and the
		// waiter spins the rest. Spinning costs at most isolatedLead per wake-up, and
		// isolated wake-ups are few. Where the runner asks, the waiter first wakes its
		// burstLead before the deadline for it to prepare the burst.
		if r != nil {
			if lead := r.burstLead(); lead > 0 && target-now > lead {
				c.precise(target - lead)
				r.beforeBurst()
			}
		}
		c.precise(target - isolatedLead)
		for c.Now() < target {
		}
		return
	}
	if dense {
		if !c.ticking {
			c.ticker.Reset(tickPeriod(c.res))
			c.ticking = true
		}
		select {
		case <-c.ticker.C:
		case <-c.kick:
		case <-c.done:
		}
		return
	}
	c.stopTicker()
	c.timerWait(target - now)
}

// stopTicker stops the waiter's ticker if it runs.
func (c *SharedClock) stopTicker() {
	if c.ticking {
		c.ticker.Stop()
		c.ticking = false
	}
}

// timerToLead waits on a Go timer until lead before target and reports true, if target is
// further than lead from now; the waiter then looks again, as a deadline may have come before
// the target meanwhile. It reports false, at once, if target is nearer.
func (c *SharedClock) timerToLead(target, now, lead time.Duration) bool {
	if target-now <= lead {
		return false
	}
	c.timerWait(target - lead - now)
	return true
}

// spinLead is how long before its target a spinning waiter (SharedClockOptions.Spin) stops
// sleeping: more than a Go timer's lateness, and than most of a sleeping thread's on a virtual
// machine.
const spinLead = 2 * time.Millisecond

// spinUntil spins until target, or until kicked or closed. Where it has woken goroutines (loops,
// a client's workers), it lets them run on its processor as it goes: the runtime readies them
// there, and they would otherwise wait, late, for another processor to steal them. Where it
// runs its clients' entries itself, it keeps its processor: a goroutine that yields goes to the
// back of the global run queue, behind any long update that the runtime has preempted, which
// the processor then takes up (docs/server.md measures both). With one processor it always
// yields.
func (c *SharedClock) spinUntil(target time.Duration) {
	yield := c.wokeGoroutines || runtime.GOMAXPROCS(0) < 2
	for c.Now() < target {
		select {
		case <-c.kick:
			return
		default:
		}
		select {
		case <-c.done:
			return
		default:
		}
		if yield {
			runtime.Gosched()
		}
	}
}

// isolatedLead is how long before an isolated deadline the waiter's precise sleep ends, to spin
// the rest: about what such a sleep oversleeps at its median on a virtual machine (see
// docs/pacing.md).
const isolatedLead = 100 * time.Microsecond

// tickPeriod is the period of the waiter's ticker at resolution res. A Go timer is seen to
// fire only when a thread next wakes up to look at the timers, up to about a millisecond after
// it is due (timerResolution), so a deadline waits for the ticker's next tick and then for
// that: with the ticker's period at res, ticks began later than on a time.Ticker per game
// (docs/server.md has the figures). The period leaves most of res to the timers' own lateness;
// a tick that comes while nothing is due costs the waiter a look at its queue, and no thread wakes up for it while the threads
// sleep in the runtime's poller, whose sleeps last a millisecond at the least.
func tickPeriod(res time.Duration) time.Duration {
	return max(res-timerResolution*3/4, res/4)
}

// tickSpan is how many resolutions ahead the next deadline may be for the waiter to wait on its
// ticker rather than set a timer.
const tickSpan = 4

func (c *SharedClock) timerWait(d time.Duration) {
	c.timer.Reset(d)
	select {
	case <-c.timer.C:
	case <-c.kick:
		c.timer.Stop()
	case <-c.done:
	}
}
