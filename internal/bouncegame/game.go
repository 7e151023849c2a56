// Package bouncegame is the bounce demo as a game: the simulation of package bounce, the keys
// that control it and the loop, and a view that draws it as a grid of character cells, with a
// status line. The terminal demo (cmd/bounce) shows the grid in a terminal, the browser demo
// (cmd/bounceweb) paints it on a canvas; both record the same recordings, so that a session
// played in one replays in the other.
package bouncegame

import (
	"fmt"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/bounce"
)

// Controls is what the game's keys control: the loop it runs on. *gameloop.Loop satisfies it,
// and so does the browser's driver.
type Controls interface {
	Paused() bool
	Pause()
	Resume()
	SetTimeScale(scale float64) error
	SetTickRate(rate int) error
	Stats() gameloop.Stats
}

// TickRates returns the rates [ and ] step through.
func TickRates() [9]int { return [...]int{1, 2, 5, 10, 15, 20, 30, 60, 120} }

// Time scales + and - reach, as powers of two.
const (
	MinTimeScale = 1.0 / 8
	MaxTimeScale = 8
)

// Game is the demo's gameloop.Game: the simulation, the controls of the loop, and a view.
type Game struct {
	// Sim is the simulation: the game's whole state.
	Sim *bounce.Sim
	// Mode is how frames place the balls between two ticks; i cycles it.
	Mode bounce.DrawMode
	// View draws the game.
	View *View
	// PanicAtTick makes Update panic at that tick, for tests of what a panic leaves behind; 0
	// never.
	PanicAtTick uint64

	// controls is the loop the game runs on, which p, +, -, [ and ] control. It is nil when the
	// game is replayed: replay.Play runs the loop, and makes the recorded changes of the tick
	// rate itself, while pausing and the time scale change no tick's step.
	controls  Controls
	tickRate  int
	timeScale float64
}

// New returns the game that s describes, drawn by v into a window of s.Width by s.Height cells,
// running on controls (nil for a replay: see Game.controls). s.TickRate must be the rate the
// loop runs at.
func New(s Start, controls Controls, v *View) *Game {
	dw, dh := v.Resize(s.Width, s.Height)
	return &Game{
		Sim:       bounce.New(bounce.Config{Width: dw, Height: dh, Balls: s.Balls, Seed: s.Seed}),
		View:      v,
		controls:  controls,
		tickRate:  s.TickRate,
		timeScale: 1,
	}
}

// Controls returns the loop the game controls, nil in a replay.
func (g *Game) Controls() Controls { return g.controls }

// Input applies the loop's controls (typed characters) and hands the rest to the simulation:
// the keys pressed and every gamepad input (see bounce.Sim.Apply). Every change of the
// simulation happens here or in Update, in the order the loop delivers them, so that a
// recording of these inputs with their ticks replays the game exactly.
func (g *Game) Input(in *gameloop.Input) error {
	switch in.Kind {
	case gameloop.Resize:
		g.Sim.Resize(g.View.Resize(in.Width, in.Height))
		return nil
	case gameloop.KeyPress:
		if in.Key == gameloop.KeyEscape {
			return gameloop.ErrStop
		}
		g.Sim.Apply(in)
		return nil
	case gameloop.GamepadConnect, gameloop.GamepadDisconnect, gameloop.GamepadPress, gameloop.GamepadRelease, gameloop.GamepadMove:
		g.Sim.Apply(in)
		return nil
	case gameloop.Char:
		return g.control(in.Rune)
	}
	return nil
}

// control applies the key that typed r to the loop or the drawing. Without a loop (in a
// replay), the keys that control it do nothing.
func (g *Game) control(r rune) error {
	switch r {
	case 'q', 'Q':
		return gameloop.ErrStop
	case 'i', 'I':
		g.Mode = g.Mode.Next()
	case 'p', 'P', '+', '=', '-', '_', '[', ']':
		if g.controls == nil {
			return nil
		}
		return g.controlLoop(r)
	}
	return nil
}

// controlLoop pauses or resumes the loop, or changes its time scale or tick rate.
func (g *Game) controlLoop(r rune) error {
	switch r {
	case 'p', 'P':
		if g.controls.Paused() {
			g.controls.Resume()
		} else {
			g.controls.Pause()
		}
	case '+', '=':
		return g.setTimeScale(min(g.timeScale*2, MaxTimeScale))
	case '-', '_':
		return g.setTimeScale(max(g.timeScale/2, MinTimeScale))
	case '[':
		return g.setTickRate(Slower(g.tickRate))
	case ']':
		return g.setTickRate(Faster(g.tickRate))
	}
	return nil
}

func (g *Game) setTimeScale(scale float64) error {
	if err := g.controls.SetTimeScale(scale); err != nil {
		return fmt.Errorf("setting the time scale: %w", err)
	}
	g.timeScale = scale
	return nil
}

func (g *Game) setTickRate(rate int) error {
	if err := g.controls.SetTickRate(rate); err != nil {
		return fmt.Errorf("setting the tick rate: %w", err)
	}
	g.tickRate = rate
	return nil
}

// Slower returns the highest of TickRates below rate, or rate if there is none.
func Slower(rate int) int {
	rates := TickRates()
	for i := len(rates) - 1; i >= 0; i-- {
		if rates[i] < rate {
			return rates[i]
		}
	}
	return rate
}

// Faster returns the lowest of TickRates above rate, or rate if there is none.
func Faster(rate int) int {
	for _, r := range TickRates() {
		if r > rate {
			return r
		}
	}
	return rate
}

// Update advances the simulation by one tick.
func (g *Game) Update(u *gameloop.Update) error {
	if u.Tick == g.PanicAtTick {
		panic(fmt.Sprintf("bounce: -panic-at-tick %d", u.Tick))
	}
	g.Sim.Step(u.DT)
	return nil
}

// Checksum returns the simulation's checksum: the game's state is the simulation's. A recording
// stores it after every tick, and a replay compares it.
func (g *Game) Checksum() uint64 { return g.Sim.Checksum() }

// Render draws the frame.
func (g *Game) Render(r *gameloop.Render) error {
	g.View.Draw(g, r)
	return nil
}
