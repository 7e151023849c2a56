package bounce_test

import (
	"fmt"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/bounce"
)

// A simulation stepped by fixed ticks; a renderer draws each ball between its previous and
// current position.
func Example() {
	sim := bounce.New(bounce.Config{Width: 80, Height: 40, Balls: 3, Seed: 1})
	sim.Apply(&gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeySpace}) // one more ball
	for range 10 {
		sim.Step(100 * time.Millisecond)
	}
	b := &sim.Balls()[0]
	halfway := b.Prev().Lerp(b.Pos(), 0.5)
	fmt.Println(len(sim.Balls()), "balls after", sim.Elapsed())
	fmt.Println(halfway.X >= 0 && halfway.X <= 79 && halfway.Y >= 0 && halfway.Y <= 39)
	// Output:
	// 4 balls after 1s
	// true
}
