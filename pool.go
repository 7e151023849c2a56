package gameloop

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// ErrClosed ends the matches of a Pool that is closed, directly or with its SharedClock.
var ErrClosed = errors.New("gameloop: pool closed")

// DefaultSlowPass is PoolOptions.SlowPass when it is 0.
const DefaultSlowPass = time.Millisecond

// shareAfter is how long the waiter runs a burst of due matches by itself before it hands the
// rest to the pool's workers: waking a worker costs tens of µs, more than a few hundred small
// updates.
const shareAfter = 200 * time.Microsecond

// splitAbove is how long a burst the waiter expects must be for it to share the burst with the
// workers from the start. Waking a worker costs the process tens of µs of CPU on a virtual
// machine: the few hundred matches of one wake-up, with matches spread over the tick, are
// cheaper run by the waiter alone; a thousand on one grid are worth two processors where a
// worker can start on one at once (see runDue).
const splitAbove = 200 * time.Microsecond

// splitMisses is how many long bursts in a row that sharing did not pay for make the waiter
// stop sharing them for splitRetry bursts: on a virtual machine a worker's thread is now and
// then held up for a millisecond or more, which one burst should not take for a rule.
const splitMisses = 2

// splitRetry is how many bursts long enough to share the waiter runs without sharing them, after
// one that sharing did not speed up (see SharedClock.splitOff), before it tries again.
const splitRetry = 64

// armLead is how long before an isolated deadline (matches on one grid) the waiter arms a
// worker for the burst it expects there (see Pool.armWorker): time for the worker's two wake-ups
// through the Go scheduler while the waiter sleeps, and for the worker to move to another
// processor, before it waits for the burst on a futex of its own.
const armLead = 400 * time.Microsecond

// armWait is how long an armed worker waits for the burst's tail before it goes back to
// waiting on the pool's queues. It holds its processor (one of GOMAXPROCS) through it, as the
// waiter's precise sleep does: a stop of the world for the garbage collector waits for it.
const armWait = 2 * armLead

// The states of Pool.armWord.
const (
	armIdle    = 0 // no worker is armed, or the burst's tail has been handed over
	armWaiting = 1 // a worker is armed, or about to be, and waits for the tail
)

// prefetch is how many matches ahead of the one it runs the waiter fetches.
const prefetch = 3

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

// PoolOptions are the settings of a Pool. The zero value is ready to use.
type PoolOptions struct {
	// Workers is how many goroutines run matches besides the clock's waiter: they take the
	// slow matches (see SlowPass) and share bursts of due matches with it. 0 means
	// GOMAXPROCS-1, and at least 1.
	Workers int

	// SlowPass is how long a match's pass (its input and updates at one wake-up) may take
	// before the match is run by a worker rather than by the waiter, so that it cannot make the
	// other matches late. It stays with the workers for 2 passes after its first slow pass,
	// and for twice as many after each one that follows, up to 64, so that a match slow at
	// every tick stays there; 64 quick passes in a row take one doubling back. 0 means
	// DefaultSlowPass.
	SlowPass time.Duration
}

