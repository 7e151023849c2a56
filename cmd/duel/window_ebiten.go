//go:build ebiten

package main

// The game in an Ebitengine window (-gui), in a duel built with -tags ebiten: Ebitengine needs
// cgo and, on Linux, a display at start-up, which a duel played in a terminal or headless on a
// server must not.

import (
	"context"
	"fmt"
	"image/color"

	"github.com/gdamore/tcell/v2"
	ebiten "github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/ebitenutil"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"github.com/gameloop-go/gameloop"
	gle "github.com/gameloop-go/gameloop/backend/ebiten"
	"github.com/gameloop-go/gameloop/internal/duel"
	"github.com/gameloop-go/gameloop/netplay"
)

// windowBuilt says that this duel can play in a window.
const windowBuilt = true

// The window's cells: the size of a character of Ebitengine's debug font.
const (
	cellWidth  = 6
	cellHeight = 16
	// windowScale is how many pixels of the window a pixel of the screen takes.
	windowScale = 2
)

// playWindow runs the game in an Ebitengine window until it ends: the same view as in the
// terminal, drawn as cells of Ebitengine's debug font, keys held from press to release, and
// gamepads. It must run on the main goroutine, as main calls it. ctx's cancellation (a signal)
// ends it before the next tick.
func (a *app) playWindow(ctx context.Context) error {
	cells := &cellSurface{}
	a.view = duel.NewView(cells)
	w := &windowGame{app: a, ctx: ctx, cells: cells}
	g, err := gle.New(w, gameloop.Config{TickRate: duel.TickRate})
	if err != nil {
		return fmt.Errorf("creating the window's loop: %w", err)
	}
	a.loop = g
	if a.session != nil {
		a.inner = netplay.NewLoopGame(a.session, a.game, g)
	}
	ebiten.SetWindowTitle("duel")
	ebiten.SetWindowSize(duel.ViewWidth*cellWidth*windowScale, duel.ViewHeight*cellHeight*windowScale)
	return gle.Run(g, nil)
}

// windowGame is the app as Ebitengine's adapter runs it: the app's callbacks, and a Draw that
// puts the cells the app's view drew on Ebitengine's screen.
type windowGame struct {
	*app
	ctx   context.Context
	cells *cellSurface
}

// Update ends the game once ctx is cancelled, and otherwise runs the app's tick.
func (w *windowGame) Update(u *gameloop.Update) error {
	if w.ctx.Err() != nil {
		return gameloop.ErrStop
	}
	return w.app.Update(u)
}

// Layout fixes the screen at the view's size in cells.
func (w *windowGame) Layout(int, int) (int, int) {
	return duel.ViewWidth * cellWidth, duel.ViewHeight * cellHeight
}

// Draw draws the view on screen.
func (w *windowGame) Draw(screen *ebiten.Image, r *gameloop.Render) error {
	if err := w.app.Render(r); err != nil {
		return err
	}
	screen.Fill(color.Black)
	w.cells.draw(screen)
	return nil
}

// cellSurface is a duel.Surface that keeps the cells the view draws, for draw to put on an
// Ebitengine image.
type cellSurface struct {
	runes  [duel.ViewHeight][duel.ViewWidth]rune
	styles [duel.ViewHeight][duel.ViewWidth]tcell.Style
	text   [duel.ViewWidth]byte // a row's text, for the debug font
	// rows are the rows' texts as last drawn, kept so that a row is made a string again
	// only when it changed (the status line, each frame; the field's rows, seldom).
	rows [duel.ViewHeight]string
}

// SetCell sets the cell at x, y; one outside the view is ignored.
func (c *cellSurface) SetCell(x, y int, r rune, style tcell.Style) {
	if x >= 0 && y >= 0 && x < duel.ViewWidth && y < duel.ViewHeight {
		c.runes[y][x], c.styles[y][x] = r, style
	}
}

var (
	lineColor   = color.RGBA{0x80, 0x80, 0x80, 0xff}
	statusColor = color.RGBA{0x40, 0x40, 0x50, 0xff}
)

// draw draws the cells on screen: the border and the middle line as lines, the paddles and
// the ball as blocks of their colours, the rest as text (the debug font has Latin-1 only).
func (c *cellSurface) draw(screen *ebiten.Image) {
	for y := range c.runes {
		py := float32(y * cellHeight)
		if _, _, attr := c.styles[y][0].Decompose(); attr&tcell.AttrReverse != 0 {
			vector.DrawFilledRect(screen, 0, py, duel.ViewWidth*cellWidth, cellHeight, statusColor, false)
		}
		for x, r := range c.runes[y] {
			px := float32(x * cellWidth)
			c.text[x] = ' '
			fg, _, _ := c.styles[y][x].Decompose()
			switch r {
			case '─':
				vector.DrawFilledRect(screen, px, py+cellHeight/2, cellWidth, 1, lineColor, false)
			case '│':
				vector.DrawFilledRect(screen, px+cellWidth/2, py, 1, cellHeight, lineColor, false)
			case '┌', '┐', '└', '┘':
				x0, y0 := px+cellWidth/2, py+cellHeight/2
				switch r {
				case '┌':
					vector.DrawFilledRect(screen, x0, y0, cellWidth/2, 1, lineColor, false)
					vector.DrawFilledRect(screen, x0, y0, 1, cellHeight/2, lineColor, false)
				case '┐':
					vector.DrawFilledRect(screen, px, y0, cellWidth/2+1, 1, lineColor, false)
					vector.DrawFilledRect(screen, x0, y0, 1, cellHeight/2, lineColor, false)
				case '└':
					vector.DrawFilledRect(screen, x0, y0, cellWidth/2, 1, lineColor, false)
					vector.DrawFilledRect(screen, x0, py, 1, cellHeight/2+1, lineColor, false)
				case '┘':
					vector.DrawFilledRect(screen, px, y0, cellWidth/2+1, 1, lineColor, false)
					vector.DrawFilledRect(screen, x0, py, 1, cellHeight/2+1, lineColor, false)
				}
			case '┊':
				vector.DrawFilledRect(screen, px+cellWidth/2, py+2, 1, cellHeight-4, lineColor, false)
			case '█':
				vector.DrawFilledRect(screen, px, py, cellWidth, cellHeight, rgb(fg), false)
			case '▄':
				vector.DrawFilledRect(screen, px, py+cellHeight/2, cellWidth, cellHeight/2, rgb(fg), false)
			case '▀':
				vector.DrawFilledRect(screen, px, py, cellWidth, cellHeight/2, rgb(fg), false)
			case '●':
				vector.DrawFilledRect(screen, px, py+(cellHeight-cellWidth)/2, cellWidth, cellWidth, rgb(fg), false)
			default:
				if r > 0 && r < 0x100 {
					c.text[x] = byte(r)
				} else if r != 0 {
					c.text[x] = '?'
				}
			}
		}
		if c.rows[y] != string(c.text[:]) { // compared without a copy
			c.rows[y] = string(c.text[:])
		}
		ebitenutil.DebugPrintAt(screen, c.rows[y], 0, y*cellHeight)
	}
}

// rgb returns a tcell colour as an Ebitengine one; white for the default colour.
func rgb(c tcell.Color) color.RGBA {
	r, g, b := c.RGB()
	if r < 0 {
		return color.RGBA{0xff, 0xff, 0xff, 0xff}
	}
	return color.RGBA{uint8(r), uint8(g), uint8(b), 0xff}
}
