package main

import (
	"fmt"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/duel"
	"github.com/gameloop-go/gameloop/netplay"
)

// game is the duel as a rollback session drives it (netplay.Game): the state, the saved
// states in their slots with their checksums, and where the local player's input comes from
// (the keys or a bot).
type game struct {
	state duel.State
	slots []slot

	bot  *duel.Bot // plays the local paddle when set
	keys keyHolder // the local paddle's keys, when no bot plays
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
	if g.bot != nil {
		return g.bot.Input(&g.state, handle)
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
