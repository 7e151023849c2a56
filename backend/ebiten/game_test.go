package ebiten

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/netplay"
	ebiten "github.com/hajimehoshi/ebiten/v2"
)

// fakeHost stands in for Ebitengine: the test says what input each frame brings.
type fakeHost struct {
	started bool
	next    []gameloop.Input // the input of the next frame
	min     bool
}

func (h *fakeHost) start() { h.started = true }

func (h *fakeHost) appendInput(buf []gameloop.Input) []gameloop.Input {
	buf = append(buf, h.next...)
	h.next = h.next[:0]
	return buf
}

func (h *fakeHost) minimized() bool { return h.min }

// logGame logs what it is called with, one line a call.
type logGame struct {
	log     []string
	onInput func(in *gameloop.Input) error
	onTick  func(u *gameloop.Update) error
	onDraw  func(r *gameloop.Render) error
}

func (g *logGame) Input(in *gameloop.Input) error {
	g.log = append(g.log, in.String())
	if g.onInput != nil {
		return g.onInput(in)
	}
	return nil
}

func (g *logGame) Update(u *gameloop.Update) error {
	g.log = append(g.log, fmt.Sprintf("update %d", u.Tick))
	if g.onTick != nil {
		return g.onTick(u)
	}
	return nil
}

func (g *logGame) Draw(screen *ebiten.Image, r *gameloop.Render) error {
	g.log = append(g.log, fmt.Sprintf("draw frame=%d tick=%d alpha=%.2f %dx%d", r.Frame, r.Tick, r.Alpha, r.Width, r.Height))
	if g.onDraw != nil {
		return g.onDraw(r)
	}
	return nil
}

// harness runs a Game the way Ebitengine does, on a manual clock.
type harness struct {
	t     *testing.T
	a     *Game
	host  *fakeHost
	clock *gameloop.ManualClock
}

func newHarness(t *testing.T, g gameloop.Game, cfg gameloop.Config) *harness {
	t.Helper()
	clock := gameloop.NewManualClock()
	cfg.Clock = clock
	a, err := New(g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, a: a, host: &fakeHost{}, clock: clock}
	a.host = h.host
	a.Layout(640, 480)
	return h
}

// frame runs one of Ebitengine's frames dt after the last: Layout, Update, Draw. It returns
// Update's result.
func (h *harness) frame(dt time.Duration, in ...gameloop.Input) error {
	h.clock.Advance(dt)
	h.host.next = append(h.host.next, in...)
	h.a.Layout(640, 480)
	if err := h.a.Update(); err != nil {
		return err
	}
	h.a.Draw(nil)
	return nil
}

// frame60 is a frame of a 60 Hz display, in whole nanoseconds.
const frame60 = time.Second / 60

