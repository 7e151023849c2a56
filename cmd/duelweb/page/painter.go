//go:build js && wasm

package main

import (
	"math"
	"strconv"
	"syscall/js"

	"github.com/gdamore/tcell/v2"

	"github.com/gameloop-go/gameloop/internal/duel"
)

// cell is a character cell as the view draws it.
type cell struct {
	r     rune
	style tcell.Style
}

// cells is a duel.Surface that keeps the cells the view draws, for the painter.
type cells struct {
	grid [duel.ViewHeight][duel.ViewWidth]cell
}

// SetCell sets the cell at x, y; one outside the view is ignored.
func (c *cells) SetCell(x, y int, r rune, style tcell.Style) {
	if x >= 0 && y >= 0 && x < duel.ViewWidth && y < duel.ViewHeight {
		c.grid[y][x] = cell{r, style}
	}
}

// line returns row y as text, blanks at its end removed.
func (c *cells) line(y int) string {
	row := c.grid[y][:]
	end := len(row)
	for end > 0 && (row[end-1].r == ' ' || row[end-1].r == 0) {
		end--
	}
	rs := make([]rune, end)
	for i := range rs {
		rs[i] = row[i].r
	}
	return string(rs)
}

// Colours of the page.
const (
	background = "#101418"
	foreground = "#d8d8d8"
	lineColor  = "#808080"
	statusBG   = "#404050"
)

// painter paints the cells on a canvas: the border and the middle line as lines, the paddles
// and the ball as shapes of their colours, the rest as text. Only the cells that changed since
// the last frame are painted.
type painter struct {
	cells  *cells
	ctx    js.Value
	shown  [duel.ViewHeight][duel.ViewWidth]cell
	valid  bool
	width  int
	height int
	fill   string
}

func newPainter(c *cells, ctx js.Value) *painter { return &painter{cells: c, ctx: ctx} }

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
	if width != p.width || height != p.height || !p.valid {
		p.width, p.height, p.valid = width, height, true
		p.fill = ""
		p.setFill(background)
		p.ctx.Call("fillRect", 0, 0, width, height)
		for y := range p.shown {
			for x := range p.shown[y] {
				p.shown[y][x] = cell{r: -1}
			}
		}
		cellH := float64(height) / duel.ViewHeight
		p.ctx.Set("font", strconv.Itoa(int(math.Max(6, math.Floor(cellH*0.8))))+"px monospace")
		p.ctx.Set("textAlign", "center")
		p.ctx.Set("textBaseline", "middle")
	}
	for y := range p.cells.grid {
		for x, c := range p.cells.grid[y] {
			if c.r == 0 {
				c.r = ' '
			}
			if c == p.shown[y][x] {
				continue
			}
			p.shown[y][x] = c
			p.cell(x, y, c)
		}
	}
}

// cell paints one cell: its background, then what it shows.
func (p *painter) cell(x, y int, c cell) {
	x0 := math.Floor(float64(x) * float64(p.width) / duel.ViewWidth)
	x1 := math.Floor(float64(x+1) * float64(p.width) / duel.ViewWidth)
	y0 := math.Floor(float64(y) * float64(p.height) / duel.ViewHeight)
	y1 := math.Floor(float64(y+1) * float64(p.height) / duel.ViewHeight)
	w, h := x1-x0, y1-y0
	fg, _, attr := c.style.Decompose()
	bg := background
	if attr&tcell.AttrReverse != 0 {
		bg = statusBG
	}
	p.setFill(bg)
	p.ctx.Call("fillRect", x0, y0, w, h)
	t := math.Max(1, math.Round(w/6)) // a line's thickness
	cx, cy := x0+math.Floor((w-t)/2), y0+math.Floor((h-t)/2)
	switch c.r {
	case ' ':
	case '─':
		p.setFill(lineColor)
		p.ctx.Call("fillRect", x0, cy, w, t)
	case '│':
		p.setFill(lineColor)
		p.ctx.Call("fillRect", cx, y0, t, h)
	case '┌', '┐', '└', '┘':
		p.setFill(lineColor)
		if c.r == '┌' || c.r == '└' {
			p.ctx.Call("fillRect", cx, cy, x0+w-cx, t)
		} else {
			p.ctx.Call("fillRect", x0, cy, cx-x0+t, t)
		}
		if c.r == '┌' || c.r == '┐' {
			p.ctx.Call("fillRect", cx, cy, t, y0+h-cy)
		} else {
			p.ctx.Call("fillRect", cx, y0, t, cy-y0+t)
		}
	case '┊':
		p.setFill(lineColor)
		p.ctx.Call("fillRect", cx, y0+math.Floor(h/4), t, math.Floor(h/2))
	case '█':
		p.setFill(colorOf(fg))
		p.ctx.Call("fillRect", x0, y0, w, h)
	case '▀':
		p.setFill(colorOf(fg))
		p.ctx.Call("fillRect", x0, y0, w, math.Floor(h/2))
	case '▄':
		p.setFill(colorOf(fg))
		p.ctx.Call("fillRect", x0, y0+math.Floor(h/2), w, h-math.Floor(h/2))
	case '●':
		p.setFill(colorOf(fg))
		p.ctx.Call("beginPath")
		p.ctx.Call("arc", x0+w/2, y0+h/2, math.Min(w, h)/2, 0, 2*math.Pi)
		p.ctx.Call("fill")
	default:
		p.setFill(colorOf(fg))
		p.ctx.Call("fillText", string(c.r), x0+w/2, y0+h/2)
	}
}

// colorOf returns a tcell colour as CSS; the page's foreground for the default colour.
func colorOf(c tcell.Color) string {
	if c == tcell.ColorDefault {
		return foreground
	}
	return c.CSS()
}
