package main

import (
	"math"
	"strconv"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/bounce"
	"github.com/gdamore/tcell/v2"
)

// surface is what the view draws on: the terminal window, or memory when headless or in tests.
type surface interface {
	SetCell(x, y int, r rune, style tcell.Style)
}

// view draws the game: a box with a border, the balls inside at sub-cell resolution, and a
// status line below. The box's inside is a grid of dots, several to a cell (2x4 with braille
// characters, 1x2 with half blocks); the simulation measures its box in dots. Everything it
// needs is allocated on a resize, so that a frame allocates nothing.
type view struct {
	out     surface
	braille bool
	dotsX   int // dots per cell across
	dotsY   int // dots per cell down
	ballDot int // a ball's size in dots, across and down

	width, height int     // the window, in cells
	cols, rows    int     // the inside of the box, in cells
	dots          []uint8 // cols*dotsX by rows*dotsY: 0 for none, else a ball's color + 1
	dw, dh        int     // the size of dots
	status        []byte  // the status line, rebuilt each frame
}

func newView(glyphs string, out surface) *view {
	v := &view{out: out, status: make([]byte, 0, 256)}
	if glyphs == "half" {
		v.dotsX, v.dotsY, v.ballDot = 1, 2, 1
	} else {
		v.braille, v.dotsX, v.dotsY, v.ballDot = true, 2, 4, 2
	}
	return v
}

// Layout: the border takes the first and the last column and the first row and the one above
// the status line, which is the window's last row.
const (
	borderCols = 2
	borderRows = 2
	statusRows = 1
)

// resize lays the view out for a window of width by height cells and returns the size of the
// simulation's box in dots: the positions a ball may take.
func (v *view) resize(width, height int) (dotsWide, dotsHigh int) {
	// A terminal is never this large, but a damaged or hostile recording's Resize may say so.
	width, height = min(width, maxCells), min(height, maxCells)
	v.width, v.height = width, height
	v.cols = max(width-borderCols, 1)
	v.rows = max(height-borderRows-statusRows, 1)
	v.dw, v.dh = v.cols*v.dotsX, v.rows*v.dotsY
	if n := v.dw * v.dh; cap(v.dots) < n {
		v.dots = make([]uint8, n)
	} else {
		v.dots = v.dots[:n]
	}
	return v.dw - v.ballDot + 1, v.dh - v.ballDot + 1
}

// ballColor returns the color of a ball of bounce.Ball.Color c.
func ballColor(c uint8) tcell.Color {
	return tcell.PaletteColor(9 + int(c)%bounce.Colors) // the bright colors, red to cyan
}

// draw draws one frame of g.
func (v *view) draw(g *game, r *gameloop.Render) {
	clear(v.dots)
	for i := range g.sim.Balls() {
		b := &g.sim.Balls()[i]
		v.plot(b.Place(g.mode, r.Alpha, r.Ext), b.Color)
	}
	// Every cell is drawn each frame, blanks included, and the surface is never cleared: tcell
	// sends a cell to the terminal only when it differs from what the cell held before, and a
	// Clear would make every cell that is not blank differ.
	v.border()
	if v.braille {
		v.composeBraille()
	} else {
		v.composeHalf()
	}
	v.statusLine(g, r)
}

// plot marks the dots a ball at p covers, clamped to the box: an extrapolated ball may be
// past a wall.
func (v *view) plot(p gameloop.Vec2, color uint8) {
	x := clampRound(p.X, v.dw-v.ballDot)
	y := clampRound(p.Y, v.dh-v.ballDot)
	for dy := range v.ballDot {
		for dx := range v.ballDot {
			v.dots[(y+dy)*v.dw+x+dx] = color + 1
		}
	}
}

func clampRound(f float64, hi int) int {
	i := int(math.Floor(f + 0.5))
	return max(0, min(i, hi))
}

// composeHalf draws two dots a cell, one above the other, with half blocks.
func (v *view) composeHalf() {
	for cy := range v.rows {
		for cx := range v.cols {
			top := v.dots[(2*cy)*v.dw+cx]
			bottom := v.dots[(2*cy+1)*v.dw+cx]
			var r rune
			style := tcell.StyleDefault
			switch {
			case top == 0 && bottom == 0:
				r = ' '
			case bottom == 0:
				r, style = '▀', style.Foreground(ballColor(top-1))
			case top == 0:
				r, style = '▄', style.Foreground(ballColor(bottom-1))
			case top == bottom:
				r, style = '█', style.Foreground(ballColor(top-1))
			default:
				r, style = '▀', style.Foreground(ballColor(top-1)).Background(ballColor(bottom-1))
			}
			v.out.SetCell(1+cx, 1+cy, r, style)
		}
	}
}

// brailleBit returns the bit of a braille character (U+2800 plus the bits) for the dot at
// column dx (0 or 1) and row dy (0 to 3) of its cell.
func brailleBit(dx, dy int) rune {
	if dy == 3 {
		return 0x40 << dx
	}
	return 1 << (dy + 3*dx)
}