// Pool runs many matches, each a Game at a fixed tick rate, without a goroutine per match: the
// SharedClock's waiter runs the updates of the matches that are due itself when it wakes, so a
// burst of due matches costs no goroutine wake-up, and hands the rest to a few workers when a
// burst is long. A match whose updates are slow is moved to the workers, so that it cannot
// make the others late.
//
// Each match has its own schedule, as a Loop has: a fixed step on an exact grid, catch-up and
// dropped time, pause, time scale and tick rate, statistics, input marked with the tick it
// precedes (so that replay records it), and a context that ends it. Matches draw no frames:
// a pool is for servers. A match's callbacks run on one goroutine at a time, not always the
// same one. Make one with NewPool: the zero Pool is not usable.
type Pool struct {
	clock    *SharedClock
	runner   *poolRunner // the clock's, which runs the matches of all its pools
	slowPass time.Duration
	nworkers int

	mu    sync.Mutex
	work  sync.Cond  // signalled when a queue or the tail gains a match, or the pool closes
	fastq matchQueue // due matches the waiter shares with the workers
	slowq matchQueue // due matches only the workers run
	// tail is the part of a burst of due entries that the waiter hands to the workers (see
	// runDue): a part of the clock's batch, which the workers, and the waiter once it has run its
	// own share, take workerChunk entries at a time. Handing over the slice touches none of the
	// matches, each of which is out of the cache, where queueing them one by one would miss the
	// cache at each; the waiter reuses the batch only once the tail is empty.
	tail []*waitEntry
	// workersTook is how many entries the workers have taken from the tail since it was
	// handed over: whether sharing a burst paid (see runDue).
	workersTook int
	matches     map[*Match]struct{}
	closed      bool
	workers     sync.WaitGroup
	workerIDs   map[uint64]struct{} // the workers' goroutines (see goid), for Close

	tailWoke atomic.Bool // an entry of the tail was a goroutine's wait, which its taker woke

	// A worker armed for a burst (see armWorker), on Linux.
	armed   bool          // guarded by mu: a worker is to wait for the next burst on armWord
	armCPU  int           // guarded by mu: the waiter's processor when it armed one
	armWord atomic.Uint32 // armWaiting until the waiter hands the burst's tail over
}

// ErrCloseFromCallback is what Pool.Close and SharedClock.Close return when called from a
// callback of one of the pool's (or clock's) matches: they wait for the goroutine that runs it,
// and so would wait forever. They close nothing then. End the match with ErrStop, or close
// from another goroutine (go pool.Close()).
var ErrCloseFromCallback = errors.New("gameloop: Close called from a match's callback, which runs on a goroutine that Close waits for")

// NewPool returns a pool of matches on clock, and starts its workers. A nil opts means the
// defaults. Close it, or the clock, to end its matches and stop its workers. A nil clock, or a
// negative Workers or SlowPass, is a programming error: NewPool panics.
func NewPool(clock *SharedClock, opts *PoolOptions) *Pool {
	if clock == nil {
		panic("gameloop: NewPool with a nil *SharedClock")
	}
	var o PoolOptions
	if opts != nil {
		o = *opts
	}
	if o.Workers < 0 {
		panic(fmt.Sprintf("gameloop: NewPool with a negative PoolOptions.Workers (%d)", o.Workers))
	}
	if o.SlowPass < 0 {
		panic(fmt.Sprintf("gameloop: NewPool with a negative PoolOptions.SlowPass (%v)", o.SlowPass))
	}
	if o.Workers <= 0 {
		o.Workers = max(runtime.GOMAXPROCS(0)-1, 1)
	}
	if o.SlowPass <= 0 {
		o.SlowPass = DefaultSlowPass
	}
	p := &Pool{clock: clock, slowPass: o.SlowPass, nworkers: o.Workers,
		matches: map[*Match]struct{}{}, workerIDs: map[uint64]struct{}{}}
	p.work.L = &p.mu
	clock.mu.Lock()
	p.runner = runnerLocked(clock)
	if clock.closed {
		p.closed = true
	} else {
		p.runner.pools[p] = struct{}{}
	}
	clock.mu.Unlock()
	if !p.closed {
		p.workers.Add(o.Workers)
		for range o.Workers {
			go p.worker(nil)
		}
	}
	return p
}

// Clock returns the pool's clock.
func (p *Pool) Clock() *SharedClock { return p.clock }

// Len returns the number of matches in the pool that have not ended.
func (p *Pool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.matches)
}

