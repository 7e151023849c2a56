package gameloop

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"
)

// startHeldMatch starts m at at, far enough ahead that the waiter leaves it alone, and takes it
// out of the clock's queue, as the waiter holds a match it runs: the test then drives its passes
// with made-up times, and a control change only marks it kicked.
func startHeldMatch(t *testing.T, m *Match, at time.Duration) {
	t.Helper()
	m.StartAt(at)
	c := m.pool.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.queue.remove(&m.entry) {
		t.Fatal("the match is not in the clock's queue")
	}
}

// endHeldMatch ends a match held by startHeldMatch as the waiter would, so that closing its
// clock does not wait for it.
func endHeldMatch(m *Match) {
	c := m.pool.clock
	c.mu.Lock()
	m.state = matchEnded
	c.mu.Unlock()
	m.finish()
}

// newHeldMatch returns a match of g on a pool of its own, not started.
func newHeldMatch(t *testing.T, g Game, cfg Config) *Match {
	t.Helper()
	c := NewSharedClock(nil)
	t.Cleanup(func() { c.Close() })
	m, err := NewPool(c, &PoolOptions{Workers: 1}).NewMatch(context.Background(), g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A match paused before it starts is paused from its start: however late its first pass runs,
// no tick is owed for the time between its start and that pass.
func TestMatchPausedBeforeStart(t *testing.T) {
	ms := time.Millisecond
	g := &recGame{}
	m := newHeldMatch(t, g, Config{TickRate: 500})
	defer endHeldMatch(m)
	m.Pause()
	at := m.pool.clock.Now() + time.Hour
	startHeldMatch(t, m, at)
	// The waiter's first pass, 50 ms after the start (25 steps): late on a loaded machine.
	if next, ended := m.pass(at + 50*ms); ended || next != never {
		t.Errorf("first pass of a paused match: next %v, ended %v; want never, false", next, ended)
	}
	if got := g.take(); len(got) != 0 {
		t.Errorf("a match paused before its start delivered %q", got)
	}
	// Resumed at 60 ms: its first tick is due one step later.
	m.Resume()
	if next, _ := m.pass(at + 60*ms); next != at+62*ms {
		t.Errorf("resumed at start+60ms: next tick due at start+%v, want start+62ms", next-at)
	}
}

// A match started in the future keeps its start when it is paused and resumed, or given a new
// time scale or tick rate, before then: no tick runs before the start, and the first is due
// one step after it.
func TestMatchStartAtKeptThroughControl(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name     string
		change   []func(*Match)
		firstDue time.Duration // after the start
	}{
		{"pause and resume", []func(*Match){(*Match).Pause, (*Match).Resume}, 10 * ms},
		{"time scale", []func(*Match){func(m *Match) { _ = m.SetTimeScale(0.5) }}, 20 * ms},
		{"time scale 0 and back", []func(*Match){
			func(m *Match) { _ = m.SetTimeScale(0) }, func(m *Match) { _ = m.SetTimeScale(1) }}, 10 * ms},
		{"tick rate", []func(*Match){func(m *Match) { _ = m.SetTickRate(50) }}, 20 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &recGame{}
			m := newHeldMatch(t, g, Config{TickRate: 100})
			defer endHeldMatch(m)
			at := m.pool.clock.Now() + time.Hour
			startHeldMatch(t, m, at)
			// Each change is applied by a pass of its own, 30 and 20 minutes before the start.
			for i, change := range tt.change {
				change(m)
				now := at - time.Duration(30-10*i)*time.Minute
				if _, ended := m.pass(now); ended {
					t.Fatal("ended")
				}
			}
			if got := g.take(); len(got) != 0 {
				t.Fatalf("before its start the match ran %q", got)
			}
			next, _ := m.pass(at + ms)
			if got := g.take(); len(got) != 0 {
				t.Errorf("1 ms after its start the match ran %q", got)
			}
			if next != at+tt.firstDue {
				t.Errorf("first tick due at start%+v, want start+%v", next-at, tt.firstDue)
			}
			m.pass(at + tt.firstDue)
			if got, want := g.take(), []string{"tick 1"}; !slices.Equal(got, want) {
				t.Errorf("at its first tick's time the match ran %q, want %q", got, want)
			}
		})
	}
}

// A match started at the most negative time ticks, at its own pace: it neither stands still nor
// has the waiter run it again and again.
func TestMatchStartAtMinInt64(t *testing.T) {
	ticked := make(chan uint64, 100)
	g := GameFunc(func(u *Update) error {
		ticked <- u.Tick
		return nil
	})
	c := NewSharedClock(nil)
	defer c.Close()
	m, err := NewPool(c, &PoolOptions{Workers: 1}).NewMatch(context.Background(), g, Config{TickRate: 100, TimeScale: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	m.StartAt(math.MinInt64)
	for range 3 {
		select {
		case <-ticked:
		case <-time.After(10 * time.Second):
			t.Fatalf("a match started at math.MinInt64 ran %d ticks in 10 s", m.Stats().Ticks)
		}
	}
	// Its next tick is due in the future: the waiter does not run it until then.
	c.mu.Lock()
	state, deadline := m.state, m.entry.deadline
	c.mu.Unlock()
	if now := c.Now(); state == matchWaiting && deadline < now-time.Second {
		t.Errorf("after 3 ticks the match is due at %v, at %v", deadline, now)
	}
}

// Stop ends a match before its next update, even in the middle of a pass that owes many: the
// pass looks at it between updates, as it does at the context.
func TestMatchStopBetweenUpdates(t *testing.T) {
	var m *Match
	var last uint64
	g := GameFunc(func(u *Update) error {
		last = u.Tick
		if u.Tick == 10 {
			m.Stop()
		}
		return nil
	})
	m = newHeldMatch(t, g, Config{TickRate: 1000, MaxTicksPerFrame: math.MaxInt32, MaxFrameTime: math.MaxInt64})
	at := m.pool.clock.Now() + time.Hour
	startHeldMatch(t, m, at)
	_, ended := m.pass(at + time.Hour)
	if !ended || !errors.Is(m.err, ErrStopped) || last != 10 {
		t.Errorf("pass owing 3.6 million ticks, stopped at tick 10: ended %v, err %v, last tick %d", ended, m.err, last)
	}
	endHeldMatch(m)
}

// A match given a lower time scale keeps the ticks it owed for the time before: the pass that
// applies the change runs them.
func TestMatchScaleChangeKeepsOwedTicks(t *testing.T) {
	ms := time.Millisecond
	for _, scale := range []float64{0.1, 0} {
		g := &recGame{}
		m := newHeldMatch(t, g, Config{TickRate: 60})
		at := m.pool.clock.Now() + time.Hour
		startHeldMatch(t, m, at)
		m.pass(at)
		if err := m.SetTimeScale(scale); err != nil {
			t.Fatal(err)
		}
		m.pass(at + 50*ms)
		if got, want := g.take(), []string{"tick 1", "tick 2", "tick 3"}; !slices.Equal(got, want) {
			t.Errorf("50 ms owed at 60 Hz, then scale %v: the pass ran %q, want %q", scale, got, want)
		}
		if st := m.Stats(); st.DroppedTicks != 0 {
			t.Errorf("scale %v: %d ticks dropped", scale, st.DroppedTicks)
		}
		endHeldMatch(m)
	}
}
