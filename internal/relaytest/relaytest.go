// Package relaytest holds the small deterministic game the relay's tests play: byte inputs and
// a hash of every player's inputs, tick by tick.
package relaytest

import "github.com/gameloop-go/gameloop/netplay"

// Game hashes every player's input, and whether each is disconnected, into State, tick by
// tick; not whether an input was predicted, since a prediction that proves right is not run
// again. It implements netplay.Game[byte].
type Game struct {
	State uint64
	slots []uint64
}

// NewGame returns a game of slots save slots.
func NewGame(slots int) *Game { return &Game{slots: make([]uint64, slots)} }

// LocalInput returns 0: the tests add their players' inputs themselves.
func (g *Game) LocalInput(int) byte { return 0 }

// Step runs tick.
func (g *Game) Step(tick uint64, in []netplay.PlayerInput[byte]) error {
	for h, p := range in {
		gone := uint64(0)
		if p.Status == netplay.Disconnected {
			gone = 1 << 40
		}
		g.State = (g.State^uint64(p.Input)<<(8*h)^gone)*0x100000001b3 + tick
	}
	return nil
}

// Save saves the state into slot and returns it as the checksum.
func (g *Game) Save(slot int) uint64 { g.slots[slot] = g.State; return g.State }

// Load goes back to the state in slot.
func (g *Game) Load(slot int) { g.State = g.slots[slot] }

// ByteCodec encodes a byte input as itself.
type ByteCodec struct{}

// Size is 1.
func (ByteCodec) Size() int { return 1 }

// Put writes in.
func (ByteCodec) Put(dst []byte, in byte) { dst[0] = in }

// Get reads it back.
func (ByteCodec) Get(src []byte) byte { return src[0] }
