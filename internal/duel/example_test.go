package duel_test

import (
	"fmt"

	"github.com/gameloop-go/gameloop/internal/duel"
)

// A game is a value: saving it is a copy, loading it is a copy, and the same inputs from the
// same state give the same state again, which is what a rollback relies on.
func Example() {
	game := duel.New(1)
	bots := [2]duel.Bot{duel.NewBot(1), duel.NewBot(2)}
	play := func(ticks int) {
		for range ticks {
			game.Step([2]duel.Input{bots[0].Input(&game, 0), bots[1].Input(&game, 1)})
		}
	}
	play(100)
	saved, savedBots := game, bots // save
	play(50)
	first := game.Checksum()

	game, bots = saved, savedBots // load, and play the same ticks again
	play(50)
	fmt.Println(game.Tick, game.Checksum() == first)

	// An input travels as one byte.
	var b [duel.InputSize]byte
	(duel.Up).Put(b[:])
	fmt.Println(duel.Get(b[:]) == duel.Up)
	// Output:
	// 150 true
	// true
}
