//go:build js && wasm

package web_test

import (
	"context"
	"fmt"
	"syscall/js"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/web"
)

// fade is a game that fades the canvas from black to white and back, a step a tick, and ends
// on Escape.
type fade struct {
	ctx2d      js.Value
	prev, curr float64 // the brightness at the last two ticks, 0 to 1
	dir        float64
}

func (f *fade) Input(in *gameloop.Input) error {
	if in.Kind == gameloop.KeyPress && in.Key == gameloop.KeyEscape {
		return gameloop.ErrStop
	}
	return nil
}

func (f *fade) Update(u *gameloop.Update) error {
	f.prev = f.curr
	f.curr += f.dir * u.Seconds / 2 // two seconds from black to white
	if f.curr <= 0 || f.curr >= 1 {
		f.curr, f.dir = max(0, min(f.curr, 1)), -f.dir
	}
	return nil
}

func (f *fade) Render(r *gameloop.Render) error {
	level := int(255 * (f.prev + (f.curr-f.prev)*r.Alpha)) // between the last two ticks
	f.ctx2d.Set("fillStyle", fmt.Sprintf("rgb(%d %d %d)", level, level, level))
	f.ctx2d.Call("fillRect", 0, 0, r.Width, r.Height)
	return nil
}

// A page with <canvas id="game"> runs a game on requestAnimationFrame until it ends. The whole
// program, with its page, is in backend/web/example.
func ExampleCanvas_Run() {
	canvas, err := web.OpenCanvas("game")
	if err != nil {
		js.Global().Get("console").Call("error", err.Error())
		return
	}
	driver, err := web.NewDriver(gameloop.Config{TickRate: 60})
	if err != nil {
		js.Global().Get("console").Call("error", err.Error())
		return
	}
	game := &fade{ctx2d: canvas.Context2D(), dir: 1}
	if err := canvas.Run(context.Background(), driver, game); err != nil {
		js.Global().Get("console").Call("error", err.Error())
	}
}

// A page that runs its own requestAnimationFrame callback, pulling each frame's events, reads
// the gamepads itself, before the frame: here it logs each gamepad button pressed.
func ExampleGamepads() {
	driver, err := web.NewDriver(gameloop.Config{TickRate: 60})
	if err != nil {
		js.Global().Get("console").Call("error", err.Error())
		return
	}
	pads := web.NewGamepads()
	var frame js.Func
	frame = js.FuncOf(func(_ js.Value, args []js.Value) any {
		pads.Poll(driver) // the gamepads' changes since the last frame, as input of this one
		now := time.Duration(args[0].Float() * float64(time.Millisecond))
		for ev := range driver.Events(now, 800, 600) {
			if in, ok := ev.(*gameloop.Input); ok && in.Kind == gameloop.GamepadPress {
				js.Global().Get("console").Call("log", fmt.Sprintf("gamepad %d: %v", in.Gamepad, in.PadButton))
			}
		}
		js.Global().Call("requestAnimationFrame", frame)
		return nil
	})
	js.Global().Call("requestAnimationFrame", frame)
}
