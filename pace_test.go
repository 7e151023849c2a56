package gameloop

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// fakeSleeps is a made-up machine for a Pacer: a clock that advances by step at each reading
// (so that spinning ends), and sleeps that wake as late as told, logging what was asked.
type fakeSleeps struct {
	t    time.Duration
	step time.Duration
	// coarseLate and preciseLate are how late the coming sleeps wake, in order; once used up,
	// sleeps wake on time.
	coarseLate, preciseLate []time.Duration
	// wakeInCoarse makes the coarse wait end as if woken.
	wakeInCoarse bool
	log          []string
	quiet        bool // log nothing (logging allocates)
}

func (f *fakeSleeps) now() time.Duration {
	f.t += f.step
	return f.t
}

func (f *fakeSleeps) coarse(d time.Duration, wake <-chan struct{}) bool {
	if !f.quiet {
		f.log = append(f.log, fmt.Sprintf("coarse %v", d))
	}
	if f.wakeInCoarse {
		return true
	}
	// The pacer reads the clock once on waking: that reading is the wake-up time.
	f.t += d + pop(&f.coarseLate) - f.step
	return false
}

func (f *fakeSleeps) precise(target time.Duration) {
	if !f.quiet {
		f.log = append(f.log, fmt.Sprintf("precise to %v", target))
	}
	f.t = max(f.t, target+pop(&f.preciseLate)-f.step)
}

func pop(q *[]time.Duration) time.Duration {
	if len(*q) == 0 {
		return 0
	}
	d := (*q)[0]
	*q = (*q)[1:]
	return d
}

// newFakePacer returns a pacer with precise sleeps (as on Linux, lead 2 ms) or without.
func newFakePacer(f *fakeSleeps, precise bool) *Pacer {
	if precise {
		return newPacer(f.now, f.coarse, f.precise, 2*time.Millisecond)
	}
	return newPacer(f.now, f.coarse, nil, 0)
}

const us = time.Microsecond

func TestPacerStages(t *testing.T) {
	long, short := longSleepBounds().initial, shortSleepBounds().initial
	deadline := 50 * time.Millisecond
	tests := []struct {
		name        string
		start       time.Duration
		coarseLate  []time.Duration
		preciseLate []time.Duration
		want        []string
		wantLate    uint64
	}{{
		name:        "all four stages",
		coarseLate:  []time.Duration{900 * us},
		preciseLate: []time.Duration{70 * us, 40 * us},
		want: []string{
			fmt.Sprint("coarse ", deadline-long-2*time.Millisecond-100*time.Nanosecond),
			fmt.Sprint("precise to ", deadline-long),
			fmt.Sprint("precise to ", deadline-short),
		},
	}, {
		name:        "a coarse wait that overslept leaves only the short sleep",
		coarseLate:  []time.Duration{2*time.Millisecond + 150*us},
		preciseLate: []time.Duration{40 * us},
		want: []string{
			fmt.Sprint("coarse ", deadline-long-2*time.Millisecond-100*time.Nanosecond),
			fmt.Sprint("precise to ", deadline-short),
		},
	}, {
		name:        "a long sleep that woke past the short margin skips the short sleep",
		preciseLate: []time.Duration{long - short + 10*us},
		want: []string{
			fmt.Sprint("coarse ", deadline-long-2*time.Millisecond-100*time.Nanosecond),
			fmt.Sprint("precise to ", deadline-long),
		},
	}, {
		name:        "a long sleep that woke past the deadline is late",
		preciseLate: []time.Duration{long + 300*us},
		want: []string{
			fmt.Sprint("coarse ", deadline-long-2*time.Millisecond-100*time.Nanosecond),
			fmt.Sprint("precise to ", deadline-long),
		},
		wantLate: 1,
	}, {
		name:        "a wait of up to 20 ms has no coarse wait",
		start:       deadline - long - maxUninterrupted,
		preciseLate: []time.Duration{70 * us, 40 * us},
		want: []string{
			fmt.Sprint("precise to ", deadline-long),
			fmt.Sprint("precise to ", deadline-short),
		},
	}, {
		name:  "inside the long margin: only the short sleep",
		start: deadline - long + 10*us,
		want:  []string{fmt.Sprint("precise to ", deadline-short)},
	}, {
		name:  "inside the short margin: spin only",
		start: deadline - short + 10*us,
	}, {
		name:  "a deadline that has passed returns at once",
		start: deadline + time.Millisecond,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeSleeps{t: tt.start, step: 100 * time.Nanosecond,
				coarseLate: tt.coarseLate, preciseLate: tt.preciseLate}
			p := newFakePacer(f, true)
			p.WaitUntil(deadline, nil)
			if !slices.Equal(f.log, tt.want) {
				t.Errorf("sleeps:\n got %q\nwant %q", f.log, tt.want)
			}
			if tt.start < deadline && tt.wantLate == 0 && (f.t < deadline || f.t > deadline+f.step) {
				t.Errorf("ended at %v, want the deadline %v to within one clock reading", f.t, deadline)
			}
			st := p.Stats()
			if st.Waits != 1 || st.Late != tt.wantLate || st.Woken != 0 {
				t.Errorf("stats %+v, want 1 wait, %d late, none woken", st, tt.wantLate)
			}
		})
	}
}

