package gameloop

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
)

// short renders an event compactly for traces: U3 (update, tick 3), R2/1 a=0.40 (render frame
// 2 after tick 1, alpha), V2, A2, I:Space/4 (input before tick 4), W40ms (idle).
func short(ev Event) string {
	switch ev := ev.(type) {
	case *Update:
		return fmt.Sprintf("U%d", ev.Tick)
	case *VariableUpdate:
		return fmt.Sprintf("V%d", ev.Frame)
	case *Render:
		return fmt.Sprintf("R%d/%d a=%.2f", ev.Frame, ev.Tick, ev.Alpha)
	case *AfterRender:
		return fmt.Sprintf("A%d", ev.Frame)
	case *Idle:
		return fmt.Sprintf("W%v", ev.Wait)
	case *Input:
		switch ev.Kind {
		case KeyPress:
			return fmt.Sprintf("I:%v/%d", ev.Key, ev.Tick)
		default:
			return fmt.Sprintf("I:%v/%d", ev.Kind, ev.Tick)
		}
	}
	return ev.String()
}

type tracer struct {
	clock *ManualClock
	lines []string
}

func (tr *tracer) add(ev Event) {
	tr.lines = append(tr.lines, fmt.Sprintf("%v %s", tr.clock.Now(), short(ev)))
}

func newLoop(t testing.TB, cfg Config) (*Loop, *ManualClock) {
	t.Helper()
	clk, _ := cfg.Clock.(*ManualClock)
	if clk == nil && cfg.Clock == nil {
		clk = NewManualClock()
		cfg.Clock = clk
	}
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l, clk
}

func compareTrace(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("trace:\n  got:\n    %s\n  want:\n    %s", strings.Join(got, "\n    "), strings.Join(want, "\n    "))
	}
}

func TestEventSequence(t *testing.T) {
	win := NewHeadlessWindow(80, 24)
	l, clk := newLoop(t, Config{TickRate: 10, MaxFPS: 25, Window: win})
	tr := &tracer{clock: clk}
	for ev := range l.Events(context.Background()) {
		tr.add(ev)
		if idle, ok := ev.(*Idle); ok && clk.Now() == 80*time.Millisecond {
			// Input arriving during a wait is delivered at the next pass, before its updates.
			_ = idle
			win.Push(Input{Kind: KeyPress, Key: KeySpace}, Input{Kind: KeyRelease, Key: KeySpace})
		}
		if clk.Now() >= 200*time.Millisecond && ev.String() == (&AfterRender{Frame: 6}).String() {
			break
		}
	}
	compareTrace(t, tr.lines, []string{
		"0s V1", "0s R1/0 a=0.00", "0s A1", "0s W40ms",
		"40ms V2", "40ms R2/0 a=0.40", "40ms A2", "40ms W40ms",
		"80ms V3", "80ms R3/0 a=0.80", "80ms A3", "80ms W20ms",
		"100ms I:Space/1", "100ms I:KeyRelease/1", "100ms U1", "100ms W20ms",
		"120ms V4", "120ms R4/1 a=0.20", "120ms A4", "120ms W40ms",
		"160ms V5", "160ms R5/1 a=0.60", "160ms A5", "160ms W40ms",
		"200ms U2", "200ms V6", "200ms R6/2 a=0.00", "200ms A6",
	})
	if err := l.Err(); err != nil {
		t.Errorf("Err after break = %v, want nil", err)
	}
}

// countTicks runs l until its clock reaches until and returns the updates seen; it checks that
// tick numbers are consecutive.
func countTicks(t *testing.T, l *Loop, clk *ManualClock, until time.Duration) uint64 {
	t.Helper()
	var n uint64
	for ev := range l.Events(context.Background()) {
		if u, ok := ev.(*Update); ok {
			n++
			if u.Tick != l.sched.Ticks() {
				t.Fatalf("update %d has tick %d", n, u.Tick)
			}
		}
		if clk.Now() >= until {
			if _, ok := ev.(*Idle); ok {
				break
			}
		}
	}
	return n
}

