package gameloop

// The pool's runner: the client of the shared clock that the waiter hands each wake-up's due
// entries to (see dueRunner). It runs the waiter's share of them, hands the rest to a pool's
// workers as planDispatch cuts it, and arms a worker ahead of a burst where it can.

import (
	"sync/atomic"
	"time"
	"unsafe"
)

// shareAfter is how long the waiter runs a burst of due matches by itself before it hands the
// rest to the pool's workers: waking a worker costs tens of µs, more than a few hundred small
// updates.
const shareAfter = 200 * time.Microsecond

// splitMisses is how many long bursts in a row that sharing did not pay for make the waiter
// stop sharing them for splitRetry bursts: on a virtual machine a worker's thread is now and
// then held up for a millisecond or more, which one burst should not take for a rule.
const splitMisses = 2

// splitRetry is how many bursts long enough to share the waiter runs without sharing them, after
// one that sharing did not speed up (see SharedClock.splitOff), before it tries again.
const splitRetry = 64

// prefetch is how many matches ahead of the one it runs the waiter fetches.
const prefetch = 3

// poolRunner runs the matches of a clock's pools on its waiter: it is the clock's dueRunner,
// made by the clock's first pool, and serves all of them.
type poolRunner struct {
	c *SharedClock

	// Guarded by the clock's mu.
	pools map[*Pool]struct{}
	// kicks are the matches kicked (a control change, an end) while they waited in the queue
	// or ran, for the waiter to take out of the queue and run at once (see takeLocked).
	kicks []*Match

	// The waiter's alone.
	ran  []*Match     // the matches the waiter ran at the last wake-up, reused
	plan dispatchPlan // the last wake-up's, reused
	// splitOff is how many more long bursts the waiter runs without sharing them with the
	// workers from their start, as the workers took no good part in the last (see runDue):
	// where a thread woken by another waits for the waker's processor to be free (as on the
	// virtual machine measured in docs/server.md, even with another processor idle) and no
	// worker can be armed, a worker runs its share of a burst on the waiter's processor, after
	// the waiter, and handing it over costs wake-ups and switches for nothing.
	splitOff int
	// splitMisses counts the long bursts in a row that sharing did not pay for.
	splitMisses int

	// burstPool is the pool of the last burst long enough to share from its start: the waiter
	// arms one of its workers before the next isolated deadline (see beforeBurst).
	burstPool atomic.Pointer[Pool]
}

// runnerLocked returns the clock's runner, which it makes if the clock has none; the clock's
// mu is held.
func runnerLocked(c *SharedClock) *poolRunner {
	return c.setRunnerLocked(func() dueRunner {
		return &poolRunner{c: c, pools: map[*Pool]struct{}{}}
	}).(*poolRunner)
}

// matchOf returns the match whose entry e is, or nil for a goroutine's wait.
func matchOf(e *waitEntry) *Match { return (*Match)(e.owner) }

// burstLead is armLead where the last long burst was shared with a pool's workers from its
// start and sharing paid: the waiter then wakes that long before the next isolated deadline to
// arm a worker for it (beforeBurst). It is 0 otherwise.
func (r *poolRunner) burstLead() time.Duration {
	if r.burstPool.Load() != nil && r.splitOff == 0 {
		return armLead
	}
	return 0
}

// beforeBurst arms a worker of the pool of the last long burst (see Pool.armWorker), and
// forgets that pool where none can be armed.
func (r *poolRunner) beforeBurst() {
	if p := r.burstPool.Load(); p != nil && !p.armWorker() {
		r.burstPool.CompareAndSwap(p, nil)
	}
}

// runsCallbacks reports whether id is the goroutine of a worker of one of the clock's pools.
func (r *poolRunner) runsCallbacks(id uint64) bool {
	for _, p := range r.poolList() {
		if p.isWorker(id) {
			return true
		}
	}
	return false
}

// close closes every pool of the clock, once the clock is closed.
func (r *poolRunner) close() {
	for _, p := range r.poolList() {
		p.Close()
	}
}

// poolList returns the clock's pools.
func (r *poolRunner) poolList() []*Pool {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	pools := make([]*Pool, 0, len(r.pools))
	for p := range r.pools {
		pools = append(pools, p)
	}
	return pools
}

// kickBulk is how many kicked matches make the waiter take them out of the queue in one pass
// over it rather than one by one (as it also does where the heap holds many): taking out one
// searches the queue (its heap, or the run's entries with the same deadline), so that ending
// thousands of matches at once (a context they share, cancelled) would cost a search each.
const kickBulk = 16