func TestPacerSpinsOnlyTheLastStretch(t *testing.T) {
	f := &fakeSleeps{step: 100 * time.Nanosecond, preciseLate: []time.Duration{60 * us, 45 * us}}
	p := newFakePacer(f, true)
	short := p.Margin()
	p.WaitUntil(16*time.Millisecond, nil)
	// The short sleep woke 45 µs late; the pacer spun the rest of the short margin.
	want := short - 45*us
	if got := p.Stats().Spun; got < want-time.Microsecond || got > want+time.Microsecond {
		t.Errorf("spun %v, want %v", got, want)
	}
}

func TestPacerWake(t *testing.T) {
	t.Run("during the coarse wait", func(t *testing.T) {
		f := &fakeSleeps{step: 100 * time.Nanosecond, wakeInCoarse: true}
		p := newFakePacer(f, true)
		p.WaitUntil(50*time.Millisecond, make(chan struct{}, 1))
		if len(f.log) != 1 || p.Stats().Woken != 1 {
			t.Errorf("sleeps %q, stats %+v: want the coarse wait only, woken", f.log, p.Stats())
		}
	})
	t.Run("during the spin", func(t *testing.T) {
		f := &fakeSleeps{t: 16*time.Millisecond - 5*us, step: 100 * time.Nanosecond}
		p := newFakePacer(f, true)
		wake := make(chan struct{}, 1)
		wake <- struct{}{}
		p.WaitUntil(16*time.Millisecond, wake)
		if f.t >= 16*time.Millisecond || p.Stats().Woken != 1 || len(wake) != 0 {
			t.Errorf("ended at %v, stats %+v, %d pending: want an early end, the wake-up consumed", f.t, p.Stats(), len(wake))
		}
	})
	t.Run("after the long sleep", func(t *testing.T) {
		f := &fakeSleeps{step: 100 * time.Nanosecond}
		p := newFakePacer(f, true)
		wake := make(chan struct{}, 1)
		wake <- struct{}{} // as if sent while the long sleep, which nothing interrupts, ran
		p.WaitUntil(16*time.Millisecond, wake)
		want := []string{fmt.Sprint("precise to ", 16*time.Millisecond-longSleepBounds().initial)}
		if !slices.Equal(f.log, want) || p.Stats().Woken != 1 || len(wake) != 0 {
			t.Errorf("sleeps %q, stats %+v: want the long sleep only, woken", f.log, p.Stats())
		}
	})
	t.Run("a deadline that never comes", func(t *testing.T) {
		f := &fakeSleeps{step: 100 * time.Nanosecond}
		p := newFakePacer(f, true)
		wake := make(chan struct{}, 1)
		wake <- struct{}{}
		p.WaitUntil(never, wake)
		if len(f.log) != 0 || p.Stats().Woken != 1 || len(wake) != 0 {
			t.Errorf("sleeps %q, stats %+v: want no sleep, woken", f.log, p.Stats())
		}
	})
}

