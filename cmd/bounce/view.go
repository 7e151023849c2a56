package main

import (
	"github.com/gameloop-go/gameloop/internal/bounce"
	"github.com/gameloop-go/gameloop/internal/bouncegame"
	"github.com/gdamore/tcell/v2"
)

// view draws the game: see bouncegame.View.
type view = bouncegame.View

// surface is what the view draws on here: the terminal window, or memory when headless.
type surface interface {
	SetCell(x, y int, r rune, style tcell.Style)
}

// newView returns a view that draws on out with the glyphs of -glyphs.
func newView(glyphs string, out surface) *view {
	return bouncegame.NewView(glyphs, termSurface{out})
}

// termSurface draws the view's cells with tcell's styles.
type termSurface struct{ out surface }

func (t termSurface) SetCell(x, y int, r rune, s bouncegame.Style) {
	t.out.SetCell(x, y, r, tcell.StyleDefault.Foreground(termColor(s.Foreground)).
		Background(termColor(s.Background)).Reverse(s.Reverse))
}

// termColor returns the terminal's color for c: its own for Default, else a bright one, red
// to cyan.
func termColor(c bouncegame.Color) tcell.Color {
	if c == bouncegame.Default {
		return tcell.ColorDefault
	}
	return tcell.PaletteColor(9 + (int(c)-1)%bounce.Colors)
}

// memSurface is a surface in memory: the headless run draws on it, and tests read it.
type memSurface struct{ *bouncegame.Grid }

func newMemSurface(width, height int) memSurface {
	return memSurface{bouncegame.NewGrid(width, height)}
}

func (m memSurface) SetCell(x, y int, r rune, _ tcell.Style) {
	m.Grid.SetCell(x, y, r, bouncegame.Style{})
}
