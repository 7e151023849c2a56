package gameloop

import (
	"context"
	"math"
	"testing"
	"time"
)

// A change of the time scale does not drop ticks owed for the time before it: the pass's bound
// (MaxFrameTime) counts each stretch of real time at the scale it passed at. Within the bound
// nothing is dropped; beyond it, only what lies beyond it.
func TestScheduleScaleChangeKeepsOwedTicks(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name         string
		maxFrameTime time.Duration
		before       time.Duration // real time at scale 1 before the change
		scale        float64
		after        time.Duration // real time at the new scale before the Advance
		ticks        int
		dropped      uint64
	}{
		{"to 0.1", math.MaxInt64, 50 * ms, 0.1, 0, 3, 0},
		{"to 0", math.MaxInt64, 50 * ms, 0, 0, 3, 0},
		{"to 0, default bound", 0, 50 * ms, 0, 0, 3, 0},
		{"to 0.1, default bound", 0, 50 * ms, 0.1, 0, 3, 0},
		{"to 0.1, then 100 ms", 0, 50 * ms, 0.1, 100 * ms, 3, 0},
		{"to 10", 0, 50 * ms, 10, 0, 3, 0},
		// 1 s at scale 1 with a bound of 100 ms: 6 ticks run (100 ms), 54 dropped, whatever
		// the scale after; the bound is spent, so the 100 ms at scale 0.5 after it drop too.
		{"beyond the bound, to 0.5", 100 * ms, time.Second, 0.5, 0, 6, 54},
		{"beyond the bound, to 0.5, then 100 ms", 100 * ms, time.Second, 0.5, 100 * ms, 6, 57},
		// 60 ms at scale 1, then 100 ms at scale 0.5 (50 ms of game time): the bound of 100 ms
		// of real time takes the 60 ms and 40 ms at half speed, 80 ms of game time: of the 6
		// ticks owed (110 ms of game time), the 4 due by then run and the 2 after are dropped.
		{"half within the bound", 100 * ms, 60 * ms, 0.5, 100 * ms, 4, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustSchedule(t, Config{TickRate: 60, MaxFrameTime: tt.maxFrameTime, MaxTicksPerFrame: 1000})
			s.Advance(0)
			if err := s.SetTimeScale(tt.before, tt.scale); err != nil {
				t.Fatal(err)
			}
			st := s.Advance(tt.before + tt.after)
			if st.Ticks != tt.ticks || st.DroppedTicks != tt.dropped {
				t.Errorf("%v at scale 1, then %v at scale %v: %d ticks, %d dropped; want %d, %d",
					tt.before, tt.after, tt.scale, st.Ticks, st.DroppedTicks, tt.ticks, tt.dropped)
			}
		})
	}
}

// A schedule started at the most negative time (a pool's StartAt(math.MinInt64)) ticks at every
// time scale: the real time since its start, beyond int64, neither wraps nor freezes game time,
// and the next tick is always due after the time it was asked at, so that a waiter does not run
// it again at once for nothing.
func TestScheduleStartAtMinInt64(t *testing.T) {
	for _, scale := range []float64{1, 0.1, 1e-6, 1000} {
		s := mustSchedule(t, Config{TickRate: 60, TimeScale: scale})
		s.start(math.MinInt64)
		ticks := 0
		for now := time.Second; now <= 3*time.Second; now += 100 * time.Millisecond {
			st := s.Advance(now)
			for range st.Ticks {
				s.Next()
			}
			ticks += st.Ticks
			if next := s.NextTickAt(); next <= now {
				t.Fatalf("scale %v: after Advance(%v) the next tick is due at %v", scale, now, next)
			}
		}
		// 2 s at the scale, less the tick that the first Advance's phase may put off.
		if want := int(2*60*scale) - 1; scale >= 0.1 && ticks < min(want, 60) {
			t.Errorf("scale %v: %d ticks in 2 s, want at least %d", scale, ticks, min(want, 60))
		}
	}
}

// A Loop on the manual clock keeps the ticks owed when its time scale is lowered between two
// passes.
func TestLoopScaleChangeKeepsOwedTicks(t *testing.T) {
	l, clk := newLoop(t, Config{TickRate: 60, NoFrames: true})
	idles, updates := 0, 0
	for ev := range l.Events(context.Background()) {
		switch ev.(type) {
		case *Update:
			updates++
		case *Idle:
			idles++
		}
		if idles == 1 && updates == 0 {
			// 50 ms pass (3 ticks owed at 60 Hz), then the scale drops.
			clk.Advance(50 * time.Millisecond)
			if err := l.SetTimeScale(0.1); err != nil {
				t.Fatal(err)
			}
			idles++
		}
		if idles == 3 {
			break
		}
	}
	if st := l.Stats(); updates != 3 || st.DroppedTicks != 0 {
		t.Errorf("50 ms owed at 60 Hz, then scale 0.1: %d updates, %d dropped; want 3, 0", updates, st.DroppedTicks)
	}
}
