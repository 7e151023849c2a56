package main

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/gameloop-go/gameloop"
)

// A strategy runs n matches at hz from their start times until ctx ends, each calling
// rec.tick(i, due, begun) at the start of every update.
type strategy struct {
	name string
	doc  string
	run  func(ctx context.Context, b *bench) error
}

func strategies() []strategy {
	return []strategy{
		{"shared", "one Loop per match (a goroutine each) on one SharedClock", runShared},
		{"pool", "every match in one Pool on a SharedClock: no goroutine per match", runPool},
		{"loops", "one Loop per match on its own SystemClock (a Pacer each), the default", runLoops},
		{"ticker", "a goroutine and a time.Ticker per match", runTicker},
	}
}

// bench is one run of one strategy, in its own process.
type bench struct {
	matches    int
	hz         int
	resolution time.Duration
	spin       bool // the shared clock's waiter spins
	work       time.Duration
	slow       bool // match 0 takes slowUpdate every tick
	base       time.Time
	starts     []time.Duration // each match's start, since base
	rec        *recorder
}

// slowUpdate is how long the slow match's Update takes.
const slowUpdate = 30 * time.Millisecond

func newBench(o childOptions, rec *recorder) *bench {
	b := &bench{matches: o.matches, hz: o.hz, resolution: o.resolution, spin: o.spin, work: o.work, slow: o.slow, rec: rec,
		base: rec.base, starts: make([]time.Duration, o.matches)}
	period := time.Second / time.Duration(o.hz)
	rng := rand.New(rand.NewPCG(1, uint64(o.matches)))
	for i := range b.starts {
		b.starts[i] = rec.startAt
		if !o.aligned {
			b.starts[i] += time.Duration(rng.Int64N(int64(period)))
		}
	}
	return b
}

// startEach calls start(i) for every match at its start time, in order of start, spinning
// between them: Go's timers would gather the starts into millisecond clumps, where the matches
// should be spread as their start times are.
func (b *bench) startEach(start func(i int)) {
	order := make([]int, b.matches)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(b.starts[x], b.starts[y]) })
	if d := b.starts[order[0]] - time.Since(b.base) - time.Millisecond; d > 0 {
		time.Sleep(d)
	}
	for _, i := range order {
		for time.Since(b.base) < b.starts[i] {
		}
		start(i)
	}
}

// update is the body of every match's update: the busy work, or the slow match's 30 ms.
func (b *bench) update(i int) {
	d := b.work
	if b.slow && i == 0 {
		d = slowUpdate
	}
	if d > 0 {
		spin(d)
	}
}