func TestExactTickCounts(t *testing.T) {
	// The loop on simulated time: a day at 60 Hz is exactly 5,184,000 updates, and the last is
	// at exactly 24h. (Schedule tests cover 144 Hz over a day; here an hour at 144 Hz.)
	for _, tc := range []struct {
		rate   int
		period time.Duration
		want   uint64
	}{
		{60, 24 * time.Hour, 5_184_000},
		{144, time.Hour, 518_400},
	} {
		if testing.Short() && tc.period > time.Hour {
			continue
		}
		l, clk := newLoop(t, Config{TickRate: tc.rate, MaxFPS: 1, Bench: true})
		var last uint64
		var lastAt time.Duration
		for ev := range l.Events(context.Background()) {
			if clk.Now() > tc.period {
				break
			}
			if u, ok := ev.(*Update); ok {
				last, lastAt = u.Tick, clk.Now()
			}
		}
		if last != tc.want || lastAt != tc.period {
			t.Errorf("%d Hz over %v: last update tick %d at %v, want %d at %v", tc.rate, tc.period, last, lastAt, tc.want, tc.period)
		}
		if st := l.Stats(); st.DroppedTicks != 0 || st.Frames != uint64(tc.period/time.Second)+1 {
			t.Errorf("%d Hz: %d dropped, %d frames; want 0 and one a second", tc.rate, st.DroppedTicks, st.Frames)
		}
	}
}

func TestSlowUpdatesDropTicks(t *testing.T) {
	// Every update costs two ticks of real time. The loop runs at most MaxTicksPerFrame per
	// frame, drops the rest, and keeps drawing frames.
	l, clk := newLoop(t, Config{TickRate: 100, MaxTicksPerFrame: 3, MaxFPS: 50})
	var perFrame []int
	n := 0
	for ev := range l.Events(context.Background()) {
		switch ev.(type) {
		case *Update:
			n++
			clk.Advance(20 * time.Millisecond)
		case *Render:
			perFrame = append(perFrame, n)
			n = 0
		}
		if len(perFrame) == 8 {
			break
		}
	}
	// Frame 1 at 0. At 10ms one tick is owed; it costs 20ms, so the next pass (30ms) owes two
	// more before the frame due at 20ms is drawn; from then on more are owed than the cap.
	want := []int{0, 3, 3, 3, 3, 3, 3, 3}
	if fmt.Sprint(perFrame) != fmt.Sprint(want) {
		t.Errorf("updates per frame = %v, want %v", perFrame, want)
	}
	st := l.Stats()
	if !st.RunningSlowly || st.DroppedTicks == 0 {
		t.Errorf("Stats = %+v, want RunningSlowly and dropped ticks", st)
	}
	if st.DroppedTime != time.Duration(st.DroppedTicks)*10*time.Millisecond {
		t.Errorf("DroppedTime %v for %d ticks of 10ms", st.DroppedTime, st.DroppedTicks)
	}
}

func TestClockJump(t *testing.T) {
	// A laptop that sleeps for an hour: on waking the loop catches up MaxFrameTime at most.
	l, clk := newLoop(t, Config{TickRate: 60, MaxFPS: 60, MaxFrameTime: 100 * time.Millisecond, MaxTicksPerFrame: 10})
	ticks, jumped := 0, false
	var afterJump []int
	for ev := range l.Events(context.Background()) {
		switch ev.(type) {
		case *Update:
			ticks++
		case *Render:
			if jumped {
				afterJump = append(afterJump, ticks)
				ticks = 0
			}
		case *Idle:
			if !jumped && l.Stats().Frames == 10 {
				clk.Advance(time.Hour)
				jumped, ticks = true, 0
			}
		}
		if len(afterJump) == 3 {
			break
		}
	}
	// 100ms of catch-up at 60 Hz is 6 ticks; then one tick a frame again.
	if fmt.Sprint(afterJump) != "[6 1 1]" {
		t.Errorf("updates per frame after the jump = %v, want [6 1 1]", afterJump)
	}
	st := l.Stats()
	if st.DroppedTime < time.Hour-time.Second || st.DroppedTime > time.Hour {
		t.Errorf("DroppedTime = %v, want about an hour", st.DroppedTime)
	}
}

