package gameloop

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// testGame is a game with every optional callback, recording what it is called with.
type testGame struct {
	updates, inputs, variables, renders int
	update                              func(*Update) error
	render                              func(*Render) error
}

func (g *testGame) Update(u *Update) error {
	g.updates++
	if g.update != nil {
		return g.update(u)
	}
	return nil
}
func (g *testGame) Input(*Input) error                   { g.inputs++; return nil }
func (g *testGame) VariableUpdate(*VariableUpdate) error { g.variables++; return nil }
func (g *testGame) Render(r *Render) error {
	g.renders++
	if g.render != nil {
		return g.render(r)
	}
	return nil
}

func TestRunCallsEveryCallback(t *testing.T) {
	win := NewHeadlessWindow(4, 4)
	l, _ := newLoop(t, Config{TickRate: 10, MaxFPS: 20, Window: win})
	win.Push(Input{Kind: KeyPress, Key: KeyA}, Input{Kind: Char, Rune: 'a'})
	g := &testGame{}
	g.update = func(u *Update) error {
		if u.Tick == 5 {
			win.Close()
		}
		return nil
	}
	if err := l.Run(context.Background(), g); err != nil {
		t.Fatalf("Run = %v, want nil when the window closes", err)
	}
	// Frames at 0, 50, ..., 500 ms: 11; the close is seen at the start of the next pass.
	if g.updates != 5 || g.inputs != 2 || g.variables != 11 || g.renders != 11 {
		t.Errorf("updates %d inputs %d variable updates %d renders %d; want 5 2 11 11", g.updates, g.inputs, g.variables, g.renders)
	}
}

func TestRunErrors(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name     string
		game     *testGame
		wantNil  bool
		wantIs   error
		wantText string
		panicked bool
	}{
		{
			name:    "ErrStop ends normally",
			game:    &testGame{update: func(u *Update) error { return stopAt(u, 3, ErrStop) }},
			wantNil: true,
		},
		{
			name:    "wrapped ErrStop ends normally",
			game:    &testGame{update: func(u *Update) error { return stopAt(u, 3, errorsJoin(ErrStop)) }},
			wantNil: true,
		},
		{
			name:     "update error names the tick",
			game:     &testGame{update: func(u *Update) error { return stopAt(u, 3, errBoom) }},
			wantIs:   errBoom,
			wantText: "Update at tick 3: boom",
		},
		{
			name: "render error names the frame",
			game: &testGame{render: func(r *Render) error {
				if r.Frame == 2 {
					return errBoom
				}
				return nil
			}},
			wantIs:   errBoom,
			wantText: "Render of frame 2: boom",
		},
		{
			name:     "a panic with ErrStop is a panic, not a stop",
			game:     &testGame{update: func(u *Update) error { panicAt(u, 2, ErrStop); return nil }},
			wantIs:   ErrStop,
			wantText: "panic in Update at tick 2: gameloop: stop",
			panicked: true,
		},
		{
			name:     "a panic wrapping ErrStop is a panic too",
			game:     &testGame{update: func(u *Update) error { panicAt(u, 2, errorsJoin(ErrStop)); return nil }},
			wantIs:   ErrStop,
			wantText: "panic in Update at tick 2: game over",
			panicked: true,
		},
		{
			name: "panic is recovered with its stack",
			game: &testGame{update: func(u *Update) error {
				if u.Tick == 4 {
					var board []int
					board[u.Tick]++ // a real runtime panic: index out of range
				}
				return nil
			}},
			wantText: "panic in Update at tick 4: runtime error: index out of range [4] with length 0",
			panicked: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, _ := newLoop(t, Config{TickRate: 10, MaxFPS: 10})
			err := l.Run(context.Background(), tc.game)
			if tc.wantNil {
				if err != nil {
					t.Fatalf("Run = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Run = nil, want an error")
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("Run = %v, not wrapping %v", err, tc.wantIs)
			}
			if !strings.Contains(err.Error(), tc.wantText) {
				t.Errorf("Run = %q, want it to contain %q", err, tc.wantText)
			}
			var pe *PanicError
			if got := errors.As(err, &pe); got != tc.panicked {
				t.Errorf("errors.As(*PanicError) = %v, want %v", got, tc.panicked)
			}
			if pe != nil && !strings.Contains(string(pe.Stack), "TestRunErrors") {
				t.Errorf("panic stack does not show where it happened:\n%s", pe.Stack)
			}
			if pe != nil && pe.Unwrap() == nil {
				t.Error("a runtime error panic should unwrap to the runtime error")
			}
		})
	}
}

