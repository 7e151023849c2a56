package main

import (
	"context"
	"fmt"
	"image/color"
	"io"

	"github.com/gameloop-go/gameloop"
	gle "github.com/gameloop-go/gameloop/backend/ebiten"
	"github.com/gameloop-go/gameloop/internal/bounce"
	"github.com/gameloop-go/gameloop/internal/bouncegame"
	"github.com/gameloop-go/gameloop/internal/replaycli"
	"github.com/gameloop-go/gameloop/replay"
	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/ebitenutil"
	"github.com/hajimehoshi/ebiten/v2/vector"
)

// app is bounce as backend/ebiten runs it: the game's input and ticks go through played (the
// game, recorded with -record), and each frame is drawn into the grid, then painted on
// Ebitengine's screen.
type app struct {
	loop   *gle.Game
	game   *bouncegame.Game
	played gameloop.Game // game, or game recorded
	grid   *bouncegame.Grid
	colors [1 + bounce.Colors]color.RGBA

	last      uint64 // the tick to stop after (-seconds); 0 for none
	reached   bool   // the last tick has run: the next frame drawn is the last
	shotPath  string
	shot      []byte // the last frame drawn, with -screenshot
	shotTaken bool

	screenWidth, screenHeight int
	titledBalls               int // the balls the window's title counts; -1 before the first frame
}

func newApp(opts options) (*app, error) {
	s := opts.start
	a := &app{
		grid:         bouncegame.NewGrid(s.Width, s.Height),
		last:         lastTick(opts.seconds, s.TickRate),
		shotPath:     opts.screenshot,
		screenWidth:  s.Width * cellWidth,
		screenHeight: s.Height * cellHeight,
		titledBalls:  -1,
		colors: [...]color.RGBA{{0xd8, 0xd8, 0xd8, 0xff}, {0xff, 0x5f, 0x5f, 0xff}, {0x5f, 0xff, 0x5f, 0xff},
			{0xff, 0xff, 0x5f, 0xff}, {0x5f, 0x87, 0xff, 0xff}, {0xff, 0x5f, 0xff, 0xff}, {0x5f, 0xff, 0xff, 0xff}},
	}
	if opts.seconds > 0 && a.last == 0 {
		return nil, fmt.Errorf("-seconds %g at %d ticks per second is less than one tick", opts.seconds, s.TickRate)
	}
	if a.shotPath != "" {
		a.shot = make([]byte, 4*a.screenWidth*a.screenHeight)
	}
	loop, err := gle.New(a, gameloop.Config{TickRate: s.TickRate})
	if err != nil {
		return nil, err
	}
	a.loop = loop
	a.game = bouncegame.New(s, loop, bouncegame.NewView(s.Glyphs, a.grid))
	a.game.Mode, _ = drawMode(opts.mode)
	a.played = a.game
	return a, nil
}

// Input hands the game its input (recorded with -record). The screen's size is fixed (Layout),
// so no Resize comes: the grid is scaled to the window by Ebitengine.
func (a *app) Input(in *gameloop.Input) error {
	return a.played.(gameloop.InputHandler).Input(in)
}

// Update runs a tick of the game; with -seconds, no tick after the last.
func (a *app) Update(u *gameloop.Update) error {
	if a.last > 0 && u.Tick > a.last {
		return gameloop.ErrStop
	}
	if err := a.played.Update(u); err != nil {
		return err
	}
	if u.Tick == a.last {
		a.reached = true
	}
	return nil
}

// Layout makes the screen the grid's size in pixels, whatever the window's.
func (a *app) Layout(int, int) (int, int) { return a.screenWidth, a.screenHeight }