// NewMatch returns a match of g, not yet started: call Start or StartAt. cfg's TickRate,
// MaxTicksPerFrame (the most updates in one pass; the rest are dropped), MaxFrameTime and
// TimeScale are used as a Loop uses them. A match draws no frames and runs on the pool's clock:
// NoFrames may be set, and a Window, Clock, MaxFPS, FrameTimeSamples, Lazy or Bench is a
// *ConfigError. The match ends when ctx is done, when g's Update returns ErrStop (Err is then
// nil) or an error, or when Stop is called. g may implement InputHandler, for the input given
// to Push.
func (p *Pool) NewMatch(ctx context.Context, g Game, cfg Config) (*Match, error) {
	if err := checkMatchConfig(cfg); err != nil {
		return nil, err
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	m := &Match{
		pool:  p,
		game:  g,
		sched: *newSchedule(cfg),
		ctx:   ctx,
		done:  make(chan struct{}),
		ctl:   control{scale: cfg.TimeScale, tickRate: cfg.TickRate},
	}
	if in, ok := g.(InputHandler); ok {
		m.input = in.Input
	}
	m.entry = waitEntry{owner: unsafe.Pointer(m)}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	p.matches[m] = struct{}{}
	p.mu.Unlock()
	// A context already done calls Stop at once, on another goroutine, which may finish the
	// match before AfterFunc returns: stopCtx is set and read under inMu.
	m.inMu.Lock()
	m.stopCtx = context.AfterFunc(ctx, m.Stop)
	m.inMu.Unlock()
	return m, nil
}

// checkMatchConfig rejects the Config fields that a pool's match has no use for, so that a
// setting is not silently ignored.
func checkMatchConfig(cfg Config) error {
	const reason = "a pool's match does not take it: it draws no frames and runs on the pool's clock"
	switch {
	case cfg.Window != nil:
		return badField("Window", fmt.Sprintf("%T", cfg.Window), reason)
	case cfg.Clock != nil:
		return badField("Clock", fmt.Sprintf("%T", cfg.Clock), reason)
	case cfg.MaxFPS != 0:
		return badField("MaxFPS", cfg.MaxFPS, reason)
	case cfg.FrameTimeSamples != 0:
		return badField("FrameTimeSamples", cfg.FrameTimeSamples, reason)
	case cfg.Lazy:
		return badField("Lazy", cfg.Lazy, reason)
	case cfg.Bench:
		return badField("Bench", cfg.Bench, reason)
	}
	return nil
}

// workerChunk is how many quick matches a worker takes from the queue at a time: fewer trips
// to the pool's lock, and one to the clock's to put them back.
const workerChunk = 16

// worker runs the matches of the queues and the tail of a burst, slow ones first, until the
// pool closes.
//
// It first takes an OS thread of its own, on Linux, where it may be armed for a burst (see
// armWorker), and closes onThread, if not nil, once it has.
func (p *Pool) worker(onThread chan<- struct{}) {
	if !lockWorkerThread() {
		// The main thread, which lockWorkerThread left locked to this goroutine: the worker
		// starts again on a goroutine of its own, which the runtime must run on another
		// thread while this one holds the main thread, and this one lets the main thread go
		// once it has.
		ready := make(chan struct{})
		go p.worker(ready)
		<-ready
		runtime.UnlockOSThread()
		return
	}
	if onThread != nil {
		close(onThread)
	}
	id := goid()
	p.mu.Lock()
	p.workerIDs[id] = struct{}{}
	p.mu.Unlock()
	returned := false
	defer func() {
		p.mu.Lock()
		delete(p.workerIDs, id)
		p.mu.Unlock()
		if !returned {
			// A match's callback ended this goroutine with runtime.Goexit: the match has
			// ended (see Match.runPass), and a new worker takes this one's place.
			p.workers.Add(1)
			go p.worker(nil)
		}
		p.workers.Done()
	}()
	var chunk []*Match
	var taken []*waitEntry
	var burst burstWait
	for {
		p.mu.Lock()
		for p.idleLocked() && !p.armed {
			burst.release()
			p.work.Wait()
		}
		if p.armed {
			p.armed = false
			if p.idleLocked() {
				cpu := p.armCPU
				p.mu.Unlock()
				burst.await(&p.armWord, cpu, armWait)
				continue
			}
		}
		if p.slowq.empty() && len(p.tail) > 0 {
			taken = p.takeTailLocked(taken[:0])
			p.workersTook += len(taken)
			p.mu.Unlock()
			chunk = p.runTaken(taken, chunk[:0])
			continue
		}
		if m := p.popLocked(true); m != nil && m.slow.left > 0 {
			p.mu.Unlock()
			m.run()
			continue
		} else if m != nil {
			chunk = append(chunk, m)
			for len(chunk) < workerChunk {
				if m = p.fastq.pop(); m == nil {
					break
				}
				chunk = append(chunk, m)
			}
		}
		p.mu.Unlock()
		if len(chunk) == 0 {
			returned = true
			return // closed, and nothing left to run
		}
		p.runChunk(chunk)
		clear(chunk)
		chunk = chunk[:0]
	}
}

// idleLocked reports whether the workers have nothing to do: no tail, no queued match, and the
// pool open.
func (p *Pool) idleLocked() bool {
	return len(p.tail) == 0 && p.slowq.empty() && p.fastq.empty() && !p.closed
}

// handOff gives the workers es, the rest of a burst (see tail), and wakes them: an armed one
// through its futex, the others through the pool's condition. It reports whether a worker was
// armed for it.
func (p *Pool) handOff(es []*waitEntry) (armed bool) {
	p.mu.Lock()
	p.tail = es
	p.workersTook = 0
	p.mu.Unlock()
	armed = p.disarm()
	p.work.Broadcast()
	return armed
}

// disarm wakes the worker armed for a burst, if one is, and reports whether one was.
func (p *Pool) disarm() bool {
	if !p.armWord.CompareAndSwap(armWaiting, armIdle) {
		return false
	}
	wakeArmed(&p.armWord)
	return true
}

// tookFromTail returns how many entries the workers took from the tail handed over last.
func (p *Pool) tookFromTail() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.workersTook
}

