package gameloop

import (
	"context"
	"iter"
	"runtime"
	"testing"
	"time"
)

// BenchmarkLoopPassCold measures one pass (a tick and its frame, or a tick alone with
// NoFrames) of a headless Loop when it is one of many, its memory out of the caches as a
// server's loops are.
func BenchmarkLoopPassCold(b *testing.B) {
	b.Run("frames", func(b *testing.B) { benchLoopPassCold(b, false) })
	b.Run("noframes", func(b *testing.B) { benchLoopPassCold(b, true) })
}

func benchLoopPassCold(b *testing.B, noFrames bool) {
	const n = 2000
	nexts := make([]func() (Event, bool), n)
	for i := range nexts {
		l, err := New(Config{TickRate: 20, Clock: NewManualClock(), NoFrames: noFrames})
		if err != nil {
			b.Fatal(err)
		}
		next, stop := iter.Pull(l.Events(context.Background()))
		defer stop()
		nexts[i] = next
	}
	evict := make([]byte, 64<<20)
	pass := func(next func() (Event, bool)) {
		for {
			ev, _ := next()
			if _, ok := ev.(*Idle); ok {
				return
			}
		}
	}
	for _, next := range nexts {
		pass(next)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%n == 0 {
			b.StopTimer()
			evictCaches(evict)
			b.StartTimer()
		}
		pass(nexts[i%n])
	}
}

// BenchmarkPoolPassCold measures a match's pass, one tick, run by the waiter one after another
// as in a burst, each match's memory out of the caches.
func BenchmarkPoolPassCold(b *testing.B) {
	const n = 2000
	c := NewSharedClock(nil)
	defer c.Close()
	p := NewPool(c, &PoolOptions{Workers: 1})
	ms := make([]*Match, n)
	for i := range ms {
		m, err := p.NewMatch(context.Background(), GameFunc(func(*Update) error { return nil }), Config{TickRate: 20})
		if err != nil {
			b.Fatal(err)
		}
		m.sched.start(0)
		ms[i] = m
	}
	evict := make([]byte, 64<<20)
	step := 50 * time.Millisecond
	var now time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%n == 0 {
			b.StopTimer()
			evictCaches(evict)
			now += step
			b.StartTimer()
		}
		m := ms[i%n]
		if _, ended := m.pass(now); ended {
			b.Fatal("ended")
		}
	}
}

// evictCaches writes a byte of every cache line of buf, a buffer larger than the processor's
// caches, so that what a benchmark touched before is out of them.
func evictCaches(buf []byte) {
	for j := 0; j < len(buf); j += 64 {
		buf[j]++
	}
}

// BenchmarkPoolBurstCold measures what the waiter takes to run a burst of 1,000 due matches on
// one grid without sharing it from its start (runDue), per match, each match's memory out of
// the caches as it is when a burst comes: the update of the last match of a burst begins about
// that much times 1,000 late. (A burst that outlasts shareAfter hands its end to the pool's
// worker, as in a server.)
// Each match's game reads the clock and keeps a value in its own memory, as a game that
// measures itself does.
func BenchmarkPoolBurstCold(b *testing.B) {
	const n = 1000
	c := newSharedClock(SharedClockOptions{}) // the benchmark plays the waiter
	p := NewPool(c, &PoolOptions{Workers: 1})
	period := 50 * time.Millisecond
	gs := make([]*burstBenchGame, n)
	for i := range gs {
		gs[i] = &burstBenchGame{clock: c}
		m, err := p.NewMatch(context.Background(), gs[i], Config{TickRate: 20})
		if err != nil {
			b.Fatal(err)
		}
		gs[i].m = m
		m.StartAt(c.Now() - period)
	}
	evict := make([]byte, 64<<20)
	runnerOf(c).splitOff = 1 << 30 // the waiter alone
	b.ResetTimer()
	for done := 0; done < b.N; done += n {
		b.StopTimer()
		var batch []*waitEntry
		for len(batch) < n { // a long burst may have handed matches to the worker
			c.mu.Lock()
			batch = c.queue.takeAll(batch)
			c.mu.Unlock()
			runtime.Gosched()
		}
		for _, e := range batch {
			matchOf(e).sched.realBase -= period // the next tick is owed now
		}
		evictCaches(evict)
		b.StartTimer()
		runnerOf(c).runDue(batch, infosOf(batch))
	}
	b.StopTimer()
	for deadline := time.Now().Add(10 * time.Second); ; runtime.Gosched() {
		c.mu.Lock()
		back := c.queue.len()
		c.mu.Unlock()
		if back == n {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d matches back in the queue", back, n)
		}
	}
	for _, g := range gs {
		if g.m.ticks.Load() == 0 {
			b.Fatal("a match never ran")
		}
	}
	go c.wait()
	c.Close()
}

// burstBenchGame is a game of BenchmarkPoolBurstCold.
type burstBenchGame struct {
	clock *SharedClock
	m     *Match
	late  time.Duration
}

func (g *burstBenchGame) Update(*Update) error {
	g.late = g.clock.Now() - g.m.Due()
	return nil
}