func TestFramesRunTheTicksOwed(t *testing.T) {
	g := &logGame{}
	h := newHarness(t, g, gameloop.Config{TickRate: 20})
	for range 7 {
		if err := h.frame(frame60); err != nil {
			t.Fatal(err)
		}
	}
	// 20 ticks a second drawn at 60 frames: a tick every third frame, and the frames between
	// drawn a third and two thirds of the way to the next. Game time starts a millisecond
	// before the first frame (see web.Driver).
	want := []string{
		"draw frame=1 tick=0 alpha=0.02 640x480",
		"draw frame=2 tick=0 alpha=0.35 640x480",
		"draw frame=3 tick=0 alpha=0.69 640x480",
		"update 1",
		"draw frame=4 tick=1 alpha=0.02 640x480",
		"draw frame=5 tick=1 alpha=0.35 640x480",
		"draw frame=6 tick=1 alpha=0.69 640x480",
		"update 2",
		"draw frame=7 tick=2 alpha=0.02 640x480",
	}
	if got := strings.Join(g.log, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	if !h.host.started {
		t.Error("the first Update did not set Ebitengine's TPS")
	}
	st := h.a.Stats()
	if st.Ticks != 2 || st.Frames != 7 || st.DroppedTicks != 0 {
		t.Errorf("stats: %d ticks, %d frames, %d dropped; want 2, 7, 0", st.Ticks, st.Frames, st.DroppedTicks)
	}
}

func TestInputMarkedWithItsTick(t *testing.T) {
	g := &logGame{}
	h := newHarness(t, g, gameloop.Config{TickRate: 60})
	_ = h.frame(frame60)
	_ = h.frame(frame60, gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyA}, gameloop.Input{Kind: gameloop.Char, Rune: 'a'})
	_ = h.frame(frame60, gameloop.Input{Kind: gameloop.KeyRelease, Key: gameloop.KeyA})
	want := []string{
		"draw frame=1 tick=0 alpha=0.06 640x480",
		"Input{KeyPress A tick=1}",
		"Input{Char 'a' tick=1}",
		"update 1",
		"draw frame=2 tick=1 alpha=0.06 640x480",
		"Input{KeyRelease A tick=2}",
		"update 2",
		"draw frame=3 tick=2 alpha=0.06 640x480",
	}
	if got := strings.Join(g.log, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
}

func TestStallDropsTicks(t *testing.T) {
	g := &logGame{}
	h := newHarness(t, g, gameloop.Config{TickRate: 60, MaxTicksPerFrame: 3})
	_ = h.frame(frame60)
	_ = h.frame(time.Second) // a stall: 60 ticks owed, MaxFrameTime allows 15, 3 run
	st := h.a.Stats()
	if st.Ticks != 3 || st.DroppedTicks == 0 {
		t.Errorf("after a stall of a second: %d ticks, %d dropped; want 3 and some dropped", st.Ticks, st.DroppedTicks)
	}
}

func TestStopAndFailures(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		game *logGame
		want func(err error) bool
	}{
		{"ErrStop from Update ends the game", &logGame{onTick: func(u *gameloop.Update) error {
			if u.Tick == 2 {
				return gameloop.ErrStop
			}
			return nil
		}}, func(err error) bool { return err == ebiten.Termination }},
		{"ErrStop from Input", &logGame{onInput: func(*gameloop.Input) error { return gameloop.ErrStop }},
			func(err error) bool { return err == ebiten.Termination }},
		{"ErrStop from Draw", &logGame{onDraw: func(*gameloop.Render) error { return gameloop.ErrStop }},
			func(err error) bool { return err == ebiten.Termination }},
		{"an error from Update names the tick", &logGame{onTick: func(u *gameloop.Update) error { return boom }},
			func(err error) bool { return errors.Is(err, boom) && strings.Contains(err.Error(), "Update at tick 1") }},
		{"an error from Draw names the frame", &logGame{onDraw: func(*gameloop.Render) error { return boom }},
			func(err error) bool { return errors.Is(err, boom) && strings.Contains(err.Error(), "Draw of frame 1") }},
		{"a panic in Draw", &logGame{onDraw: func(*gameloop.Render) error { panic("drawn wrong") }},
			func(err error) bool {
				var p *gameloop.PanicError
				return errors.As(err, &p) && p.Value == "drawn wrong" && p.Where == "Draw of frame 1"
			}},
		{"a panic in Update", &logGame{onTick: func(*gameloop.Update) error { panic("ticked wrong") }},
			func(err error) bool {
				var p *gameloop.PanicError
				return errors.As(err, &p) && p.Value == "ticked wrong"
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.game, gameloop.Config{TickRate: 60})
			var err error
			for range 5 {
				if err = h.frame(frame60, gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyX}); err != nil {
					break
				}
			}
			if !tc.want(err) {
				t.Fatalf("Update returned %v", err)
			}
			if err != ebiten.Termination {
				if again := h.a.Update(); again != err {
					t.Errorf("the next Update returned %v, want the same error", again)
				}
			}
		})
	}
}