func TestPauseFreezesTicksNotFrames(t *testing.T) {
	l, _ := newLoop(t, Config{TickRate: 10, MaxFPS: 40})
	var trace []string
	for ev := range l.Events(context.Background()) {
		switch ev := ev.(type) {
		case *Update:
			trace = append(trace, short(ev))
			if ev.Tick == 2 {
				l.Pause()
			}
		case *Render:
			trace = append(trace, short(ev))
			if ev.Frame == 15 {
				l.Resume()
			}
		}
		if len(trace) == 22 {
			break
		}
	}
	want := "U1 R5/1 a=0.00 R6/1 a=0.25 R7/1 a=0.50 R8/1 a=0.75 U2 " +
		// paused after tick 2: frames go on with alpha frozen
		"R9/2 a=0.00 R10/2 a=0.00 R11/2 a=0.00 R12/2 a=0.00 R13/2 a=0.00 R14/2 a=0.00 R15/2 a=0.00 " +
		// resumed at frame 15: time goes on from where it stopped
		"R16/2 a=0.25 R17/2 a=0.50 R18/2 a=0.75 U3 R19/3 a=0.00"
	got := strings.Join(trace, " ")
	if !strings.HasSuffix(got, want) {
		t.Errorf("trace:\n got %s\nwant …%s", got, want)
	}
	if !strings.HasPrefix(got, "R1/0 a=0.00 R2/0 a=0.25") {
		t.Errorf("trace starts %s", got[:30])
	}
}

func TestTimeScale(t *testing.T) {
	l, clk := newLoop(t, Config{TickRate: 60, MaxFPS: 30})
	if err := l.SetTimeScale(0.5); err != nil {
		t.Fatal(err)
	}
	if n := countTicks(t, l, clk, 2*time.Second); n != 60 {
		t.Errorf("2s at time scale 0.5: %d updates, want 60", n)
	}
	for _, bad := range []float64{-1, math.NaN(), math.Inf(1)} {
		var ce *ConfigError
		if err := l.SetTimeScale(bad); !errors.As(err, &ce) || ce.Field != "TimeScale" || ce.Setter != "SetTimeScale" {
			t.Errorf("SetTimeScale(%v) = %v, want a ConfigError on TimeScale from SetTimeScale", bad, err)
		}
	}
	// Config.TimeScale too.
	l2, clk2 := newLoop(t, Config{TickRate: 60, MaxFPS: 30, TimeScale: 2})
	if n := countTicks(t, l2, clk2, time.Second); n != 120 {
		t.Errorf("1s at time scale 2: %d updates, want 120", n)
	}
}

func TestSetTickRateMidRun(t *testing.T) {
	l, clk := newLoop(t, Config{TickRate: 100, MaxFPS: 100})
	var ticks []string
	for ev := range l.Events(context.Background()) {
		if u, ok := ev.(*Update); ok {
			ticks = append(ticks, fmt.Sprintf("%d@%v", u.Tick, clk.Now()))
			if u.Tick == 3 {
				if err := l.SetTickRate(25); err != nil {
					t.Fatal(err)
				}
			}
			if u.Tick == 5 {
				break
			}
		}
	}
	want := "[1@10ms 2@20ms 3@30ms 4@70ms 5@110ms]"
	if got := fmt.Sprint(ticks); got != want {
		t.Errorf("ticks = %s, want %s", got, want)
	}
	if err := l.SetTickRate(-5); err == nil {
		t.Error("SetTickRate(-5) succeeded")
	}
}

func TestBreakAndResume(t *testing.T) {
	// Two scene functions share one loop: the second goes on exactly where the first stopped.
	win := NewHeadlessWindow(10, 10)
	l, clk := newLoop(t, Config{TickRate: 20, MaxFPS: 30, Window: win})
	whole := func() []string {
		ref, refClk := newLoop(t, Config{TickRate: 20, MaxFPS: 30, Window: NewHeadlessWindow(10, 10)})
		tr := &tracer{clock: refClk}
		for ev := range ref.Events(context.Background()) {
			if tr.add(ev); len(tr.lines) == 40 {
				break
			}
		}
		return tr.lines
	}()

	tr := &tracer{clock: clk}
	scene := func(stop func(Event) bool) {
		for ev := range l.Events(context.Background()) {
			tr.add(ev)
			if stop(ev) {
				return
			}
		}
	}
	// Leave after an update, then in the middle of a frame (after Render, before AfterRender),
	// then after an idle, then go on to the end.
	scene(func(ev Event) bool { _, ok := ev.(*Update); return ok })
	scene(func(ev Event) bool { _, ok := ev.(*Render); return ok })
	scene(func(ev Event) bool { _, ok := ev.(*Idle); return ok })
	scene(func(Event) bool { return len(tr.lines) == 40 })
	compareTrace(t, tr.lines, whole)
}

