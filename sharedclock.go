package gameloop

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultResolution is a SharedClock's resolution when SharedClockOptions.Resolution is 0: one
// millisecond, which is as fine as Go's own timers wake on Linux. At it, many matches waited for
// on the clock cost about what a goroutine and a time.Ticker per match cost, with the same
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
	// a millisecond, and whenever only pools' matches wait, it sleeps on Linux with an absolute
	// clock_nanosleep for the last stretch, which is precise to tens of µs but cannot be
	// interrupted: a new deadline earlier than the one being slept for can then be served up
	// to about 2 ms late. Elsewhere a resolution under a millisecond acts as one millisecond,
	// unless the waiter spins (Spin).
	Resolution time.Duration

	// Spin makes the waiter spin through the last 2 ms before each wake-up rather than sleep;
	// once it has woken goroutines (loops, a pool's workers), it yields its processor to them
	// at every turn of the spin. A sleeping thread on a virtual machine now and then wakes a
	// millisecond or more late, and every deadline gathered by that wake-up is as late; a
	// spinning one does not sleep. The cost is a processor: with deadlines less than 2 ms apart
	// (many matches spread over the tick) the waiter never sleeps, and holds a core. Choose it
	// where a resolution under a millisecond must hold at the p99 on such a machine and a core
	// can be given to it (docs/server.md measures both). Spinning also works where there is no
	// precise sleep (outside Linux), at any resolution, except in a browser (js/wasm), where
	// the program shares its one thread with the page: there Spin is ignored.
	Spin bool
}

// SharedClock is a clock that many loops share, for a server that runs many matches in one
// process: each match has its own Loop (Config.Clock set to the shared clock), with the whole
// Loop API, but the loops do not each keep a thread busy pacing their deadlines. They all wait
// through one timer queue and one waiter goroutine, which sleeps until the earliest deadline
// (and as far past it as the resolution allows, to gather others), then wakes every loop whose
// deadline has come. A Pool runs matches on the same waiter without a goroutine each. A
// server's loop draws nothing: Config.NoFrames spares it the headless frame after every tick.
//
//	clock := gameloop.NewSharedClock(nil)
//	defer clock.Close()
//	for each match {
//		loop, err := gameloop.New(gameloop.Config{TickRate: 20, Clock: clock, NoFrames: true})
//		go loop.Run(ctx, match)
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
	pools  map[*Pool]struct{}
	batch  []*waitEntry // the entries due at the last wake-up, reused
	ran    []*Match     // the matches the waiter ran at the last wake-up, reused
	// perMatch is about what running a pool's match costs the waiter (see runDue).
	perMatch time.Duration
	// splitOff is how many more long bursts the waiter runs without sharing them with the
	// workers from their start, as the workers took no good part in the last (see runDue):
	// where a thread woken by another waits for the waker's processor to be free (as on the
	// virtual machine measured in docs/server.md, even with another processor idle) and no
	// worker can be armed, a worker runs its share of a burst on the waiter's processor, after the
	// waiter, and handing it over costs wake-ups and switches for nothing.
	splitOff int
	// splitMisses counts the long bursts in a row that sharing did not pay for.
	splitMisses int
	// burstPool is the pool of the last burst long enough to share from its start: the waiter
	// arms one of its workers before the next isolated deadline (see Pool.armWorker).
	burstPool atomic.Pointer[Pool]
	entries   sync.Pool // *waitEntry for WaitUntil

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
	// last wake-up, rather than only running pools' matches.
	wokeGoroutines bool
	// waiterID is the id of the waiter's goroutine (see goid), for Close to tell a call from a
	// match's callback, which would wait for itself.
	waiterID atomic.Uint64
	// kicks are the pools' matches kicked (a control change, an end) while they waited in the
	// queue or ran, for the waiter to take out of the queue and run at once (see
	// takeKickedLocked).
	kicks []*Match
}

// kickBulk is how many kicked matches make the waiter take them out of the queue in one pass
// over it rather than one by one (as it also does where the heap holds many): taking out one
// searches the queue (its heap, or the run's entries with the same deadline), so that ending
// thousands of matches at once (a context they share, cancelled) would cost a search each.
const kickBulk = 16

