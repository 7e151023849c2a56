// Package glfw is a window for gameloop on GLFW 3.3, with an OpenGL 3.3 core context and a
// minimal renderer: a clear colour, a viewport that follows the framebuffer, filled rectangles
// and reading the frame back as an image.
//
// Its input is GLFW's: keys, characters, the mouse, resizes, focus and the close button, and
// the gamepads, which PollInput polls (glfwGetGamepadState): each joystick that GLFW has an SDL
// game controller mapping for is reported in the standard layout, its joystick id as its
// gameloop.GamepadID (see gameloop.GamepadConnect and docs/gamepads.md).
//
// GLFW and OpenGL must be called from the process's main OS thread. This package locks the main
// goroutine to it in init, so a program that opens its window and runs its loop from main is
// right without more ado:
//
//	func main() {
//		win, err := glfw.Open(glfw.Options{Title: "game", Width: 640, Height: 480, Resizable: true})
//		if err != nil { ... }
//		defer win.Close()
//		loop, err := gameloop.New(gameloop.Config{Window: win, MaxFPS: 60})
//		...
//		err = loop.Run(ctx, game)
//	}
//
// Tests run on other goroutines, so a test must hand the work to the main goroutine, which
// TestMain serves; see package glfwtest.
//
// On Linux and the BSDs, GLFW talks to an X server: Open returns ErrNoDisplay when DISPLAY is
// not set (run under xvfb-run for a virtual one). Building needs cgo and the X11 and OpenGL
// development packages (see docs/glfw.md).
package glfw

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/go-gl/gl/v3.3-core/gl"
	glfw33 "github.com/go-gl/glfw/v3.3/glfw"
)

func init() {
	// GLFW and OpenGL may only be called from the main thread, and init runs on it: keep main
	// there.
	runtime.LockOSThread()
}

// ErrNoDisplay is returned by Open when there is no X server to connect to. GLFW itself would
// only log an obscure platform error and fail later.
var ErrNoDisplay = errors.New("no display: set DISPLAY or run under xvfb-run")

// openWindows counts the windows open, so that GLFW is initialised with the first and
// terminated with the last. It is only touched on the main thread, which GLFW requires of Open
// and Close anyway; it is the one piece of package state, GLFW's own being global.
var openWindows int

// Options describe a window. The zero value is a 640 by 480 window titled "gameloop", of fixed
// size, without v-sync.
type Options struct {
	// Title is the window's title; "" means "gameloop".
	Title string
	// Width and Height are the size of the window's content area in screen coordinates
	// (pixels, except on high-density displays); 0 means 640 and 480.
	Width, Height int
	// Resizable lets the user resize the window.
	Resizable bool
	// VSync makes each buffer swap wait for the screen's refresh (a swap interval of 1). It
	// is not honoured everywhere (Xvfb ignores it): cap frames with gameloop.Config.MaxFPS
	// too.
	VSync bool
}

// Window is a GLFW window with an OpenGL 3.3 core, forward-compatible context. It implements
// gameloop.Window: GLFW's callbacks become gameloop.Input values, in the order they came.
//
// Every method but Wake must be called on the main thread.
type Window struct {
	win     *glfw33.Window
	pending []gameloop.Input // input gathered by the callbacks since the last PollInput

	fbWidth, fbHeight int                                         // the framebuffer's size, in pixels
	scaleX, scaleY    float64                                     // framebuffer pixels per screen coordinate, for cursor positions
	pads              [gameloop.MaxGamepads]gameloop.GamepadState // as last polled

	// mu guards alive, so that Wake, from any goroutine, never posts to a destroyed window.
	mu    sync.Mutex
	alive bool
}

// displayNeeded reports whether GLFW on this system talks to an X server.
func displayNeeded() bool {
	switch runtime.GOOS {
	case "linux", "freebsd", "netbsd", "openbsd", "dragonfly":
		return true
	}
	return false
}

