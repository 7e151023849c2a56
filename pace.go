package gameloop

import (
	"sync/atomic"
	"time"
)

// Pacer waits until absolute deadlines, on time and at little CPU cost. On Linux a wait has
// four stages:
//
//	coarse wait ─────────▶ long sleep ─────────▶ short sleep ──────▶ spin ──▶ deadline
//	Go timer, can be       clock_nanosleep        clock_nanosleep      reading the clock
//	woken; ms resolution   (absolute, 1 ns slack)  (the same)
//	ends 2 ms before ──────▶ ends LongMargin before ──▶ ends Margin before the deadline
//
// The coarse wait is left out of waits of up to 20 ms, a frame at 50 Hz and faster: each sleep
// costs CPU, tens of µs on a virtual machine, and a wake-up can wait that long.
//
// Go's timers wake up to about a millisecond late on Linux (the runtime waits for them in
// epoll_wait, whose timeout is in milliseconds: golang/go#44343), so they only take the wait to
// a couple of milliseconds before the deadline. An absolute clock_nanosleep on CLOCK_MONOTONIC,
// with the thread's timer slack cut from 50 µs to 1 ns, goes on from there. How late it wakes
// depends on how long it slept: on a virtual machine, a sleep of milliseconds wakes later, with
// a longer tail, than a sleep of a hundred microseconds or so (the idle virtual CPU has to be
// scheduled again by the host, which likely still polls a CPU halted only briefly;
// docs/pacing.md has the figures). So the pacer sleeps twice: a long sleep to a generous margin
// before the deadline, which costs nothing, then a short sleep to a tight margin, and spins
// only the last stretch. Each margin is learned from how late recent sleeps of its kind woke
// (see margin), so that a wait ends within a microsecond or two of its deadline unless the
// operating system takes the CPU away at that very moment, at a fraction of a percent of a core.
//
// Elsewhere (build tags) there is no sleep finer than Go's timers: the coarse wait ends Margin
// before the deadline, that margin learned from the timers' own lateness, and the pacer spins
// from there.
//
// A Pacer is used by one goroutine at a time (Stats, Margin and CoarseDeadline may be called
// from any) and allocates nothing per wait.
type Pacer struct {
	now   func() time.Duration
	timer *time.Timer

	// precise sleeps until target (in now's time base); nothing interrupts it. It is nil when
	// the platform has no sleep finer than Go's timers. Tests replace it.
	precise func(target time.Duration)
	// coarse blocks for d or until wake can be received; it reports whether it was woken.
	coarse func(d time.Duration, wake <-chan struct{}) bool
	// lead is how long before the long sleep's target the coarse wait ends: more than the Go
	// timer's lateness, so that the coarse wait never eats into the precise sleep.
	lead time.Duration

	// long is the margin of the long precise sleep, or of the coarse wait where there is no
	// precise sleep; short is the margin of the short precise sleep.
	long, short margin
	// lowPower makes each wait one sleep to the deadline itself, with no spin (NewLowPowerPacer).
	lowPower bool

	waits, woken, late atomic.Uint64
	spun               atomic.Int64 // total time spent spinning, ns
	worstLate          atomic.Int64
	longMargin         atomic.Int64 // copies of the margins, for other goroutines
	shortMargin        atomic.Int64
}

// PacerStats is what a Pacer has done, to judge its precision and its cost.
type PacerStats struct {
	// Waits counts calls of WaitUntil; Woken those that a wake-up ended early.
	Waits, Woken uint64
	// Late counts the waits that ended more than LateBy after their deadline: a sleep woke
	// after it, or the spin was interrupted by the operating system.
	Late uint64
	// WorstLate is the latest a wait has ended after its deadline.
	WorstLate time.Duration
	// Spun is the total time spent spinning on the clock: the pacer's main CPU cost.
	Spun time.Duration
	// Margin is how long before a deadline the pacer now stops sleeping and starts spinning;
	// LongMargin is how long before it the long sleep ends (equal to Margin where there is
	// only one sleep).
	Margin, LongMargin time.Duration
}

// LateBy is how far past its deadline a wait must end for PacerStats to count it as late.
const LateBy = 20 * time.Microsecond

