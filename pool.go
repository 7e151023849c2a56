package gameloop

// The Pool and its workers: making a pool and its matches, the workers' loop, the queues and
// the tail of a burst they take from, and Close. What the waiter does at a wake-up is in
// poolrunner.go, how it shares a burst out in pooldispatch.go, and a match's own life in
// poolmatch.go.

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
	// tail is the batch of a burst of due entries whose part from tailAt the waiter hands to
	// the workers (see runDue): the workers, and the waiter once it has run its own share, take
	// it a chunk at a time, the chunks ending at tailEnds (indexes of tail; see planDispatch).
	// Handing over the slice touches none of the matches, each of which is out of the cache,
	// where queueing them one by one would miss the cache at each; the waiter reuses the batch
	// and the ends only once the tail is empty (nil).
	tail      []*waitEntry
	tailAt    int
	tailEnds  []int
	tailChunk int // the chunk taken next
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
		if p.slowq.empty() && p.tail != nil {
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
	return p.tail == nil && p.slowq.empty() && p.fastq.empty() && !p.closed
}

// handOff gives the workers batch[from:], the rest of a burst, in the chunks ending at ends
// (see tail), and wakes wake of them: an armed one through its futex, the others through the
// pool's condition. It reports whether a worker was armed for it.
func (p *Pool) handOff(batch []*waitEntry, from int, ends []int, wake int) (armed bool) {
	if from == len(batch) {
		return false
	}
	p.mu.Lock()
	p.tail, p.tailAt, p.tailEnds, p.tailChunk = batch, from, ends, 0
	p.workersTook = 0
	p.mu.Unlock()
	// The condition too where a worker was armed: one armed may have stopped waiting for the
	// burst (armWait) and gone back to the condition.
	armed = p.disarm()
	if wake >= p.nworkers {
		p.work.Broadcast()
		return armed
	}
	for range wake {
		p.work.Signal()
	}
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

// takeTailLocked appends to dst the next chunk of the tail (at most tailChunk entries), and
// takes it out of it.
func (p *Pool) takeTailLocked(dst []*waitEntry) []*waitEntry {
	end := p.tailEnds[p.tailChunk]
	dst = append(dst, p.tail[p.tailAt:end]...)
	p.tailAt = end
	if p.tailChunk++; p.tailChunk == len(p.tailEnds) {
		p.tail, p.tailEnds = nil, nil
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
	var chunk [tailChunk]*Match // a chunk of the tail, or workerChunk matches of the queue
	var taken [tailChunk]*waitEntry
	for {
		p.mu.Lock()
		if p.tail != nil {
			es := p.takeTailLocked(taken[:0])
			p.mu.Unlock()
			p.runTaken(es, chunk[:0])
			continue
		}
		n := 0
		for n < workerChunk {
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
