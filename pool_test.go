package gameloop

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// recGame records what a match delivers to it.
type recGame struct {
	mu     sync.Mutex
	events []string
	stopAt uint64
	failAt uint64
	panic  bool
	value  any // what to panic with, if not "boom"
}

func (g *recGame) Input(in *Input) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.events = append(g.events, fmt.Sprintf("input %v before %d", in.Kind, in.Tick))
	return nil
}

func (g *recGame) Update(u *Update) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.events = append(g.events, fmt.Sprintf("tick %d", u.Tick))
	switch {
	case u.Tick == g.stopAt:
		return ErrStop
	case u.Tick == g.failAt && g.panic && g.value != nil:
		panic(g.value)
	case u.Tick == g.failAt && g.panic:
		panic("boom")
	case u.Tick == g.failAt:
		return errors.New("boom")
	}
	return nil
}

func (g *recGame) take() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	ev := g.events
	g.events = nil
	return ev
}

// newTestMatch returns a match that is not started, for driving its passes by hand with made-up
// times: the pure part of a pool, given now.
func newTestMatch(t *testing.T, g Game, cfg Config) *Match {
	t.Helper()
	c := NewSharedClock(nil)
	p := NewPool(c, &PoolOptions{Workers: 1})
	t.Cleanup(func() { c.Close() })
	m, err := p.NewMatch(context.Background(), g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.sched.start(0)
	return m
}

// TestMatchPass drives a match's passes with made-up times: ticks on the exact grid, input
// marked with the tick it precedes, catch-up and drops, pause and time scale.
func TestMatchPass(t *testing.T) {
	ms := time.Millisecond
	g := &recGame{}
	m := newTestMatch(t, g, Config{TickRate: 100, MaxTicksPerFrame: 3})
	step := func(now time.Duration, wantNext time.Duration, want ...string) {
		t.Helper()
		next, ended := m.pass(now)
		if ended {
			t.Fatalf("pass(%v) ended the match: %v", now, m.err)
		}
		if next != wantNext {
			t.Errorf("pass(%v): next due at %v, want %v", now, next, wantNext)
		}
		if got := g.take(); !slices.Equal(got, want) {
			t.Errorf("pass(%v) delivered %q, want %q", now, got, want)
		}
	}
	step(5*ms, 10*ms)
	step(10*ms, 20*ms, "tick 1")
	if m.Due() != 10*ms {
		t.Errorf("Due = %v after tick 1, want 10ms", m.Due())
	}
	m.Push(Input{Kind: KeyPress, Key: KeySpace}, Input{Kind: KeyRelease, Key: KeySpace})
	step(25*ms, 30*ms, "input KeyPress before 2", "input KeyRelease before 2", "tick 2")
	// 5 ticks owed, 3 run, 2 dropped; the grid keeps its phase.
	step(72*ms, 80*ms, "tick 3", "tick 4", "tick 5")
	if st := m.Stats(); st.Ticks != 5 || st.DroppedTicks != 2 || st.DroppedTime != 20*ms {
		t.Errorf("Stats: %d ticks, %d dropped (%v), want 5, 2 (20ms)", st.Ticks, st.DroppedTicks, st.DroppedTime)
	}
	// Paused at 85 ms: tick 6, due at 80 ms, was owed and runs; no other comes due.
	m.Pause()
	step(85*ms, never, "tick 6")
	step(200*ms, never)
	m.Resume()
	if err := m.SetTimeScale(0.5); err != nil {
		t.Fatal(err)
	}
	// Resumed at 210 ms, 5 ms of game time before tick 7: at half speed, 10 ms of real time.
	step(210*ms, 220*ms)
	step(226*ms, 240*ms, "tick 7")
	if err := m.SetTimeScale(-1); err == nil {
		t.Error("SetTimeScale(-1) did not fail")
	}
	if err := m.SetTickRate(0); err == nil {
		t.Error("SetTickRate(0) did not fail")
	}
}

// TestMatchPassEnds: an update's ErrStop ends the match normally, an error or a panic ends it
// with the error, wrapped with the tick.
func TestMatchPassEnds(t *testing.T) {
	tests := []struct {
		name  string
		game  *recGame
		check func(error) bool
	}{
		{"ErrStop", &recGame{stopAt: 2}, func(err error) bool { return err == nil }},
		{"error", &recGame{failAt: 2}, func(err error) bool { return err != nil && err.Error() == "gameloop: Update at tick 2: boom" }},
		{"panic", &recGame{failAt: 2, panic: true}, func(err error) bool {
			var pe *PanicError
			return errors.As(err, &pe) && pe.Where == "Update at tick 2"
		}},
		{"panic with ErrStop is a panic", &recGame{failAt: 2, panic: true, value: ErrStop}, func(err error) bool {
			var pe *PanicError
			return errors.As(err, &pe) && pe.Where == "Update at tick 2"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestMatch(t, tt.game, Config{TickRate: 10})
			if _, ended := m.pass(100 * time.Millisecond); ended {
				t.Fatal("ended at tick 1")
			}
			if _, ended := m.pass(200 * time.Millisecond); !ended {
				t.Fatal("did not end at tick 2")
			}
			if !tt.check(m.err) {
				t.Errorf("err = %v", m.err)
			}
		})
	}
}

// Cancelling a match's context ends its pass between updates, however many are owed.
func TestMatchPassCancelledBetweenUpdates(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last uint64
	g := GameFunc(func(u *Update) error {
		last = u.Tick
		if u.Tick == 10 {
			cancel()
		}
		return nil
	})
	c := NewSharedClock(nil)
	defer c.Close()
	m, err := NewPool(c, &PoolOptions{Workers: 1}).NewMatch(ctx, g, Config{TickRate: 1000, MaxTicksPerFrame: math.MaxInt32, MaxFrameTime: math.MaxInt64})
	if err != nil {
		t.Fatal(err)
	}
	// The match as the waiter holds it while it runs a pass: started, and taken out of the
	// heap (its start is far off, so that the waiter leaves it alone). The cancellation then
	// only marks it kicked, as it would a running match, and the pass sees the context.
	start := c.Now() + time.Hour
	m.StartAt(start)
	c.mu.Lock()
	if !c.queue.remove(&m.entry) {
		c.mu.Unlock()
		t.Fatal("the match is not in the heap")
	}
	c.mu.Unlock()
	_, ended := m.pass(start + time.Hour)
	if !ended || !errors.Is(m.err, context.Canceled) || last != 10 {
		t.Errorf("pass owing 3.6 million ticks, cancelled at tick 10: ended %v, err %v, last tick %d", ended, m.err, last)
	}
	// End it as the waiter would, so that closing the clock does not wait for it.
	c.mu.Lock()
	m.state = matchEnded
	c.mu.Unlock()
	m.finish()
}

// TestPool runs matches on a pool: they tick, take input, pause, and end by ErrStop, by their
// context, by Stop and by Close, each with its own Err, leaving no goroutine behind.
func TestPool(t *testing.T) {
	t.Run("default", func(t *testing.T) { testPool(t, &SharedClockOptions{Resolution: 200 * time.Microsecond}) })
	t.Run("spin", func(t *testing.T) {
		testPool(t, &SharedClockOptions{Resolution: 200 * time.Microsecond, Spin: true})
	})
}

func testPool(t *testing.T, opts *SharedClockOptions) {
	before := runtime.NumGoroutine()
	c := NewSharedClock(opts)
	p := NewPool(c, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	newMatch := func(g Game, ctx context.Context) *Match {
		t.Helper()
		m, err := p.NewMatch(ctx, g, Config{TickRate: 500})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	stopping := newMatch(&recGame{stopAt: 10}, ctx)
	cctx, ccancel := context.WithCancel(ctx)
	cancelled := newMatch(&recGame{}, cctx)
	stopped := newMatch(&recGame{}, ctx)
	inputs := &recGame{}
	withInput := newMatch(inputs, ctx)
	paused := newMatch(&recGame{}, ctx)
	closed := newMatch(&recGame{}, ctx)
	neverStarted := newMatch(&recGame{}, ctx)
	paused.Pause()
	for _, m := range []*Match{stopping, cancelled, stopped, withInput, paused, closed} {
		m.Start()
	}
	if err := stopping.Wait(); err != nil {
		t.Errorf("a match that returned ErrStop: Err = %v", err)
	}
	ccancel()
	if err := cancelled.Wait(); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled match: Err = %v", err)
	}
	stopped.Stop()
	if err := stopped.Wait(); !errors.Is(err, ErrStopped) {
		t.Errorf("a stopped match: Err = %v", err)
	}
	withInput.Push(Input{Kind: Char, Rune: 'x'})
	for !slices.ContainsFunc(inputs.take(), func(s string) bool { return s[:5] == "input" }) {
		time.Sleep(time.Millisecond)
	}
	if st := paused.Stats(); st.Ticks != 0 || !st.Paused {
		t.Errorf("a paused match: %d ticks, paused %v", st.Ticks, st.Paused)
	}
	paused.Resume()
	for paused.Stats().Ticks < 3 {
		time.Sleep(time.Millisecond)
	}
	if n := p.Len(); n != 4 {
		t.Errorf("Len = %d, want 4", n)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for _, m := range []*Match{closed, paused, withInput, neverStarted} {
		if err := m.Wait(); !errors.Is(err, ErrClosed) {
			t.Errorf("a match of a closed pool: Err = %v", err)
		}
	}
	if _, err := p.NewMatch(ctx, &recGame{}, Config{}); !errors.Is(err, ErrClosed) {
		t.Errorf("NewMatch on a closed pool: %v", err)
	}
	c.Close()
	waitGoroutines(t, before)
}

// TestPoolSlowMatch: a pass that takes longer than SlowPass moves its match off the waiter.
func TestPoolSlowMatch(t *testing.T) {
	g := GameFunc(func(*Update) error {
		time.Sleep(3 * time.Millisecond)
		return nil
	})
	m := newTestMatch(t, g, Config{TickRate: 1000})
	time.Sleep(2 * time.Millisecond) // ticks are owed
	if ok, _ := m.runPass(m.pool.clock.Now()); !ok || m.slow.left != 2 {
		t.Fatalf("after a slow pass: %d passes on the workers, want 2", m.slow.left)
	}
}

// TestSlowRecord: how long a match stays on the workers after slow passes.
func TestSlowRecord(t *testing.T) {
	const S, Q = true, false
	tests := []struct {
		name   string
		passes []bool
		left   int // passes still to run on the workers after them
	}{
		{"never slow", []bool{Q, Q, Q}, 0},
		{"once slow", []bool{S}, 2},
		{"once slow, then back", []bool{S, Q, Q}, 0},
		{"twice in a row", []bool{S, S}, 4},
		{"slow again after going back", []bool{S, Q, Q, Q, S}, 4},
		{"three times", []bool{S, Q, S, Q, S}, 8},
		{"slow at every tick", slices.Repeat([]bool{S}, 100), slowHold},
		{"slow at every tick, then quick", append(slices.Repeat([]bool{S}, 100), slices.Repeat([]bool{Q}, slowHold-1)...), 1},
		{"slow at every tick, then quick for long", append(slices.Repeat([]bool{S}, 100), slices.Repeat([]bool{Q}, slowHold)...), 0},
		// Forgiven one doubling after slowForgive quick passes: the next slow pass holds the
		// match for 2, not 4.
		{"forgiven", append(append([]bool{S}, slices.Repeat([]bool{Q}, slowForgive)...), S), 2},
		{"not yet forgiven", append(append([]bool{S}, slices.Repeat([]bool{Q}, slowForgive-1)...), S), 4},
		// A match slow at every 10th pass goes back to the waiter a few times, until the
		// hold is longer than its period; then it stays.
		{"slow every 10th pass", slices.Repeat(append([]bool{S}, slices.Repeat([]bool{Q}, 9)...), 20), slowHold - 9},
	}
	for _, tc := range tests {
		var r slowRecord
		for _, slow := range tc.passes {
			r.note(slow)
		}
		if r.left != tc.left {
			t.Errorf("%s: %d passes left on the workers, want %d", tc.name, r.left, tc.left)
		}
	}
	// How often the match slow every 10th pass ran a slow pass on the waiter: 4 times (holds
	// of 2, 4, 8 passes end before its next slow one; 16 does not).
	var r slowRecord
	onWaiter := 0
	for i := range 1000 {
		slow := i%10 == 0
		if slow && r.left == 0 {
			onWaiter++
		}
		r.note(slow)
	}
	if onWaiter != 4 {
		t.Errorf("a match slow every 10th pass ran %d slow passes on the waiter, want 4", onWaiter)
	}
}

// TestPoolCloseClock: closing the clock closes its pools.
func TestPoolCloseClock(t *testing.T) {
	before := runtime.NumGoroutine()
	c := NewSharedClock(nil)
	p := NewPool(c, nil)
	m, err := p.NewMatch(context.Background(), &recGame{}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	m.Start()
	c.Close()
	if err := m.Wait(); !errors.Is(err, ErrClosed) {
		t.Errorf("Err = %v, want ErrClosed", err)
	}
	if _, err := NewPool(c, nil).NewMatch(context.Background(), &recGame{}, Config{}); !errors.Is(err, ErrClosed) {
		t.Errorf("a pool on a closed clock: %v", err)
	}
	waitGoroutines(t, before)
}

// TestNewMatchRejectsUnusedSettings: a setting that a pool's match cannot honour is an error
// naming it, not silently ignored; those it uses, and NoFrames, are accepted.
func TestNewMatchRejectsUnusedSettings(t *testing.T) {
	c := NewSharedClock(nil)
	defer c.Close()
	p := NewPool(c, &PoolOptions{Workers: 1})
	for field, cfg := range map[string]Config{
		"Window":           {Window: NewHeadlessWindow(1, 1)},
		"Clock":            {Clock: NewManualClock()},
		"MaxFPS":           {MaxFPS: 60},
		"FrameTimeSamples": {FrameTimeSamples: 16},
		"Lazy":             {Lazy: true},
		"Bench":            {Bench: true},
		"TickRate":         {TickRate: -1},
	} {
		var ce *ConfigError
		if _, err := p.NewMatch(context.Background(), &recGame{}, cfg); !errors.As(err, &ce) || ce.Field != field {
			t.Errorf("NewMatch with %s set: %v, want a *ConfigError on %s", field, err, field)
		}
	}
	if p.Len() != 0 {
		t.Errorf("%d matches in the pool after refused ones, want 0", p.Len())
	}
	m, err := p.NewMatch(context.Background(), &recGame{}, Config{TickRate: 20, MaxTicksPerFrame: 2,
		MaxFrameTime: time.Second, TimeScale: 2, NoFrames: true})
	if err != nil {
		t.Fatalf("NewMatch with the settings it uses: %v", err)
	}
	if st := m.Stats(); st.TickRate != 20 || st.TimeScale != 2 {
		t.Errorf("stats: tick rate %d, time scale %v; want 20, 2", st.TickRate, st.TimeScale)
	}
	var ce *ConfigError
	if err := m.SetTickRate(0); !errors.As(err, &ce) || ce.Setter != "SetTickRate" {
		t.Errorf("Match.SetTickRate(0) = %v, want a ConfigError from SetTickRate", err)
	}
	m.Stop()
}

// TestBadPoolOptions: a nil clock or a negative setting panics with a message naming it,
// rather than failing later or being taken for the default.
func TestBadPoolOptions(t *testing.T) {
	c := NewSharedClock(nil)
	defer c.Close()
	for want, f := range map[string]func(){
		"nil *SharedClock":                  func() { NewPool(nil, nil) },
		"PoolOptions.Workers":               func() { NewPool(c, &PoolOptions{Workers: -1}) },
		"PoolOptions.SlowPass":              func() { NewPool(c, &PoolOptions{SlowPass: -time.Millisecond}) },
		"SharedClockOptions.Resolution (-1": func() { NewSharedClock(&SharedClockOptions{Resolution: -1}) },
	} {
		func() {
			defer func() {
				if msg, _ := recover().(string); !strings.Contains(msg, want) {
					t.Errorf("panic %q, want one naming %q", msg, want)
				}
			}()
			f()
		}()
	}
}

// TestPushAfterEnd: a match asked to end takes no more input, and one that ended holds none.
func TestPushAfterEnd(t *testing.T) {
	c := NewSharedClock(nil)
	defer c.Close()
	p := NewPool(c, &PoolOptions{Workers: 1})
	g := &recGame{}
	m, err := p.NewMatch(context.Background(), g, Config{TickRate: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Push(Input{Kind: KeyPress, Key: KeyLeft}) {
		t.Error("Push before the start: not taken")
	}
	m.Stop()
	if m.Push(Input{Kind: KeyPress, Key: KeyRight}) {
		t.Error("Push after Stop: taken")
	}
	if err := m.Wait(); !errors.Is(err, ErrStopped) {
		t.Errorf("Err = %v, want ErrStopped", err)
	}
	if m.Push(Input{Kind: KeyPress, Key: KeyRight}) {
		t.Error("Push after the end: taken")
	}
	if m.pending != nil {
		t.Errorf("an ended match holds %d inputs", len(m.pending))
	}
}

// countGame counts its updates, and those that began before they were due.
type countGame struct {
	m            *Match
	ticks, early atomic.Int32
	hold         chan struct{} // if not nil, each update waits for a value from it
	busy         time.Duration // how long each update keeps the processor busy
}

func (g *countGame) Update(u *Update) error {
	if g.m.pool.clock.Now() < g.m.Due() {
		g.early.Add(1)
	}
	g.ticks.Add(1)
	for start := time.Now(); time.Since(start) < g.busy; {
	}
	if g.hold != nil {
		<-g.hold
	}
	return nil
}

// burstStep is the tick period of the matches of burstMatches. It is long (1 Hz) so that a test
// held up by a loaded machine between the bursts it plays never finds a second tick due where it
// counts one: a pass runs every tick due by its start.
const burstStep = time.Second

// burstMatches returns n matches of p at 1 Hz on one grid, each with a countGame, whose first
// update is due at at.
func burstMatches(t *testing.T, p *Pool, n int, at time.Duration) []*countGame {
	t.Helper()
	gs := make([]*countGame, n)
	for i := range gs {
		gs[i] = &countGame{}
		m, err := p.NewMatch(context.Background(), gs[i], Config{TickRate: int(time.Second / burstStep)})
		if err != nil {
			t.Fatal(err)
		}
		gs[i].m = m
		m.StartAt(at - burstStep) // a match's first pass comes at its start, its first update a step later
	}
	return gs
}

// popBurst waits until at and takes what is due from the clock's queue, as its waiter would.
func popBurst(c *SharedClock, at time.Duration) []*waitEntry {
	time.Sleep(at - c.Now())
	c.mu.Lock()
	defer c.mu.Unlock()
	batch, _ := c.queue.popDue(c.Now(), nil, nil)
	return batch
}

// withInfos returns batch with its entries' infos, as runDue takes them.
func withInfos(batch []*waitEntry) ([]*waitEntry, []dueInfo) { return batch, infosOf(batch) }

// waitTicks waits until every game has run want updates, and fails the test if one runs more
// or takes too long; no update may begin early.
func waitTicks(t *testing.T, what string, gs []*countGame, want int32) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, g := range gs {
		for g.ticks.Load() < want && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
	time.Sleep(20 * time.Millisecond) // time for an update too many
	for i, g := range gs {
		if n := g.ticks.Load(); n != want || g.early.Load() != 0 {
			t.Fatalf("%s %d: %d updates (%d early), want %d", what, i, n, g.early.Load(), want)
		}
	}
}

// TestRunDueSharesBurst: the waiter hands the rest of a long burst to the workers in one piece,
// and every entry of it is served once, whoever takes it: the pool's quick matches, its slow
// one (by a worker), another pool's matches (by that pool's workers), and goroutines waiting on
// the clock.
func TestRunDueSharesBurst(t *testing.T) {
	c := newSharedClock(SharedClockOptions{}) // the test plays the waiter
	p := NewPool(c, &PoolOptions{Workers: 2})
	other := NewPool(c, &PoolOptions{Workers: 1})
	// The burst is set up well ahead of its time: a WaitUntil for a time already past returns
	// without queueing, and a loaded machine can hold the test up for tens of milliseconds.
	at := c.Now() + 300*time.Millisecond
	quick := burstMatches(t, p, 300, at)
	slow := burstMatches(t, p, 1, at)
	slow[0].m.slow.left = 2
	others := burstMatches(t, other, 20, at)
	var waits sync.WaitGroup
	for range 5 {
		waits.Go(func() { c.WaitUntil(at, nil) })
	}
	for {
		c.mu.Lock()
		n := c.queue.len()
		c.mu.Unlock()
		if n == 326 {
			break
		}
		if c.Now() >= at {
			t.Fatalf("%d entries queued by the burst's time, want 326: the machine held the test up for longer than the setup's lead", n)
		}
		time.Sleep(time.Millisecond)
	}

	batch := popBurst(c, at)
	if len(batch) != 326 {
		t.Fatalf("%d entries due, want 326", len(batch))
	}
	setCosts(batch, shareAbove) // long enough to share from its start
	runnerOf(c).runDue(batch, infosOf(batch))
	if p.tail != nil {
		t.Errorf("after the burst: %d entries left in the tail", len(p.tail))
	}
	waitTicks(t, "quick match", quick, 1)
	waitTicks(t, "slow match", slow, 1)
	waitTicks(t, "other pool's match", others, 1)
	waits.Wait()
	// A worker puts the matches it ran back in the queue after their updates: give it time.
	n := 0
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		c.mu.Lock()
		n = c.queue.len()
		c.mu.Unlock()
		if n >= 321 {
			break
		}
	}
	if n != 321 {
		t.Errorf("%d matches back in the queue, want 321", n)
	}

	go c.wait()
	c.Close()
}

// TestRunDueStopsSharing: long bursts in a row that the workers took no part in (here the only
// worker is busy, and the waiter runs them all), each with a worker armed for it where one can
// be, make the waiter run the next long bursts alone, for splitRetry of them. One with no worker
// armed, where one could have been, does not count: the next is tried with one.
func TestRunDueStopsSharing(t *testing.T) {
	c := newSharedClock(SharedClockOptions{})
	// No pass of the burst's matches may count as slow, however long the machine keeps the test
	// from running: a slow match would go to the worker, which is kept busy here.
	p := NewPool(c, &PoolOptions{Workers: 1, SlowPass: time.Hour})
	at := c.Now() + 10*time.Millisecond
	busy := burstMatches(t, p, 1, at)
	busy[0].hold = make(chan struct{})
	busy[0].m.slow.left = 2
	t.Cleanup(func() { // also where the test fails: the worker must not be left waiting
		close(busy[0].hold)
		go c.wait()
		c.Close()
	})
	runnerOf(c).runDue(withInfos(popBurst(c, at))) // the worker takes it, and waits in its update
	for busy[0].ticks.Load() == 0 {
		time.Sleep(time.Millisecond)
	}

	at = c.Now() + 10*time.Millisecond
	gs := burstMatches(t, p, 200, at)
	for _, g := range gs {
		g.busy = 20 * time.Microsecond // the burst takes at least 4 ms
	}
	bursts := int32(0)
	burst := func() {
		batch := popBurst(c, at+time.Duration(bursts)*burstStep)
		setCosts(batch, 10*time.Microsecond) // foreseen alone: 2 ms, long enough to share
		runnerOf(c).runDue(batch, infosOf(batch))
		bursts++
		waitTicks(t, "match", gs, bursts) // all run by the waiter
	}
	if p.canArm() {
		burst()
		if runnerOf(c).splitMisses != 0 || runnerOf(c).splitOff != 0 {
			t.Errorf("after a burst with no worker armed: splitMisses %d, splitOff %d, want 0, 0",
				runnerOf(c).splitMisses, runnerOf(c).splitOff)
		}
	}
	for i := range splitMisses {
		p.armWorker() // where one can be: the worker, busy, does not come
		burst()
		wantMisses, wantOff := i+1, 0
		if i == splitMisses-1 {
			wantMisses, wantOff = 0, splitRetry
		}
		if runnerOf(c).splitMisses != wantMisses || runnerOf(c).splitOff != wantOff {
			t.Errorf("after %d bursts that sharing did not pay for: splitMisses %d, splitOff %d, want %d, %d",
				i+1, runnerOf(c).splitMisses, runnerOf(c).splitOff, wantMisses, wantOff)
		}
	}
	burst()
	if runnerOf(c).splitOff != splitRetry-1 {
		t.Errorf("after the next long burst: splitOff = %d, want %d", runnerOf(c).splitOff, splitRetry-1)
	}
}

// runnerOf returns the runner of c's pools: c must have a pool, made by the caller's goroutine
// (the runner is set once, by the clock's first pool).
func runnerOf(c *SharedClock) *poolRunner { return c.runner.(*poolRunner) }

// setCosts gives each match's entry of batch the cost d, as if its last pass had taken that
// long, for the dispatch to foresee the burst's length.
func setCosts(batch []*waitEntry, d time.Duration) {
	for _, e := range batch {
		if matchOf(e) != nil {
			e.info = makeDueInfo(d, false)
		}
	}
}

// TestKickedOnWorkerWakesWaiter: a match kicked while a worker runs it (its end asked for, a
// control change) goes back in the queue due at once, and the worker wakes the waiter for it.
// It did not: with nothing else queued (the other matches of a cancelled context ended), the
// waiter slept for ever and the match never ended.
func TestKickedOnWorkerWakesWaiter(t *testing.T) {
	c := newSharedClock(SharedClockOptions{})
	p := NewPool(c, &PoolOptions{Workers: 1})
	at := c.Now() + 10*time.Millisecond
	gs := burstMatches(t, p, 1, at)
	t.Cleanup(func() {
		go c.wait()
		c.Close()
	})
	batch := popBurst(c, at) // taken out of the queue, as the waiter takes a burst
	if len(batch) != 1 {
		t.Fatalf("%d entries due, want 1", len(batch))
	}
	m := gs[0].m
	c.mu.Lock()
	m.kicked = true  // kicked while it ran (see poolRunner.takeLocked)
	c.target = never // the waiter sleeps with nothing else queued
	c.mu.Unlock()
	select {
	case <-c.kick:
	default:
	}
	p.runChunk([]*Match{m}) // as a worker runs a chunk of a burst's tail
	select {
	case <-c.kick:
	default:
		t.Fatal("the worker put back a match due at once without waking the waiter")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if m.state != matchWaiting || m.entry.deadline != 0 || c.queue.len() != 1 {
		t.Fatalf("the match: state %d, deadline %v, queue of %d; want waiting, due at 0, in the queue", m.state, m.entry.deadline, c.queue.len())
	}
}
