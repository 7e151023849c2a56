//go:build js && wasm

// Command example is a whole game for the browser on backend/web: it fades the page's canvas
// from black to white and back, a step a tick, drawn between the last two ticks, and ends on
// Escape. Build it with GOOS=js GOARCH=wasm and serve it with index.html and Go's wasm_exec.js:
// see docs/web.md.
package main

import (
	"context"
	"fmt"
	"syscall/js"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/web"
)

// fade is the game.
type fade struct {
	ctx2d      js.Value
	prev, curr float64 // the brightness at the last two ticks, 0 to 1
	dir        float64
}

func (f *fade) Input(in *gameloop.Input) error {
	if in.Kind == gameloop.KeyPress && in.Key == gameloop.KeyEscape {
		return gameloop.ErrStop // Run returns nil
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
	level := int(255 * (f.prev + (f.curr-f.prev)*r.Alpha))
	f.ctx2d.Set("fillStyle", fmt.Sprintf("rgb(%d %d %d)", level, level, level))
	f.ctx2d.Call("fillRect", 0, 0, r.Width, r.Height) // the canvas's size in device pixels
	return nil
}

func main() {
	canvas, err := web.OpenCanvas("game") // <canvas id="game"> in the page
	if err != nil {
		panic(err)
	}
	driver, err := web.NewDriver(gameloop.Config{TickRate: 60})
	if err != nil {
		panic(err)
	}
	if err := canvas.Run(context.Background(), driver, &fade{ctx2d: canvas.Context2D(), dir: 1}); err != nil {
		panic(err)
	}
	js.Global().Get("document").Get("body").Set("textContent", "the game has ended")
}
