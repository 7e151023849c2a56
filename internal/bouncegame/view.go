package bouncegame

import (
	"math"
	"strconv"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/bounce"
)

// Color is the color of a cell's glyph or background: Default, or one of the balls' colors.
type Color uint8

// Default is the surface's own color: the terminal's foreground or background.
const Default Color = 0

// BallColor returns the color of a ball of bounce.Ball.Color c: 1 to bounce.Colors, red,
// green, yellow, blue, magenta and cyan.
func BallColor(c uint8) Color { return Color(1 + int(c)%bounce.Colors) }

// Style is how a cell is drawn.
type Style struct {
	Foreground, Background Color
	// Reverse swaps the foreground and the background, as the status line is drawn.
	Reverse bool
}

// Surface is what the view draws on: a grid of character cells, such as a terminal window, a
// Grid in memory, or a canvas painted from one.
type Surface interface {
	SetCell(x, y int, r rune, style Style)
}

// MaxCells is the most cells a view has across or down: at most 8 MB of dots. A terminal is
// never this large; a damaged or hostile recording's Resize may say it is, and the view holds
// to this limit rather than allocate what it is told.
const MaxCells = 1024

// View draws the game: a box with a border, the balls inside at sub-cell resolution, and a
// status line below. The box's inside is a grid of dots, several to a cell (2x4 with braille
// characters, 1x2 with half blocks); the simulation measures its box in dots. Everything it
// needs is allocated on a resize, so that a frame allocates nothing.
type View struct {
	out     Surface
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

// NewView returns a view that draws on out with glyphs "braille" (2x4 dots a cell) or "half"
// (half blocks, 1x2). Resize it before drawing.
func NewView(glyphs string, out Surface) *View {
	v := &View{out: out, status: make([]byte, 0, 256)}
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

// Resize lays the view out for a window of width by height cells (at most MaxCells each way)
// and returns the size of the simulation's box in dots: the positions a ball may take.
func (v *View) Resize(width, height int) (dotsWide, dotsHigh int) {
	width, height = ClampCells(width), ClampCells(height)
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

// ClampCells returns the number of cells a view lays out for a window n cells wide (or high):
// n, held to [0, MaxCells].
func ClampCells(n int) int { return max(0, min(n, MaxCells)) }

// Size returns the window the view is laid out for, in cells.
func (v *View) Size() (width, height int) { return v.width, v.height }

// Dots returns the number of dots a cell holds across and down.
func (v *View) Dots() (across, down int) { return v.dotsX, v.dotsY }

// Status returns the status line drawn last. It is the view's own: valid until the next frame.
func (v *View) Status() []byte { return v.status }

// Draw draws one frame of g.
func (v *View) Draw(g *Game, r *gameloop.Render) {
	clear(v.dots)
	for i := range g.Sim.Balls() {
		b := &g.Sim.Balls()[i]
		v.plot(b.Place(g.Mode, r.Alpha, r.Ext), b.Color)
	}
	// Every cell is drawn each frame, blanks included, and the surface is never cleared: a
	// terminal is sent a cell only when it differs from what the cell held before, and a clear
	// would make every cell that is not blank differ.
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
func (v *View) plot(p gameloop.Vec2, color uint8) {
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
func (v *View) composeHalf() {
	for cy := range v.rows {
		for cx := range v.cols {
			top := v.dots[(2*cy)*v.dw+cx]
			bottom := v.dots[(2*cy+1)*v.dw+cx]
			var r rune
			var style Style
			switch {
			case top == 0 && bottom == 0:
				r = ' '
			case bottom == 0:
				r, style.Foreground = '▀', BallColor(top-1)
			case top == 0:
				r, style.Foreground = '▄', BallColor(bottom-1)
			case top == bottom:
				r, style.Foreground = '█', BallColor(top-1)
			default:
				r, style.Foreground, style.Background = '▀', BallColor(top-1), BallColor(bottom-1)
			}
			v.out.SetCell(1+cx, 1+cy, r, style)
		}
	}
}

// BrailleBit returns the bit of a braille character (U+2800 plus the bits) for the dot at
// column dx (0 or 1) and row dy (0 to 3) of its cell.
func BrailleBit(dx, dy int) rune {
	if dy == 3 {
		return 0x40 << dx
	}
	return 1 << (dy + 3*dx)
}

// composeBraille draws eight dots a cell, two across and four down, with braille characters;
// a cell takes the color of the last ball in it.
func (v *View) composeBraille() {
	for cy := range v.rows {
		for cx := range v.cols {
			var bits rune
			var color uint8
			for dy := range 4 {
				row := (4*cy + dy) * v.dw
				for dx := range 2 {
					if c := v.dots[row+2*cx+dx]; c != 0 {
						bits |= BrailleBit(dx, dy)
						color = c
					}
				}
			}
			if bits == 0 {
				v.out.SetCell(1+cx, 1+cy, ' ', Style{})
				continue
			}
			v.out.SetCell(1+cx, 1+cy, 0x2800+bits, Style{Foreground: BallColor(color - 1)})
		}
	}
}

// title is shown in the top border, as far as it fits.
const title = " bounce: i mode, p pause, +/- speed, [/] tick rate, space/bksp balls, q quit "

func (v *View) border() {
	right, bottom := v.cols+1, v.rows+1
	var style Style
	for x := 1; x < right; x++ {
		// Each cell is drawn once a frame: see Draw.
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

// The parts of the status line that give way, in the order they do, when the line is wider
// than the window: the window's size first, the frame rate last.
const (
	keepAll = iota
	omitSize
	omitFrame
	omitP99
	omitDrop
	omitTPS
	omitFPS
)

// statusLine draws the drawing mode, the game's state and the loop's statistics on the last
// row:
//
//	interpolate PAUSED 60.0fps 10.0tps p99 16.7ms drop 0.0ms x1/2 10Hz f1234 80x24 5 balls gravity
//
// Where the window is too narrow for all of it, the statistics give way, least useful first,
// so that the state (paused, time scale, tick rate, balls, gravity) always shows.
func (v *View) statusLine(g *Game, r *gameloop.Render) {
	var st gameloop.Stats
	if g.controls != nil {
		st = g.controls.Stats()
	}
	for omit := keepAll; ; omit++ {
		v.status = v.appendStatus(v.status[:0], g, r, &st, omit)
		if len(v.status) <= v.width || omit == omitFPS {
			break
		}
	}
	y := v.height - 1
	style := Style{Reverse: true}
	for x := range v.width {
		r := ' '
		if x < len(v.status) {
			r = rune(v.status[x])
		}
		v.out.SetCell(x, y, r, style)
	}
}

// appendStatus appends the status line to b, without the parts omit makes give way.
func (v *View) appendStatus(b []byte, g *Game, r *gameloop.Render, st *gameloop.Stats, omit int) []byte {
	b = append(b, g.Mode.String()...)
	if st.Paused {
		b = append(b, " PAUSED"...)
	}
	if omit < omitFPS {
		b = append(b, ' ')
		b = strconv.AppendFloat(b, st.FPS, 'f', 1, 64)
		b = append(b, "fps"...)
	}
	if omit < omitTPS {
		b = append(b, ' ')
		b = strconv.AppendFloat(b, st.TPS, 'f', 1, 64)
		b = append(b, "tps"...)
	}
	if omit < omitP99 {
		b = append(b, " p99 "...)
		b = appendMillis(b, st.FrameTimeP99)
	}
	if omit < omitDrop {
		b = append(b, " drop "...)
		b = appendMillis(b, st.DroppedTime)
	}
	b = append(b, " x"...)
	b = appendScale(b, st.TimeScale)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(st.TickRate), 10)
	b = append(b, "Hz"...)
	if omit < omitFrame {
		b = append(b, " f"...)
		b = strconv.AppendUint(b, r.Frame, 10)
	}
	if omit < omitSize {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(v.width), 10)
		b = append(b, 'x')
		b = strconv.AppendInt(b, int64(v.height), 10)
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(g.Sim.Balls())), 10)
	if len(g.Sim.Balls()) == 1 {
		b = append(b, " ball"...)
	} else {
		b = append(b, " balls"...)
	}
	if g.Sim.Gravity() {
		b = append(b, " gravity"...)
	}
	return b
}

// appendMillis appends d in milliseconds with one decimal, as "17.1ms"; from 100 ms in whole
// milliseconds, "250ms", and from 10 s in seconds, "12.3s", so that the status line stays short.
func appendMillis(b []byte, d time.Duration) []byte {
	switch {
	case d >= 10*time.Second:
		b = strconv.AppendFloat(b, d.Seconds(), 'f', 1, 64)
		return append(b, 's')
	case d >= 100*time.Millisecond:
		b = strconv.AppendInt(b, d.Round(time.Millisecond).Milliseconds(), 10)
	default:
		b = strconv.AppendFloat(b, float64(d)/float64(time.Millisecond), 'f', 1, 64)
	}
	return append(b, "ms"...)
}

// appendScale appends a time scale: "2", "1", and fractions as "1/8" rather than "0.125".
func appendScale(b []byte, scale float64) []byte {
	if scale > 0 && scale < 1 {
		if inv := 1 / scale; inv == math.Trunc(inv) && inv < 1e6 {
			b = append(b, "1/"...)
			return strconv.AppendInt(b, int64(inv), 10)
		}
	}
	return strconv.AppendFloat(b, scale, 'g', 3, 64)
}

// Cell is one cell of a Grid.
type Cell struct {
	Rune  rune
	Style Style
}

// Grid is a Surface in memory: the headless demo draws on it, tests read it, and the browser
// paints it on a canvas.
type Grid struct {
	width, height int
	cells         []Cell
}

// NewGrid returns a grid of width by height cells, each held to MaxCells.
func NewGrid(width, height int) *Grid {
	width, height = ClampCells(width), ClampCells(height)
	return &Grid{width: width, height: height, cells: make([]Cell, width*height)}
}

// SetCell sets the cell at x, y; a cell outside the grid is ignored.
func (m *Grid) SetCell(x, y int, r rune, style Style) {
	if x >= 0 && y >= 0 && x < m.width && y < m.height {
		m.cells[y*m.width+x] = Cell{r, style}
	}
}

// Size returns the grid's size in cells.
func (m *Grid) Size() (width, height int) { return m.width, m.height }

// Cells returns the cells, row by row. The slice is the grid's own.
func (m *Grid) Cells() []Cell { return m.cells }

// Line returns row y as a string.
func (m *Grid) Line(y int) string {
	rs := make([]rune, m.width)
	for x := range rs {
		rs[x] = m.cells[y*m.width+x].Rune
	}
	return string(rs)
}