func TestLazy(t *testing.T) {
	win := NewHeadlessWindow(10, 10)
	l, clk := newLoop(t, Config{Lazy: true, Window: win})
	win.Push(Input{Kind: KeyPress, Key: KeyA})
	tr := &tracer{clock: clk}
	for ev := range l.Events(context.Background()) {
		tr.add(ev)
		if a, ok := ev.(*AfterRender); ok {
			if a.Frame == 3 {
				break
			}
			// Time passes with nothing to do: a lazy loop neither ticks nor draws.
			clk.Advance(time.Minute)
			win.Push(Input{Kind: KeyPress, Key: KeyB})
		}
	}
	compareTrace(t, tr.lines, []string{
		"0s I:A/1", "0s U1", "0s V1", "0s R1/1 a=0.00", "0s A1",
		"1m0s I:B/2", "1m0s U2", "1m0s V2", "1m0s R2/2 a=0.00", "1m0s A2",
		"2m0s I:B/3", "2m0s U3", "2m0s V3", "2m0s R3/3 a=0.00", "2m0s A3",
	})
}

func TestLazyWaitsForInputAndCancellation(t *testing.T) {
	win := NewHeadlessWindow(10, 10)
	l, _ := newLoop(t, Config{Lazy: true, Window: win})
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan string, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range l.Events(ctx) {
			events <- short(ev)
		}
	}()
	win.Push(Input{Kind: KeyPress, Key: KeyX})
	for _, want := range []string{"I:X/1", "U1", "V1", "R1/1 a=0.00", "A1"} {
		if got := <-events; got != want {
			t.Fatalf("event %q, want %q", got, want)
		}
	}
	cancel() // the loop is blocked waiting for input: cancellation must wake it
	<-done
	if !errors.Is(l.Err(), context.Canceled) {
		t.Errorf("Err = %v, want context.Canceled", l.Err())
	}
}

func TestBenchMode(t *testing.T) {
	// Bench mode never sleeps: ten simulated minutes pass at once.
	l, err := New(Config{TickRate: 60, MaxFPS: 144, Bench: true})
	if err != nil {
		t.Fatal(err)
	}
	var ticks, frames uint64
	for ev := range l.Events(context.Background()) {
		switch ev.(type) {
		case *Update:
			ticks++
		case *Render:
			frames++
		}
		if _, ok := ev.(*AfterRender); ok && l.Clock().Now() >= 10*time.Minute {
			break
		}
	}
	if ticks != 36_000 || frames != 86_400+1 {
		t.Errorf("10 simulated minutes: %d ticks, %d frames; want 36000, 86401", ticks, frames)
	}
}

func TestZeroSizeWindowSkipsFrames(t *testing.T) {
	win := NewHeadlessWindow(640, 480)
	l, _ := newLoop(t, Config{TickRate: 10, MaxFPS: 10, Window: win})
	var trace []string
	for ev := range l.Events(context.Background()) {
		switch ev := ev.(type) {
		case *Update:
			trace = append(trace, short(ev))
			switch ev.Tick {
			case 2:
				win.SetSize(0, 0) // minimised
			case 5:
				win.Push(Input{Kind: Resize, Width: 800, Height: 600})
			}
		case *Render:
			trace = append(trace, fmt.Sprintf("R%d %dx%d", ev.Frame, ev.Width, ev.Height))
		}
		if len(trace) == 11 {
			break
		}
	}
	want := "R1 640x480 U1 R2 640x480 U2 U3 U4 U5 U6 R3 800x600 U7 R4 800x600"
	if got := strings.Join(trace, " "); got != want {
		t.Errorf("trace:\n got %s\nwant %s", got, want)
	}
	if st := l.Stats(); st.SkippedFrames != 4 {
		t.Errorf("SkippedFrames = %d, want 4", st.SkippedFrames)
	}
	// The range was left at the fourth Render, before its swap.
	if win.Swaps() != 3 {
		t.Errorf("buffers swapped %d times, want 3", win.Swaps())
	}
}