// takeKickedLocked appends to batch the kicked matches waiting in the queue, taken out of it, and
// those that had nothing due (parked); one that is running, or taken out by the waiter already,
// runs again once its pass is over (kicked).
func (c *SharedClock) takeKickedLocked(batch []*waitEntry) []*waitEntry {
	if len(c.kicks) == 0 {
		return batch
	}
	// One by one, a search each: where they are few, and the heap, which a search looks
	// through, is small beside the whole queue, which one pass looks through.
	if len(c.kicks) <= kickBulk && len(c.kicks)*c.queue.heap.len() <= 2*c.queue.len() {
		for _, m := range c.kicks {
			if c.queue.remove(&m.entry) {
				m.kickQueued = false
				batch = append(batch, &m.entry)
			}
		}
	} else {
		from := len(batch)
		batch = c.queue.removeFunc(func(e *waitEntry) bool { return e.match != nil && e.match.kickQueued }, batch)
		for _, e := range batch[from:] {
			e.match.kickQueued = false
		}
	}
	for _, m := range c.kicks {
		if !m.kickQueued {
			continue // taken out above
		}
		m.kickQueued = false
		switch m.state {
		case matchWaiting: // running, or in this batch already
			m.kicked = true
		case matchParked:
			m.state = matchWaiting
			batch = append(batch, &m.entry)
		}
	}
	clear(c.kicks)
	c.kicks = c.kicks[:0]
	return batch
}

// ErrCloseFromCallback is what Pool.Close and SharedClock.Close return when called from a
// callback of one of the pool's (or clock's) matches: they wait for the goroutine that runs it,
// and so would wait forever. They close nothing then. End the match with ErrStop, or close
// from another goroutine (go pool.Close()).
var ErrCloseFromCallback = errors.New("gameloop: Close called from a match's callback, which runs on a goroutine that Close waits for")

// waitEntry is one deadline in the queue: a goroutine blocked in WaitUntil (ready), a Loop's
// wait (wake, see waitLoop), or a pool's match (match).
type waitEntry struct {
	deadline time.Duration
	ready    chan struct{}
	timer    *time.Timer // for waits after Close
	match    *Match
	wake     chan struct{} // the Loop's wake channel, for waitLoop
	// fired is set by the waiter once it has sent on wake for the entry; waitLoop clears it.
	fired atomic.Bool
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
		pools:   map[*Pool]struct{}{},
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
			// match of a pool first): WaitUntil does not wait for it, and leaves the entry
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
// had taken e out of the queue to fire it, and had not yet (it may be running a slow match of
// a pool before it), it returns at once rather than wait for the waiter. The caller must then
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

// Close stops the waiter and ends every pool on the clock (see Pool.Close). Loops still waiting
// on it go on, each on a Go timer of its own. Closing twice does nothing. Called from a
// callback of a pool's match, which runs on the waiter or a pool's worker, it would wait for
// itself: it returns ErrCloseFromCallback and closes nothing.
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
	pools := make([]*Pool, 0, len(c.pools))
	for p := range c.pools {
		pools = append(pools, p)
	}
	c.mu.Unlock()
	close(c.done)
	<-c.stopped
	for _, p := range pools {
		p.Close()
	}
	return nil
}

// calledFromCallback reports whether the caller is the clock's waiter or a worker of one of its
// pools: the goroutines that run matches' callbacks.
func (c *SharedClock) calledFromCallback() bool {
	id := goid()
	if id == 0 {
		return false
	}
	if id == c.waiterID.Load() {
		return true
	}
	c.mu.Lock()
	pools := make([]*Pool, 0, len(c.pools))
	for p := range c.pools {
		pools = append(pools, p)
	}
	c.mu.Unlock()
	for _, p := range pools {
		if p.isWorker(id) {
			return true
		}
	}
	return false
}