func TestPacerLearnsMargins(t *testing.T) {
	f := &fakeSleeps{step: 100 * time.Nanosecond}
	p := newFakePacer(f, true)
	deadline := time.Duration(0)
	frame := func(longLate, shortLate time.Duration) {
		f.preciseLate = []time.Duration{longLate, shortLate}
		deadline += 16 * time.Millisecond
		p.WaitUntil(deadline, nil)
	}
	frame(200*us, 40*us)
	st := p.Stats()
	if st.LongMargin != 200*us*5/4+50*us || st.Margin != 40*us*5/4+10*us {
		t.Fatalf("margins %v and %v after one frame, want 300µs and 60µs", st.LongMargin, st.Margin)
	}
	// The long margin keeps the largest lateness of the window, the short one the second largest.
	frame(100*us, 40*us)
	for range marginWindow - 2 {
		frame(100*us, 20*us)
	}
	if st := p.Stats(); st.LongMargin != 300*us || st.Margin != 60*us {
		t.Fatalf("margins %v and %v within the window, want 300µs and 60µs", st.LongMargin, st.Margin)
	}
	frame(100*us, 20*us)
	if st := p.Stats(); st.LongMargin != 175*us || st.Margin != 35*us {
		t.Fatalf("margins %v and %v once the first frame left the window, want 175µs and 35µs", st.LongMargin, st.Margin)
	}
	if st := p.Stats(); st.Late != 0 || st.Waits != marginWindow+1 {
		t.Errorf("stats %+v, want %d waits, none late", st, marginWindow+1)
	}
}

func TestMarginRule(t *testing.T) {
	largest := marginBounds{initial: 400 * us, min: 50 * us, max: 2 * time.Millisecond, pad: 50 * us, rank: 1}
	third := marginBounds{initial: 120 * us, min: 10 * us, max: 250 * us, pad: 10 * us, rank: 3}
	tests := []struct {
		name      string
		bounds    marginBounds
		overshoot []time.Duration
		want      time.Duration
	}{
		{"initial", largest, nil, 400 * us},
		{"1.25 times the largest plus the pad", largest, []time.Duration{100 * us, 40 * us, 80 * us}, 175 * us},
		{"clamped below", largest, []time.Duration{0, -30 * us}, 50 * us},
		{"clamped above", largest, []time.Duration{time.Second}, 2 * time.Millisecond},
		{"1.25 times the third largest plus the pad", third,
			[]time.Duration{40 * us, 200 * us, 32 * us, 30 * us, 120 * us, 20 * us}, 60 * us},
		{"the third largest, with equal ones", third, []time.Duration{80 * us, 80 * us, 80 * us, 40 * us}, 110 * us},
		{"fewer than three: the smallest", third, []time.Duration{200 * us, 40 * us}, 60 * us},
		{"one: that one", third, []time.Duration{40 * us}, 60 * us},
		{"zeros count", third, []time.Duration{100 * us, 0, 0, -5 * us}, 10 * us},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMargin(tt.bounds)
			for _, o := range tt.overshoot {
				m.observe(o)
			}
			if m.value != tt.want {
				t.Errorf("margin %v, want %v", m.value, tt.want)
			}
		})
	}
}

