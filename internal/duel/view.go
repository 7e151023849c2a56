package duel

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
)

// Surface is what a View draws on: a grid of character cells, such as a terminal window
// (*term.Window) or a Grid in memory.
type Surface interface {
	SetCell(x, y int, r rune, style tcell.Style)
}

// Status is what the status line shows besides the game: how the network play goes. The
// command fills it from its session each frame.
type Status struct {
	// Player is the local player, 0 (left) or 1 (right).
	Player int
	// Ping is the round-trip time to the other peer.
	Ping time.Duration
	// Ahead is how many ticks this peer runs ahead of the other (negative: behind).
	Ahead float64
	// NoPeer says that Ping and Ahead measure nothing: there is no other peer yet, or it has
	// gone. They are shown as "-".
	NoPeer bool
	// Rollback is the number of ticks re-simulated by the last rollback.
	Rollback int
	// Synced and SyncSum are the last tick, a multiple of SyncEvery, whose inputs are
	// confirmed, and the checksum of the state after it: two peers in the same game show the
	// same pairs. Synced 0 shows none yet.
	Synced  uint64
	SyncSum uint64
	// Message is shown above the status line: what is waited for, or what went wrong.
	Message string
	// Spectating says that this peer watches the game rather than plays it (Player is then
	// no one's): the status line says so, and shows Behind where a player's shows the ticks
	// ahead and the rollback.
	Spectating bool
	// Behind is, for a spectator, how many ticks it has received but not shown yet.
	Behind uint64
}

// SyncEvery is how many ticks apart the confirmed checksums the status line shows are: a
// second's worth, so that a person (or a test reading two terminals) can compare two peers'.
const SyncEvery = TickRate

// Layout of a View: a border around the field, then a row for messages and the status line.
const (
	// ViewWidth and ViewHeight are the size in cells that a View draws: 80 by 24. A larger
	// terminal shows it in its top-left corner; a smaller one cuts it.
	ViewWidth  = Width + 2
	ViewHeight = Height + 4
	messageRow = Height + 2
	statusRow  = Height + 3
)

// Styles of what a View draws.
var (
	paddleStyles = [2]tcell.Style{
		tcell.StyleDefault.Foreground(tcell.ColorAqua),
		tcell.StyleDefault.Foreground(tcell.ColorFuchsia),
	}
	ballStyle   = tcell.StyleDefault.Foreground(tcell.ColorYellow)
	statusStyle = tcell.StyleDefault.Reverse(true)
)

// View draws the game on a Surface: the field in a border with the score in it, a message
// row, and a status line. It keeps the status line's bytes between frames, so that drawing a
// frame allocates nothing.
//
// The message row and the status line span the Surface's width when it says what that is
// (with a Size method, as *term.Window has) and it is wider than the game: a message longer
// than ViewWidth, such as a desync's with its two checksums, is then shown whole.
type View struct {
	out  Surface
	line []byte
}

// NewView returns a view that draws on out.
func NewView(out Surface) *View {
	return &View{out: out, line: make([]byte, 0, 128)}
}

// title is shown in the top border after the score; spectatorTitle instead to a spectator,
// who has no paddle to move.
const (
	title          = " w/s or arrows move, q quits "
	spectatorTitle = " spectating, q quits "
)

// Draw draws one frame of s with st on the status line. Every cell of the view is drawn, blanks
// included, so that a terminal is sent only the cells that changed.
func (v *View) Draw(s *State, st *Status) {
	v.border(s, st)
	v.field(s)
	v.line = append(v.line[:0], st.Message...)
	v.text(messageRow, v.line, tcell.StyleDefault)
	v.line = v.AppendStatus(v.line[:0], s, st)
	v.text(statusRow, v.line, statusStyle)
}

// sizer is a Surface that says its size in cells.
type sizer interface {
	Size() (width, height int)
}

// textWidth returns the width of the message row and the status line: the Surface's, if it
// says it and is wider than the game, else ViewWidth.
func (v *View) textWidth() int {
	if s, ok := v.out.(sizer); ok {
		if w, _ := s.Size(); w > ViewWidth {
			return w
		}
	}
	return ViewWidth
}

// text draws the UTF-8 text b from column 0 of row y, padded with blanks to the text's width.
func (v *View) text(y int, b []byte, style tcell.Style) {
	width := v.textWidth()
	x := 0
	for len(b) > 0 && x < width {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		v.out.SetCell(x, y, r, style)
		x++
	}
	for ; x < width; x++ {
		v.out.SetCell(x, y, ' ', style)
	}
}