// Open opens a window and makes its OpenGL context current. Call it on the main thread.
func Open(opts Options) (*Window, error) {
	if opts.Title == "" {
		opts.Title = "gameloop"
	}
	if opts.Width == 0 {
		opts.Width = 640
	}
	if opts.Height == 0 {
		opts.Height = 480
	}
	if opts.Width < 0 || opts.Height < 0 {
		return nil, fmt.Errorf("glfw: window size %dx%d: must not be negative", opts.Width, opts.Height)
	}
	if displayNeeded() && os.Getenv("DISPLAY") == "" {
		return nil, ErrNoDisplay
	}
	if openWindows == 0 {
		if err := glfw33.Init(); err != nil {
			return nil, fmt.Errorf("glfw: initialising: %w", err)
		}
	}
	win, err := create(opts)
	if err != nil {
		if openWindows == 0 {
			glfw33.Terminate()
		}
		return nil, err
	}
	openWindows++
	w := &Window{win: win, alive: true, pending: make([]gameloop.Input, 0, 64)}
	win.MakeContextCurrent()
	if err := gl.Init(); err != nil {
		w.Close()
		return nil, fmt.Errorf("glfw: loading OpenGL: %w", err)
	}
	if opts.VSync {
		glfw33.SwapInterval(1)
	} else {
		glfw33.SwapInterval(0)
	}
	w.fbWidth, w.fbHeight = win.GetFramebufferSize()
	w.updateScale()
	w.setCallbacks()
	return w, nil
}

// create creates the GLFW window. go-gl's binding panics on the errors GLFW calls programmer
// errors, such as using GLFW after an Init that failed to reach the X server: those become
// errors here.
func create(opts Options) (win *glfw33.Window, err error) {
	defer func() {
		if v := recover(); v != nil {
			// Typically NotInitialized: Init could not reach the X server and only logged it.
			err = fmt.Errorf("glfw: creating a window: cannot use the X server at DISPLAY=%q: %v", os.Getenv("DISPLAY"), v)
		}
	}()
	glfw33.DefaultWindowHints()
	// OpenGL 3.3 core; forward-compatible is what macOS requires of a 3.x context.
	glfw33.WindowHint(glfw33.ContextVersionMajor, 3)
	glfw33.WindowHint(glfw33.ContextVersionMinor, 3)
	glfw33.WindowHint(glfw33.OpenGLProfile, glfw33.OpenGLCoreProfile)
	glfw33.WindowHint(glfw33.OpenGLForwardCompatible, glfw33.True)
	resizable := glfw33.False
	if opts.Resizable {
		resizable = glfw33.True
	}
	glfw33.WindowHint(glfw33.Resizable, resizable)
	win, err = glfw33.CreateWindow(opts.Width, opts.Height, opts.Title, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("glfw: creating a window: %w", err)
	}
	return win, nil
}

// setCallbacks turns GLFW's callbacks into input. They run inside PollEvents and
// WaitEventsTimeout, on the main thread, so they append to pending without a lock.
func (w *Window) setCallbacks() {
	w.win.SetKeyCallback(func(_ *glfw33.Window, key glfw33.Key, _ int, action glfw33.Action, mods glfw33.ModifierKey) {
		in := gameloop.Input{Key: toKey(key), Mods: toMods(mods)}
		switch action {
		case glfw33.Press:
			in.Kind = gameloop.KeyPress
		case glfw33.Repeat:
			in.Kind, in.Repeat = gameloop.KeyPress, true
		case glfw33.Release:
			in.Kind = gameloop.KeyRelease
		default:
			return
		}
		w.pending = append(w.pending, in)
	})
	w.win.SetCharCallback(func(_ *glfw33.Window, r rune) {
		w.pending = append(w.pending, gameloop.Input{Kind: gameloop.Char, Rune: r})
	})
	w.win.SetMouseButtonCallback(func(win *glfw33.Window, button glfw33.MouseButton, action glfw33.Action, mods glfw33.ModifierKey) {
		b := toButton(button)
		if b == 0 {
			return
		}
		kind := gameloop.MousePress
		if action == glfw33.Release {
			kind = gameloop.MouseRelease
		}
		x, y := win.GetCursorPos()
		w.pending = append(w.pending, gameloop.Input{Kind: kind, Button: b, Mods: toMods(mods), X: x * w.scaleX, Y: y * w.scaleY})
	})
	w.win.SetCursorPosCallback(func(_ *glfw33.Window, x, y float64) {
		w.pending = append(w.pending, gameloop.Input{Kind: gameloop.CursorMove, X: x * w.scaleX, Y: y * w.scaleY})
	})
	w.win.SetScrollCallback(func(_ *glfw33.Window, dx, dy float64) {
		w.pending = append(w.pending, gameloop.Input{Kind: gameloop.Scroll, X: dx, Y: dy})
	})
	w.win.SetFocusCallback(func(_ *glfw33.Window, focused bool) {
		w.pending = append(w.pending, gameloop.Input{Kind: gameloop.Focus, Focused: focused})
	})
	w.win.SetFramebufferSizeCallback(func(_ *glfw33.Window, width, height int) {
		w.fbWidth, w.fbHeight = width, height
		w.updateScale()
		w.pending = append(w.pending, gameloop.Input{Kind: gameloop.Resize, Width: width, Height: height})
	})
	w.win.SetSizeCallback(func(*glfw33.Window, int, int) { w.updateScale() })
	w.win.SetCloseCallback(func(*glfw33.Window) {
		// GLFW has already set the close flag; the game may clear it with SetShouldClose
		// when it handles this input, to ask the player first.
		w.pending = append(w.pending, gameloop.Input{Kind: gameloop.Close})
	})
}

