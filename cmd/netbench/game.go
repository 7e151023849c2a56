package main

import (
	"github.com/gameloop-go/gameloop/internal/ballgame"
	"github.com/gameloop-go/gameloop/netplay"
)

// game is one peer's game: the benchmarks' balls (package ballgame), pushed sideways by the
// players' inputs, each input's low two bits less one.
type game struct{ *ballgame.Game }

func newGame(balls, slots int) *game { return &game{ballgame.New(balls, slots)} }

// LocalInput is a bot's: buttons held for 10 ticks at a time, from a hash of the tick.
func (g *game) LocalInput(h int) uint8 {
	t := (g.State.Tick + 1) / 10
	x := t*0x9e3779b97f4a7c15 ^ uint64(h+1)*0xbf58476d1ce4e5b9
	x ^= x >> 31
	return uint8(x & 3)
}

func (g *game) Step(tick uint64, inputs []netplay.PlayerInput[uint8]) error {
	var push int64
	for _, in := range inputs {
		push += int64(in.Input&3) - 1
	}
	g.Game.Step(tick, push)
	return nil
}

// codec encodes an input in one byte.
type codec struct{}

func (codec) Size() int                 { return 1 }
func (codec) Put(dst []byte, in uint8)  { dst[0] = in }
func (codec) Get(src []byte) (in uint8) { return src[0] }