// Draw draws the frame into the grid and paints the grid on the screen. With -seconds, the frame
// after the last tick is the last, and saved with -screenshot.
func (a *app) Draw(screen *ebiten.Image, r *gameloop.Render) error {
	if err := a.game.Render(r); err != nil {
		return err
	}
	a.paint(screen)
	if n := len(a.game.Sim.Balls()); n != a.titledBalls {
		a.titledBalls = n
		ebiten.SetWindowTitle(fmt.Sprintf("bounceebiten: %d balls", n))
	}
	// Reading pixels back waits for the GPU: with -seconds only the last frame is read.
	if a.shot != nil && (a.last == 0 || a.reached) {
		screen.ReadPixels(a.shot)
		a.shotTaken = true
	}
	if a.reached {
		return gameloop.ErrStop
	}
	return nil
}

// paint paints the grid's cells: braille dots, half blocks and the box's lines as rectangles,
// other text with Ebitengine's debug font.
func (a *app) paint(screen *ebiten.Image) {
	screen.Fill(color.Black)
	cols, rows := a.grid.Size()
	cells := a.grid.Cells()
	for y := range rows {
		for x := range cols {
			c := cells[y*cols+x]
			if c.Rune == 0 || c.Rune == ' ' && c.Style.Background == bouncegame.Default && !c.Style.Reverse {
				continue
			}
			a.cell(screen, float32(x*cellWidth), float32(y*cellHeight), c)
		}
	}
}

func (a *app) cell(screen *ebiten.Image, x0, y0 float32, c bouncegame.Cell) {
	const w, h = cellWidth, cellHeight
	fg, bg := a.colors[c.Style.Foreground], color.RGBA{A: 0xff}
	if c.Style.Background != bouncegame.Default {
		bg = a.colors[c.Style.Background]
	}
	if c.Style.Reverse {
		fg, bg = bg, fg
	}
	if bg != (color.RGBA{A: 0xff}) {
		vector.DrawFilledRect(screen, x0, y0, w, h, bg, false)
	}
	r := c.Rune
	switch {
	case r == ' ':
	case r >= 0x2800 && r <= 0x28ff: // braille: two dots across, four down
		for dy := range 4 {
			for dx := range 2 {
				if (r-0x2800)&bouncegame.BrailleBit(dx, dy) != 0 {
					vector.DrawFilledRect(screen, x0+float32(dx*w/2), y0+float32(dy*h/4), w/2-1, h/4-1, fg, false)
				}
			}
		}
	case r == '▀':
		vector.DrawFilledRect(screen, x0, y0, w, h/2, fg, false)
	case r == '▄':
		vector.DrawFilledRect(screen, x0, y0+h/2, w, h/2, fg, false)
	case r == '█':
		vector.DrawFilledRect(screen, x0, y0, w, h, fg, false)
	case r == '─':
		vector.DrawFilledRect(screen, x0, y0+h/2-1, w, 2, fg, false)
	case r == '│':
		vector.DrawFilledRect(screen, x0+w/2-1, y0, 2, h, fg, false)
	case r == '┌' || r == '┐' || r == '└' || r == '┘':
		top := r == '└' || r == '┘'
		left := r == '┐' || r == '┘'
		if top {
			vector.DrawFilledRect(screen, x0+w/2-1, y0, 2, h/2+1, fg, false)
		} else {
			vector.DrawFilledRect(screen, x0+w/2-1, y0+h/2-1, 2, h/2+1, fg, false)
		}
		if left {
			vector.DrawFilledRect(screen, x0, y0+h/2-1, w/2+1, 2, fg, false)
		} else {
			vector.DrawFilledRect(screen, x0+w/2-1, y0+h/2-1, w/2+1, 2, fg, false)
		}
	case r < 128:
		// The debug font draws in white on the screen; the status line is the only text.
		ebitenutil.DebugPrintAt(screen, string(r), int(x0)+1, int(y0))
	}
}

// replayFile replays the recording in path headless, as bounce -replay does, and prints
// whether every checksum matched.
func replayFile(path string, stdout io.Writer) error {
	return replaycli.Run(context.Background(), path, stdout,
		func(ctx context.Context, h replay.Header, rec replaycli.Playable, w io.Writer) error {
			res, err := bouncegame.Replay(ctx, h, rec)
			if err != nil {
				return err
			}
			return replaycli.PrintResult(w, res)
		})
}