// NewPacer returns a pacer on the clock now: a monotonic clock, such as SystemClock.Now, in
// whose time base the deadlines are given.
func NewPacer(now func() time.Duration) *Pacer {
	precise, lead := newPreciseSleep(now)
	p := newPacer(now, nil, precise, lead)
	p.timer = time.NewTimer(time.Hour)
	p.timer.Stop()
	p.coarse = p.timerWait
	return p
}

// NewLowPowerPacer returns a pacer on the clock now that waits at the cost of a sleep: one
// absolute clock_nanosleep to the deadline itself on Linux (after a coarse wait on a Go timer,
// for waits longer than 20 ms), a Go timer elsewhere, and no spin. It wakes later than a
// Pacer's spin does (on a virtual machine tens to hundreds of µs on Linux, up to a millisecond
// or more elsewhere; docs/pacing.md has the figures), at a fraction of its CPU: choose it where
// a frame's start need not be exact to microseconds (a game on battery, a server, a browser
// tab that shares its core), and the Pacer where it must.
func NewLowPowerPacer(now func() time.Duration) *Pacer {
	p := NewPacer(now)
	p.lowPower = true
	p.publish()
	return p
}

// newPacer returns a pacer with the given sleeps, which tests fake.
func newPacer(now func() time.Duration, coarse func(time.Duration, <-chan struct{}) bool,
	precise func(time.Duration), lead time.Duration) *Pacer {
	p := &Pacer{now: now, coarse: coarse, precise: precise, lead: lead}
	if precise != nil {
		p.long, p.short = newMargin(longSleepBounds()), newMargin(shortSleepBounds())
	} else {
		p.long = newMargin(timerBounds()) // the only sleep: short is not used
	}
	p.publish()
	return p
}

// WaitUntil returns once now() >= deadline, or as soon as a value can be received from wake
// (which it then consumes). A deadline that has passed returns at once; a deadline of
// math.MaxInt64 never comes, and only wake ends the wait. On Linux, a wake-up during the
// long precise sleep, which nothing interrupts, is seen when it ends, at most 20 ms later.
func (p *Pacer) WaitUntil(deadline time.Duration, wake <-chan struct{}) {
	p.waitUntil(deadline, wake, nil)
}

// waitUntil is WaitUntil; warm, if not nil, is called once as the spin begins, to run the
// code that follows the deadline while the time is free (see Loop.warmUp).
func (p *Pacer) waitUntil(deadline time.Duration, wake <-chan struct{}, warm func()) {
	p.waits.Add(1)
	start, end, woken := p.wait(deadline, wake, warm)
	if woken {
		p.woken.Add(1)
		return
	}
	// A wait asked for after its deadline is the caller's lateness, not the pacer's.
	if late := end - deadline; start < deadline && late > LateBy {
		p.late.Add(1)
		if late > time.Duration(p.worstLate.Load()) {
			p.worstLate.Store(int64(late))
		}
	}
}

// wait is WaitUntil; it returns the times it began and ended, and whether wake ended it.
func (p *Pacer) wait(deadline time.Duration, wake <-chan struct{}, warm func()) (start, end time.Duration, woken bool) {
	if deadline == never {
		if wake == nil {
			select {} // as documented: a wait for a time that never comes, with nothing to end it
		}
		<-wake
		return 0, 0, true
	}
	start = p.now()
	now := start
	if now >= deadline {
		return start, now, false
	}
	if p.lowPower {
		return p.sleepTo(start, deadline, wake, warm)
	}
	// Where the long sleep (or the coarse wait) ends, leaving the short sleep room to be short
	// rather than nothing to do.
	longAt := deadline - max(p.long.value, p.short.value+minShortRoom)
	shortAt := deadline - p.short.value
	if p.precise == nil {
		// The coarse wait is the only sleep; it learns the long margin.
		if d := longAt - now; d > 0 {
			if p.coarse(d, wake) {
				return start, 0, true
			}
			now = p.now()
			p.long.observe(now - longAt)
			p.publish()
		}
		end, woken = p.spin(now, deadline, wake, warm)
		return start, end, woken
	}

	// The coarse wait only if the wait is long: every sleep costs CPU (tens of µs of it on a
	// virtual machine), and a wake-up can wait for the end of a precise sleep up to
	// maxUninterrupted long.
	if longAt-now > maxUninterrupted {
		if p.coarse(longAt-p.lead-now, wake) {
			return start, 0, true
		}
		now = p.now()
	}
	if longAt > now && longAt < shortAt {
		p.precise(longAt)
		now = p.now()
		p.long.observe(now - longAt)
		select {
		case <-wake:
			p.publish()
			return start, 0, true
		default:
		}
	}
	// The short sleep only if there is room for it: a sleep of a few µs costs more than it saves.
	if shortAt-now > minShortSleep {
		target := shortAt
		p.precise(target)
		now = p.now()
		p.short.observe(now - target)
	}
	p.publish()
	end, woken = p.spin(now, deadline, wake, warm)
	return start, end, woken
}

