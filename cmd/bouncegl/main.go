// Command bouncegl is the bounce demo in a window: balls bounce in fixed steps at a low tick
// rate, and frames drawn in between place them by interpolation (the default), extrapolation
// or neither, to tell the three apart by eye. The title shows the loop's FPS and TPS.
//
//	go run ./cmd/bouncegl -tps 10 -fps 60
//
// Keys: i cycles the draw mode, p pauses, space and backspace add and remove a ball, g toggles
// gravity, the arrows push every ball, q or Escape quits. It needs a display, cgo and the X11
// and OpenGL development packages; see docs/glfw.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/glfw"
)

// options are the command's settings, one flag each.
type options struct {
	TickRate int    // fixed updates per second
	MaxFPS   int    // frame cap
	VSync    bool   // wait for the screen's refresh on each swap
	Stats    bool   // print the loop's Stats at exit
	Balls    int    // balls at the start
	Seed     uint64 // seeds where the balls start
	Dot      int    // pixels a side of one dot of the simulation
	Width    int    // the window's size
	Height   int    //
	Title    string // the window's title, then the first word of the title with the figures
}

// defaultOptions are the options without flags.
func defaultOptions() options {
	return options{TickRate: 10, MaxFPS: 60, VSync: true, Balls: 8, Seed: 1, Dot: 8, Width: 640, Height: 480, Title: "bouncegl"}
}

// register defines a flag for each option on fs, with o's values as defaults.
func (o *options) register(fs *flag.FlagSet) {
	fs.IntVar(&o.TickRate, "tps", o.TickRate, "fixed updates (ticks) per second; low on purpose, to show interpolation")
	fs.IntVar(&o.MaxFPS, "fps", o.MaxFPS, "frame cap in frames per second (0: none)")
	fs.BoolVar(&o.VSync, "vsync", o.VSync, "wait for the screen's refresh on each buffer swap")
	fs.BoolVar(&o.Stats, "stats", o.Stats, "print the loop's statistics at exit")
	fs.IntVar(&o.Balls, "balls", o.Balls, "balls at the start")
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "seed of the balls' starting places")
	fs.IntVar(&o.Dot, "dot", o.Dot, "pixels a side of one dot of the simulation")
	fs.IntVar(&o.Width, "width", o.Width, "window width")
	fs.IntVar(&o.Height, "height", o.Height, "window height")
	fs.StringVar(&o.Title, "title", o.Title, "window title, followed by the figures once they come")
}

func main() {
	opts := defaultOptions()
	opts.register(flag.CommandLine)
	flag.Parse()
	// A signal to end (Ctrl-C, a terminal closing, kill) ends the game as Escape does: the
	// window closes and -stats are printed.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := run(ctx, opts); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "bouncegl:", err)
		os.Exit(1)
	}
}

// app is the demo put together; each piece is a field so that a test can get at it.
type app struct {
	win      *glfw.Window
	renderer *glfw.Renderer
	loop     *gameloop.Loop
	game     *game
}

// newApp opens the window and builds the loop and the game. Call it on the main thread.
func newApp(opts options) (*app, error) {
	win, err := glfw.Open(glfw.Options{Title: opts.Title, Width: opts.Width, Height: opts.Height, Resizable: true, VSync: opts.VSync})
	if err != nil {
		return nil, err
	}
	a := &app{win: win}
	if a.renderer, err = glfw.NewRenderer(win); err != nil {
		a.close()
		return nil, err
	}
	if a.loop, err = gameloop.New(gameloop.Config{TickRate: opts.TickRate, MaxFPS: opts.MaxFPS, Window: win}); err != nil {
		a.close()
		return nil, err
	}
	width, height := win.Size()
	a.game = newGame(opts, a.loop, a.renderer, win.SetTitle, width, height)
	return a, nil
}

// close frees the renderer and closes the window.
func (a *app) close() {
	if a.renderer != nil {
		a.renderer.Close()
	}
	a.win.Close()
}

// run plays the demo until it ends, then prints the loop's stats with -stats.
func run(ctx context.Context, opts options) error {
	a, err := newApp(opts)
	if err != nil {
		return err
	}
	defer a.close()
	err = a.loop.Run(ctx, a.game)
	if opts.Stats {
		st := a.loop.Stats()
		fmt.Printf("ran %.2fs: %d ticks, %d frames, %d ticks dropped; last second %.1f TPS, %.1f FPS; frame time p50 %v, p99 %v, max %v\n",
			st.RealTime.Seconds(), st.Ticks, st.Frames, st.DroppedTicks, st.TPS, st.FPS, st.FrameTimeP50, st.FrameTimeP99, st.FrameTimeMax)
	}
	return err
}