func stopAt(u *Update, tick uint64, err error) error {
	if u.Tick == tick {
		return err
	}
	return nil
}

func panicAt(u *Update, tick uint64, v any) {
	if u.Tick == tick {
		panic(v)
	}
}

func errorsJoin(err error) error { return errors.Join(errors.New("game over"), err) }

func TestRunResumesAfterAnError(t *testing.T) {
	l, _ := newLoop(t, Config{TickRate: 10, MaxFPS: 10})
	var seen []uint64
	g := GameFunc(func(u *Update) error {
		seen = append(seen, u.Tick)
		if len(seen)%2 == 0 {
			return ErrStop
		}
		return nil
	})
	for range 3 {
		if err := l.Run(context.Background(), g); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != 6 || seen[5] != 6 {
		t.Errorf("ticks seen over three runs: %v, want 1..6", seen)
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		cfg   Config
		field string
	}{
		{Config{TickRate: -1}, "TickRate"},
		{Config{TickRate: MaxRate + 1}, "TickRate"},
		{Config{MaxFPS: -60}, "MaxFPS"},
		{Config{MaxFPS: MaxRate + 1}, "MaxFPS"},
		{Config{MaxTicksPerFrame: -1}, "MaxTicksPerFrame"},
		{Config{MaxFrameTime: -time.Second}, "MaxFrameTime"},
		{Config{TimeScale: -0.5}, "TimeScale"},
		{Config{TimeScale: math.NaN()}, "TimeScale"},
		{Config{TimeScale: math.Inf(1)}, "TimeScale"},
		{Config{FrameTimeSamples: -1}, "FrameTimeSamples"},
		{Config{FrameTimeSamples: MaxFrameTimeSamples + 1}, "FrameTimeSamples"},
		{Config{Lazy: true, Bench: true}, "Lazy"},
		{Config{Bench: true, Clock: NewSystemClock()}, "Clock"},
		{Config{LowPower: true, Bench: true}, "LowPower"},
		{Config{LowPower: true, Clock: NewManualClock()}, "LowPower"},
		{Config{NoFrames: true, MaxFPS: 30}, "NoFrames"},
		{Config{NoFrames: true, Lazy: true}, "NoFrames"},
	}
	for _, tc := range tests {
		_, err := New(tc.cfg)
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("New(%+v) = %v, want a *ConfigError", tc.cfg, err)
			continue
		}
		if ce.Field != tc.field || !strings.Contains(err.Error(), "Config."+tc.field) {
			t.Errorf("New(%+v) = %q, want it to name %s", tc.cfg, err, tc.field)
		}
		if _, err := NewSchedule(tc.cfg); err == nil {
			t.Errorf("NewSchedule(%+v) accepted a bad config", tc.cfg)
		}
	}
	// The value is in the message, so the user sees what they passed.
	_, err := New(Config{TickRate: -7})
	if !strings.Contains(err.Error(), "-7") {
		t.Errorf("error %q does not show the value", err)
	}
}