// sleepTo is wait for a low-power pacer: a coarse wait for a wait longer than maxUninterrupted
// (which wake can end), then one sleep to the deadline itself, and no spin.
func (p *Pacer) sleepTo(start, deadline time.Duration, wake <-chan struct{}, warm func()) (time.Duration, time.Duration, bool) {
	now := start
	if p.precise == nil {
		if p.coarse(deadline-now, wake) {
			return start, 0, true
		}
		return start, p.now(), false
	}
	if deadline-now > maxUninterrupted {
		if p.coarse(deadline-p.lead-now, wake) {
			return start, 0, true
		}
	}
	if warm != nil {
		warm() // while the time is free: there is no spin to run it in
	}
	p.precise(deadline)
	select {
	case <-wake:
		return start, 0, true
	default:
	}
	return start, p.now(), false
}

// minShortSleep is the shortest short sleep worth its system call; minShortRoom is the least
// the long sleep leaves it. maxUninterrupted is the longest a long sleep goes without a coarse
// wait before it: as long as a frame at 50 Hz, so that at the usual frame rates a wait costs
// two sleeps, not three, while a control change or a cancelled context still takes effect
// within 20 ms.
const (
	maxUninterrupted = 20 * time.Millisecond
	minShortSleep    = 5 * time.Microsecond
	minShortRoom     = 50 * time.Microsecond
)

// spin reads the clock until deadline, watching wake; it calls warm first, if there is time.
func (p *Pacer) spin(now, deadline time.Duration, wake <-chan struct{}, warm func()) (time.Duration, bool) {
	start := now
	if warm != nil && now < deadline {
		warm()
		now = p.now()
	}
	for now < deadline {
		select {
		case <-wake:
			p.spun.Add(int64(now - start))
			return now, true
		default:
		}
		now = p.now()
	}
	p.spun.Add(int64(now - start))
	return now, false
}

// publish copies the margins where other goroutines can read them.
func (p *Pacer) publish() {
	if p.lowPower {
		p.longMargin.Store(0) // one sleep to the deadline itself
		p.shortMargin.Store(0)
		return
	}
	if p.precise == nil {
		p.longMargin.Store(int64(p.long.value))
		p.shortMargin.Store(int64(p.long.value))
		return
	}
	p.longMargin.Store(int64(max(p.long.value, p.short.value+minShortRoom)))
	p.shortMargin.Store(int64(p.short.value))
}

// timerWait blocks on the pacer's Go timer for d, or until wake can be received.
func (p *Pacer) timerWait(d time.Duration, wake <-chan struct{}) bool {
	p.timer.Reset(d)
	select {
	case <-p.timer.C:
		return false
	case <-wake:
		p.timer.Stop()
		return true
	}
}

// Margin returns how long before a deadline the pacer now stops sleeping and starts spinning.
func (p *Pacer) Margin() time.Duration { return time.Duration(p.shortMargin.Load()) }

// CoarseDeadline returns the latest time at which a coarse wait for deadline, one with the
// millisecond resolution of Go's timers or of a window system's event wait, should end so that
// WaitUntil(deadline) can still be on time. A driver that waits for input in its window until
// then, and calls WaitUntil afterwards, wakes for input at once and loses no precision.
func (p *Pacer) CoarseDeadline(deadline time.Duration) time.Duration {
	if deadline == never {
		return never
	}
	return deadline - time.Duration(p.longMargin.Load()) - p.lead
}

