// Command after is ../before ported to gameloop: the same game, 20 fixed updates a second,
// drawn at the display's rate between the last two updates. See docs/ebiten.md.
package main

import (
	"image/color"
	"log"

	"github.com/gameloop-go/gameloop"
	gle "github.com/gameloop-go/gameloop/backend/ebiten"
	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"
)

// Game is the whole game: where the square is.
type Game struct {
	x gameloop.InterpolatedFloat[float64] // the square's left edge at the last two updates
}

func (g *Game) Input(in *gameloop.Input) error {
	if in.Kind == gameloop.KeyPress && in.Key == gameloop.KeyEscape {
		return gameloop.ErrStop
	}
	return nil
}

func (g *Game) Update(u *gameloop.Update) error {
	next := g.x.Curr + 240*u.Seconds // u.Seconds is exactly 1/TickRate
	if next > 320 {
		g.x.Reset(0) // a jump back: not drawn sliding across the screen
		return nil
	}
	g.x.Set(next)
	return nil
}

func (g *Game) Draw(screen *ebiten.Image, r *gameloop.Render) error {
	x := g.x.At(r.Alpha) // r.Alpha: how far the frame is between the last update and the next
	vector.DrawFilledRect(screen, float32(x), 100, 16, 16, color.White, false)
	return nil
}

func (g *Game) Layout(outsideWidth, outsideHeight int) (int, int) { return 320, 240 }

func main() {
	ebiten.SetWindowSize(640, 480)
	g, err := gle.New(&Game{}, gameloop.Config{TickRate: 20})
	if err != nil {
		log.Fatal(err)
	}
	if err := gle.Run(g, nil); err != nil {
		log.Fatal(err)
	}
}
