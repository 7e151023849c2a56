//go:build js && wasm

// Command wasm is bounce in a web page: the simulation, keys and status line of the terminal
// demo (internal/bouncegame), driven by requestAnimationFrame through backend/web, its cells
// painted on a canvas; gamepads play it too. It records the session from the start: s saves
// the recording (to the server, which writes it to its -record file, or else as a download), and
// so does ending the game with q or Escape. go run ./cmd/bounceweb builds it and serves it with its page.
//
// The page's query sets the start: ?seed=1&balls=5&tps=10&glyphs=braille&cols=80&rows=24.
package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"syscall/js"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/web"
	"github.com/gameloop-go/gameloop/internal/bounce"
	"github.com/gameloop-go/gameloop/internal/bouncegame"
)

func main() {
	err := run(context.Background())
	if err != nil {
		js.Global().Get("console").Call("error", "bounce: "+err.Error())
		showMessage("bounce stopped: " + err.Error())
		return
	}
	showMessage("bounce has ended; " + message() + " (reload the page to play again)")
}

// message returns the text under the canvas.
func message() string {
	if el := js.Global().Get("document").Call("getElementById", "message"); !el.IsNull() {
		return el.Get("textContent").String()
	}
	return ""
}

// showMessage shows text under the canvas.
func showMessage(text string) {
	if el := js.Global().Get("document").Call("getElementById", "message"); !el.IsNull() {
		el.Set("textContent", text)
	}
}

// startOf reads the game's start from the page's query, with the terminal demo's defaults.
func startOf(query js.Value) (bouncegame.Start, error) {
	s := bouncegame.Start{Seed: 1, Balls: 5, Width: 80, Height: 24, Glyphs: "braille", TickRate: 10}
	for _, f := range []struct {
		name string
		to   *int
	}{{"balls", &s.Balls}, {"tps", &s.TickRate}, {"cols", &s.Width}, {"rows", &s.Height}} {
		if v := query.Call("get", f.name); !v.IsNull() {
			n, err := strconv.Atoi(v.String())
			if err != nil {
				return s, fmt.Errorf("?%s=%s: %w", f.name, v.String(), err)
			}
			*f.to = n
		}
	}
	if v := query.Call("get", "seed"); !v.IsNull() {
		n, err := strconv.ParseUint(v.String(), 10, 64)
		if err != nil {
			return s, fmt.Errorf("?seed=%s: %w", v.String(), err)
		}
		s.Seed = n
	}
	if v := query.Call("get", "glyphs"); !v.IsNull() {
		s.Glyphs = v.String()
	}
	if err := s.Check(); err != nil {
		return s, err
	}
	if s.Width > 400 || s.Height > 200 {
		return s, fmt.Errorf("?cols=%d&rows=%d: at most 400 by 200 cells", s.Width, s.Height)
	}
	return s.Used(), nil
}

func run(ctx context.Context) error {
	win := js.Global()
	query := win.Get("URLSearchParams").New(win.Get("location").Get("search"))
	s, err := startOf(query)
	if err != nil {
		return err
	}
	canvas, err := web.OpenCanvas("bounce")
	if err != nil {
		return err
	}
	// The cells are twice as high as they are wide, as in a terminal; the page's fit() sizes
	// the canvas to the window with this aspect ratio.
	canvas.Element().Get("dataset").Set("aspect", float64(s.Width)/float64(2*s.Height))
	if fit := win.Get("fit"); fit.Type() == js.TypeFunction {
		fit.Invoke()
	}
	driver, err := web.NewDriver(gameloop.Config{TickRate: s.TickRate})
	if err != nil {
		return err
	}
	grid := bouncegame.NewGrid(s.Width, s.Height)
	g := bouncegame.New(s, driver, bouncegame.NewView(s.Glyphs, grid))
	p, err := newPage(s, g, driver, grid, canvas.Context2D())
	if err != nil {
		return err
	}
	p.expose()
	err = canvas.Run(ctx, driver, p)
	// However the game ended, what was played is saved; a failure of the game comes first. The
	// program waits for the save to end: once main returns, the page can call it no more.
	saved, serr := p.save()
	if serr == nil {
		<-saved
	}
	return errors.Join(err, serr)
}

// colors are the CSS colors of bouncegame's: the default foreground and background, then the
// balls', red to cyan, bright as in a terminal.
func colors() [1 + bounce.Colors]string {
	return [...]string{"#d8d8d8", "#ff5f5f", "#5fff5f", "#ffff5f", "#5f87ff", "#ff5fff", "#5fffff"}
}

const background = "#101418"
