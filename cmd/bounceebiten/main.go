// Command bounceebiten is the bounce demo as an Ebitengine game: balls bounce in fixed steps at a
// low tick rate (10 a second) and every frame Ebitengine draws places them by interpolation (the
// default), extrapolation or neither, to tell the three apart by eye. It runs on
// backend/ebiten; the game is the terminal demo's (cmd/bounce), drawn as the same grid of
// cells, and its recordings replay with bounce -replay.
//
//	go run ./cmd/bounceebiten                      # until q, Escape or the close button
//	go run ./cmd/bounceebiten -seconds 3 -stats    # quits by itself after 3 s of game time
//	go run ./cmd/bounceebiten -record s.rec        # then: go run ./cmd/bounce -replay s.rec
//
// Keys, as in bounce: i cycles the draw mode, p pauses, + and - change the time scale, [ and ]
// the tick rate, space and backspace add and remove a ball, g toggles gravity, the arrows push
// every ball, q or Escape quits. A gamepad of the standard layout plays too: South, East and
// North as space, backspace and g, the d-pad as the arrows, and the left stick pushes every ball
// as far as it is held. It needs cgo, a display and Ebitengine's system packages; see
// docs/ebiten.md.
package main

import (
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"os"

	"github.com/gameloop-go/gameloop"
	gle "github.com/gameloop-go/gameloop/backend/ebiten"
	"github.com/gameloop-go/gameloop/internal/bounce"
	"github.com/gameloop-go/gameloop/internal/bouncegame"
	"github.com/gameloop-go/gameloop/replay"
	"github.com/hajimehoshi/ebiten/v2"
)

// options are the command's settings, one flag each.
type options struct {
	start      bouncegame.Start
	mode       string  // the draw mode to start in
	seconds    float64 // game time to run for; 0 until quit
	record     string  // a file to record the session to
	replay     string  // a recording to replay headless instead
	screenshot string  // a PNG file for the last frame drawn
	stats      bool    // print the loop's statistics at exit
}

// cell is the size of one cell of the grid on the screen, in pixels: twice as high as wide, as
// in a terminal.
const cellWidth, cellHeight = 8, 16

func parseFlags(args []string, stderr io.Writer) (options, error) {
	o := options{start: bouncegame.Start{Seed: 1, Balls: 8, Width: 80, Height: 24, Glyphs: "braille", TickRate: 10}}
	fs := flag.NewFlagSet("bounceebiten", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.start.TickRate, "tps", o.start.TickRate, "fixed updates (ticks) per second; low on purpose, to show interpolation")
	fs.IntVar(&o.start.Balls, "balls", o.start.Balls, "balls at the start")
	fs.Uint64Var(&o.start.Seed, "seed", o.start.Seed, "seed of the balls' starting places")
	fs.IntVar(&o.start.Width, "width", o.start.Width, "the grid's width in cells")
	fs.IntVar(&o.start.Height, "height", o.start.Height, "the grid's height in cells")
	fs.StringVar(&o.start.Glyphs, "glyphs", o.start.Glyphs, "braille (2x4 dots a cell) or half (1x2)")
	fs.StringVar(&o.mode, "mode", "interpolate", "draw mode to start in: interpolate, extrapolate or neither (i cycles)")
	fs.Float64Var(&o.seconds, "seconds", 0, "quit after this many seconds of game time: exactly seconds x tps ticks (0: run until quit)")
	fs.StringVar(&o.record, "record", "", "record the session to this `file` (replay it with bounce -replay)")
	fs.StringVar(&o.replay, "replay", "", "replay this recording `file` headless, check it, and exit")
	fs.StringVar(&o.screenshot, "screenshot", "", "save the last frame drawn to this PNG `file`")
	fs.BoolVar(&o.stats, "stats", false, "print the loop's statistics at exit")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if _, ok := drawMode(o.mode); !ok {
		return o, fmt.Errorf("-mode %q: want interpolate, extrapolate or neither", o.mode)
	}
	if !(o.seconds >= 0 && o.seconds <= 1e6) {
		return o, fmt.Errorf("-seconds %g: must be between 0 and 1000000", o.seconds)
	}
	o.start = o.start.Used()
	if err := o.start.Check(); err != nil {
		return o, err
	}
	return o, nil
}

// drawMode returns the mode named s.
func drawMode(s string) (bounce.DrawMode, bool) {
	for m := range bounce.DrawModes {
		if m.String() == s {
			return m, true
		}
	}
	return 0, false
}

func main() {
	opts, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bounceebiten:", err)
		os.Exit(2)
	}
	if err := run(opts, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bounceebiten:", err)
		os.Exit(1)
	}
}

// run plays the game in a window (or replays a recording), then prints the statistics with
// -stats and saves the last frame with -screenshot.
func run(opts options, stdout io.Writer) (err error) {
	if opts.replay != "" {
		return replayFile(opts.replay, stdout)
	}
	a, err := newApp(opts)
	if err != nil {
		return err
	}
	if opts.record != "" {
		f, err := os.Create(opts.record)
		if err != nil {
			return fmt.Errorf("-record: %w", err)
		}
		rec, err := replay.NewRecorder(f, opts.start.TickRate, opts.start.RecordOptions())
		if err != nil {
			return errors.Join(fmt.Errorf("-record %s: %w", opts.record, err), f.Close())
		}
		a.played = rec.Game(a.game)
		defer func() {
			if cerr := errors.Join(rec.Close(), f.Close()); cerr != nil {
				err = errors.Join(err, fmt.Errorf("-record %s: %w", opts.record, cerr))
			}
		}()
	}
	ebiten.SetWindowTitle("bounceebiten") // then with the number of balls
	ebiten.SetWindowSize(opts.start.Width*cellWidth, opts.start.Height*cellHeight)
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	if err := gle.Run(a.loop, nil); err != nil {
		return err
	}
	if opts.stats {
		st := a.loop.Stats()
		late := a.loop.TickLateness()
		fmt.Fprintf(stdout, "ran %.2fs: %d ticks, %d frames, %d ticks dropped; last second %.1f TPS, %.1f FPS; ticks late p50 %v, p99 %v; checksum %016x\n",
			st.RealTime.Seconds(), st.Ticks, st.Frames, st.DroppedTicks, st.TPS, st.FPS, late.P50, late.P99, a.game.Checksum())
	}
	if opts.screenshot != "" {
		if err := a.saveShot(opts.screenshot); err != nil {
			return err
		}
	}
	return nil
}

// saveShot writes the last frame drawn to path as a PNG.
func (a *app) saveShot(path string) error {
	if !a.shotTaken {
		return errors.New("-screenshot: no frame was drawn")
	}
	img := &image.NRGBA{Pix: a.shot, Stride: 4 * a.screenWidth, Rect: image.Rect(0, 0, a.screenWidth, a.screenHeight)}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("-screenshot: %w", err)
	}
	if err := errors.Join(png.Encode(f, img), f.Close()); err != nil {
		return fmt.Errorf("-screenshot %s: %w", path, err)
	}
	return nil
}

// lastTick returns the tick to stop after for seconds of game time at rate ticks a second; 0
// for no end.
func lastTick(seconds float64, rate int) uint64 {
	return uint64(math.Round(seconds * float64(rate)))
}

// ensure the app is what backend/ebiten draws.
var _ gle.Drawer = (*app)(nil)

// ensure the adapter is what the game's keys control.
var _ bouncegame.Controls = (*gle.Game)(nil)

// ensure Update is a gameloop.Game's.
var _ gameloop.Game = (*app)(nil)