func TestHeadlessRendersAtZeroSize(t *testing.T) {
	l, _ := newLoop(t, Config{TickRate: 10})
	var got []string
	for ev := range l.Events(context.Background()) {
		switch ev := ev.(type) {
		case *Update, *Render:
			got = append(got, short(ev))
			if r, ok := ev.(*Render); ok && (r.Width != 0 || r.Height != 0) {
				t.Errorf("headless Render size %dx%d", r.Width, r.Height)
			}
		}
		if len(got) == 5 {
			break
		}
	}
	// Headless with no cap, frames follow ticks.
	if s := strings.Join(got, " "); s != "R1/0 a=0.00 U1 R2/1 a=0.00 U2 R3/2 a=0.00" {
		t.Errorf("got %s", s)
	}
}

func TestNoFrames(t *testing.T) {
	l, clk := newLoop(t, Config{TickRate: 10, NoFrames: true})
	tr := &tracer{clock: clk}
	for ev := range l.Events(context.Background()) {
		tr.add(ev)
		if len(tr.lines) == 6 {
			break
		}
	}
	// Updates and the waits between them, nothing else; the ticks fall on the same grid as a
	// loop's that draws.
	compareTrace(t, tr.lines, []string{
		"0s W100ms", "100ms U1", "100ms W100ms", "200ms U2", "200ms W100ms", "300ms U3",
	})
	st := l.Stats()
	if st.Ticks != 3 || st.Frames != 0 || st.FrameTimeP99 != 0 {
		t.Errorf("stats: %d ticks, %d frames, frame p99 %v; want 3, 0, 0", st.Ticks, st.Frames, st.FrameTimeP99)
	}
	var ce *ConfigError
	if err := l.SetMaxFPS(30); !errors.As(err, &ce) || ce.Field != "MaxFPS" || ce.Setter != "SetMaxFPS" {
		t.Errorf("SetMaxFPS(30) on a loop without frames = %v, want a ConfigError on MaxFPS", err)
	}
	if err := l.SetMaxFPS(0); err != nil {
		t.Errorf("SetMaxFPS(0) = %v", err)
	}

	// Run sees the same updates; it delivers no Idle, and the next range over Events does.
	ticks := 0
	err := l.Run(context.Background(), GameFunc(func(u *Update) error {
		ticks++
		if u.Tick != uint64(3+ticks) {
			t.Errorf("Run's update %d is tick %d, want %d", ticks, u.Tick, 3+ticks)
		}
		if ticks == 3 {
			return ErrStop
		}
		return nil
	}))
	if err != nil || ticks != 3 {
		t.Fatalf("Run: %v after %d ticks", err, ticks)
	}
	for ev := range l.Events(context.Background()) {
		if _, ok := ev.(*Idle); !ok {
			t.Errorf("first event after Run: %s, want an Idle", short(ev))
		}
		break
	}

	// With a window: its input comes before the tick it precedes, nothing is drawn or
	// swapped, the loop waits for the tick rather than for the next frame, and it ends when
	// the window closes.
	win := NewHeadlessWindow(80, 24)
	lw, clkw := newLoop(t, Config{TickRate: 10, NoFrames: true, Window: win})
	tr = &tracer{clock: clkw}
	win.Push(Input{Kind: KeyPress, Key: KeySpace})
	for ev := range lw.Events(context.Background()) {
		tr.add(ev)
		if len(tr.lines) == 5 {
			win.Close()
		}
	}
	compareTrace(t, tr.lines, []string{
		"0s I:Space/1", "0s W100ms", "100ms U1", "100ms W100ms", "200ms U2", "200ms W100ms",
	})
	if win.Swaps() != 0 {
		t.Errorf("%d swaps on a loop without frames", win.Swaps())
	}
}

