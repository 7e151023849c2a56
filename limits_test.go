package gameloop

import (
	"math"
	"testing"
	"time"
)

// At a time scale whose float64 is not a binary fraction, the real time of a deadline used to
// be computed through a float64 round trip, which past 2^52 ns since the last change of scale
// returned times at which no tick was owed: a loop waiting for them recomputed the same
// deadline forever. Every deadline must grant a tick, however long the scale has held.
func TestScaledDeadlinesGrantProgressForMonths(t *testing.T) {
	for _, scale := range []float64{0.1, 1.0 / 3, 3, 0.7, 123.456, maxTimeScale} {
		s := mustSchedule(t, Config{TickRate: 60, MaxTicksPerFrame: 1, TimeScale: scale})
		s.Advance(0)
		// 104 days of real time, in steps after which a tick is owed.
		for now := time.Duration(0); now < 104*24*time.Hour; now += 97 * time.Hour {
			runAll(s, now)
			for i := range 50 {
				next := s.NextTickAt()
				if next == never {
					t.Fatalf("scale %v at %v: NextTickAt never", scale, now)
				}
				at := max(next, now)
				if got := runAll(s, at); got != 1 {
					t.Fatalf("scale %v, real time %v, deadline %d: Advance(NextTickAt() = %v) granted %d ticks", scale, now, i, next, got)
				}
				now = at
			}
		}
	}
}

// MaxFrameTime: math.MaxInt64 means "never drop"; it used to overflow and drop every tick.
// So did any MaxFrameTime at or above MaxInt64/TimeScale at scales above 1.
func TestHugeMaxFrameTimeNeverDrops(t *testing.T) {
	for _, scale := range []float64{1, 2, 1000, maxTimeScale} {
		s := mustSchedule(t, Config{TickRate: 60, MaxTicksPerFrame: math.MaxInt32, MaxFrameTime: math.MaxInt64, TimeScale: scale})
		s.Advance(0)
		for i := 1; i <= 3; i++ {
			st := s.Advance(time.Duration(i) * time.Millisecond)
			if st.DroppedTicks != 0 {
				t.Fatalf("scale %v, pass %d: dropped %d ticks with MaxFrameTime MaxInt64", scale, i, st.DroppedTicks)
			}
			want := countIn(s.scale.scale(time.Duration(i)*time.Millisecond), 60) - s.Ticks()
			if uint64(st.Ticks) != want {
				t.Fatalf("scale %v, pass %d: %d ticks, want %d", scale, i, st.Ticks, want)
			}
			for range st.Ticks {
				s.Next()
			}
		}
	}
}

// At the largest time scale, game time passes int64 nanoseconds' 292 years after two and a
// half hours of real time. The schedule moves its origin forward, so a year later it still
// ticks, drops by whole ticks and keeps Alpha in range.
func TestLargestTimeScaleTicksForAYear(t *testing.T) {
	s := mustSchedule(t, Config{TickRate: 60, TimeScale: maxTimeScale})
	s.Advance(0)
	for now := time.Duration(0); now <= 365*24*time.Hour; now += 10 * time.Minute {
		if got := runAll(s, now); now > 0 && got != DefaultMaxTicksPerFrame {
			t.Fatalf("at %v: %d ticks, want %d", now, got, DefaultMaxTicksPerFrame)
		}
		if a := s.Alpha(now); a < 0 || a >= 1 {
			t.Fatalf("at %v: Alpha %v", now, a)
		}
		if next := s.NextTickAt(); next <= now || next > now+time.Microsecond {
			t.Fatalf("at %v: next tick at %v, want within a microsecond", now, next)
		}
	}
	if s.reorigins == 0 {
		t.Error("game time was never moved back: the test did not reach the limit")
	}
}

func TestManualClockSaturates(t *testing.T) {
	c := NewManualClock()
	c.Advance(time.Hour)
	c.Advance(math.MaxInt64)
	if c.Now() != math.MaxInt64 {
		t.Fatalf("Now after a huge Advance = %v, want MaxInt64 (it wrapped)", c.Now())
	}
	c.Advance(1)
	if c.Now() != math.MaxInt64 {
		t.Fatalf("Now = %v after advancing past the end", c.Now())
	}
}

// The exact scale arithmetic against big-number results at the edges of int64.
func TestTimeScaleArithmetic(t *testing.T) {
	for _, f := range []float64{1e-300, 7e-7, 0.1, 1.0 / 3, 0.5, 1, 1.5, 3, 123.456, maxTimeScale} {
		ts := exactScale(f)
		for _, d := range []time.Duration{1, 2, 999, time.Second, 1 << 52, 1 << 53, 1<<53 + 1, 1 << 62, math.MaxInt64 - 1, math.MaxInt64} {
			g := ts.scale(d)
			if g < 0 {
				t.Fatalf("scale %v: scale(%v) = %v", f, d, g)
			}
			r := ts.unscale(d)
			if r == never {
				continue
			}
			if got := ts.scale(r); got < d {
				t.Fatalf("scale %v: scale(unscale(%d) = %d) = %d < %d", f, d, r, got, d)
			}
			if r > 0 && ts.scale(r-1) >= d {
				t.Fatalf("scale %v: unscale(%d) = %d is not the least: scale(%d) = %d", f, d, r, r-1, ts.scale(r-1))
			}
		}
	}
}
