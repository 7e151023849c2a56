package bounce

import (
	"fmt"
	"time"

	"github.com/gameloop-go/gameloop"
)

// DrawMode is how a frame drawn between two ticks places the balls. The demos cycle through the
// modes so that the difference can be seen.
type DrawMode uint8

const (
	// Interpolate draws between the last two ticks' positions, by Render.Alpha: smooth, one
	// tick behind.
	Interpolate DrawMode = iota
	// Extrapolate draws ahead of the last tick along the velocity, by Render.Ext: smooth and
	// current, but wrong at a bounce, where the ball overshoots the wall until the next tick.
	Extrapolate
	// Neither draws the last tick's positions: the balls move in steps, one per tick.
	Neither
	// DrawModes is the number of modes.
	DrawModes
)

func (m DrawMode) String() string {
	switch m {
	case Interpolate:
		return "interpolate"
	case Extrapolate:
		return "extrapolate"
	case Neither:
		return "neither"
	}
	return fmt.Sprintf("DrawMode(%d)", uint8(m))
}

// Next returns the mode after m, wrapping around.
func (m DrawMode) Next() DrawMode { return (m + 1) % DrawModes }

// Place returns where the ball is drawn, in dots, in a frame alpha of a step after the last tick
// and ext of game time after it, as mode places it.
func (b *Ball) Place(mode DrawMode, alpha float64, ext time.Duration) gameloop.Vec2 {
	switch mode {
	case Interpolate:
		return b.Prev().Lerp(b.Pos(), alpha)
	case Extrapolate:
		return b.Pos().Add(b.Vel().Scale(ext.Seconds()))
	}
	return b.Pos()
}