func TestUncappedWindowOnSimulatedTime(t *testing.T) {
	// With a window and no cap, frames come as often as time moves; on simulated time that is
	// once per tick, not without end at one instant.
	l, _ := newLoop(t, Config{TickRate: 10, Window: NewHeadlessWindow(1, 1)})
	n := 0
	for ev := range l.Events(context.Background()) {
		if _, ok := ev.(*Render); ok {
			n++
		}
		if u, ok := ev.(*Update); ok && u.Tick == 10 {
			break
		}
	}
	if n != 10 {
		t.Errorf("%d frames before tick 10, want 10", n)
	}
}

func TestCloseEndsTheLoop(t *testing.T) {
	win := NewHeadlessWindow(10, 10)
	l, _ := newLoop(t, Config{TickRate: 10, MaxFPS: 10, Window: win})
	var last Event
	for ev := range l.Events(context.Background()) {
		if u, ok := ev.(*Update); ok && u.Tick == 3 {
			win.Push(Input{Kind: Close})
		}
		last = ev
	}
	if l.Err() != nil {
		t.Errorf("Err = %v, want nil after a close", l.Err())
	}
	if a, ok := last.(*Idle); !ok {
		t.Errorf("last event %v", a)
	}
	// A closed loop stays closed.
	for ev := range l.Events(context.Background()) {
		t.Errorf("event %v after close", ev)
	}
}

func TestContextCancellation(t *testing.T) {
	t.Run("from inside", func(t *testing.T) {
		l, _ := newLoop(t, Config{TickRate: 10, MaxFPS: 10})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		n := 0
		for ev := range l.Events(ctx) {
			if u, ok := ev.(*Update); ok && u.Tick == 2 {
				cancel()
			}
			n++
		}
		if !errors.Is(l.Err(), context.Canceled) {
			t.Errorf("Err = %v", l.Err())
		}
	})
	t.Run("while waiting forever", func(t *testing.T) {
		// Paused and headless with no frame cap: nothing is ever due; cancellation still ends it.
		before := runtime.NumGoroutine()
		l, _ := newLoop(t, Config{TickRate: 10})
		l.Pause()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- l.Run(ctx, GameFunc(func(*Update) error { return nil })) }()
		// Wait until the loop has drawn its first frame and gone to sleep.
		for l.Stats().Frames == 0 {
			runtime.Gosched()
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
		// Cancelling ctx runs the loop's wake-up on a goroutine of its own (context.AfterFunc),
		// which may still be returning when Run has: wait for it rather than count at once.
		waitGoroutines(t, before)
	})
}

