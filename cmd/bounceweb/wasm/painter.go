//go:build js && wasm

package main

import (
	"math"
	"syscall/js"

	"github.com/gameloop-go/gameloop/internal/bounce"
	"github.com/gameloop-go/gameloop/internal/bouncegame"
)

// painter paints a grid of cells on a canvas, as a terminal would show it, with no font but
// for plain text: braille dots, half blocks and the box's lines are drawn as shapes, so that
// the picture does not depend on the fonts the machine has. Only the cells that changed since
// the last frame are painted, a few dozen calls into JavaScript a frame.
type painter struct {
	grid   *bouncegame.Grid
	ctx    js.Value
	shown  []bouncegame.Cell // what the canvas shows
	valid  bool              // shown is what the canvas shows (false after a resize)
	width  int               // the canvas, in pixels
	height int
	fill   string // the context's fillStyle, as last set
	colors [1 + bounce.Colors]string
	text   [128]js.Value // the ASCII characters as JavaScript strings, made once
}

func newPainter(grid *bouncegame.Grid, ctx js.Value) *painter {
	p := &painter{grid: grid, ctx: ctx, colors: colors()}
	p.shown = make([]bouncegame.Cell, len(grid.Cells()))
	for r := ' '; r < 127; r++ {
		p.text[r] = js.ValueOf(string(r))
	}
	return p
}

// invalidate makes the next frame paint every cell: the canvas was resized, which clears it.
func (p *painter) invalidate() { p.valid = false }

func (p *painter) setFill(color string) {
	if color != p.fill {
		p.ctx.Set("fillStyle", color)
		p.fill = color
	}
}

// paint paints the cells that changed on a canvas of width by height pixels.
func (p *painter) paint(width, height int) {
	cols, rows := p.grid.Size()
	if width != p.width || height != p.height || !p.valid {
		p.width, p.height, p.valid = width, height, true
		p.fill = ""
		p.setFill(background)
		p.ctx.Call("fillRect", 0, 0, width, height)
		clear(p.shown)
		for i := range p.shown {
			p.shown[i].Rune = ' '
		}
		cellH := float64(height) / float64(rows)
		p.ctx.Set("font", js.ValueOf(fontOf(cellH)))
		p.ctx.Set("textAlign", "center")
		p.ctx.Set("textBaseline", "middle")
	}
	cells := p.grid.Cells()
	for y := range rows {
		for x := range cols {
			i := y*cols + x
			c := cells[i]
			if c.Rune == 0 {
				c.Rune = ' '
			}
			if c == p.shown[i] {
				continue
			}
			p.shown[i] = c
			p.cell(x, y, cols, rows, c)
		}
	}
}

// fontOf returns the CSS font for cells cellH pixels high.
func fontOf(cellH float64) string {
	return itoa(int(math.Max(6, math.Floor(cellH*0.8)))) + "px monospace"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for ; n > 0; n /= 10 {
		i--
		b[i] = byte('0' + n%10)
	}
	return string(b[i:])
}

// cell paints one cell: its background, then its glyph.
func (p *painter) cell(x, y, cols, rows int, c bouncegame.Cell) {
	// Whole pixels, so that neighbouring cells meet without a seam.
	x0 := math.Floor(float64(x) * float64(p.width) / float64(cols))
	x1 := math.Floor(float64(x+1) * float64(p.width) / float64(cols))
	y0 := math.Floor(float64(y) * float64(p.height) / float64(rows))
	y1 := math.Floor(float64(y+1) * float64(p.height) / float64(rows))
	w, h := x1-x0, y1-y0
	fg, bg := p.colors[c.Style.Foreground], background
	if c.Style.Background != bouncegame.Default {
		bg = p.colors[c.Style.Background]
	}
	if c.Style.Reverse {
		fg, bg = bg, fg
	}
	p.setFill(bg)
	p.ctx.Call("fillRect", x0, y0, w, h)
	r := c.Rune
	switch {
	case r == ' ':
	case r >= 0x2800 && r <= 0x28ff:
		// Braille: two dots across, four down.
		// Whole pixels inside the cell: a dot drawn across its edge would leave a trace on
		// the next cell when this one is cleared.
		p.setFill(fg)
		for dy := range 4 {
			top, bottom := math.Floor(y0+float64(dy)*h/4), math.Floor(y0+float64(dy+1)*h/4)
			for dx := range 2 {
				if (r-0x2800)&bouncegame.BrailleBit(dx, dy) != 0 {
					left, right := math.Floor(x0+float64(dx)*w/2), math.Floor(x0+float64(dx+1)*w/2)
					p.ctx.Call("fillRect", left, top, right-left, bottom-top)
				}
			}
		}
	case r == '▀' || r == '▄' || r == '█':
		p.setFill(fg)
		switch r {
		case '▀':
			p.ctx.Call("fillRect", x0, y0, w, math.Floor(h/2))
		case '▄':
			p.ctx.Call("fillRect", x0, y0+math.Floor(h/2), w, h-math.Floor(h/2))
		default:
			p.ctx.Call("fillRect", x0, y0, w, h)
		}
	case r >= 0x2500 && r <= 0x257f:
		p.box(r, x0, y0, w, h, fg)
	case r < 128:
		p.setFill(fg)
		p.ctx.Call("fillText", p.text[r], x0+w/2, y0+h/2)
	default:
		p.setFill(fg)
		p.ctx.Call("fillText", string(r), x0+w/2, y0+h/2)
	}
}

// box draws a line of the box's border through the middle of the cell: ─ │ ┌ ┐ └ ┘.
func (p *painter) box(r rune, x0, y0, w, h float64, color string) {
	t := math.Max(1, math.Round(w/6)) // the line's thickness
	cx, cy := x0+math.Floor((w-t)/2), y0+math.Floor((h-t)/2)
	left, right, up, down := false, false, false, false
	switch r {
	case '─':
		left, right = true, true
	case '│':
		up, down = true, true
	case '┌':
		right, down = true, true
	case '┐':
		left, down = true, true
	case '└':
		right, up = true, true
	case '┘':
		left, up = true, true
	default:
		p.setFill(color)
		p.ctx.Call("fillText", string(r), x0+w/2, y0+h/2)
		return
	}
	p.setFill(color)
	if left {
		p.ctx.Call("fillRect", x0, cy, cx-x0+t, t)
	}
	if right {
		p.ctx.Call("fillRect", cx, cy, x0+w-cx, t)
	}
	if up {
		p.ctx.Call("fillRect", cx, y0, t, cy-y0+t)
	}
	if down {
		p.ctx.Call("fillRect", cx, cy, t, y0+h-cy)
	}
}
