package main

import (
	"fmt"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/glfw"
	"github.com/gameloop-go/gameloop/internal/bounce"
)

// drawMode and its values are internal/bounce's, under the names this demo and its tests use.
type drawMode = bounce.DrawMode

const (
	interpolate = bounce.Interpolate
	extrapolate = bounce.Extrapolate
	neither     = bounce.Neither
	drawModes   = bounce.DrawModes
)

// screen is what the game draws on: a *glfw.Renderer, or a fake in tests.
type screen interface {
	Clear(c glfw.Color)
	FillRect(x, y, width, height float32, c glfw.Color)
}

// palette maps the simulation's ball colours to the screen's.
var palette = [bounce.Colors]glfw.Color{
	{R: 0.95, G: 0.3, B: 0.3, A: 1},
	{R: 0.3, G: 0.85, B: 0.4, A: 1},
	{R: 0.35, G: 0.55, B: 1, A: 1},
	{R: 0.95, G: 0.8, B: 0.25, A: 1},
	{R: 0.8, G: 0.4, B: 0.95, A: 1},
	{R: 0.3, G: 0.85, B: 0.9, A: 1},
}

// background is the colour behind the balls.
var background = glfw.Color{R: 0.08, G: 0.08, B: 0.1, A: 1}

// titleEvery is how often the title's figures are refreshed, in frames.
const titleEvery = 30

// game draws the bounce simulation (internal/bounce) in a window, one dot a square of dot
// pixels, and shows the loop's FPS and TPS in the title.
type game struct {
	sim      *bounce.Sim
	loop     *gameloop.Loop // for Stats, Pause and Resume; nil in tests that need neither
	screen   screen         // where frames are drawn
	setTitle func(string)   // sets the window's title; nil for none
	name     string         // the title's first word
	dot      int            // pixels a side of one dot of the simulation
	mode     drawMode       // how frames between ticks place the balls
	title    string         // the title set last
	stats    gameloop.Stats // the stats shown in the title
}

// newGame returns the game for a framebuffer of width by height pixels.
func newGame(opts options, loop *gameloop.Loop, s screen, setTitle func(string), width, height int) *game {
	dot := max(opts.Dot, 1)
	sim := bounce.New(bounce.Config{Width: width / dot, Height: height / dot, Balls: opts.Balls, Seed: opts.Seed})
	return &game{sim: sim, loop: loop, screen: s, setTitle: setTitle, name: opts.Title, dot: dot}
}

// Input applies the simulation's keys and the demo's own: i cycles the draw mode, p pauses,
// Escape and q quit; a resize resizes the box.
func (g *game) Input(in *gameloop.Input) error {
	switch in.Kind {
	case gameloop.Resize:
		g.sim.Resize(in.Width/g.dot, in.Height/g.dot)
		return nil
	case gameloop.KeyPress:
		switch in.Key {
		case gameloop.KeyEscape, gameloop.KeyQ:
			return gameloop.ErrStop
		case gameloop.KeyI:
			g.mode = g.mode.Next()
			return nil
		case gameloop.KeyP:
			if g.loop != nil {
				if g.loop.Paused() {
					g.loop.Resume()
				} else {
					g.loop.Pause()
				}
			}
			return nil
		}
	}
	g.sim.Apply(in)
	return nil
}

// Update steps the simulation.
func (g *game) Update(u *gameloop.Update) error {
	g.sim.Step(u.DT)
	return nil
}

// Render draws the balls where the draw mode places them, and refreshes the title.
func (g *game) Render(r *gameloop.Render) error {
	g.screen.Clear(background)
	size := float32(g.dot)
	for i := range g.sim.Balls() {
		b := &g.sim.Balls()[i]
		p := g.place(b, r)
		g.screen.FillRect(float32(p.X)*size, float32(p.Y)*size, size, size, palette[int(b.Color)%len(palette)])
	}
	if r.Frame%titleEvery == 1 && g.setTitle != nil {
		if g.loop != nil {
			g.stats = g.loop.Stats()
		}
		title := fmt.Sprintf("%s: %v, %d balls, %.1f FPS, %.1f TPS (i mode, p pause, space/bksp balls, q quit)",
			g.name, g.mode, len(g.sim.Balls()), g.stats.FPS, g.stats.TPS)
		if g.stats.Paused {
			title = g.name + ": paused (p to resume)"
		}
		if title != g.title {
			g.setTitle(title)
			g.title = title
		}
	}
	return nil
}

// place returns where a ball is drawn in this frame, in dots.
func (g *game) place(b *bounce.Ball, r *gameloop.Render) gameloop.Vec2 {
	return b.Place(g.mode, r.Alpha, r.Ext)
}