func TestPacerWithoutPreciseSleep(t *testing.T) {
	f := &fakeSleeps{step: 100 * time.Nanosecond, coarseLate: []time.Duration{1100 * us}}
	p := newFakePacer(f, false)
	initial := timerBounds().initial
	p.WaitUntil(16*time.Millisecond, nil)
	want := []string{fmt.Sprint("coarse ", 16*time.Millisecond-initial-100*time.Nanosecond)}
	if !slices.Equal(f.log, want) {
		t.Errorf("sleeps %q, want %q", f.log, want)
	}
	if f.t < 16*time.Millisecond || f.t > 16*time.Millisecond+f.step {
		t.Errorf("ended at %v, want 16ms", f.t)
	}
	if got, want := p.Margin(), 1100*us*5/4+timerBounds().pad; got != want { // 1.425ms
		t.Errorf("margin %v, want %v learned from the timer", got, want)
	}
	if got := p.CoarseDeadline(20 * time.Millisecond); got != 20*time.Millisecond-p.Margin() {
		t.Errorf("CoarseDeadline %v, want the deadline less the margin", got)
	}
}

func TestPacerCoarseDeadline(t *testing.T) {
	f := &fakeSleeps{step: 100 * time.Nanosecond}
	p := newFakePacer(f, true)
	if got, want := p.CoarseDeadline(time.Second), time.Second-longSleepBounds().initial-2*time.Millisecond; got != want {
		t.Errorf("CoarseDeadline %v, want %v", got, want)
	}
	if got := p.CoarseDeadline(never); got != never {
		t.Errorf("CoarseDeadline(never) = %v", got)
	}
}

func TestPacerAllocatesNothing(t *testing.T) {
	f := &fakeSleeps{step: 100 * time.Nanosecond, quiet: true}
	p := newFakePacer(f, true)
	wake := make(chan struct{}, 1)
	late := []time.Duration{80 * us, 30 * us}
	if n := testing.AllocsPerRun(100, func() {
		f.preciseLate = late
		p.WaitUntil(f.t+16*time.Millisecond, wake)
	}); n != 0 {
		t.Errorf("%v allocations per wait on fake sleeps, want 0", n)
	}

	// The real sleeps: deadlines a little way off, so that the precise sleep and the spin run.
	c := NewSystemClock()
	if n := testing.AllocsPerRun(20, func() {
		c.WaitUntil(c.Now()+300*us, wake)
	}); n != 0 {
		t.Errorf("%v allocations per wait on the system clock, want 0", n)
	}
}

func TestPacerOnTheSystemClockIsNeverEarly(t *testing.T) {
	c := NewSystemClock()
	for i := range 50 {
		deadline := c.Now() + time.Duration(i%5)*200*us
		c.WaitUntil(deadline, nil)
		if now := c.Now(); now < deadline {
			t.Fatalf("wait %d ended at %v, before its deadline %v", i, now, deadline)
		}
	}
	if st := c.Pacer().Stats(); st.Waits != 50 {
		t.Errorf("stats %+v, want 50 waits", st)
	}
}

func TestPacerLeavesTheShortSleepRoom(t *testing.T) {
	f := &fakeSleeps{step: 100 * time.Nanosecond}
	p := newFakePacer(f, true)
	// Sleeps that wake on time would shrink the long margin to its minimum, at or under the
	// short one; the long sleep still ends minShortRoom before the short one.
	for i := range marginWindow {
		p.WaitUntil(time.Duration(i+1)*16*time.Millisecond, nil)
	}
	st := p.Stats()
	if st.LongMargin != st.Margin+minShortRoom {
		t.Errorf("margins %v and %v, want the long one %v more", st.LongMargin, st.Margin, minShortRoom)
	}
	f.log = nil
	p.WaitUntil(time.Duration(marginWindow+1)*16*time.Millisecond, nil)
	if len(f.log) != 2 {
		t.Errorf("sleeps %q, want the long and the short", f.log)
	}
}

