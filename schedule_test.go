package gameloop

import (
	"errors"
	"math"
	"testing"
	"time"
)

func mustSchedule(t *testing.T, cfg Config) *Schedule {
	t.Helper()
	s, err := NewSchedule(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runAll takes every tick Advance grants and returns how many there were.
func runAll(s *Schedule, now time.Duration) int {
	st := s.Advance(now)
	for range st.Ticks {
		s.Next()
	}
	return st.Ticks
}

func TestTimeMath(t *testing.T) {
	for _, rate := range []int64{1, 3, 7, 60, 144, 1000, 999_983, MaxRate} {
		for k := uint64(0); k < 3000; k++ {
			off := offsetOf(k, rate)
			if countIn(off, rate) != k {
				t.Fatalf("rate %d: countIn(offsetOf(%d)) = %d", rate, k, countIn(off, rate))
			}
			if k > 0 && countIn(off-1, rate) != k-1 {
				t.Fatalf("rate %d: tick %d due at %v but already counted 1ns earlier", rate, k, off)
			}
		}
	}
	// A year at a million ticks per second would overflow a naive d*rate in int64.
	year := 365 * 24 * time.Hour
	if got, want := countIn(year, MaxRate), uint64(365*24*3600)*MaxRate; got != want {
		t.Errorf("countIn(year, 1e6) = %d, want %d", got, want)
	}
}

func TestScheduleExactCountsOverADay(t *testing.T) {
	for _, tc := range []struct {
		rate int
		want uint64
	}{
		{60, 5_184_000},
		{144, 12_441_600},
		{7, 604_800},
	} {
		s := mustSchedule(t, Config{TickRate: tc.rate, MaxTicksPerFrame: math.MaxInt32, MaxFrameTime: time.Hour})
		s.Advance(0)
		// Frames at an awkward 1/97 s, so that ticks and frames rarely line up.
		const frame = time.Second / 97
		var now time.Duration
		for now < 24*time.Hour {
			now = min(now+frame, 24*time.Hour)
			runAll(s, now)
		}
		if s.Ticks() != tc.want {
			t.Errorf("%d Hz over 24h: %d ticks, want %d", tc.rate, s.Ticks(), tc.want)
		}
		if d, _ := s.Dropped(); d != 0 {
			t.Errorf("%d Hz: %d ticks dropped, want none", tc.rate, d)
		}
		if a := s.Alpha(now); a != 0 {
			t.Errorf("%d Hz: alpha at exactly 24h = %v, want 0", tc.rate, a)
		}
	}
}

func TestScheduleTickDueTimes(t *testing.T) {
	// Tick n is due at exactly n/rate s: not a nanosecond before.
	s := mustSchedule(t, Config{TickRate: 60})
	s.Advance(0)
	for n := uint64(1); n <= 600; n++ {
		due := offsetOf(n, 60)
		if got := runAll(s, due-1); got != 0 {
			t.Fatalf("tick %d ran 1ns before it was due", n)
		}
		if got := runAll(s, due); got != 1 {
			t.Fatalf("tick %d: %d ran at its due time, want 1", n, got)
		}
		if s.Ticks() != n {
			t.Fatalf("tick count %d, want %d", s.Ticks(), n)
		}
	}
	if got, want := s.Step(), 16_666_666*time.Nanosecond; got != want {
		t.Errorf("Step = %v, want %v", got, want)
	}
	if got := s.StepSeconds(); got != 1.0/60 {
		t.Errorf("StepSeconds = %v, want 1/60", got)
	}
}

func TestScheduleCatchUpAndDrop(t *testing.T) {
	const step = 10 * time.Millisecond // 100 Hz
	tests := []struct {
		name        string
		maxTicks    int
		maxFrame    time.Duration
		at          time.Duration // one Advance at this time after the start
		wantTicks   int
		wantDropped uint64
		wantAlpha   float64
	}{
		{"on time", 5, time.Second, 10 * time.Millisecond, 1, 0, 0},
		{"three owed, all run", 5, time.Second, 35 * time.Millisecond, 3, 0, 0.5},
		{"capped by MaxTicksPerFrame", 5, time.Second, 125 * time.Millisecond, 5, 7, 0.5},
		{"capped by MaxFrameTime", 100, 40 * time.Millisecond, 125 * time.Millisecond, 4, 8, 0.5},
		{"one-hour jump", 5, 250 * time.Millisecond, time.Hour + 5*time.Millisecond, 5, 360_000 - 5, 0.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustSchedule(t, Config{TickRate: 100, MaxTicksPerFrame: tc.maxTicks, MaxFrameTime: tc.maxFrame})
			s.Advance(0)
			st := s.Advance(tc.at)
			if st.Ticks != tc.wantTicks || st.DroppedTicks != tc.wantDropped {
				t.Fatalf("Advance = %d ticks, %d dropped; want %d, %d", st.Ticks, st.DroppedTicks, tc.wantTicks, tc.wantDropped)
			}
			if st.DroppedTime != time.Duration(tc.wantDropped)*step {
				t.Errorf("DroppedTime = %v, want %v", st.DroppedTime, time.Duration(tc.wantDropped)*step)
			}
			if math.Abs(st.Alpha-tc.wantAlpha) > 1e-9 {
				t.Errorf("Alpha = %v, want %v (the phase is kept when ticks are dropped)", st.Alpha, tc.wantAlpha)
			}
			for range st.Ticks {
				s.Next()
			}
			// Dropped ticks are never replayed: the next tick is due when the current step ends.
			next := tc.at + time.Duration((1-tc.wantAlpha)*float64(step))
			if got := runAll(s, next-1); got != 0 {
				t.Errorf("%d ticks ran before the next step was due", got)
			}
			if got := runAll(s, next); got != 1 {
				t.Errorf("%d ticks ran when the next step was due, want exactly 1 (no burst)", got)
			}
		})
	}
}

func TestScheduleSlowUpdatesSettle(t *testing.T) {
	// Each update costs two ticks of time: without a bound the owed ticks grow without end
	// (the spiral of death). With MaxTicksPerFrame 4, every frame runs 4 and drops 4.
	s := mustSchedule(t, Config{TickRate: 100, MaxTicksPerFrame: 4, MaxFrameTime: time.Hour})
	var now time.Duration
	s.Advance(now)
	now += 10 * time.Millisecond
	var ran []int
	for range 8 {
		st := s.Advance(now)
		for range st.Ticks {
			s.Next()
			now += 20 * time.Millisecond
		}
		ran = append(ran, st.Ticks)
	}
	want := []int{1, 2, 4, 4, 4, 4, 4, 4}
	for i := range want {
		if ran[i] != want[i] {
			t.Fatalf("ticks per frame = %v, want %v", ran, want)
		}
	}
	if d, dt := s.Dropped(); d != 4*5 || dt != 20*10*time.Millisecond {
		t.Errorf("dropped %d ticks, %v; want 20 ticks, 200ms", d, dt)
	}
}

func TestSchedulePauseAndScale(t *testing.T) {
	ms := time.Millisecond
	s := mustSchedule(t, Config{TickRate: 100, MaxTicksPerFrame: 1000, MaxFrameTime: 2 * time.Second})
	s.Advance(0)
	if got := runAll(s, 25*ms); got != 2 {
		t.Fatalf("before pause: %d ticks, want 2", got)
	}
	s.Pause(25 * ms)
	if got := runAll(s, 500*ms); got != 0 {
		t.Errorf("paused: %d ticks ran", got)
	}
	if a := s.Alpha(500 * ms); math.Abs(a-0.5) > 1e-9 {
		t.Errorf("alpha while paused = %v, want it frozen at 0.5", a)
	}
	if s.NextTickAt() != never {
		t.Errorf("NextTickAt while paused = %v, want never", s.NextTickAt())
	}
	s.Resume(1000 * ms)
	// 5 ms of the third tick had elapsed at the pause: it is due 5 ms after the resume.
	if got := s.NextTickAt(); got != 1005*ms {
		t.Errorf("NextTickAt after resume = %v, want 1.005s", got)
	}
	if got := runAll(s, 1005*ms); got != 1 {
		t.Errorf("after resume: %d ticks, want 1", got)
	}
	if err := s.SetTimeScale(1005*ms, 0.5); err != nil {
		t.Fatal(err)
	}
	// At half speed a 10 ms step takes 20 ms of real time.
	if got := s.NextTickAt(); got != 1025*ms {
		t.Errorf("NextTickAt at scale 0.5 = %v, want 1.025s", got)
	}
	if got := runAll(s, 1005*ms+time.Second); got != 50 {
		t.Errorf("one real second at scale 0.5: %d ticks, want 50", got)
	}
	if err := s.SetTimeScale(0, math.NaN()); err == nil {
		t.Error("SetTimeScale(NaN) succeeded")
	}
	if err := s.SetTimeScale(0, -1); err == nil {
		t.Error("SetTimeScale(-1) succeeded")
	}
}

func TestScheduleTickRateChangeKeepsTime(t *testing.T) {
	ms := time.Millisecond
	s := mustSchedule(t, Config{TickRate: 100, MaxFrameTime: time.Hour, MaxTicksPerFrame: 1000})
	s.Advance(0)
	runAll(s, 34*ms) // 3 ticks at 10 ms; 4 ms into the fourth
	if err := s.SetTickRate(50); err != nil {
		t.Fatal(err)
	}
	// The step an Update carries follows the new rate.
	if s.Step() != 20*ms || s.StepSeconds() != 1.0/50 {
		t.Errorf("after SetTickRate(50): Step %v, StepSeconds %v; want 20ms, 0.02", s.Step(), s.StepSeconds())
	}
	// The 4 ms already elapsed count toward the first 20 ms tick: it is due at 50 ms.
	if got := runAll(s, 49*ms); got != 0 {
		t.Errorf("%d ticks before 50ms", got)
	}
	if got := runAll(s, 50*ms); got != 1 {
		t.Errorf("%d ticks at 50ms, want 1", got)
	}
	// Over a second at 50 Hz from there, exactly 50 more.
	if got := runAll(s, 1050*ms); got != 50 {
		t.Errorf("%d ticks in the next second at 50 Hz, want 50", got)
	}
	if s.Ticks() != 54 {
		t.Errorf("total %d ticks, want 54", s.Ticks())
	}
	var ce *ConfigError
	if err := s.SetTickRate(0); !errors.As(err, &ce) || ce.Field != "TickRate" || ce.Setter != "SetTickRate" {
		t.Errorf("SetTickRate(0) = %v, want a ConfigError on TickRate from SetTickRate", err)
	}
	if got, want := ce.Error(), "gameloop: invalid SetTickRate(0): must be between 1 and 1000000"; got != want {
		t.Errorf("SetTickRate(0) says %q, want %q", got, want)
	}
	if err := s.SetTimeScale(0, -1); !errors.As(err, &ce) || ce.Setter != "SetTimeScale" {
		t.Errorf("SetTimeScale(-1) = %v, want a ConfigError from SetTimeScale", err)
	}
}

func TestScheduleUntakenTicksAreNotDoubled(t *testing.T) {
	s := mustSchedule(t, Config{TickRate: 100})
	s.Advance(0)
	if st := s.Advance(30 * time.Millisecond); st.Ticks != 3 {
		t.Fatalf("granted %d, want 3", st.Ticks)
	}
	s.Next()
	if st := s.Advance(30 * time.Millisecond); st.Ticks != 2 {
		t.Errorf("Advance again at the same time granted %d, want the 2 not taken", st.Ticks)
	}
}

func TestScheduleLowTickRateWithShortMaxFrameTime(t *testing.T) {
	// 1 Hz with the default MaxFrameTime of 250ms: a pass a second must still run its tick.
	s := mustSchedule(t, Config{TickRate: 1})
	s.Advance(0)
	for i := 1; i <= 5; i++ {
		if got := runAll(s, time.Duration(i)*time.Second); got != 1 {
			t.Fatalf("second %d: %d ticks, want 1", i, got)
		}
	}
	if d, _ := s.Dropped(); d != 0 {
		t.Errorf("%d ticks dropped", d)
	}
}
