package main

import (
	"math"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/glfw"
)

// fadePerSecond is how far the brightness moves in a second of game time while Up or Down is
// held: from black to white in two seconds, whatever the tick rate.
const fadePerSecond = 0.5

// screen is what the game draws on: a *glfw.Renderer, or a fake in tests.
type screen interface {
	Clear(c glfw.Color)
	FillRect(x, y, width, height float32, c glfw.Color)
}

// gaugeColor is the colour of the bar along the bottom of the window that shows the level.
var gaugeColor = glfw.Color{R: 1, G: 0.55, B: 0.1, A: 1}

// game is the LWJGL book's DummyGame: Up and Down, held, fade the window's clear colour between
// black and white, and Escape ends the game. It implements gameloop.Game, InputHandler and
// Renderer.
//
// The book polls the window (isKeyPressed) in its input step. This game follows KeyPress and
// KeyRelease input instead, so that its whole state follows from the input the loop delivers
// and the ticks it runs: a recording of that input replays it exactly.
type game struct {
	screen   screen
	level    gameloop.InterpolatedFloat[float64] // the brightness, 0 to 1, of the last two ticks
	up, down bool                                // the keys held
}

// newGame returns the game at black, drawing on s. With s nil the game runs without a window
// or OpenGL, as a replay does: input and updates, and a Render that draws nothing.
func newGame(s screen) *game { return &game{screen: s} }

// Input follows the Up and Down keys and ends the game on Escape.
func (g *game) Input(in *gameloop.Input) error {
	switch in.Kind {
	case gameloop.KeyPress, gameloop.KeyRelease:
		held := in.Kind == gameloop.KeyPress
		switch in.Key {
		case gameloop.KeyEscape:
			if held {
				return gameloop.ErrStop
			}
		case gameloop.KeyUp:
			g.up = held
		case gameloop.KeyDown:
			g.down = held
		}
	case gameloop.Focus:
		// A key released while the window is not focused sends no release: let go of both.
		if !in.Focused {
			g.up, g.down = false, false
		}
	}
	return nil
}

// Update moves the brightness one step toward white while Up is held, toward black while Down
// is held (both: no change), clamped to [0, 1].
func (g *game) Update(u *gameloop.Update) error {
	var direction float64
	if g.up {
		direction++
	}
	if g.down {
		direction--
	}
	// The explicit conversion rounds the product, so that no machine fuses the multiplication
	// and the addition into one (Go allows it): every machine computes the same level.
	step := float64(direction * fadePerSecond * u.Seconds)
	g.level.Set(min(max(g.level.Curr+step, 0), 1))
	return nil
}

// Render clears the window to the brightness between the last two ticks, and draws a gauge of
// it along the bottom.
func (g *game) Render(r *gameloop.Render) error {
	if g.screen == nil {
		return nil
	}
	level := g.level.At(r.Alpha)
	g.screen.Clear(glfw.Gray(float32(level)))
	gauge := max(float32(r.Height)/40, 2)
	g.screen.FillRect(0, float32(r.Height)-gauge, float32(level)*float32(r.Width), gauge, gaugeColor)
	return nil
}

// Level returns the brightness after the last tick.
func (g *game) Level() float64 { return g.level.Curr }

// Checksum returns a 64-bit FNV-1a hash of the game's whole state: the brightness (the clear
// colour) after the last two ticks, bit for bit, and the keys held. A recording stores it
// after every tick, and a replay compares it.
func (g *game) Checksum() uint64 {
	h := uint64(14695981039346656037)
	var keys uint64
	if g.up {
		keys |= 1
	}
	if g.down {
		keys |= 2
	}
	for _, v := range [...]uint64{math.Float64bits(g.level.Prev), math.Float64bits(g.level.Curr), keys} {
		for range 8 {
			h ^= v & 0xff
			h *= 1099511628211
			v >>= 8
		}
	}
	return h
}
