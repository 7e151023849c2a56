//go:build js && wasm

package web

import (
	"context"
	"errors"
	"fmt"
	"math"
	"syscall/js"
	"time"

	"github.com/gameloop-go/gameloop"
)

// Canvas is a <canvas> element of the page that a game draws on, with its 2D context. Run
// drives a game on it; the game draws with Context2D in its Render.
type Canvas struct {
	el, ctx2d     js.Value
	width, height int // the drawing buffer, in device pixels
}

// OpenCanvas returns the canvas element with the given id, or the page's first canvas when id
// is empty.
func OpenCanvas(id string) (*Canvas, error) {
	doc := js.Global().Get("document")
	var el js.Value
	if id == "" {
		el = doc.Call("querySelector", "canvas")
	} else {
		el = doc.Call("getElementById", id)
	}
	if el.IsNull() || el.IsUndefined() || el.Get("tagName").String() != "CANVAS" {
		return nil, fmt.Errorf("web: no <canvas> element %q in the page", id)
	}
	ctx2d := el.Call("getContext", "2d")
	if ctx2d.IsNull() {
		return nil, errors.New("web: the canvas has no 2D context")
	}
	return &Canvas{el: el, ctx2d: ctx2d}, nil
}

// Element returns the canvas element.
func (c *Canvas) Element() js.Value { return c.el }

// Context2D returns the canvas's CanvasRenderingContext2D, to draw with.
func (c *Canvas) Context2D() js.Value { return c.ctx2d }

// Size returns the size of the canvas's drawing buffer in device pixels: its size on the page
// (CSS pixels) times the device-pixel ratio, as Run keeps it.
func (c *Canvas) Size() (width, height int) { return c.width, c.height }

// fit makes the drawing buffer as large as the canvas is on the page in device pixels, so that
// a frame is drawn sharp on a high-density display, and reports whether it changed.
func (c *Canvas) fit() bool {
	ratio := js.Global().Get("devicePixelRatio").Float()
	if !(ratio > 0) {
		ratio = 1
	}
	w := int(math.Round(c.el.Get("clientWidth").Float() * ratio))
	h := int(math.Round(c.el.Get("clientHeight").Float() * ratio))
	if w == c.width && h == c.height {
		return false
	}
	c.width, c.height = w, h
	c.el.Set("width", w)
	c.el.Set("height", h)
	return true
}

// Run drives g with d on the page's requestAnimationFrame until g returns gameloop.ErrStop (Run
// returns nil), g fails (its error, wrapped with the tick or frame, or a *gameloop.PanicError),
// or ctx ends (ctx's error). It blocks the calling goroutine; the page goes on running.
//
// Each display frame hands d the time requestAnimationFrame gives and the canvas's size in
// device pixels. Keys pressed anywhere on the page become KeyPress, KeyRelease and Char input
// (see AppendKeyInput); a key that made input does not also scroll the page. The window gaining
// or losing focus comes as Focus input, and losing it releases the keys held (the page would
// never see them released). A change in the canvas's size (the window resized, the page
// zoomed, moved to a screen of another density) comes as a Resize input of the new size in
// device pixels before the frame drawn at it. While the page is hidden the browser sends no
// frames, and Run tells d (SetHidden), which pauses game time until the page is shown.
//
// The gamepads are read once a display frame, before the frame is run (see Gamepads): their
// buttons and sticks come as GamepadConnect, GamepadPress, GamepadRelease, GamepadMove and
// GamepadDisconnect input, for the gamepads of the W3C "standard" mapping. Losing the focus
// releases the keys but not the gamepads, which go on being read as the browser reports them
// (browsers report gamepads only to a visible page that has the focus).
func (c *Canvas) Run(ctx context.Context, d *Driver, g gameloop.Game) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	win := js.Global()
	doc := win.Get("document")
	perf := win.Get("performance")
	done := make(chan error, 1)
	finish := func(err error) {
		select {
		case done <- err:
		default:
		}
	}

	var keys []gameloop.Input
	var held heldKeys
	onKey := func(down bool) js.Func {
		return js.FuncOf(func(_ js.Value, args []js.Value) any {
			ev := args[0]
			var mods gameloop.Mods
			for _, m := range [...]struct {
				name string
				mod  gameloop.Mods
			}{{"shiftKey", gameloop.ModShift}, {"ctrlKey", gameloop.ModControl}, {"altKey", gameloop.ModAlt}, {"metaKey", gameloop.ModSuper}} {
				if ev.Get(m.name).Bool() {
					mods |= m.mod
				}
			}
			keys = AppendKeyInput(keys[:0], KeyEvent{Down: down, Code: ev.Get("code").String(),
				Key: ev.Get("key").String(), Repeat: ev.Get("repeat").Bool(), Mods: mods})
			if len(keys) > 0 {
				held.note(keys)
				d.Push(keys...)
				if mods&(gameloop.ModControl|gameloop.ModSuper) == 0 {
					ev.Call("preventDefault") // space and the arrows would scroll the page
				}
			}
			return nil
		})
	}
	keyDown, keyUp := onKey(true), onKey(false)
	onFocus := func(focused bool) js.Func {
		return js.FuncOf(func(js.Value, []js.Value) any {
			keys = keys[:0]
			if !focused {
				keys = held.appendReleases(keys)
			}
			d.Push(append(keys, gameloop.Input{Kind: gameloop.Focus, Focused: focused})...)
			return nil
		})
	}
	focus, blur := onFocus(true), onFocus(false)
	visibility := js.FuncOf(func(js.Value, []js.Value) any {
		d.SetHidden(time.Duration(perf.Call("now").Float()*float64(time.Millisecond)), doc.Get("hidden").Bool())
		return nil
	})
	pads := NewGamepads()
	var frame js.Func
	var request js.Value
	frame = js.FuncOf(func(_ js.Value, args []js.Value) any {
		if c.fit() {
			d.Push(gameloop.Input{Kind: gameloop.Resize, Width: c.width, Height: c.height})
		}
		pads.Poll(d)
		now := time.Duration(args[0].Float() * float64(time.Millisecond))
		if err := d.Frame(g, now, c.width, c.height); err != nil {
			finish(err)
			return nil
		}
		request = win.Call("requestAnimationFrame", frame)
		return nil
	})
	win.Call("addEventListener", "keydown", keyDown)
	win.Call("addEventListener", "keyup", keyUp)
	win.Call("addEventListener", "focus", focus)
	win.Call("addEventListener", "blur", blur)
	doc.Call("addEventListener", "visibilitychange", visibility)
	stop := context.AfterFunc(ctx, func() { finish(ctx.Err()) })
	defer func() {
		stop()
		if !request.IsUndefined() {
			win.Call("cancelAnimationFrame", request)
		}
		win.Call("removeEventListener", "keydown", keyDown)
		win.Call("removeEventListener", "keyup", keyUp)
		win.Call("removeEventListener", "focus", focus)
		win.Call("removeEventListener", "blur", blur)
		doc.Call("removeEventListener", "visibilitychange", visibility)
		for _, f := range []js.Func{keyDown, keyUp, focus, blur, visibility, frame} {
			f.Release()
		}
	}()

	c.fit()
	if doc.Get("hidden").Bool() {
		d.SetHidden(time.Duration(perf.Call("now").Float()*float64(time.Millisecond)), true)
	}
	request = win.Call("requestAnimationFrame", frame)
	err := <-done
	if errors.Is(err, gameloop.ErrStop) {
		return nil
	}
	return err
}
