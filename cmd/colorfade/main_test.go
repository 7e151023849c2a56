package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/glfw"
	"github.com/gameloop-go/gameloop/backend/glfw/glfwtest"
)

func TestMain(m *testing.M) { glfwtest.Main(m) }

// fakeScreen records what the game draws.
type fakeScreen struct {
	clear glfw.Color
	rects [][4]float32
}

func (s *fakeScreen) Clear(c glfw.Color) { s.clear, s.rects = c, nil }

func (s *fakeScreen) FillRect(x, y, w, h float32, _ glfw.Color) {
	s.rects = append(s.rects, [4]float32{x, y, w, h})
}

// ticks runs n updates at 60 per second.
func ticks(t *testing.T, g *game, n int) {
	t.Helper()
	for i := range n {
		if err := g.Update(&gameloop.Update{Tick: uint64(i + 1), DT: time.Second / 60, Seconds: 1.0 / 60}); err != nil {
			t.Fatal(err)
		}
	}
}

func key(kind gameloop.InputKind, k gameloop.Key) *gameloop.Input {
	return &gameloop.Input{Kind: kind, Key: k}
}

func TestGameFadesInFixedSteps(t *testing.T) {
	s := &fakeScreen{}
	g := newGame(s)
	near := func(want float64) {
		t.Helper()
		if got := g.Level(); got < want-1e-9 || got > want+1e-9 {
			t.Fatalf("level %v, want %v", got, want)
		}
	}
	ticks(t, g, 30)
	near(0) // nothing held

	_ = g.Input(key(gameloop.KeyPress, gameloop.KeyUp))
	ticks(t, g, 60)
	near(0.5) // half a second of brightness per second held
	_ = g.Input(key(gameloop.KeyPress, gameloop.KeyDown))
	ticks(t, g, 10)
	near(0.5) // both held: no change
	_ = g.Input(key(gameloop.KeyRelease, gameloop.KeyUp))
	ticks(t, g, 30)
	near(0.25)
	ticks(t, g, 100)
	near(0) // clamped at black
	_ = g.Input(key(gameloop.KeyRelease, gameloop.KeyDown))
	_ = g.Input(key(gameloop.KeyPress, gameloop.KeyUp))
	ticks(t, g, 300)
	near(1) // clamped at white
	_ = g.Input(&gameloop.Input{Kind: gameloop.Focus, Focused: false})
	ticks(t, g, 10)
	near(1) // losing focus lets go of the keys

	if err := g.Input(key(gameloop.KeyPress, gameloop.KeyEscape)); !errors.Is(err, gameloop.ErrStop) {
		t.Fatalf("Escape: got %v, want ErrStop", err)
	}
}

func TestRenderInterpolatesAndDrawsTheGauge(t *testing.T) {
	s := &fakeScreen{}
	g := newGame(s)
	_ = g.Input(key(gameloop.KeyPress, gameloop.KeyUp))
	ticks(t, g, 60) // level 0.5, the tick before at 0.5 - 1/120
	if err := g.Render(&gameloop.Render{Alpha: 0.5, Width: 400, Height: 200}); err != nil {
		t.Fatal(err)
	}
	want := float32(0.5 - 1.0/240)
	if d := s.clear.R - want; d > 1e-6 || d < -1e-6 || s.clear.G != s.clear.R || s.clear.B != s.clear.R {
		t.Errorf("clear colour %+v, want grey %v", s.clear, want)
	}
	if len(s.rects) != 1 || s.rects[0][1] != 195 || s.rects[0][3] != 5 || s.rects[0][2] != want*400 {
		t.Errorf("gauge %v, want one 5-pixel bar at the bottom, %v wide", s.rects, want*400)
	}
}

// probedGame serves a probe after each frame is drawn.
type probedGame struct {
	*game
	probe *glfwtest.Probe
}

func (p *probedGame) Render(r *gameloop.Render) error {
	err := p.game.Render(r)
	p.probe.Serve()
	return err
}

