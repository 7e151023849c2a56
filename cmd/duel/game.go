package main

import (
	"fmt"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/duel"
	"github.com/gameloop-go/gameloop/netplay"
)

// game is the duel as a rollback session drives it (netplay.Game): the state, the saved
// states in their slots with their checksums, and where the local player's input comes from
// (the keys, a gamepad or a bot).
type game struct {
	state duel.State
	slots []slot

	bot    *duel.Bot   // plays the local paddle when set
	keys   keyHolder   // the local paddle's keys in a terminal, when no bot plays
	held   windowInput // the local paddle's keys and gamepads in a window, when no bot plays
	window bool        // the game is played in a window: held, not keys
}

// slot is a saved state and its checksum.
type slot struct {
	state duel.State
	sum   uint64
}

func newGame(seed uint64, slots int, bot *duel.Bot) *game {
	return &game{state: duel.New(seed), slots: make([]slot, slots), bot: bot}
}

// LocalInput returns the local player's input for the next tick: the bot's choice, or the
// keys held.
func (g *game) LocalInput(handle int) duel.Input {
	switch {
	case g.bot != nil:
		return g.bot.Input(&g.state, handle)
	case g.window:
		return g.held.input()
	}
	return g.keys.input()
}

// Step runs tick with both players' inputs. A player disconnected gives no input: the paddle
// stays where it is.
func (g *game) Step(tick uint64, inputs []netplay.PlayerInput[duel.Input]) error {
	if tick != g.state.Tick+1 {
		return fmt.Errorf("asked to run tick %d after tick %d", tick, g.state.Tick)
	}
	if len(inputs) != 2 {
		return fmt.Errorf("tick %d: %d inputs, want 2", tick, len(inputs))
	}
	g.state.Step([2]duel.Input{inputs[0].Input, inputs[1].Input})
	return nil
}

// Save copies the state into slot and returns its checksum.
func (g *game) Save(slot int) uint64 {
	s := &g.slots[slot]
	s.state, s.sum = g.state, g.state.Checksum()
	return s.sum
}

// Load copies the state back from slot.
func (g *game) Load(slot int) { g.state = g.slots[slot].state }

// resize makes the game hold n slots, as its session asks.
func (g *game) resize(n int) {
	if n != len(g.slots) {
		g.slots = make([]slot, n)
	}
}

// saved returns the checksum of the state after tick as last saved, if a slot still holds it.
func (g *game) saved(tick uint64) (uint64, bool) {
	for i := range g.slots {
		if s := &g.slots[i]; s.state.Tick == tick {
			return s.sum, true
		}
	}
	return 0, false
}

// keyHolder turns the terminal's key presses into a paddle held up or down. A terminal reports
// no key releases, only presses and the keyboard's repeats of a key held down, so each press
// moves the paddle one cell (holdTicks ticks), presses in a row add up (up to the whole
// column), and the repeats of a held key keep it moving. A press the other way starts over.
type keyHolder struct {
	dir  duel.Input
	left int // ticks the direction is still held
}

// holdTicks is how long a key press holds the paddle's direction: one cell at its speed.
const holdTicks = duel.Unit / duel.PaddleSpeed

// maxHold is the most ticks presses in a row hold a direction: the paddle's whole column.
const maxHold = holdTicks * duel.Height

// press notes a key press.
func (k *keyHolder) press(in *gameloop.Input) {
	var dir duel.Input
	switch in.Key {
	case gameloop.KeyUp, gameloop.KeyW, gameloop.KeyK:
		dir = duel.Up
	case gameloop.KeyDown, gameloop.KeyS, gameloop.KeyJ:
		dir = duel.Down
	default:
		return
	}
	if dir != k.dir {
		k.dir, k.left = dir, 0
	}
	k.left = min(k.left+holdTicks, maxHold)
}

// input returns the direction held for this tick.
func (k *keyHolder) input() duel.Input {
	if k.left <= 0 {
		return 0
	}
	k.left--
	return k.dir
}

// windowInput is what a window reports of the paddle's controls: keys held from their press to
// their release, and gamepads (the d-pad, or the left stick pushed past half way). Up and down
// held together hold the paddle still.
type windowInput struct {
	up, down int // the keys held of each direction
	pads     [gameloop.MaxGamepads]gameloop.GamepadState
}

// apply notes a key pressed or released, or a gamepad's input.
func (w *windowInput) apply(in *gameloop.Input) {
	switch in.Kind {
	case gameloop.KeyPress, gameloop.KeyRelease:
		var n *int
		switch in.Key {
		case gameloop.KeyUp, gameloop.KeyW, gameloop.KeyK:
			n = &w.up
		case gameloop.KeyDown, gameloop.KeyS, gameloop.KeyJ:
			n = &w.down
		default:
			return
		}
		if in.Kind == gameloop.KeyPress && !in.Repeat {
			*n++
		} else if in.Kind == gameloop.KeyRelease {
			*n = max(*n-1, 0)
		}
	case gameloop.GamepadConnect, gameloop.GamepadDisconnect, gameloop.GamepadPress, gameloop.GamepadRelease, gameloop.GamepadMove:
		if int(in.Gamepad) < len(w.pads) {
			w.pads[in.Gamepad].Apply(in)
		}
	}
}

// input returns the direction held now.
func (w *windowInput) input() duel.Input {
	up, down := w.up > 0, w.down > 0
	for i := range w.pads {
		p := &w.pads[i]
		up = up || p.Pressed(gameloop.GamepadUp) || p.Axis(gameloop.GamepadLeftY) < -gameloop.AxisMax/2
		down = down || p.Pressed(gameloop.GamepadDown) || p.Axis(gameloop.GamepadLeftY) > gameloop.AxisMax/2
	}
	switch {
	case up && !down:
		return duel.Up
	case down && !up:
		return duel.Down
	}
	return 0
}