// border draws the frame around the field, with the score and the keys in the top one.
func (v *View) border(s *State, st *Status) {
	var top [ViewWidth]rune
	for i := range top {
		top[i] = '─'
	}
	top[0], top[ViewWidth-1] = '┌', '┐'
	var buf [64]byte
	b := append(buf[:0], " duel "...)
	b = strconv.AppendUint(b, uint64(s.Score[0]), 10)
	b = append(b, " : "...)
	b = strconv.AppendUint(b, uint64(s.Score[1]), 10)
	b = append(b, ' ')
	x := 2
	for _, c := range b {
		top[x] = rune(c)
		x++
	}
	x++
	keys := title
	if st.Spectating {
		keys = spectatorTitle
	}
	for _, c := range keys {
		if x >= ViewWidth-2 {
			break
		}
		top[x] = c
		x++
	}
	for x, r := range top {
		v.out.SetCell(x, 0, r, tcell.StyleDefault)
		bottom := '─'
		switch x {
		case 0:
			bottom = '└'
		case ViewWidth - 1:
			bottom = '┘'
		}
		v.out.SetCell(x, Height+1, bottom, tcell.StyleDefault)
	}
	for y := 1; y <= Height; y++ {
		v.out.SetCell(0, y, '│', tcell.StyleDefault)
		v.out.SetCell(ViewWidth-1, y, '│', tcell.StyleDefault)
	}
}

// field draws the inside of the border: the middle line, the paddles and the ball.
func (v *View) field(s *State) {
	bx, by := s.Ball.Cell()
	var rows [2][Height]rune
	for i := range s.Paddles {
		p := &s.Paddles[i]
		top, n := p.Rows()
		for y := top; y < top+n && y < Height; y++ {
			rows[i][y] = '█'
		}
		if n > PaddleHeight { // half a cell off the grid: half blocks at the ends
			rows[i][top] = '▄'
			if end := top + n - 1; end < Height {
				rows[i][end] = '▀'
			}
		}
	}
	columns := [2]int{leftColumn, rightColumn}
	for y := range Height {
		for x := range Width {
			r, style := ' ', tcell.StyleDefault
			if x == Width/2 && y%2 == 0 {
				r = '┊'
			}
			for i, c := range columns {
				if x == c && rows[i][y] != 0 {
					r, style = rows[i][y], paddleStyles[i]
				}
			}
			if x == bx && y == by {
				r, style = '●', ballStyle
			}
			v.out.SetCell(1+x, 1+y, r, style)
		}
	}
}

// AppendStatus appends the status line of s and st to b and returns it:
//
//	left ping 23ms ahead +0.5 rollback 2 tick 1234 sync 1200 9af3bc12d4e5f6a7
//
// the local player's side, the round-trip time, the ticks this peer runs ahead, the depth of
// the last rollback, the tick shown, and the last confirmed tick of a multiple of SyncEvery
// with its checksum. With st.NoPeer the round trip and the ticks ahead are "-". A spectator's
// (st.Spectating) says so where the side goes, and shows how many ticks it is behind what it
// has received in place of the ticks ahead and the rollback, which it has none of:
//
//	spectating ping 230ms behind 3 tick 1234 sync 1200 9af3bc12d4e5f6a7
func (v *View) AppendStatus(b []byte, s *State, st *Status) []byte {
	if st.Spectating {
		b = append(b, "spectating"...)
		if st.NoPeer {
			b = append(b, " ping - behind -"...)
		} else {
			b = append(b, " ping "...)
			b = strconv.AppendInt(b, st.Ping.Milliseconds(), 10)
			b = append(b, "ms behind "...)
			b = strconv.AppendUint(b, st.Behind, 10)
		}
		return v.appendTick(b, s, st)
	}
	if st.Player == 0 {
		b = append(b, "left"...)
	} else {
		b = append(b, "right"...)
	}
	if st.NoPeer {
		b = append(b, " ping - ahead -"...)
	} else {
		b = append(b, " ping "...)
		b = strconv.AppendInt(b, st.Ping.Milliseconds(), 10)
		b = append(b, "ms ahead "...)
		if st.Ahead >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendFloat(b, st.Ahead, 'f', 1, 64)
	}
	b = append(b, " rollback "...)
	b = strconv.AppendInt(b, int64(st.Rollback), 10)
	return v.appendTick(b, s, st)
}

// appendTick appends the end of the status line: the tick shown, and the last confirmed tick
// of a multiple of SyncEvery with its checksum.
func (v *View) appendTick(b []byte, s *State, st *Status) []byte {
	b = append(b, " tick "...)
	b = strconv.AppendUint(b, s.Tick, 10)
	if st.Synced > 0 {
		b = append(b, " sync "...)
		b = strconv.AppendUint(b, st.Synced, 10)
		b = append(b, ' ')
		b = appendHex(b, st.SyncSum)
	}
	return b
}

// appendHex appends v as 16 hexadecimal digits.
func appendHex(b []byte, v uint64) []byte {
	const digits = "0123456789abcdef"
	for shift := 60; shift >= 0; shift -= 4 {
		b = append(b, digits[(v>>shift)&0xf])
	}
	return b
}

// Grid is a Surface in memory, ViewWidth by ViewHeight cells: tests read what a View drew.
type Grid struct {
	cells [ViewHeight][ViewWidth]rune
}

// SetCell sets the cell at x, y; a cell outside the grid is ignored.
func (g *Grid) SetCell(x, y int, r rune, _ tcell.Style) {
	if x >= 0 && y >= 0 && x < ViewWidth && y < ViewHeight {
		g.cells[y][x] = r
	}
}

// Line returns row y as a string, blanks at its end removed.
func (g *Grid) Line(y int) string {
	row := g.cells[y][:]
	end := len(row)
	for end > 0 && (row[end-1] == ' ' || row[end-1] == 0) {
		end--
	}
	return string(row[:end])
}