// updateScale works out how many framebuffer pixels one screen coordinate covers, so that
// cursor positions come in pixels, like sizes.
func (w *Window) updateScale() {
	w.scaleX, w.scaleY = 1, 1
	ww, wh := w.win.GetSize()
	if ww > 0 && wh > 0 && w.fbWidth > 0 && w.fbHeight > 0 {
		w.scaleX = float64(w.fbWidth) / float64(ww)
		w.scaleY = float64(w.fbHeight) / float64(wh)
	}
}

// PollInput processes GLFW's pending events and appends the input they make to buf, then what
// changed on the gamepads (GLFW has no events for their buttons: they are polled here).
func (w *Window) PollInput(buf []gameloop.Input) []gameloop.Input {
	glfw33.PollEvents()
	buf = append(buf, w.pending...)
	w.pending = w.pending[:0]
	return w.pollGamepads(buf)
}

// WaitInput sleeps in GLFW's WaitEventsTimeout until an event comes, timeout passes or Wake is
// called, so that a lazy loop costs nothing while nothing happens. The events are delivered by
// the next PollInput.
func (w *Window) WaitInput(timeout time.Duration) {
	if len(w.pending) > 0 || timeout <= 0 {
		return
	}
	glfw33.WaitEventsTimeout(timeout.Seconds())
}

// Wake makes a blocked WaitInput return, by posting an empty event. It is safe to call from any
// goroutine, even after Close.
func (w *Window) Wake() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.alive {
		glfw33.PostEmptyEvent()
	}
}

// Size returns the framebuffer's size in pixels, the size to draw at; 0 by 0 while minimised.
func (w *Window) Size() (width, height int) { return w.fbWidth, w.fbHeight }

// ShouldClose reports whether the window has been asked to close (by the user, or by
// SetShouldClose).
func (w *Window) ShouldClose() bool { return w.win.ShouldClose() }

// SetShouldClose sets or clears the close flag: true ends the loop before its next pass; false,
// while handling a Close input, keeps the window open.
func (w *Window) SetShouldClose(close bool) { w.win.SetShouldClose(close) }

// SwapBuffers shows the frame drawn.
func (w *Window) SwapBuffers() (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("glfw: swapping buffers: %v", v)
		}
	}()
	w.win.SwapBuffers()
	return nil
}

// IsKeyPressed reports whether key is held down now, as of the last PollInput: the LWJGL book's
// way of reading the keyboard. A game that may be recorded and replayed should follow KeyPress
// and KeyRelease input instead, which a recording holds.
func (w *Window) IsKeyPressed(key gameloop.Key) bool {
	k, ok := fromKey(key)
	return ok && w.win.GetKey(k) == glfw33.Press
}

// SetTitle changes the window's title.
func (w *Window) SetTitle(title string) { w.win.SetTitle(title) }

// GLFW returns the underlying GLFW window, for what this package does not cover.
func (w *Window) GLFW() *glfw33.Window { return w.win }

// Close destroys the window, and terminates GLFW with the last window. Call it on the main
// thread; further calls do nothing.
func (w *Window) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.alive {
		return
	}
	w.alive = false
	w.win.Destroy()
	openWindows--
	if openWindows == 0 {
		glfw33.Terminate()
	}
}

var _ gameloop.Window = (*Window)(nil)