// TestColorfadeInAWindow plays the demo as a user would, in a window on an X server: it holds
// Up and Down with xdotool, reads frames back, resizes the window and closes it.
func TestColorfadeInAWindow(t *testing.T) {
	glfwtest.RequireDisplay(t)
	glfwtest.RequireTool(t, "xdotool")
	opts := defaultOptions()
	opts.Title, opts.Width, opts.Height = "colorfade-test", 320, 240
	probe := glfwtest.NewProbe()
	var a *app
	game := glfwtest.Start(t, func() error {
		var err error
		if a, err = newApp(opts); err != nil {
			return err
		}
		defer a.close()
		return a.loop.Run(context.Background(), &probedGame{game: a.game, probe: probe})
	}, func() {
		probe.Run(t, 10*time.Second, func() { a.win.SetShouldClose(true) })
	})
	id := glfwtest.FindWindow(t, opts.Title)

	// look reads, on the main thread between drawing a frame and showing it, the level and
	// the frame's size and grey, from its top-right corner (the gauge is at the bottom).
	type look struct {
		level         float64
		grey          uint8
		width, height int
		gaugeAt0      bool // the bottom-left pixel is the gauge's colour
	}
	see := func() look {
		var l look
		probe.Run(t, 10*time.Second, func() {
			img, err := a.renderer.ReadPixels()
			if err != nil {
				t.Errorf("ReadPixels: %v", err)
				return
			}
			b := img.Bounds()
			l = look{level: a.game.Level(), width: b.Dx(), height: b.Dy()}
			c := img.RGBAAt(b.Dx()-1, 0)
			l.grey = c.R
			if c.G != c.R || c.B != c.R {
				t.Errorf("top-right pixel %v is not grey", c)
			}
			g := img.RGBAAt(0, b.Dy()-1)
			l.gaugeAt0 = g.R == 255 && g.B < 64 // orange, not grey
		})
		return l
	}

	start := see()
	if start.grey != 0 || start.width != 320 || start.height != 240 {
		t.Fatalf("first frame %+v, want black 320x240", start)
	}
	glfwtest.HoldKey(t, id, "Up", 10*time.Second, "the level to pass 0.4", func() bool { return see().level > 0.4 })
	up := see()
	if up.grey <= start.grey || up.grey < 80 {
		t.Fatalf("after holding Up the frame is grey %d (level %.3f), want it brighter than %d", up.grey, up.level, start.grey)
	}
	glfwtest.HoldKey(t, id, "Down", 10*time.Second, "the level to fall below 0.25", func() bool { return see().level < 0.25 })
	down := see()
	if down.grey >= up.grey {
		t.Fatalf("after holding Down the frame is grey %d (level %.3f), want it darker than %d", down.grey, down.level, up.grey)
	}
	if down.level <= 0 {
		t.Fatalf("Down was held down to level %v: the test wants some gauge left", down.level)
	}

	// Resize: the frame grows, and the gauge, placed by the viewport, is at the new bottom.
	glfwtest.Xdotool(t, "windowsize", "--sync", id, "400", "300")
	glfwtest.Eventually(t, 10*time.Second, "a 400x300 frame with the gauge at its bottom", func() bool {
		l := see()
		return l.width == 400 && l.height == 300 && l.gaugeAt0 && l.grey == down.grey
	})

	// Close it as a window manager would.
	glfwtest.RequestClose(t, id)
	if err := game.Wait(t, 10*time.Second); err != nil {
		t.Fatalf("Run after WM_DELETE_WINDOW: %v, want nil", err)
	}
	if st := a.loop.Stats(); st.Ticks == 0 || st.Frames == 0 {
		t.Errorf("stats %+v: no ticks or frames", st)
	}
}

// TestEscapeEndsRunAndPrintsStats runs the command's run function and ends it with Escape.
func TestEscapeEndsRunAndPrintsStats(t *testing.T) {
	glfwtest.RequireDisplay(t)
	glfwtest.RequireTool(t, "xdotool")
	opts := defaultOptions()
	opts.Title, opts.Width, opts.Height, opts.Stats = "colorfade-escape", 200, 150, true
	var out bytes.Buffer
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	game := glfwtest.Start(t, func() error { return run(ctx, opts, &out) }, stop)
	id := glfwtest.FindWindow(t, opts.Title)
	glfwtest.Xdotool(t, "windowfocus", "--sync", id)
	glfwtest.Xdotool(t, "key", "Escape")
	if err := game.Wait(t, 10*time.Second); err != nil {
		t.Fatalf("run after Escape: %v, want nil", err)
	}
	if !strings.Contains(out.String(), "TPS (target 60)") {
		t.Errorf("-stats printed %q", out.String())
	}
}

// SIGTERM (a terminal closing, kill) ends the game as Escape does: -stats are printed.
func TestSigtermPrintsStats(t *testing.T) {
	glfwtest.RequireDisplay(t)
	glfwtest.RequireTool(t, "xdotool")
	out, err := glfwtest.SignalCommand(t, "^colorfade-sigterm$", syscall.SIGTERM, "-stats", "-title", "colorfade-sigterm", "-width", "200", "-height", "150")
	if err != nil || !strings.Contains(out, "TPS (target 60)") {
		t.Errorf("after SIGTERM: %v, printed %q; want status 0 and the stats", err, out)
	}
}