func TestClose(t *testing.T) {
	closeInput := gameloop.Input{Kind: gameloop.Close}
	t.Run("ends the game after the frame", func(t *testing.T) {
		g := &logGame{}
		h := newHarness(t, g, gameloop.Config{TickRate: 60})
		_ = h.frame(frame60)
		if err := h.frame(frame60, closeInput); err != ebiten.Termination {
			t.Fatalf("Update after the close button: %v, want ebiten.Termination", err)
		}
		if last := g.log[len(g.log)-2:]; last[0] != "Input{Close  tick=1}" || last[1] != "update 1" {
			t.Errorf("the game saw %q, want the Close input then the frame's update", last)
		}
	})
	t.Run("the game may keep the window open", func(t *testing.T) {
		g := &logGame{}
		h := newHarness(t, g, gameloop.Config{TickRate: 60})
		g.onInput = func(in *gameloop.Input) error {
			if in.Kind == gameloop.Close {
				h.a.SetShouldClose(false)
			}
			return nil
		}
		for range 3 {
			if err := h.frame(frame60, closeInput); err != nil {
				t.Fatalf("Update with the close vetoed: %v", err)
			}
		}
	})
}

func TestResizeAndMinimise(t *testing.T) {
	g := &logGame{}
	h := newHarness(t, g, gameloop.Config{TickRate: 60})
	_ = h.frame(frame60)
	h.a.Layout(800, 600)
	h.clock.Advance(frame60)
	_ = h.a.Update()
	h.a.Draw(nil)
	h.host.min = true
	_ = h.frame(frame60) // Layout says 640x480 again, but minimised: no frame, and the update runs
	h.host.min = false
	_ = h.frame(frame60)
	want := []string{
		"draw frame=1 tick=0 alpha=0.06 640x480",
		"Input{Resize 800x600 tick=1}",
		"update 1",
		"draw frame=2 tick=1 alpha=0.06 800x600",
		"Input{Resize 640x480 tick=2}",
		"update 2",
		"draw frame=2 tick=1 alpha=0.06 800x600", // Ebitengine drew: the last frame again
		"update 3",
		"draw frame=3 tick=3 alpha=0.06 640x480",
	}
	if got := strings.Join(g.log, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	if st := h.a.Stats(); st.Frames != 3 || st.SkippedFrames != 1 {
		t.Errorf("%d frames, %d skipped; want 3 and 1", st.Frames, st.SkippedFrames)
	}
}

// fixedLayout is a game with a screen of its own size.
type fixedLayout struct{ logGame }

func (*fixedLayout) Layout(int, int) (int, int) { return 320, 200 }

func TestLayouter(t *testing.T) {
	g := &fixedLayout{}
	h := newHarness(t, g, gameloop.Config{TickRate: 60})
	if w, hh := h.a.Layout(1920, 1080); w != 320 || hh != 200 {
		t.Errorf("Layout: %dx%d, want the game's 320x200", w, hh)
	}
	_ = h.frame(frame60)
	if last := g.log[len(g.log)-1]; !strings.HasSuffix(last, " 320x200") {
		t.Errorf("drawn %q, want at 320x200", last)
	}
}

// renderOnly is a game that draws no Ebitengine image.
type renderOnly struct{ renders int }

func (*renderOnly) Update(*gameloop.Update) error   { return nil }
func (g *renderOnly) Render(*gameloop.Render) error { g.renders++; return nil }

func TestRendererWithoutDrawer(t *testing.T) {
	g := &renderOnly{}
	h := newHarness(t, g, gameloop.Config{})
	for range 3 {
		_ = h.frame(frame60)
	}
	if g.renders != 3 {
		t.Errorf("Render called %d times in 3 frames", g.renders)
	}
}

func TestControls(t *testing.T) {
	g := &logGame{}
	h := newHarness(t, g, gameloop.Config{TickRate: 60})
	_ = h.frame(frame60)
	h.a.Pause()
	for range 5 {
		_ = h.frame(frame60)
	}
	// The tick owed when the game paused still runs.
	if st := h.a.Stats(); st.Ticks != 1 || !h.a.Paused() {
		t.Errorf("paused: %d ticks, Paused %v; want 1, true", st.Ticks, h.a.Paused())
	}
	h.a.Resume()
	if err := h.a.SetTimeScale(2); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		_ = h.frame(frame60)
	}
	// The first frame resumes: 4 frames of 2 ticks each follow.
	if st := h.a.Stats(); st.Ticks != 9 {
		t.Errorf("at twice the speed: %d ticks after 5 frames more, want 9", st.Ticks)
	}
	if err := h.a.SetTickRate(0); err == nil || !strings.HasPrefix(err.Error(), "ebiten: ") {
		t.Errorf("SetTickRate(0): %v, want an error from this package", err)
	}
	if err := h.a.SetTimeScale(-1); err == nil || !strings.HasPrefix(err.Error(), "ebiten: ") {
		t.Errorf("SetTimeScale(-1): %v, want an error from this package", err)
	}
}