// spin keeps the CPU busy for d.
func spin(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// dueAt returns when tick n (from 1) of a grid that began at epoch is due, as the library
// computes it: exactly n/hz seconds later, rounded up to the nanosecond.
func dueAt(epoch time.Duration, n uint64, hz int) time.Duration {
	r := uint64(hz)
	return epoch + time.Duration(n/r)*time.Second + time.Duration((n%r*uint64(time.Second)+r-1)/r)
}

// epoch pins the origin of a loop's tick grid to the match's start time: a loop's grid begins
// at the first time it reads its clock, and the clock answers that first read with the start
// (a moment ago), so that the grids of the matches are spread exactly as their starts are, as
// a pool's are, however late each goroutine began. The loop is its only user.
type epoch struct {
	offset time.Duration // the bench's time minus the clock's
	at     time.Duration // the start, in the bench's time
	known  bool
}

// now returns what the loop reads from a clock that reads t: the start at its first reading.
func (e *epoch) now(t time.Duration) time.Duration {
	if !e.known {
		e.known = true
		return min(e.at-e.offset, t)
	}
	return t
}

// sharedEpochClock is a SharedClock that tells its loop's epoch. It is one allocation with
// the match's game, and reads the clock without a closure: a server's loop would be given the
// SharedClock itself, and the harness should cost the loop no more cache lines than that.
type sharedEpochClock struct {
	*gameloop.SharedClock
	ep epoch
}

func (c *sharedEpochClock) Now() time.Duration { return c.ep.now(c.SharedClock.Now()) }

// systemEpochClock is a SystemClock that tells its loop's epoch. Embedding the clock keeps
// what the loop does with a SystemClock (it warms up while the pacer spins).
type systemEpochClock struct {
	*gameloop.SystemClock
	ep epoch
}

func (c *systemEpochClock) Now() time.Duration { return c.ep.now(c.SystemClock.Now()) }

// loopMatch is the game of a match run by a Loop: it reads the time from its loop's clock.
type loopMatch struct {
	b     *bench
	i     int
	clock gameloop.Clock
	ep    *epoch
}

func (g *loopMatch) Update(u *gameloop.Update) error {
	begun := g.clock.Now() + g.ep.offset
	g.b.rec.tick(g.i, dueAt(g.ep.at, u.Tick, g.b.hz), begun)
	g.b.update(g.i)
	return nil
}

// runLoops runs a Loop per match, each on a SystemClock of its own, as Config's default is.
func runLoops(ctx context.Context, b *bench) error {
	return runLoopsOn(ctx, b, func(i int) *loopMatch {
		c := &systemEpochClock{SystemClock: gameloop.NewSystemClock()}
		c.ep = b.epochOf(i, c.SystemClock.Now())
		return &loopMatch{b: b, i: i, clock: c, ep: &c.ep}
	})
}

// sharedMatch is a match's game and its clock, in one allocation.
type sharedMatch struct {
	loopMatch
	c sharedEpochClock
}

// runShared runs a Loop per match, all on one SharedClock.
func runShared(ctx context.Context, b *bench) error {
	shared := gameloop.NewSharedClock(&gameloop.SharedClockOptions{Resolution: b.resolution, Spin: b.spin})
	defer shared.Close()
	return runLoopsOn(ctx, b, func(i int) *loopMatch {
		m := &sharedMatch{c: sharedEpochClock{SharedClock: shared, ep: b.epochOf(i, shared.Now())}}
		m.loopMatch = loopMatch{b: b, i: i, clock: &m.c, ep: &m.c.ep}
		return &m.loopMatch
	})
}

// epochOf returns the epoch of match i on a clock that reads now.
func (b *bench) epochOf(i int, now time.Duration) epoch {
	return epoch{offset: time.Since(b.base) - now, at: b.starts[i]}
}

// runLoopsOn runs a Loop per match in a goroutine of its own, each with the game, and the
// clock, that newMatch makes.
func runLoopsOn(ctx context.Context, b *bench, newMatch func(i int) *loopMatch) error {
	var wg sync.WaitGroup
	errs := make([]error, b.matches)
	wg.Add(b.matches)
	b.startEach(func(i int) {
		go func() {
			defer wg.Done()
			g := newMatch(i)
			// A server's loop draws nothing.
			loop, err := gameloop.New(gameloop.Config{TickRate: b.hz, Clock: g.clock, NoFrames: true})
			if err != nil {
				errs[i] = err
				return
			}
			if err := loop.Run(ctx, g); err != nil && ctx.Err() == nil {
				errs[i] = err
			}
			b.rec.drop(i, loop.Stats().DroppedTicks)
		}()
	})
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("match %d: %w", i, err)
		}
	}
	return nil
}

// poolMatch is the game of a match run by a Pool.
type poolMatch struct {
	b     *bench
	i     int
	clock *gameloop.SharedClock
	m     *gameloop.Match
}

func (g *poolMatch) Update(u *gameloop.Update) error {
	g.b.rec.tick(g.i, g.m.Due()+g.b.rec.clockOffset, g.clock.Now()+g.b.rec.clockOffset)
	g.b.update(g.i)
	return nil
}

func runPool(ctx context.Context, b *bench) error {
	shared := gameloop.NewSharedClock(&gameloop.SharedClockOptions{Resolution: b.resolution, Spin: b.spin})
	defer shared.Close()
	pool := gameloop.NewPool(shared, nil)
	b.rec.clockOffset = time.Since(b.base) - shared.Now()
	matches := make([]*gameloop.Match, b.matches)
	for i := range b.matches {
		g := &poolMatch{b: b, i: i, clock: shared}
		m, err := pool.NewMatch(ctx, g, gameloop.Config{TickRate: b.hz})
		if err != nil {
			return err
		}
		g.m, matches[i] = m, m
		m.StartAt(b.starts[i] - b.rec.clockOffset)
	}
	for i, m := range matches {
		if err := m.Wait(); err != nil && ctx.Err() == nil {
			return fmt.Errorf("match %d: %w", i, err)
		}
		b.rec.drop(i, m.Stats().DroppedTicks)
	}
	return pool.Close()
}

// runTicker is the usual Go server: a goroutine per match, waiting on a time.Ticker. Since Go
// 1.23 the time a ticker sends is the time its tick was due, so the grid is the ticker's own.
// A receiver that falls behind loses ticks (the channel holds one): they are counted dropped.
func runTicker(ctx context.Context, b *bench) error {
	var wg sync.WaitGroup
	period := time.Second / time.Duration(b.hz)
	wg.Add(b.matches)
	b.startEach(func(i int) {
		epoch := time.Now()
		t := time.NewTicker(period)
		go func() {
			defer wg.Done()
			defer t.Stop()
			var last int64
			for {
				select {
				case <-ctx.Done():
					return
				case sent := <-t.C:
					begun := time.Since(b.base)
					k := (int64(sent.Sub(epoch)) + int64(period)/2) / int64(period)
					if k > last+1 {
						b.rec.drop(i, uint64(k-last-1))
					}
					last = k
					b.rec.tick(i, sent.Sub(b.base), begun)
					b.update(i)
				}
			}
		}()
	})
	wg.Wait()
	return nil
}