func TestConfigDefaults(t *testing.T) {
	l, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	c := l.Config()
	if c.TickRate != DefaultTickRate || c.MaxTicksPerFrame != DefaultMaxTicksPerFrame ||
		c.MaxFrameTime != DefaultMaxFrameTime || c.TimeScale != 1 || c.MaxFPS != 0 ||
		c.FrameTimeSamples != DefaultFrameTimeSamples {
		t.Errorf("defaults = %+v", c)
	}
	if _, ok := l.Clock().(*SystemClock); !ok {
		t.Errorf("default clock %T, want *SystemClock", l.Clock())
	}
	if l.Window() != nil {
		t.Errorf("default window %T, want none (headless)", l.Window())
	}
}

// TestZeroAllocsPerFrame checks that a loop in steady state allocates nothing: every event kind
// enabled (input each frame, updates, variable updates, renders, swaps, idles), through both
// APIs.
func TestZeroAllocsPerFrame(t *testing.T) {
	win := NewHeadlessWindow(64, 64)
	l, _ := newLoop(t, Config{TickRate: 60, MaxFPS: 144, Window: win})
	key := Input{Kind: KeyPress, Key: KeySpace}
	ctx := context.Background()
	kinds := map[string]bool{}
	next, stop := pull(l.Events(ctx))
	defer stop()
	frame := func() {
		win.Push(key)
		for {
			ev, _ := next()
			if testing.Testing() && len(kinds) < 6 {
				kinds[strings.SplitN(ev.String(), "{", 2)[0]] = true
			}
			if _, ok := ev.(*AfterRender); ok {
				return
			}
		}
	}
	for range 200 { // warm up: buffers grow to their size
		frame()
	}
	if len(kinds) != 6 {
		t.Fatalf("event kinds seen: %v, want all six", kinds)
	}
	if n := testing.AllocsPerRun(1000, frame); n != 0 {
		t.Errorf("Events: %v allocations per frame, want 0", n)
	}

	// Run, with a game that has every callback.
	l2, _ := newLoop(t, Config{TickRate: 60, MaxFPS: 144, Window: NewHeadlessWindow(64, 64)})
	g := &allocGame{stopAt: 200}
	if err := l2.Run(ctx, g); err != nil {
		t.Fatal(err)
	}
	n := testing.AllocsPerRun(20, func() {
		g.stopAt = g.frames + 50
		if err := l2.Run(ctx, g); err != nil {
			t.Fatal(err)
		}
	})
	// One Run call allocates its iterator closure; spread over 50 frames that is well under one
	// per frame, and anything per frame would show as >= 50.
	if n > 4 {
		t.Errorf("Run: %v allocations per 50 frames, want at most a few per call and none per frame", n)
	}
}

type allocGame struct{ frames, stopAt uint64 }

func (g *allocGame) Update(*Update) error                 { return nil }
func (g *allocGame) Input(*Input) error                   { return nil }
func (g *allocGame) VariableUpdate(*VariableUpdate) error { return nil }
func (g *allocGame) Render(r *Render) error {
	g.frames = r.Frame
	if g.frames >= g.stopAt {
		return ErrStop
	}
	return nil
}

func TestInterpolation(t *testing.T) {
	var x InterpolatedFloat[float64]
	x.Reset(10)
	x.Set(20)
	for _, tc := range []struct{ alpha, want float64 }{{0, 10}, {0.25, 12.5}, {1, 20}, {1.5, 25}} {
		if got := x.At(tc.alpha); got != tc.want {
			t.Errorf("At(%v) = %v, want %v", tc.alpha, got, tc.want)
		}
	}
	p := NewInterpolated(Vec2{0, 0})
	p.Set(Vec2{4, -8})
	if got := p.At(0.5); got != (Vec2{2, -4}) {
		t.Errorf("Vec2 At(0.5) = %v", got)
	}
	q := NewInterpolated(Vec3{1, 1, 1})
	q.Set(Vec3{3, 5, 7})
	if got := q.At(0.5); got != (Vec3{2, 3, 4}) {
		t.Errorf("Vec3 At(0.5) = %v", got)
	}
	if got := Lerp[float32](1, 3, 0.5); got != 2 {
		t.Errorf("Lerp float32 = %v", got)
	}
}