func TestPacerWarmsOnceAsTheSpinBegins(t *testing.T) {
	f := &fakeSleeps{step: 100 * time.Nanosecond, preciseLate: []time.Duration{60 * us, 45 * us}}
	p := newFakePacer(f, true)
	deadline, short := 16*time.Millisecond, p.Margin()
	var calls int
	var at time.Duration
	p.waitUntil(deadline, nil, func() { calls++; at = f.t })
	if calls != 1 {
		t.Fatalf("warm called %d times, want 1", calls)
	}
	// The short sleep woke 45 µs late, so the spin began a short margin minus 45 µs early.
	if want := deadline - short + 45*us; at < want-time.Microsecond || at > want+time.Microsecond {
		t.Errorf("warm called at %v, want as the spin began, at %v", at, want)
	}

	// A wait that begins after its deadline does not warm: there is no time to spare.
	calls = 0
	p.waitUntil(f.t-time.Millisecond, nil, func() { calls++ })
	if calls != 0 {
		t.Errorf("warm called %d times for a deadline that had passed, want 0", calls)
	}
}

// TestLowPowerPacer: a low-power pacer waits with one sleep to the deadline itself and never
// spins: a wait of a frame is one precise sleep (warming first, as there is no spin to warm
// in); a longer one a coarse wait to the lead before it, then that sleep; a wake-up in the
// coarse wait ends it; without a precise sleep, the Go timer alone waits to the deadline. Its
// margins are 0: a window waits for input until the lead before a deadline.
func TestLowPowerPacer(t *testing.T) {
	for _, tc := range []struct {
		name     string
		precise  bool
		deadline time.Duration
		want     []string
	}{
		{"frame", true, 16 * time.Millisecond, []string{"precise to 16ms"}},
		{"long", true, 100 * time.Millisecond, []string{"coarse 98ms", "precise to 100ms"}},
		{"no precise sleep", false, 16 * time.Millisecond, []string{"coarse 16ms"}},
	} {
		f := &fakeSleeps{step: 0}
		p := newFakePacer(f, tc.precise)
		p.lowPower = true
		p.publish()
		warmed := 0
		p.waitUntil(tc.deadline, nil, func() { warmed++ })
		if !slices.Equal(f.log, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, f.log, tc.want)
		}
		if st := p.Stats(); st.Spun != 0 || st.Margin != 0 || st.LongMargin != 0 {
			t.Errorf("%s: %+v, want no spin and no margins", tc.name, st)
		}
		if tc.precise && warmed != 1 {
			t.Errorf("%s: warmed %d times, want once", tc.name, warmed)
		}
		if got, want := p.CoarseDeadline(tc.deadline), tc.deadline-p.lead; got != want {
			t.Errorf("%s: CoarseDeadline %v, want %v", tc.name, got, want)
		}
	}
	f := &fakeSleeps{wakeInCoarse: true}
	p := newFakePacer(f, true)
	p.lowPower = true
	p.WaitUntil(100*time.Millisecond, nil)
	if st := p.Stats(); st.Woken != 1 || !slices.Equal(f.log, []string{"coarse 98ms"}) {
		t.Errorf("woken in the coarse wait: %+v, %q; want one wait woken, and no sleep after", st, f.log)
	}
}

// TestLowPowerLoop: Config.LowPower gives the loop a low-power system clock, which waits on
// time: a tick of 100 Hz, on the real clock, never early.
func TestLowPowerLoop(t *testing.T) {
	loop, err := New(Config{TickRate: 100, LowPower: true, NoFrames: true})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := loop.Clock().(*SystemClock)
	if !ok || !c.Pacer().lowPower {
		t.Fatalf("the loop's clock is %T, want a low-power *SystemClock", loop.Clock())
	}
	start := c.Now()
	c.WaitUntil(start+5*time.Millisecond, nil)
	if now := c.Now(); now < start+5*time.Millisecond {
		t.Fatalf("the wait ended %v before its deadline", start+5*time.Millisecond-now)
	}
}