// composeBraille draws eight dots a cell, two across and four down, with braille characters;
// a cell takes the color of the last ball in it.
func (v *view) composeBraille() {
	for cy := range v.rows {
		for cx := range v.cols {
			var bits rune
			var color uint8
			for dy := range 4 {
				row := (4*cy + dy) * v.dw
				for dx := range 2 {
					if c := v.dots[row+2*cx+dx]; c != 0 {
						bits |= brailleBit(dx, dy)
						color = c
					}
				}
			}
			if bits == 0 {
				v.out.SetCell(1+cx, 1+cy, ' ', tcell.StyleDefault)
				continue
			}
			v.out.SetCell(1+cx, 1+cy, 0x2800+bits, tcell.StyleDefault.Foreground(ballColor(color-1)))
		}
	}
}

// title is shown in the top border, as far as it fits.
const title = " bounce: i mode, p pause, +/- speed, [/] tick rate, space/bksp balls, q quit "

func (v *view) border() {
	right, bottom := v.cols+1, v.rows+1
	style := tcell.StyleDefault
	for x := 1; x < right; x++ {
		// Each cell is drawn once a frame: see draw.
		top := '─'
		if i := x - 2; i >= 0 && i < len(title) && x < right-1 {
			top = rune(title[i])
		}
		v.out.SetCell(x, 0, top, style)
		v.out.SetCell(x, bottom, '─', style)
	}
	for y := 1; y < bottom; y++ {
		v.out.SetCell(0, y, '│', style)
		v.out.SetCell(right, y, '│', style)
	}
	v.out.SetCell(0, 0, '┌', style)
	v.out.SetCell(right, 0, '┐', style)
	v.out.SetCell(0, bottom, '└', style)
	v.out.SetCell(right, bottom, '┘', style)
	// Below and right of the box: nothing but on a window too small for the layout.
	for y := 0; y < v.height-statusRows; y++ {
		for x := right + 1; x < v.width; x++ {
			v.out.SetCell(x, y, ' ', style)
		}
	}
	for y := bottom + 1; y < v.height-statusRows; y++ {
		for x := range v.width {
			v.out.SetCell(x, y, ' ', style)
		}
	}
}

// statusLine draws the mode and the loop's statistics on the last row, the least useful last
// as the line is cut at the window's edge:
//
//	interpolate 60.0fps 10.0tps p99 16.7ms drop 0.0ms x1 10Hz f1234 80x24 5 balls
func (v *view) statusLine(g *game, r *gameloop.Render) {
	var st gameloop.Stats
	if g.loop != nil {
		st = g.loop.Stats()
	}
	b := v.status[:0]
	b = append(b, g.mode.String()...)
	if st.Paused {
		b = append(b, " PAUSED"...)
	}
	b = append(b, ' ')
	b = strconv.AppendFloat(b, st.FPS, 'f', 1, 64)
	b = append(b, "fps "...)
	b = strconv.AppendFloat(b, st.TPS, 'f', 1, 64)
	b = append(b, "tps p99 "...)
	b = appendMillis(b, st.FrameTimeP99)
	b = append(b, " drop "...)
	b = appendMillis(b, st.DroppedTime)
	b = append(b, " x"...)
	b = strconv.AppendFloat(b, st.TimeScale, 'g', 3, 64)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(st.TickRate), 10)
	b = append(b, "Hz f"...)
	b = strconv.AppendUint(b, r.Frame, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(v.width), 10)
	b = append(b, 'x')
	b = strconv.AppendInt(b, int64(v.height), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(g.sim.Balls())), 10)
	b = append(b, " balls"...)
	v.status = b
	y := v.height - 1
	style := tcell.StyleDefault.Reverse(true)
	for x := range v.width {
		r := ' '
		if x < len(b) {
			r = rune(b[x])
		}
		v.out.SetCell(x, y, r, style)
	}
}

// appendMillis appends d in milliseconds with one decimal, as "17.1ms".
func appendMillis(b []byte, d time.Duration) []byte {
	b = strconv.AppendFloat(b, float64(d)/float64(time.Millisecond), 'f', 1, 64)
	return append(b, "ms"...)
}

// memSurface is a surface in memory: the headless run draws on it, and tests read it.
type memSurface struct {
	width, height int
	cells         []rune
}

func newMemSurface(width, height int) *memSurface {
	return &memSurface{width: width, height: height, cells: make([]rune, width*height)}
}

func (m *memSurface) SetCell(x, y int, r rune, _ tcell.Style) {
	if x >= 0 && y >= 0 && x < m.width && y < m.height {
		m.cells[y*m.width+x] = r
	}
}

// line returns row y as a string.
func (m *memSurface) line(y int) string { return string(m.cells[y*m.width : (y+1)*m.width]) }
