// Package duelnet is the duel (package duel) as a netplay session plays it, shared by every
// program that plays it: cmd/duel in a terminal, a window or headless, and the web page of
// cmd/duelweb. It holds the netplay.Game (the state, its saved slots and checksums, and where
// the local player's input comes from: a bot, keys or a gamepad), the session's settings and a
// recording's header, and what a player's side tracks of the ticks that become final: the
// checksums the status line shows and the one a run given a last tick prints.
package duelnet

import (
	"fmt"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/duel"
	"github.com/gameloop-go/gameloop/netplay"
)

// Source says where the local player's input comes from when no bot plays.
type Source int

const (
	// FromKeyPresses is a terminal's keys: presses and repeats, no releases (see KeyHolder).
	FromKeyPresses Source = iota
	// FromHeldKeys is a window's or a web page's keys, held from press to release, and the
	// gamepads (see HeldInput).
	FromHeldKeys
)

// Game is the duel as a rollback session drives it (netplay.Game): the state, the saved states
// in their slots, and where the local player's input comes from.
type Game struct {
	// State is the game's state, as last stepped or loaded.
	State duel.State
	// Bot plays the local paddle when set.
	Bot *duel.Bot
	// Keys are the local paddle's keys in a terminal, and Held in a window or a page: the
	// one Source names is read when no bot plays.
	Keys   KeyHolder
	Held   HeldInput
	Source Source

	slots []slot
}

// slot is a saved state.
type slot struct {
	state duel.State
}

// NewGame returns the game started from seed, with slots slots, played by bot if not nil.
func NewGame(seed uint64, slots int, bot *duel.Bot) *Game {
	return &Game{State: duel.New(seed), slots: make([]slot, slots), Bot: bot}
}

// LocalInput returns the local player's input for the next tick: the bot's choice, or the
// keys held.
func (g *Game) LocalInput(handle int) duel.Input {
	switch {
	case g.Bot != nil:
		return g.Bot.Input(&g.State, handle)
	case g.Source == FromHeldKeys:
		return g.Held.Input()
	}
	return g.Keys.Input()
}

// Step runs tick with both players' inputs. A player disconnected gives no input: the paddle
// stays where it is.
func (g *Game) Step(tick uint64, inputs []netplay.PlayerInput[duel.Input]) error {
	if tick != g.State.Tick+1 {
		return fmt.Errorf("asked to run tick %d after tick %d", tick, g.State.Tick)
	}
	if len(inputs) != 2 {
		return fmt.Errorf("tick %d: %d inputs, want 2", tick, len(inputs))
	}
	g.State.Step([2]duel.Input{inputs[0].Input, inputs[1].Input})
	return nil
}

// Save copies the state into slot and returns its checksum.
func (g *Game) Save(slot int) uint64 {
	g.slots[slot].state = g.State
	return g.State.Checksum()
}

// Load copies the state back from slot.
func (g *Game) Load(slot int) { g.State = g.slots[slot].state }

// AppendSnapshot appends the encoding of the state saved in slot (netplay.Snapshotter: a
// relay's state snapshot).
func (g *Game) AppendSnapshot(dst []byte, slot int) []byte {
	b, _ := g.slots[slot].state.AppendBinary(dst) // a State always encodes
	return b
}

// LoadSnapshot makes the state encoded in data the game's, and returns its checksum.
func (g *Game) LoadSnapshot(data []byte) (uint64, error) {
	var s duel.State
	if err := s.UnmarshalBinary(data); err != nil {
		return 0, err
	}
	g.State = s
	return s.Checksum(), nil
}

// Resize makes the game hold n slots, as its session asks.
func (g *Game) Resize(n int) {
	if n != len(g.slots) {
		g.slots = make([]slot, n)
	}
}

// KeyHolder turns a terminal's key presses into a paddle held up or down. A terminal reports
// no key releases, only presses and the keyboard's repeats of a key held down, so each press
// moves the paddle one cell (HoldTicks ticks), presses in a row add up (up to the whole
// column), and the repeats of a held key keep it moving. A press the other way starts over.
type KeyHolder struct {
	dir  duel.Input
	left int // ticks the direction is still held
}

// HoldTicks is how long a key press holds the paddle's direction: one cell at its speed.
const HoldTicks = duel.Unit / duel.PaddleSpeed

// maxHold is the most ticks presses in a row hold a direction: the paddle's whole column.
const maxHold = HoldTicks * duel.Height

// direction returns the paddle's direction that key moves it in, or 0.
func direction(key gameloop.Key) duel.Input {
	switch key {
	case gameloop.KeyUp, gameloop.KeyW, gameloop.KeyK:
		return duel.Up
	case gameloop.KeyDown, gameloop.KeyS, gameloop.KeyJ:
		return duel.Down
	}
	return 0
}

// Press notes a key press.
func (k *KeyHolder) Press(in *gameloop.Input) {
	dir := direction(in.Key)
	if dir == 0 {
		return
	}
	if dir != k.dir {
		k.dir, k.left = dir, 0
	}
	k.left = min(k.left+HoldTicks, maxHold)
}

// Input returns the direction held for this tick.
func (k *KeyHolder) Input() duel.Input {
	if k.left <= 0 {
		return 0
	}
	k.left--
	return k.dir
}

// HeldInput is what a window or a web page reports of the paddle's controls: keys held from
// their press to their release, and gamepads (the d-pad, or the left stick pushed past half
// way). Up and down held together hold the paddle still.
type HeldInput struct {
	up, down int // the keys held of each direction
	pads     [gameloop.MaxGamepads]gameloop.GamepadState
}

// Apply notes a key pressed or released, or a gamepad's input.
func (w *HeldInput) Apply(in *gameloop.Input) {
	switch in.Kind {
	case gameloop.KeyPress, gameloop.KeyRelease:
		var n *int
		switch direction(in.Key) {
		case duel.Up:
			n = &w.up
		case duel.Down:
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

// Input returns the direction held now.
func (w *HeldInput) Input() duel.Input {
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
