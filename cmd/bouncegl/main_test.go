package main

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/glfw"
	"github.com/gameloop-go/gameloop/backend/glfw/glfwtest"
)

func TestMain(m *testing.M) { glfwtest.Main(m) }

// fakeScreen records the rectangles of a frame.
type fakeScreen struct{ rects [][4]float32 }

func (s *fakeScreen) Clear(glfw.Color) { s.rects = nil }

func (s *fakeScreen) FillRect(x, y, w, h float32, _ glfw.Color) {
	s.rects = append(s.rects, [4]float32{x, y, w, h})
}

func TestBallsArePlacedByTheDrawMode(t *testing.T) {
	opts := defaultOptions()
	opts.Balls = 3
	s := &fakeScreen{}
	g := newGame(opts, nil, s, nil, 640, 480)
	for i := range 3 {
		_ = g.Update(&gameloop.Update{Tick: uint64(i + 1), DT: 100 * time.Millisecond, Seconds: 0.1})
	}
	r := &gameloop.Render{Frame: 2, Alpha: 0.25, Ext: 25 * time.Millisecond, Width: 640, Height: 480}
	for mode := range drawModes {
		g.mode = mode
		if err := g.Render(r); err != nil {
			t.Fatal(err)
		}
		if len(s.rects) != 3 {
			t.Fatalf("%v: %d rectangles, want 3", mode, len(s.rects))
		}
		for i, b := range g.sim.Balls() {
			var want gameloop.Vec2
			switch mode {
			case interpolate:
				want = b.Prev().Lerp(b.Pos(), 0.25)
			case extrapolate:
				want = b.Pos().Add(b.Vel().Scale(0.025))
			case neither:
				want = b.Pos()
			}
			got := s.rects[i]
			if got[0] != float32(want.X)*8 || got[1] != float32(want.Y)*8 || got[2] != 8 || got[3] != 8 {
				t.Errorf("%v: ball %d drawn at %v, want at %v dots (8 pixels a dot)", mode, i, got, want)
			}
		}
	}
}

func TestKeysAndResize(t *testing.T) {
	g := newGame(defaultOptions(), nil, &fakeScreen{}, nil, 640, 480)
	press := func(k gameloop.Key) error { return g.Input(&gameloop.Input{Kind: gameloop.KeyPress, Key: k}) }
	_ = press(gameloop.KeySpace)
	if n := len(g.sim.Balls()); n != 9 {
		t.Errorf("space: %d balls, want 9", n)
	}
	_ = press(gameloop.KeyI)
	if g.mode != extrapolate {
		t.Errorf("i: mode %v, want extrapolate", g.mode)
	}
	_ = g.Input(&gameloop.Input{Kind: gameloop.Resize, Width: 160, Height: 80})
	if w, h := g.sim.Size(); w != 20 || h != 10 {
		t.Errorf("resize to 160x80 pixels: box %dx%d dots, want 20x10", w, h)
	}
	if err := press(gameloop.KeyQ); err != gameloop.ErrStop {
		t.Errorf("q: %v, want ErrStop", err)
	}
}

// TestBounceInAWindow runs the demo in a window: FPS and TPS come into the title, space adds a
// ball, and closing the window ends Run with nil.
func TestBounceInAWindow(t *testing.T) {
	glfwtest.RequireDisplay(t)
	glfwtest.RequireTool(t, "xdotool")
	opts := defaultOptions()
	opts.Title, opts.TickRate = "bouncegl-test", 30
	var a *app
	game := glfwtest.Start(t, func() error {
		var err error
		if a, err = newApp(opts); err != nil {
			return err
		}
		defer a.close()
		return a.loop.Run(context.Background(), a.game)
	}, func() {
		if id, err := glfwtest.Search("^" + opts.Title); err == nil {
			glfwtest.RequestClose(t, id)
		}
	})
	id := glfwtest.FindWindowMatching(t, "^"+opts.Title)
	// The title changes once the first second's figures are in.
	var titled string
	glfwtest.Eventually(t, 10*time.Second, "FPS and TPS in the title", func() bool {
		ids, err := glfwtest.Search("^bouncegl-test: interpolate, 8 balls, [0-9.]+ FPS, [0-9.]+ TPS")
		titled = ids
		return err == nil && ids != "" && !strings.Contains(glfwtest.Xdotool(t, "getwindowname", id), " 0.0 FPS")
	})
	if titled != id {
		t.Fatalf("the titled window is %s, want %s", titled, id)
	}
	glfwtest.Xdotool(t, "windowfocus", "--sync", id)
	glfwtest.Xdotool(t, "key", "space")
	glfwtest.Eventually(t, 10*time.Second, "9 balls in the title", func() bool {
		return strings.Contains(glfwtest.Xdotool(t, "getwindowname", id), "9 balls")
	})
	glfwtest.RequestClose(t, id)
	if err := game.Wait(t, 10*time.Second); err != nil {
		t.Fatalf("Run after WM_DELETE_WINDOW: %v, want nil", err)
	}
}

// SIGTERM (a terminal closing, kill) ends the game as closing the window does: -stats are
// printed.
func TestSigtermPrintsStats(t *testing.T) {
	glfwtest.RequireDisplay(t)
	glfwtest.RequireTool(t, "xdotool")
	out, err := glfwtest.SignalCommand(t, "^bouncegl-sigterm", syscall.SIGTERM, "-stats", "-title", "bouncegl-sigterm", "-width", "200", "-height", "150")
	if err != nil || !strings.Contains(out, "ticks dropped") {
		t.Errorf("after SIGTERM: %v, printed %q; want status 0 and the stats", err, out)
	}
}