// canArm reports whether armWorker can arm one of the pool's workers: on Linux, where each
// worker has a thread of its own, and the process more than one processor.
func (p *Pool) canArm() bool {
	return armSupported && runtime.GOMAXPROCS(0) >= 2
}

// armWorker asks a worker, ahead of a burst the waiter expects (matches on one grid), to wait
// for the burst's tail on a futex of its own, on a processor other than the waiter's, so that
// handing the tail over wakes one thread, on a processor free to run it at once. Woken at the
// burst through the pool's condition, a worker takes two thread wake-ups (the Go scheduler's,
// then its own locked thread's), and a thread woken by another may wait for the waker's
// processor (it does on the virtual machine measured in docs/server.md): the worker then comes
// when the waiter has run the whole burst. Armed armLead ahead, it begins early in the burst,
// for one more wake-up a burst; docs/server.md has the figures.
//
// It reports false where no worker can be armed: outside Linux, where the process has one
// processor, and once the pool is closed.
func (p *Pool) armWorker() bool {
	if !p.canArm() {
		return false
	}
	cpu, ok := waiterCPU()
	if !ok {
		return false
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return false
	}
	p.armed, p.armCPU = true, cpu
	p.armWord.Store(armWaiting)
	p.mu.Unlock()
	p.work.Signal()
	return true
}

// takeTailLocked appends to dst up to workerChunk entries from the tail, and takes them out of
// it.
func (p *Pool) takeTailLocked(dst []*waitEntry) []*waitEntry {
	n := min(len(p.tail), workerChunk)
	dst = append(dst, p.tail[:n]...)
	if p.tail = p.tail[n:]; len(p.tail) == 0 {
		p.tail = nil
	}
	return dst
}

// runTaken runs entries taken from the tail, using chunk's array for the matches it runs,
// which it returns emptied, as it does es: the quick matches of the pool it runs itself, and it
// wakes a goroutine's wait, queues a slow match for the workers, and a match of another pool
// for that pool's.
func (p *Pool) runTaken(es []*waitEntry, chunk []*Match) []*Match {
	// Each entry is at the start of its match, out of the cache: ask for them all at once.
	for _, e := range es {
		prefetchLines(unsafe.Pointer(e), 2)
	}
	for _, e := range es {
		switch m := matchOf(e); {
		case m == nil:
			e.wakeGoroutine()
			p.tailWoke.Store(true)
		case m.pool != p || m.slow.left > 0:
			m.pool.enqueue(m, m.slow.left > 0)
		default:
			chunk = append(chunk, m)
		}
	}
	p.runChunk(chunk)
	clear(es)
	clear(chunk)
	return chunk[:0]
}

