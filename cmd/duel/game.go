package main

import (
	"fmt"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/duel"
	"github.com/gameloop-go/gameloop/netplay"
)

// game is the duel as a rollback session drives it (netplay.Game): the state, the saved
// states in their slots, and where the local player's input comes from (the keys or a bot).
// It also notes the checksums of confirmed ticks, which the status line and -headless show.
type game struct {
	state duel.State
	slots []duel.State

	local int        // the local player's handle, 0 or 1
	bot   *duel.Bot  // plays the local paddle when set
	keys  keyHolder  // the local paddle's keys, when no bot plays
	sums  *confirmed // checksums of confirmed ticks
}

func newGame(seed uint64, slots, local int, bot *duel.Bot, want uint64) *game {
	return &game{
		state: duel.New(seed),
		slots: make([]duel.State, slots),
		local: local,
		bot:   bot,
		sums:  &confirmed{want: want},
	}
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
	all := true
	for _, in := range inputs {
		all = all && in.Status != netplay.Predicted
	}
	g.state.Step([2]duel.Input{inputs[0].Input, inputs[1].Input})
	g.sums.stepped(tick, all)
	return nil
}

// Save copies the state into slot and returns its checksum.
func (g *game) Save(slot int) uint64 {
	g.slots[slot] = g.state
	sum := g.state.Checksum()
	g.sums.saved(g.state.Tick, sum)
	return sum
}

// Load copies the state back from slot.
func (g *game) Load(slot int) { g.state = g.slots[slot] }

// confirmed follows which ticks ran with every input confirmed. The state after such a tick
// is final: a tick runs with all its inputs confirmed only once every earlier tick has too
// (inputs arrive in order, and a wrong prediction is rolled back before a later tick runs), so
// no rollback will play it again. Its checksum is then the one every peer computes.
type confirmed struct {
	pending uint64 // the tick just run with every input confirmed, 0 if the last was not
	last    uint64 // the last final tick

	// Synced and SyncSum are the last final tick that is a multiple of duel.SyncEvery, and its
	// checksum: what the status line shows.
	synced, syncSum uint64

	want    uint64 // the tick whose checksum -headless prints; 0 none
	wantSum uint64
	got     bool // want's checksum is known
}

func (c *confirmed) stepped(tick uint64, all bool) {
	c.pending = 0
	if all {
		c.pending = tick
	}
}

func (c *confirmed) saved(tick, sum uint64) {
	if c.pending != tick || tick <= c.last {
		return
	}
	c.last = tick
	if tick%duel.SyncEvery == 0 {
		c.synced, c.syncSum = tick, sum
	}
	if tick == c.want {
		c.wantSum, c.got = sum, true
	}
}

// keyHolder turns the terminal's key presses into a paddle held up or down. A terminal reports
// no key releases, only presses and the keyboard's repeats of a key held down, so a press
// moves the paddle for holdTicks ticks, and the repeats of a held key keep it moving.
type keyHolder struct {
	dir  duel.Input
	left int // ticks the direction is still held
}

// holdTicks is how long a key press holds the paddle's direction: one cell at its speed.
const holdTicks = duel.Unit / duel.PaddleSpeed

// press notes a key press.
func (k *keyHolder) press(in *gameloop.Input) {
	switch in.Key {
	case gameloop.KeyUp, gameloop.KeyW, gameloop.KeyK:
		k.dir, k.left = duel.Up, holdTicks
	case gameloop.KeyDown, gameloop.KeyS, gameloop.KeyJ:
		k.dir, k.left = duel.Down, holdTicks
	}
}

// input returns the direction held for this tick.
func (k *keyHolder) input() duel.Input {
	if k.left <= 0 {
		return 0
	}
	k.left--
	return k.dir
}
