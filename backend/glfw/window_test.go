package glfw_test

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/glfw"
	"github.com/gameloop-go/gameloop/backend/glfw/glfwtest"
)

func TestMain(m *testing.M) { glfwtest.Main(m) }

func TestOpenWithoutDisplay(t *testing.T) {
	t.Setenv("DISPLAY", "")
	err := glfwtest.Do(func() error {
		w, err := glfw.Open(glfw.Options{})
		if err == nil {
			w.Close()
		}
		return err
	})
	if !errors.Is(err, glfw.ErrNoDisplay) {
		t.Fatalf("Open without DISPLAY: got %v, want ErrNoDisplay", err)
	}
}

// probeGame clears to blue and marks the bottom-right corner of the frame with a red square,
// so that a frame read back shows whether the viewport covers the whole window. It records the
// input it is given and serves a probe after drawing.
type probeGame struct {
	win      *glfw.Window
	renderer *glfw.Renderer
	probe    *glfwtest.Probe
	inputs   []gameloop.Input
}

var (
	blue = color.RGBA{0, 0, 255, 255}
	red  = color.RGBA{255, 0, 0, 255}
)

func (g *probeGame) Input(in *gameloop.Input) error {
	g.inputs = append(g.inputs, *in)
	return nil
}

func (g *probeGame) Update(*gameloop.Update) error { return nil }

func (g *probeGame) Render(r *gameloop.Render) error {
	g.renderer.Clear(glfw.Color{B: 1, A: 1})
	g.renderer.FillRect(float32(r.Width-8), float32(r.Height-8), 8, 8, glfw.Color{R: 1, A: 1})
	g.probe.Serve()
	return nil
}

// seen reports whether an input like want (Kind and the fields set in want) was recorded.
func (g *probeGame) seen(want gameloop.Input) bool {
	for _, in := range g.inputs {
		if in.Kind != want.Kind {
			continue
		}
		switch {
		case want.Key != 0 && in.Key != want.Key,
			want.Rune != 0 && in.Rune != want.Rune,
			want.Button != 0 && in.Button != want.Button,
			want.Width != 0 && (in.Width != want.Width || in.Height != want.Height),
			want.X != 0 && (in.X != want.X || in.Y != want.Y):
			continue
		}
		return true
	}
	return false
}

// pixel returns the colour at x, y of img.
func pixel(img *image.RGBA, x, y int) color.RGBA { return img.RGBAAt(x, y) }

func TestWindowAsRealWindow(t *testing.T) {
	glfwtest.RequireDisplay(t)
	glfwtest.RequireTool(t, "xdotool")
	const title = "gameloop-glfw-test"
	g := &probeGame{probe: glfwtest.NewProbe()}
	game := glfwtest.Start(t, func() error {
		win, err := glfw.Open(glfw.Options{Title: title, Width: 320, Height: 240, Resizable: true})
		if err != nil {
			return err
		}
		defer win.Close()
		renderer, err := glfw.NewRenderer(win)
		if err != nil {
			return err
		}
		defer renderer.Close()
		loop, err := gameloop.New(gameloop.Config{Window: win, TickRate: 60, MaxFPS: 60})
		if err != nil {
			return err
		}
		g.win, g.renderer = win, renderer
		return loop.Run(context.Background(), g)
	}, func() {
		g.probe.Run(t, 10*time.Second, func() { g.win.SetShouldClose(true) })
	})
	id := glfwtest.FindWindow(t, title)

	// on runs f on the main thread, between the drawing of a frame and its swap.
	on := func(f func()) { g.probe.Run(t, 10*time.Second, f) }
	// until polls cond on the main thread.
	until := func(what string, cond func() bool) {
		t.Helper()
		glfwtest.Eventually(t, 10*time.Second, what, func() bool {
			var ok bool
			on(func() { ok = cond() })
			return ok
		})
	}
	// corners reads the frame back and checks its size and its two corners.
	corners := func(width, height int) bool {
		img, err := g.renderer.ReadPixels()
		if err != nil {
			t.Errorf("ReadPixels: %v", err)
			return false
		}
		vw, vh := g.renderer.Viewport()
		return img.Bounds().Dx() == width && img.Bounds().Dy() == height && vw == width && vh == height &&
			pixel(img, 0, 0) == blue && pixel(img, width-1, height-1) == red
	}

	t.Run("frame", func(t *testing.T) {
		until("a 320x240 frame, blue with a red bottom-right corner", func() bool { return corners(320, 240) })
	})

	t.Run("keys", func(t *testing.T) {
		glfwtest.HoldKey(t, id, "Up", 10*time.Second, "KeyPress Up and IsKeyPressed(KeyUp)", func() bool {
			var ok bool
			on(func() {
				ok = g.win.IsKeyPressed(gameloop.KeyUp) && g.seen(gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyUp})
			})
			return ok
		})
		until("KeyRelease Up", func() bool {
			return !g.win.IsKeyPressed(gameloop.KeyUp) && g.seen(gameloop.Input{Kind: gameloop.KeyRelease, Key: gameloop.KeyUp})
		})
		glfwtest.Xdotool(t, "type", "--delay", "20", "q")
		until("Char q and KeyPress Q", func() bool {
			return g.seen(gameloop.Input{Kind: gameloop.Char, Rune: 'q'}) && g.seen(gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyQ})
		})
	})

	t.Run("mouse", func(t *testing.T) {
		// Moved twice, so that the pointer moves even if an earlier run left it at 30,40 (and
		// without --sync, which waits in vain for a move to where the pointer already is).
		glfwtest.Xdotool(t, "mousemove", "--window", id, "5", "5")
		glfwtest.Xdotool(t, "mousemove", "--window", id, "30", "40")
		until("CursorMove to 30,40", func() bool { return g.seen(gameloop.Input{Kind: gameloop.CursorMove, X: 30, Y: 40}) })
		glfwtest.Xdotool(t, "click", "1")
		until("MousePress and MouseRelease of the left button at 30,40", func() bool {
			return g.seen(gameloop.Input{Kind: gameloop.MousePress, Button: gameloop.MouseLeft, X: 30, Y: 40}) &&
				g.seen(gameloop.Input{Kind: gameloop.MouseRelease, Button: gameloop.MouseLeft, X: 30, Y: 40})
		})
		glfwtest.Xdotool(t, "click", "5") // the wheel, down
		until("Scroll down", func() bool {
			for _, in := range g.inputs {
				if in.Kind == gameloop.Scroll && in.Y < 0 {
					return true
				}
			}
			return false
		})
	})

	t.Run("resize", func(t *testing.T) {
		glfwtest.Xdotool(t, "windowsize", "--sync", id, "400", "300")
		until("Resize to 400x300", func() bool { return g.seen(gameloop.Input{Kind: gameloop.Resize, Width: 400, Height: 300}) })
		until("a 400x300 frame with the red square in the new corner", func() bool {
			w, h := g.win.Size()
			return w == 400 && h == 300 && corners(400, 300)
		})
	})

	t.Run("close", func(t *testing.T) {
		glfwtest.RequestClose(t, id)
		if err := game.Wait(t, 10*time.Second); err != nil {
			t.Fatalf("Run after WM_DELETE_WINDOW: %v, want nil", err)
		}
		if !g.seen(gameloop.Input{Kind: gameloop.Close}) {
			t.Error("no Close input before the loop ended")
		}
	})
}

