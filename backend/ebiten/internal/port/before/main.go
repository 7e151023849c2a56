// Command before is a small Ebitengine game as Ebitengine users write it: a square crosses the
// screen, moved by Update at a fixed TPS, drawn by Draw once per displayed frame. docs/ebiten.md
// ports it to gameloop (see ../after).
package main

import (
	"image/color"
	"log"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"
)

// Game is the whole game: where the square is.
type Game struct {
	x float64 // the square's left edge
}

func (g *Game) Update() error {
	if ebiten.IsKeyPressed(ebiten.KeyEscape) {
		return ebiten.Termination
	}
	g.x += 240.0 / 20 // 240 pixels a second at 20 updates a second
	if g.x > 320 {
		g.x = 0
	}
	return nil
}

func (g *Game) Draw(screen *ebiten.Image) {
	vector.DrawFilledRect(screen, float32(g.x), 100, 16, 16, color.White, false)
}

func (g *Game) Layout(outsideWidth, outsideHeight int) (int, int) { return 320, 240 }

func main() {
	ebiten.SetWindowSize(640, 480)
	ebiten.SetTPS(20) // a cheap simulation, but the square moves only 20 times a second
	if err := ebiten.RunGame(&Game{}); err != nil {
		log.Fatal(err)
	}
}
