package main

import (
	"fmt"

	"github.com/gameloop-go/gameloop"
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

// tickRates returns the rates [ and ] step through.
func tickRates() [9]int { return [...]int{1, 2, 5, 10, 15, 20, 30, 60, 120} }

// Time scales + and - reach, as powers of two.
const (
	minTimeScale = 1.0 / 8
	maxTimeScale = 8
)

// game is the demo's gameloop.Game: the simulation, the controls of the loop, and a view.
type game struct {
	sim *bounce.Sim
	// loop is the loop the game runs on, which p, +, -, [ and ] control. It is nil when the
	// game is replayed: replay.Play runs the loop, and makes the recorded changes of the tick
	// rate itself, while pausing and the time scale change no tick's step.
	loop *gameloop.Loop
	view *view

	mode      drawMode
	tickRate  int
	timeScale float64

	panicAtTick uint64
}

// newGame returns the game for a window of width by height cells, running on loop (nil for a
// replay: see game.loop).
func newGame(opts options, loop *gameloop.Loop, v *view, width, height int) *game {
	dw, dh := v.resize(width, height)
	tickRate := opts.tickRate
	if loop != nil {
		tickRate = loop.Config().TickRate
	}
	return &game{
		sim:         bounce.New(bounce.Config{Width: dw, Height: dh, Balls: opts.balls, Seed: opts.seed}),
		loop:        loop,
		view:        v,
		tickRate:    tickRate,
		timeScale:   1,
		panicAtTick: opts.panicAtTick,
	}
}

// Input applies the loop's controls (typed characters) and hands the rest to the simulation.
// Every change of the simulation happens here or in Update, in the order the loop delivers
// them, so that a recording of these inputs with their ticks replays the game exactly.
func (g *game) Input(in *gameloop.Input) error {
	switch in.Kind {
	case gameloop.Resize:
		g.sim.Resize(g.view.resize(in.Width, in.Height))
		return nil
	case gameloop.KeyPress:
		if in.Key == gameloop.KeyEscape {
			return gameloop.ErrStop
		}
		g.sim.Apply(in)
		return nil
	case gameloop.Char:
		return g.control(in.Rune)
	}
	return nil
}

// control applies the key that typed r to the loop or the drawing. Without a loop (in a
// replay), the keys that control it do nothing.
func (g *game) control(r rune) error {
	switch r {
	case 'q', 'Q':
		return gameloop.ErrStop
	case 'i', 'I':
		g.mode = g.mode.Next()
	case 'p', 'P', '+', '=', '-', '_', '[', ']':
		if g.loop == nil {
			return nil
		}
		return g.controlLoop(r)
	}
	return nil
}

// controlLoop pauses or resumes the loop, or changes its time scale or tick rate.
func (g *game) controlLoop(r rune) error {
	switch r {
	case 'p', 'P':
		if g.loop.Paused() {
			g.loop.Resume()
		} else {
			g.loop.Pause()
		}
	case '+', '=':
		return g.setTimeScale(min(g.timeScale*2, maxTimeScale))
	case '-', '_':
		return g.setTimeScale(max(g.timeScale/2, minTimeScale))
	case '[':
		return g.setTickRate(slower(g.tickRate))
	case ']':
		return g.setTickRate(faster(g.tickRate))
	}
	return nil
}

func (g *game) setTimeScale(scale float64) error {
	if err := g.loop.SetTimeScale(scale); err != nil {
		return fmt.Errorf("setting the time scale: %w", err)
	}
	g.timeScale = scale
	return nil
}

func (g *game) setTickRate(rate int) error {
	if err := g.loop.SetTickRate(rate); err != nil {
		return fmt.Errorf("setting the tick rate: %w", err)
	}
	g.tickRate = rate
	return nil
}

// slower returns the highest of tickRates below rate, or rate if there is none.
func slower(rate int) int {
	rates := tickRates()
	for i := len(rates) - 1; i >= 0; i-- {
		if rates[i] < rate {
			return rates[i]
		}
	}
	return rate
}

// faster returns the lowest of tickRates above rate, or rate if there is none.
func faster(rate int) int {
	for _, r := range tickRates() {
		if r > rate {
			return r
		}
	}
	return rate
}

// Update advances the simulation by one tick.
func (g *game) Update(u *gameloop.Update) error {
	if u.Tick == g.panicAtTick {
		panic(fmt.Sprintf("bounce: -panic-at-tick %d", u.Tick))
	}
	g.sim.Step(u.DT)
	return nil
}

// Checksum returns the simulation's checksum: the game's state is the simulation's. A recording
// stores it after every tick, and a replay compares it.
func (g *game) Checksum() uint64 { return g.sim.Checksum() }

// Render draws the frame.
func (g *game) Render(r *gameloop.Render) error {
	g.view.draw(g, r)
	return nil
}