// wait is the waiter: it fires what is due, then sleeps until the next target. If a match's
// callback ends the waiter's goroutine with runtime.Goexit (t.Fatal in a test does), the match
// ends with ErrGoexit (see Match.runPass), the rest of the wake-up is put back (see runDue),
// and the waiter goes on, on a goroutine of its own: no other deadline is left without one.
func (c *SharedClock) wait() {
	returned := false
	defer func() {
		if !returned {
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
		c.batch = c.queue.popDue(now, c.batch[:0])
		c.batch = c.takeKickedLocked(c.batch)
		// The target stays the one just slept for, now past, while the due entries run: the
		// deadlines added meanwhile are later and kick nothing, and the waiter sees them when
		// it chooses its next target.
		c.mu.Unlock()
		if len(c.batch) > 0 {
			c.lastFire = now
			c.fire(c.batch)
			clear(c.batch)
			continue // time has passed: look again before sleeping
		}
		c.mu.Lock()
		target := c.queue.target(c.res, c.spin || c.precise != nil && (c.res < timerResolution || !c.wokeGoroutines))
		c.target = target
		c.mu.Unlock()
		c.sleep(target)
	}
}

// releaseLocked wakes every goroutine still waiting in the queue, once the clock is closed: each
// waits for the rest of its deadline on a timer of its own. The pools' matches stay, for
// Pool.Close to end.
func (c *SharedClock) releaseLocked() {
	for _, e := range c.queue.takeAll(nil) {
		if e.match != nil {
			c.queue.push(e)
		} else {
			e.wakeGoroutine()
		}
	}
}

// fire wakes the goroutines of due entries and runs the due matches of pools.
func (c *SharedClock) fire(batch []*waitEntry) {
	// runDue takes each entry as it comes to it: looking at every entry first, to sort the
	// matches from the goroutines, would fetch a thousand cache lines before the first match
	// of a burst runs.
	runDue(c, batch)
}

// wakeGoroutine wakes the goroutine waiting on e, which is not a match's.
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

// sleep waits until target, or until kicked or closed while on a Go timer.
func (c *SharedClock) sleep(target time.Duration) {
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
	// Dense: deadlines follow each other within a few resolutions (matches spread over the
	// tick), and the waiter wakes every res on its ticker.
	dense := target-c.lastFire <= tickSpan*c.res
	if c.precise != nil && (c.res < timerResolution || !dense || !c.wokeGoroutines) {
		// A precise sleep: at a fine resolution; for a deadline far from the others (all
		// matches on one grid), where the few wake-ups had better be on time; and whenever
		// only pools' matches are waiting, which the waiter runs itself, so that holding its
		// processor through the sleep holds up no goroutine it wakes. Loops' goroutines need
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
		// An isolated deadline, which often has many behind it (matches on one grid): the
		// sleep ends a little before it, as a precise sleep wakes tens of µs late, and the
		// waiter spins the rest. Spinning costs at most isolatedLead per wake-up, and
		// isolated wake-ups are few. Where the last such burst was shared with a pool's
		// workers from its start, and sharing paid, the waiter first wakes armLead before the
		// deadline to arm a worker for it.
		if p := c.burstPool.Load(); p != nil && c.splitOff == 0 && target-now > armLead {
			c.precise(target - armLead)
			if !p.armWorker() {
				c.burstPool.CompareAndSwap(p, nil)
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
// a pool's workers), it lets them run on its processor as it goes: the runtime readies them
// there, and they would otherwise wait, late, for another processor to steal them. Where it
// runs a pool's matches itself, it keeps its processor: a goroutine that yields goes to the
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
// that: with the ticker's period at res, ticks began later than on a time.Ticker per match
// (docs/server.md has the figures). The period leaves most of res to the timers' own lateness; a tick that comes while nothing is
// due costs the waiter a look at its queue, and no thread wakes up for it while the threads
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

// deadlineHeap is a 4-ary min-heap of entries by deadline (the part of a deadlineQueue out of
// order): half as deep as a binary one. The deadlines are kept in the array itself, beside the
// entries, and the entries do not know whether or where they are in it: a sift, or taking out
// what is due, moves slots without following a pointer, which with thousands of matches would
// miss the cache at every step.
// Taking out an entry that is not due (a wait ended early, a match stopped or paused) searches
// the array for it: that is rare.
//
// The array begins with heapPad unused slots, so that the four children of a slot, 64 bytes,
// lie in one cache line where the array is aligned to 64 bytes: otherwise every group of
// children straddles two lines, and a sift through a heap out of the cache misses twice per
// level. Go's allocator aligns arrays over 32 KB (heaps of over 2,000 entries) to a page;
// smaller arrays of pointers begin 8 bytes into their slot, after a header, but they also fit
// in the processor's cache. Indexes below are into
// the array: the root is at heapPad, the children of p at 4p-8 to 4p-5, and the parent of c at
// c/4+2.
type deadlineHeap struct {
	s []heapSlot
	// searched counts the slots remove has looked at, for tests: the cost that ending many
	// entries one by one would pay.
	searched int
}

type heapSlot struct {
	deadline time.Duration
	entry    *waitEntry
}

// heapArity is the number of children of a slot of the heap.
const heapArity = 4

// heapPad is the number of unused slots before the root.
const heapPad = heapArity - 1

func heapChild(p int) int  { return heapArity*p - heapPad*heapPad + 1 }
func heapParent(c int) int { return (c-1-heapPad)/heapArity + heapPad }

// len returns the number of entries in the heap.
func (h *deadlineHeap) len() int { return max(len(h.s)-heapPad, 0) }

func (h *deadlineHeap) push(e *waitEntry) {
	if len(h.s) < heapPad {
		h.s = append(h.s[:0], make([]heapSlot, heapPad)...)
	}
	h.s = append(h.s, heapSlot{e.deadline, e})
	h.up(len(h.s) - 1)
}

// remove takes e out of the heap; it reports false if e was not in it.
func (h *deadlineHeap) remove(e *waitEntry) bool {
	for p := heapPad; p < len(h.s); p++ {
		h.searched++
		if h.s[p].entry == e {
			h.removeAt(p)
			return true
		}
	}
	return false
}

func (h *deadlineHeap) removeAt(p int) {
	last := len(h.s) - 1
	if p != last {
		h.swap(p, last)
	}
	h.s[last] = heapSlot{}
	h.s = h.s[:last]
	if p != last {
		h.down(p)
		h.up(p)
	}
}

// popDue appends to batch, and takes out of the heap, every entry due at now, the earliest
// first. When many are due (matches on one grid), taking them out one by one costs a sift each:
// past a number, it takes the rest in one pass over the array and rebuilds the heap, which
// costs about one look at each slot.
func (h *deadlineHeap) popDue(now time.Duration, batch []*waitEntry) []*waitEntry {
	bulk := max(64, h.len()/16)
	for n := 0; h.len() > 0 && h.s[heapPad].deadline <= now; n++ {
		if n == bulk {
			return h.takeDue(now, batch)
		}
		batch = append(batch, h.s[heapPad].entry)
		h.removeAt(heapPad)
	}
	return batch
}

// takeDue appends to batch every entry due at now, in the order of the array, and rebuilds the
// heap from the others.
func (h *deadlineHeap) takeDue(now time.Duration, batch []*waitEntry) []*waitEntry {
	kept := h.s[:heapPad]
	for _, slot := range h.s[heapPad:] {
		if slot.deadline <= now {
			batch = append(batch, slot.entry)
		} else {
			kept = append(kept, slot)
		}
	}
	clear(h.s[len(kept):])
	h.s = kept
	if last := len(kept) - 1; last > heapPad {
		for p := heapParent(last); p >= heapPad; p-- {
			h.down(p)
		}
	}
	return batch
}

// removeFunc takes out of the heap every entry for which drop reports true, appends them to
// dst, and rebuilds the heap from the others.
func (h *deadlineHeap) removeFunc(drop func(*waitEntry) bool, dst []*waitEntry) []*waitEntry {
	if h.len() == 0 {
		return dst
	}
	kept := h.s[:heapPad]
	for _, slot := range h.s[heapPad:] {
		if drop(slot.entry) {
			dst = append(dst, slot.entry)
		} else {
			kept = append(kept, slot)
		}
	}
	clear(h.s[len(kept):])
	h.s = kept
	if last := len(kept) - 1; last > heapPad {
		for p := heapParent(last); p >= heapPad; p-- {
			h.down(p)
		}
	}
	return dst
}

// latestUpTo returns the latest deadline at most limit in the subtree at p, or best if none is
// later. A subtree whose root is past limit holds nothing at most limit, so the walk visits
// only the entries it gathers (and their children): no more than the wake-up will fire.
func (h *deadlineHeap) latestUpTo(p int, limit, best time.Duration) time.Duration {
	if p >= len(h.s) || h.s[p].deadline > limit {
		return best
	}
	best = max(best, h.s[p].deadline)
	for c := heapChild(p); c < heapChild(p)+heapArity; c++ {
		best = h.latestUpTo(c, limit, best)
	}
	return best
}

func (h *deadlineHeap) swap(i, j int) {
	h.s[i], h.s[j] = h.s[j], h.s[i]
}

func (h *deadlineHeap) up(p int) {
	for p > heapPad {
		parent := heapParent(p)
		if h.s[parent].deadline <= h.s[p].deadline {
			return
		}
		h.swap(p, parent)
		p = parent
	}
}

func (h *deadlineHeap) down(p int) {
	n := len(h.s)
	for {
		least := p
		first := heapChild(p)
		for c := first; c < first+heapArity && c < n; c++ {
			if h.s[c].deadline < h.s[least].deadline {
				least = c
			}
		}
		if least == p {
			return
		}
		h.swap(p, least)
		p = least
	}
}