// runChunk runs a pass of each of ms, one after another, and puts back in the clock's queue those that
// go on, under one lock. If a pass turns out slow, it hands the rest back to the queue, so that
// they are not held up behind it.
func (p *Pool) runChunk(ms []*Match) {
	c := p.clock
	ran := ms[:0]
	now := c.Now()
	next := 0 // the first of ms not yet run
	defer func() {
		if next < 0 {
			return
		}
		// A callback ended the goroutine with runtime.Goexit: its match has ended; the rest go
		// back to the queue, and those that ran to the clock's.
		requeue(c, ran)
		p.requeueRest(ms[next:])
	}()
	for i, m := range ms {
		next = i + 1
		if i+prefetch < len(ms) {
			prefetchLines(unsafe.Pointer(ms[i+prefetch]), matchHotLines)
		}
		start := now
		var ok bool
		if ok, now = m.runPass(now); ok {
			ran = append(ran, m)
		}
		if now-start > p.slowPass && i+1 < len(ms) {
			rest := ms[i+1:]
			p.mu.Lock()
			for _, m := range rest {
				p.fastq.push(m)
			}
			p.mu.Unlock()
			p.work.Broadcast()
			break
		}
	}
	next = -1
	requeue(c, ran)
}

// requeueRest gives the workers matches taken to run and not run, after a callback ended the
// goroutine that took them with runtime.Goexit. Once the pool is closed they go back to the
// clock's queue, due at once, for Close to end.
func (p *Pool) requeueRest(ms []*Match) {
	if len(ms) == 0 {
		return
	}
	p.mu.Lock()
	closed := p.closed
	if !closed {
		for _, m := range ms {
			p.fastq.push(m)
		}
	}
	p.mu.Unlock()
	if !closed {
		p.work.Broadcast()
		return
	}
	c := p.clock
	c.mu.Lock()
	for _, m := range ms {
		m.next = 0
		if _, closed := m.requeueLocked(); closed {
			defer m.finish()
		}
	}
	c.mu.Unlock()
}

// popLocked takes a match from the queues: a slow one first if slow is set, else only a quick
// one. It returns nil if there is none. (A match queued as quick may have turned slow since:
// slow.left tells.)
func (p *Pool) popLocked(slow bool) *Match {
	if slow && !p.slowq.empty() {
		return p.slowq.pop()
	}
	return p.fastq.pop()
}

// matchQueue is a FIFO of matches that keeps its array, so that queueing allocates nothing in
// steady state.
type matchQueue struct {
	items []*Match
	head  int
}

func (q *matchQueue) empty() bool { return q.head == len(q.items) }

func (q *matchQueue) push(m *Match) { q.items = append(q.items, m) }