// Cancellation ends a pass between updates, even when the pass owes millions of them.
func TestCancellationInsideAPass(t *testing.T) {
	l, clk := newLoop(t, Config{TickRate: 1000, MaxTicksPerFrame: math.MaxInt32, MaxFrameTime: math.MaxInt64})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last uint64
	err := l.Run(ctx, GameFunc(func(u *Update) error {
		last = u.Tick
		if u.Tick == 1 {
			clk.Advance(2 * time.Hour) // 7.2 million ticks owed in the next pass
		}
		if u.Tick == 10 {
			cancel()
		}
		return nil
	}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	if last != 10 {
		t.Errorf("the last update was tick %d; want 10, where ctx was cancelled", last)
	}
}

// Run and Events on a context already cancelled return at once, with its error.
func TestAlreadyCancelled(t *testing.T) {
	l, _ := newLoop(t, Config{TickRate: 10})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := &testGame{}
	if err := l.Run(ctx, g); !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	for ev := range l.Events(ctx) {
		t.Errorf("event %v on a cancelled context", ev)
	}
	if !errors.Is(l.Err(), context.Canceled) {
		t.Errorf("Err = %v, want context.Canceled", l.Err())
	}
	if g.updates+g.renders+g.variables+g.inputs != 0 || l.Stats().Frames != 0 {
		t.Errorf("callbacks ran on a cancelled context: %+v", g)
	}
}

func TestSwapErrorEndsTheLoop(t *testing.T) {
	errGone := errors.New("device lost")
	l, _ := newLoop(t, Config{TickRate: 10, MaxFPS: 10, Window: &failingWindow{HeadlessWindow: NewHeadlessWindow(1, 1), err: errGone}})
	for range l.Events(context.Background()) {
	}
	if err := l.Err(); !errors.Is(err, errGone) || !strings.Contains(err.Error(), "frame 1") {
		t.Errorf("Err = %v, want device lost at frame 1", err)
	}
}

type failingWindow struct {
	*HeadlessWindow
	err error
}

func (w *failingWindow) SwapBuffers() error { return w.err }

func TestEventsIsNotReentrant(t *testing.T) {
	l, _ := newLoop(t, Config{TickRate: 10})
	for range l.Events(context.Background()) {
		if err := l.Run(context.Background(), GameFunc(func(*Update) error { return nil })); !errors.Is(err, ErrAlreadyRunning) {
			t.Errorf("nested Run = %v, want ErrAlreadyRunning", err)
		}
		func() {
			defer func() {
				if err, _ := recover().(error); !errors.Is(err, ErrAlreadyRunning) {
					t.Errorf("nested Events panicked with %v, want ErrAlreadyRunning", err)
				}
			}()
			for range l.Events(context.Background()) {
				t.Fatal("nested Events delivered an event")
			}
		}()
		break
	}
}

// A second, concurrent Run or range over Events is refused without touching the running
// sequence: under -race, the refusal races with nothing, and the running sequence's Err is its
// own.
func TestConcurrentRunIsRefusedWithoutHarm(t *testing.T) {
	l, clk := newLoop(t, Config{TickRate: 10, MaxFPS: 10})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inside := make(chan struct{})
	refused := make(chan struct{})
	done := make(chan error)
	go func() {
		var once bool
		for ev := range l.Events(ctx) {
			if _, ok := ev.(*Update); ok && !once {
				once = true
				close(inside)
				<-refused
			}
			if clk.Now() > time.Second {
				break
			}
		}
		done <- l.Err()
	}()
	<-inside
	for range 3 {
		if err := l.Run(ctx, GameFunc(func(*Update) error { return nil })); !errors.Is(err, ErrAlreadyRunning) {
			t.Errorf("concurrent Run = %v, want ErrAlreadyRunning", err)
		}
		func() {
			defer func() { _ = recover() }()
			for range l.Events(ctx) {
				t.Error("concurrent Events delivered an event")
			}
		}()
	}
	close(refused)
	if err := <-done; err != nil {
		t.Errorf("the running sequence ended with %v, want nil (it broke out)", err)
	}
}

func TestStatsRates(t *testing.T) {
	l, clk := newLoop(t, Config{TickRate: 60, MaxFPS: 30})
	countTicks(t, l, clk, 3*time.Second)
	st := l.Stats()
	if st.FPS != 30 || st.TPS != 60 {
		t.Errorf("FPS %v TPS %v, want 30 and 60", st.FPS, st.TPS)
	}
	if st.FrameTimeP50 != 33_333_333 && st.FrameTimeP50 != 33_333_334 {
		t.Errorf("FrameTimeP50 = %v, want 33.33ms", st.FrameTimeP50)
	}
	if st.FrameTimeMax > 33_333_334 || st.RunningSlowly || st.Ticks != 180 || st.Frames != 91 {
		t.Errorf("Stats = %+v", st)
	}
	if st.TickRate != 60 || st.MaxFPS != 30 || st.TimeScale != 1 || st.Paused {
		t.Errorf("settings in Stats = %+v", st)
	}
}

// FPS and TPS are reported once a few frames are in, not only after the first second.
func TestStatsRatesInTheFirstSecond(t *testing.T) {
	l, clk := newLoop(t, Config{TickRate: 60, MaxFPS: 30})
	if st := l.Stats(); st.FPS != 0 || st.TPS != 0 {
		t.Errorf("before any frame: FPS %v TPS %v", st.FPS, st.TPS)
	}
	countTicks(t, l, clk, 200*time.Millisecond)
	st := l.Stats()
	if math.Abs(st.FPS-30) > 0.5 || math.Abs(st.TPS-60) > 0.5 {
		t.Errorf("after 200ms: FPS %v TPS %v, want 30 and 60", st.FPS, st.TPS)
	}
	// A loop without frames has its TPS before the first whole window too.
	l, clk = newLoop(t, Config{TickRate: 60, NoFrames: true})
	countTicks(t, l, clk, 200*time.Millisecond)
	if st := l.Stats(); st.FPS != 0 || math.Abs(st.TPS-60) > 0.5 {
		t.Errorf("without frames, after 200ms: FPS %v TPS %v, want 0 and 60", st.FPS, st.TPS)
	}
}

func TestSetMaxFPS(t *testing.T) {
	l, clk := newLoop(t, Config{TickRate: 10, MaxFPS: 10})
	frames := 0
	for ev := range l.Events(context.Background()) {
		if _, ok := ev.(*Render); ok {
			frames++
			if frames == 3 {
				if err := l.SetMaxFPS(100); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, ok := ev.(*AfterRender); ok && clk.Now() >= 300*time.Millisecond {
			break
		}
	}
	// 3 frames at 0, 100, 200 ms; then one every 10 ms up to 300 ms.
	if frames != 13 {
		t.Errorf("%d frames, want 13", frames)
	}
	if err := l.SetMaxFPS(-1); err == nil {
		t.Error("SetMaxFPS(-1) succeeded")
	}
}

func TestControlFromAnotherGoroutine(t *testing.T) {
	// The control methods and Stats are safe to call while the loop runs (checked by -race).
	l, _ := newLoop(t, Config{TickRate: 60, MaxFPS: 120, Bench: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ctx.Err() == nil; i++ {
			switch i % 5 {
			case 0:
				l.Pause()
			case 1:
				l.Resume()
			case 2:
				_ = l.SetTimeScale(float64(i%3) + 0.5)
			case 3:
				_ = l.SetTickRate(30 + i%90)
			case 4:
				_ = l.Stats()
			}
			runtime.Gosched()
		}
	}()
	var last uint64
	for ev := range l.Events(ctx) {
		if u, ok := ev.(*Update); ok {
			if u.Tick != last+1 {
				t.Fatalf("tick %d after %d", u.Tick, last)
			}
			if last = u.Tick; last == 20_000 {
				cancel()
			}
		}
	}
	<-done
	if last != 20_000 {
		t.Errorf("stopped at tick %d", last)
	}
}

// warmUp runs the next pass on copies while the pacer spins: it must change nothing the pass
// will do.
func TestWarmUpChangesNothing(t *testing.T) {
	l, _ := newLoop(t, Config{TickRate: 60, MaxFPS: 144, Window: NewHeadlessWindow(64, 64)})
	next, stop := pull(l.Events(context.Background()))
	defer stop()
	for range 50 {
		if _, ok := next(); !ok {
			t.Fatal("the loop ended")
		}
	}
	for range 100 {
		ev, _ := next()
		if _, ok := ev.(*Idle); !ok {
			continue
		}
		sched, frames, evUpdate := l.sched, l.frames, l.evUpdate
		l.warmUp()
		if l.sched != sched || l.frames != frames || l.evUpdate != evUpdate {
			t.Fatalf("warmUp changed the loop:\nschedule %+v\n    then %+v\nframes %+v then %+v", sched, l.sched, frames, l.frames)
		}
	}
}

// On the system clock the loop waits with the pacer, which warms the next pass up as it spins
// (Loop.warmUp): still no allocation per frame. This runs in real time, at 1,000 frames a
// second, but asserts nothing about time.
func TestZeroAllocsPerFrameOnTheSystemClock(t *testing.T) {
	l, err := New(Config{TickRate: 1000, MaxFPS: 1000, Window: NewHeadlessWindow(64, 64)})
	if err != nil {
		t.Fatal(err)
	}
	if l.warmer == nil {
		t.Fatal("the loop does not warm up on the system clock")
	}
	next, stop := pull(l.Events(context.Background()))
	defer stop()
	frame := func() {
		for {
			ev, _ := next()
			if _, ok := ev.(*AfterRender); ok {
				return
			}
		}
	}
	for range 100 {
		frame()
	}
	if n := testing.AllocsPerRun(200, frame); n != 0 {
		t.Errorf("%v allocations per frame, want 0", n)
	}
}