func TestWakeEndsWaitInput(t *testing.T) {
	glfwtest.RequireDisplay(t)
	err := glfwtest.Do(func() error {
		win, err := glfw.Open(glfw.Options{Title: "gameloop-glfw-wake", Width: 64, Height: 64})
		if err != nil {
			return err
		}
		defer win.Close()
		win.PollInput(nil) // take the events of the window's creation
		woken := make(chan struct{})
		go func() {
			defer close(woken)
			time.Sleep(20 * time.Millisecond)
			win.Wake()
		}()
		win.WaitInput(time.Minute)
		select {
		case <-woken:
			return nil
		case <-time.After(30 * time.Second):
			return fmt.Errorf("WaitInput returned but Wake never finished")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// countingGame counts its updates and frames, for a lazy loop.
type countingGame struct{ updates, frames atomic.Int64 }

func (g *countingGame) Update(*gameloop.Update) error { g.updates.Add(1); return nil }
func (g *countingGame) Render(*gameloop.Render) error { g.frames.Add(1); return nil }

// TestLazyLoopWakesOnInput runs a lazy loop, which sleeps in WaitInput (GLFW's
// WaitEventsTimeout, for an hour) until input comes: a key press must wake it to run a tick and
// draw a frame, and a close request must wake it to end.
func TestLazyLoopWakesOnInput(t *testing.T) {
	glfwtest.RequireDisplay(t)
	glfwtest.RequireTool(t, "xdotool")
	const title = "gameloop-glfw-lazy"
	g := &countingGame{}
	var win *glfw.Window
	game := glfwtest.Start(t, func() error {
		var err error
		if win, err = glfw.Open(glfw.Options{Title: title, Width: 64, Height: 64}); err != nil {
			return err
		}
		defer win.Close()
		loop, err := gameloop.New(gameloop.Config{Window: win, Lazy: true})
		if err != nil {
			return err
		}
		return loop.Run(context.Background(), g)
	}, func() {
		// The loop may be asleep: a close request both asks and wakes it.
		if id, err := exec.Command("xdotool", "search", "--name", "^"+title+"$").Output(); err == nil {
			glfwtest.RequestClose(t, strings.TrimSpace(string(id)))
		}
	})
	id := glfwtest.FindWindow(t, title)
	glfwtest.Xdotool(t, "windowfocus", "--sync", id)
	before := g.updates.Load()
	glfwtest.Xdotool(t, "key", "space")
	glfwtest.Eventually(t, 10*time.Second, "a tick and a frame after a key press", func() bool {
		return g.updates.Load() > before && g.frames.Load() > 0
	})
	glfwtest.RequestClose(t, id)
	if err := game.Wait(t, 10*time.Second); err != nil {
		t.Fatalf("lazy Run after WM_DELETE_WINDOW: %v, want nil", err)
	}
}