// Stats returns what the pacer has done so far. It is safe to call from any goroutine.
func (p *Pacer) Stats() PacerStats {
	return PacerStats{
		Waits:      p.waits.Load(),
		Woken:      p.woken.Load(),
		Late:       p.late.Load(),
		WorstLate:  time.Duration(p.worstLate.Load()),
		Spun:       time.Duration(p.spun.Load()),
		Margin:     time.Duration(p.shortMargin.Load()),
		LongMargin: time.Duration(p.longMargin.Load()),
	}
}

// marginBounds are the rules a margin is learned by.
type marginBounds struct {
	initial  time.Duration // before anything is observed
	min, max time.Duration // the clamp
	pad      time.Duration // added to the scaled overshoot
	rank     int           // which overshoot of the window counts: 1 the largest, up to maxRank
}

// maxRank is the largest rank a margin may be learned at.
const maxRank = 3

// longSleepBounds are the margins of the long precise sleep. Its lateness costs nothing but a
// longer short sleep, so the margin is generous; the clamp keeps one absurd wake-up (a host
// that paused the VM) from making the short sleep long, and so less precise.
func longSleepBounds() marginBounds {
	return marginBounds{
		initial: 400 * time.Microsecond,
		min:     50 * time.Microsecond,
		max:     2 * time.Millisecond,
		pad:     50 * time.Microsecond,
		rank:    1,
	}
}

// shortSleepBounds are the margins of the short precise sleep, which the pacer spins after:
// 1 ns slack sleeps of ~100 µs wake tens of µs late on a virtual machine, a few µs late on
// bare metal (see docs/pacing.md). The ceiling bounds the CPU the pacer spends when the machine is overloaded: then
// sleeps wake milliseconds late, no margin saves the frame, and spinning for one would only
// take a core from the work that overloads it (250 µs is 6% of a core at 240 Hz).
func shortSleepBounds() marginBounds {
	return marginBounds{
		initial: 120 * time.Microsecond,
		min:     10 * time.Microsecond,
		max:     250 * time.Microsecond,
		pad:     10 * time.Microsecond,
		rank:    2,
	}
}

// timerBounds are the margins for Go's timers, where they are the only sleep: a millisecond
// late on Linux, far less on Windows (high-resolution timers) and macOS.
func timerBounds() marginBounds {
	return marginBounds{
		initial: 1500 * time.Microsecond,
		min:     100 * time.Microsecond,
		max:     4 * time.Millisecond,
		pad:     50 * time.Microsecond,
		rank:    1,
	}
}

// marginWindow is how many recent wake-ups the margin is learned from: a second at 60 Hz.
const marginWindow = 64

// margin learns how long before a deadline a blocking sleep must end, from how late recent
// sleeps woke: the rank-th largest overshoot of the last marginWindow (rank 1 is the largest),
// times 1.25, plus a pad, clamped. Recent ones, because lateness comes in bursts (another
// process busy on the core, the host busy) and a margin that stays high after a burst wastes
// CPU for nothing. The largest for the long sleep, whose margin costs nothing but a longer
// short sleep. The second largest for the short sleep, whose margin is spun: on traces of real
// wake-ups it spins about a quarter less than the largest, and the frames it makes late are
// nearly all those of wake-ups hundreds of µs late, which no margin of the last 64 covers; the
// third largest spun less again, but paced worse side by side (docs/pacing.md has the
// figures).
type margin struct {
	bounds  marginBounds
	ring    [marginWindow]time.Duration
	n, next int
	value   time.Duration
}

func newMargin(b marginBounds) margin {
	return margin{bounds: b, value: b.initial}
}

// observe records the overshoot of one sleep and updates the margin.
func (m *margin) observe(overshoot time.Duration) {
	m.ring[m.next] = max(overshoot, 0)
	m.next = (m.next + 1) % marginWindow
	m.n = min(m.n+1, marginWindow)
	// top holds the largest overshoots seen, largest first.
	var top [maxRank]time.Duration
	for _, o := range m.ring[:m.n] {
		for i := range m.bounds.rank {
			if o > top[i] {
				copy(top[i+1:m.bounds.rank], top[i:m.bounds.rank-1])
				top[i] = o
				break
			}
		}
	}
	// With fewer wake-ups seen than the rank, the smallest is as far down as there is.
	worst := top[min(m.bounds.rank, m.n)-1]
	m.value = min(max(worst+worst/4+m.bounds.pad, m.bounds.min), m.bounds.max)
}
