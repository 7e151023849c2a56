package gameloop

import (
	"context"
	"testing"
	"time"
)

// The per-iteration cost of the loop, against the ten-line accumulator loop of Game Programming
// Patterns, both on simulated time with one update and one frame an iteration. The ratio is in
// the README.

//go:noinline
func emptyUpdate() {}

//go:noinline
func emptyRender(float64) {}

// BenchmarkHandWrittenLoop is Game Programming Patterns' loop: read the time, add it to lag, process input, run
// the updates owed, render with lag/MS_PER_UPDATE.
func BenchmarkHandWrittenLoop(b *testing.B) {
	const step = time.Second / 60
	// getCurrentTime() reads a clock through the same interface the loop reads its own through;
	// here time moves one step per iteration, as bench mode's does.
	mc := NewManualClock()
	var c Clock = mc
	clock := func() time.Duration { mc.Advance(step); return c.Now() }
	previous := clock()
	var lag time.Duration
	var input []Input
	for b.Loop() {
		current := clock()
		elapsed := current - previous
		previous = current
		lag += elapsed
		input = input[:0] // processInput(): nothing arrives
		for lag >= step {
			emptyUpdate()
			lag -= step
		}
		emptyRender(float64(lag) / float64(step))
	}
	_ = input
}

// BenchmarkEvents is the loop in bench mode through the pull API: per iteration one Update,
// VariableUpdate, Render, AfterRender and Idle, with the same empty work.
func BenchmarkEvents(b *testing.B) {
	l, err := New(Config{TickRate: 60, Bench: true})
	if err != nil {
		b.Fatal(err)
	}
	next, stop := pull(l.Events(context.Background()))
	defer stop()
	b.ReportAllocs()
	for b.Loop() {
		for {
			ev, _ := next()
			if r, ok := ev.(*Render); ok {
				emptyRender(r.Alpha)
			} else if _, ok := ev.(*Update); ok {
				emptyUpdate()
			} else if _, ok := ev.(*AfterRender); ok {
				break
			}
		}
	}
}

// BenchmarkEventsRange is the same with a plain for-range and break every 1000 iterations.
func BenchmarkEventsRange(b *testing.B) {
	l, err := New(Config{TickRate: 60, Bench: true})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	n := 0
	for n < b.N {
		for ev := range l.Events(ctx) {
			switch ev := ev.(type) {
			case *Update:
				emptyUpdate()
			case *Render:
				emptyRender(ev.Alpha)
				n++
			}
			if n >= b.N {
				break
			}
		}
	}
}

// BenchmarkRun is the loop in bench mode through the push API.
func BenchmarkRun(b *testing.B) {
	l, err := New(Config{TickRate: 60, Bench: true})
	if err != nil {
		b.Fatal(err)
	}
	g := &benchGame{n: b.N}
	b.ReportAllocs()
	b.ResetTimer()
	if err := l.Run(context.Background(), g); err != nil {
		b.Fatal(err)
	}
}

type benchGame struct{ n, frames int }

func (g *benchGame) Update(*Update) error { emptyUpdate(); return nil }
func (g *benchGame) Render(r *Render) error {
	emptyRender(r.Alpha)
	if g.frames++; g.frames >= g.n {
		return ErrStop
	}
	return nil
}

// BenchmarkScheduleTick measures the schedule's arithmetic for one tick of a server's match at
// 20 Hz, a pass a tick: Advance (or advance, which a Loop's and a pool's passes call), Next,
// the Update's step and NextTickAt.
func BenchmarkScheduleTick(b *testing.B) {
	b.Run("Advance", func(b *testing.B) {
		benchScheduleTick(b, func(s *Schedule, now time.Duration) time.Duration { return s.Advance(now).DroppedTime })
	})
	b.Run("advance", func(b *testing.B) {
		benchScheduleTick(b, func(s *Schedule, now time.Duration) time.Duration {
			_, dropped := s.advance(now)
			return dropped
		})
	})
}

func benchScheduleTick(b *testing.B, advance func(*Schedule, time.Duration) time.Duration) {
	s, err := NewSchedule(Config{TickRate: 20})
	if err != nil {
		b.Fatal(err)
	}
	step := 50 * time.Millisecond
	var now, sum time.Duration
	advance(s, now)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		now += step
		sum += advance(s, now)
		tick, ok := s.Next()
		if !ok {
			b.Fatalf("no tick owed at %v", now)
		}
		sum += time.Duration(tick) + s.Step() + time.Duration(s.StepSeconds()) + s.NextTickAt()
	}
	if sum == 0 {
		b.Fatal("nothing summed")
	}
}