func (q *matchQueue) pop() *Match {
	if q.empty() {
		return nil
	}
	m := q.items[q.head]
	q.items[q.head] = nil
	if q.head++; q.empty() {
		q.items, q.head = q.items[:0], 0
	}
	return m
}

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
	ran []*Match // the matches the waiter ran at the last wake-up, reused
	// perMatch is about what running a match costs the waiter (see runDue).
	perMatch time.Duration
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
// workers at once. The waiter runs the others itself; if that takes longer than shareAfter, it
// hands what is left to the workers as the pool's tail and goes on taking from it with them. A
// burst it expects to take longer than splitAbove (all matches on one grid), it splits at once:
// the workers take the tail while it runs its own share, then the rest of the tail with them;
// a worker armed for the burst ahead of it (see Pool.armWorker) is woken directly. If the
// workers took less than a quarter of the tail, splitMisses times in a row with a worker armed
// for it (or where none can be), the waiter runs the next splitRetry long bursts alone (see
// poolRunner.splitOff).
//
// The waiter does not yield its processor to the workers it wakes. Where a thread woken by
// another (a futex wake-up) waits for the waker's processor even while another is idle, as on
// the virtual machine measured in docs/server.md, a worker woken through the Go scheduler as a
// burst begins runs only once the waiter stops; yielding to it made the waiter wait in turn,
// and the worker run nearly all of the burst alone, later than the waiter would have.
func (r *poolRunner) runDue(batch []*waitEntry) (woke bool) {
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
	if first := firstMatch(batch); first != nil && time.Duration(len(batch))*r.perMatch > splitAbove {
		if first.pool.canArm() {
			r.burstPool.Store(first.pool) // arm one of its workers before the next (see sleep)
		}
		if r.splitOff > 0 {
			r.splitOff--
		} else {
			// An equal share each: the waiter takes from the tail too once it has run its
			// own, so that it runs more if the workers come late.
			handed = first.pool
			inline = batch[:len(batch)/(handed.nworkers+1)]
			split = len(batch) - len(inline)
			armed = handed.handOff(batch[len(inline):])
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
			handed = m.pool
			handed.handOff(inline[i:])
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
	case len(ran) >= 8:
		// What a match costs the waiter alone, to foresee how long the next burst will take.
		r.perMatch = (3*r.perMatch + (now-start)/time.Duration(len(ran))) / 4
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

// enqueue queues m for a worker; once the pool is closed, and its workers gone, it ends m on
// the calling goroutine instead, running none of its callbacks there (the caller may be the
// waiter, or a worker of another pool).
func (p *Pool) enqueue(m *Match, slow bool) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		m.markEnding(ErrClosed)
		m.run()
		return
	}
	if slow {
		p.slowq.push(m)
	} else {
		p.fastq.push(m)
	}
	p.mu.Unlock()
	p.work.Signal()
}

// drain runs the tail and the quick matches of the queue on the calling goroutine until both
// are empty, a chunk at a time.
func (p *Pool) drain() {
	var chunk [workerChunk]*Match
	var taken [workerChunk]*waitEntry
	for {
		p.mu.Lock()
		if len(p.tail) > 0 {
			es := p.takeTailLocked(taken[:0])
			p.mu.Unlock()
			p.runTaken(es, chunk[:0])
			continue
		}
		n := 0
		for n < len(chunk) {
			m := p.popLocked(false)
			if m == nil {
				break
			}
			chunk[n] = m
			n++
		}
		p.mu.Unlock()
		if n == 0 {
			return
		}
		p.runChunk(chunk[:n])
		clear(chunk[:n])
	}
}

// Close ends every match of the pool (their Err is ErrClosed) and stops its workers. It
// returns once they have, so it cannot be called from a match's own callbacks, which run on
// those workers or the clock's waiter: there it returns ErrCloseFromCallback and closes
// nothing (end a match from inside with ErrStop). Closing twice does nothing.
func (p *Pool) Close() error {
	if id := goid(); id != 0 && (p.clock.onWaiter(id) || p.isWorker(id)) {
		return ErrCloseFromCallback
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		p.workers.Wait()
		return nil
	}
	p.closed = true
	matches := make([]*Match, 0, len(p.matches))
	for m := range p.matches {
		matches = append(matches, m)
	}
	p.mu.Unlock()
	p.disarm()
	p.work.Broadcast()
	// The matches waiting in the clock's queue are taken out of it at once, and end here: one
	// pass over the queue, where ending each by itself (end) would search the queue for it.
	c := p.clock
	c.mu.Lock()
	waiting := c.queue.removeFunc(func(e *waitEntry) bool { return matchOf(e) != nil && matchOf(e).pool == p }, nil)
	for _, e := range waiting {
		matchOf(e).state = matchEnded
	}
	c.mu.Unlock()
	for _, e := range waiting {
		m := matchOf(e)
		m.markEnding(ErrClosed)
		m.err = m.endReason()
		m.finish()
	}
	for _, m := range matches {
		m.end(ErrClosed) // the others: not started, parked, or held by the waiter or a worker
	}
	p.workers.Wait()
	for _, m := range matches {
		<-m.done
	}
	c.mu.Lock()
	delete(p.runner.pools, p)
	c.mu.Unlock()
	p.runner.burstPool.CompareAndSwap(p, nil)
	return nil
}

// isWorker reports whether id is the goroutine of one of the pool's workers.
func (p *Pool) isWorker(id uint64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.workerIDs[id]
	return ok
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

// requeue puts back in the clock's queue the matches the waiter ran, under one lock.
func requeue(c *SharedClock, ran []*Match) {
	if len(ran) == 0 {
		return
	}
	var ended []*Match
	c.mu.Lock()
	for _, m := range ran {
		if _, closed := m.requeueLocked(); closed {
			ended = append(ended, m)
		}
	}
	c.mu.Unlock()
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