// takeLocked appends to batch the kicked matches waiting in the queue, taken out of it, and
// those that had nothing due (parked); one that is running, or taken out by the waiter already,
// runs again once its pass is over (kicked). The clock's mu is held.
func (r *poolRunner) takeLocked(batch []*waitEntry) []*waitEntry {
	c := r.c
	if len(r.kicks) == 0 {
		return batch
	}
	// One by one, a search each: where they are few, and the heap, which a search looks
	// through, is small beside the whole queue, which one pass looks through.
	if len(r.kicks) <= kickBulk && len(r.kicks)*c.queue.heap.len() <= 2*c.queue.len() {
		for _, m := range r.kicks {
			if c.queue.remove(&m.entry) {
				m.kickQueued = false
				batch = append(batch, &m.entry)
			}
		}
	} else {
		from := len(batch)
		batch = c.queue.removeFunc(func(e *waitEntry) bool { return matchOf(e) != nil && matchOf(e).kickQueued }, batch)
		for _, e := range batch[from:] {
			matchOf(e).kickQueued = false
		}
	}
	for _, m := range r.kicks {
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
	clear(r.kicks)
	r.kicks = r.kicks[:0]
	return batch
}

// runDue runs the due matches of a wake-up, on the waiter's goroutine, and wakes the goroutines
// of the other entries (WaitUntil, Loops) as it comes to them (see dueRunner). Slow matches go to the
// workers at once. planDispatch foresees the burst from its matches' costs: one it expects to
// cost more than shareAbove, it splits at once, the waiter running its share by cost while
// the workers it wakes take the rest, a chunk by cost at a time, then the rest with them; a
// worker armed for the burst ahead of it (see Pool.armWorker) is woken directly. A burst
// foreseen cheap the waiter runs alone; if that takes longer than shareAfter, it hands what
// is left to the workers as the pool's tail and goes on taking from it with them. If the
// workers took less than a quarter of the tail, splitMisses times in a row with a worker armed
// for it (or where none can be), the waiter runs the next splitRetry long bursts alone (see
// poolRunner.splitOff).
//
// The waiter does not yield its processor to the workers it wakes. Where a thread woken by
// another (a futex wake-up) waits for the waker's processor even while another is idle, as on
// the virtual machine measured in docs/server.md, a worker woken through the Go scheduler as a
// burst begins runs only once the waiter stops; yielding to it made the waiter wait in turn,
// and the worker run nearly all of the burst alone, later than the waiter would have.
func (r *poolRunner) runDue(batch []*waitEntry, infos []dueInfo) (woke bool) {
	c := r.c
	start := c.Now()
	now := start
	ran := r.ran[:0]
	inline := batch
	var handed *Pool // the pool given the rest of the batch
	split := 0       // how many entries were handed over at the start
	armed := false   // whether a worker was armed for them
	next := 0        // the first entry of inline not yet looked at; -1 once ran is requeued
	returned := false
	defer func() {
		if !returned {
			// A callback ended the waiter's goroutine with runtime.Goexit (its match has
			// ended): what it had not run goes back, and the next waiter takes a batch of its
			// own, as the workers may still be taking this one's tail.
			if next >= 0 {
				requeue(c, ran)
				c.putBack(inline[next:])
			}
		}
		clear(ran)
		r.ran = ran[:0]
	}()
	first := firstMatch(batch)
	if first != nil {
		planDispatch(infos, first.pool.nworkers, &r.plan)
	}
	if first != nil && r.plan.procs > 1 {
		if first.pool.canArm() {
			r.burstPool.Store(first.pool) // arm one of its workers before the next (see sleep)
		}
		if r.splitOff > 0 {
			r.splitOff--
		} else {
			// The waiter's share by cost, and the rest in chunks by cost: the waiter takes
			// from the tail too once it has run its own, so that it runs more if the
			// workers come late, and a late worker takes less.
			handed = first.pool
			inline = batch[:r.plan.inline]
			split = len(batch) - len(inline)
			armed = handed.handOff(batch, len(inline), r.plan.ends, r.plan.procs-1)
		}
	}
	for i, e := range inline {
		next = i + 1
		m := matchOf(e)
		if i+prefetch < len(inline) {
			// Fetch a match a few ahead, so that its cache lines arrive while this one runs:
			// with thousands of matches every one is out of the cache. (A match's entry is at
			// its start; another entry's lines are fetched for nothing, at no harm.)
			prefetchLines(unsafe.Pointer(inline[i+prefetch]), matchHotLines)
		}
		if m == nil {
			e.wakeGoroutine()
			woke = true
			continue
		}
		if m.slow.left > 0 {
			m.pool.enqueue(m, true)
			continue
		}
		if i > 0 && now-start > shareAfter && handed == nil {
			// Longer than foreseen (costs not yet measured, or grown): the rest goes to
			// the workers, in chunks by what is known of their costs.
			handed = m.pool
			r.plan.ends = cutChunks(infos[:len(inline)], i, r.plan.ends[:0], 0, 0)
			handed.handOff(inline, i, r.plan.ends, handed.nworkers)
			next = len(inline)
			break
		}
		var ok bool
		if ok, now = m.runPass(now); ok {
			ran = append(ran, m)
		}
	}
	next = -1
	requeue(c, ran)
	if handed != nil {
		handed.drain()
		if handed.tailWoke.Swap(false) {
			woke = true
		}
	}
	switch {
	case split > 0:
		// Sharing paid if the workers ran a good part of what was handed to them. If they
		// did not, and no worker was armed for the burst though one could have been, the
		// next is tried with one armed (see beforeBurst).
		switch {
		case handed.tookFromTail() >= split/4:
			r.splitMisses = 0
		case armed || !handed.canArm():
			if r.splitMisses++; r.splitMisses == splitMisses {
				r.splitOff, r.splitMisses = splitRetry, 0
			}
		}
	}
	returned = true
	return woke
}

// firstMatch returns the first match of the entries, or nil if none is a match's.
func firstMatch(entries []*waitEntry) *Match {
	for _, e := range entries {
		if matchOf(e) != nil {
			return matchOf(e)
		}
	}
	return nil
}