func TestConfigRefused(t *testing.T) {
	for _, cfg := range []gameloop.Config{
		{MaxFPS: 60}, {Lazy: true}, {Bench: true}, {NoFrames: true},
		{Window: gameloop.NewHeadlessWindow(1, 1)}, {TickRate: -1},
	} {
		_, err := New(&logGame{}, cfg)
		var ce *gameloop.ConfigError
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "ebiten: ") {
			t.Errorf("New(%+v): %v, want a ConfigError", cfg, err)
		}
	}
}

// countGame counts and draws nothing: the cost of the adapter alone.
type countGame struct{ ticks, draws, inputs int }

func (g *countGame) Update(*gameloop.Update) error                 { g.ticks++; return nil }
func (g *countGame) Input(*gameloop.Input) error                   { g.inputs++; return nil }
func (g *countGame) Draw(*ebiten.Image, *gameloop.Render) error    { g.draws++; return nil }
func (g *countGame) VariableUpdate(*gameloop.VariableUpdate) error { return nil }

func TestNoAllocationsPerFrame(t *testing.T) {
	g := &countGame{}
	h := newHarness(t, g, gameloop.Config{TickRate: 20})
	key := []gameloop.Input{{Kind: gameloop.KeyPress, Key: gameloop.KeyA}, {Kind: gameloop.KeyRelease, Key: gameloop.KeyA}}
	for range 10 { // the buffers grow
		_ = h.frame(frame60, key...)
	}
	allocs := testing.AllocsPerRun(200, func() { _ = h.frame(frame60, key...) })
	if allocs != 0 {
		t.Errorf("%.1f allocations per frame, want 0", allocs)
	}
	if g.inputs == 0 || g.ticks == 0 || g.draws == 0 {
		t.Errorf("the game saw %d inputs, %d ticks, %d draws", g.inputs, g.ticks, g.draws)
	}
}

func TestKeys(t *testing.T) {
	for k := ebiten.Key(0); k <= ebiten.KeyMax; k++ {
		key := toKey(k)
		if key == gameloop.KeyUnknown {
			continue
		}
		// Ebitengine's names: "A", "Digit1", "F1", "ArrowUp", "ShiftLeft", "Quote", ...
		name, want := k.String(), key.String()
		norm := strings.NewReplacer("Digit", "", "Arrow", "", "Numpad", "", "Meta", "Super",
			"ContextMenu", "Menu", "Quote", "'", "Comma", ",", "Minus", "-", "Period", ".",
			"Slash", "/", "Semicolon", ";", "Equal", "=", "BracketLeft", "[", "BracketRight", "]",
			"Backslash", "\\", "Backquote", "`").Replace(name)
		for _, side := range []string{"Left", "Right"} {
			for _, mod := range []string{"Shift", "Control", "Alt", "Super"} {
				if norm == mod+side {
					norm = side + mod
				}
			}
		}
		if norm != want {
			t.Errorf("Ebitengine's %s became %s", name, want)
		}
	}
}

// A Game is what netplay.NewLoopGame needs of a loop.
var _ netplay.Loop = (*Game)(nil)
