// Command colorfade is the demo of the LWJGL book's game-loop chapter on this library: a window
// whose clear colour fades toward white while Up is held and toward black while Down is held,
// in fixed updates; Escape or closing the window ends it.
//
//	go run ./cmd/colorfade -tps 60 -fps 60 -stats
//
// It needs a display (under a headless machine: xvfb-run go run ./cmd/colorfade), cgo, and the
// X11 and OpenGL development packages; see docs/glfw.md.
//
// With -record FILE it records the session to FILE (see package replay): every input with the
// tick it preceded, and the game's checksum (of the clear colour and the keys held) after every
// tick. With -replay FILE it replays the recording headless, with no window and no OpenGL
// context (so with no display), as fast as it goes, and prints whether every checksum matched:
//
//	go run ./cmd/colorfade -record fade.rec    # hold Up and Down, then Escape
//	go run ./cmd/colorfade -replay fade.rec    # replay: 1234 ticks, matched (...)
//
// The exit status is 0 when the game ends normally or a replay matched, 1 on an error, a
// checksum that differed (the first tick that did is printed, with the recorded and replayed
// checksums) or a recording damaged or cut short (the error names the byte), and 2 on bad
// flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/glfw"
)

// options are the command's settings, one flag each.
type options struct {
	TickRate   int    // fixed updates per second
	MaxFPS     int    // frame cap; 0 leaves pacing to v-sync
	VSync      bool   // wait for the screen's refresh on each swap
	Stats      bool   // print the loop's Stats at exit
	Width      int    // the window's size
	Height     int    //
	Title      string // the window's title
	Screenshot string // a PNG file to save the game's last state to, drawn, if not ""
	Record     string // a file to record the session to, if not ""
	Replay     string // a recording to replay headless instead of playing, if not ""
}

// defaultOptions are the options without flags.
func defaultOptions() options {
	return options{TickRate: 60, MaxFPS: 60, VSync: true, Width: 600, Height: 480, Title: "colorfade"}
}

// register defines a flag for each option on fs, with o's values as defaults.
func (o *options) register(fs *flag.FlagSet) {
	fs.IntVar(&o.TickRate, "tps", o.TickRate, "fixed updates (ticks) per second")
	fs.IntVar(&o.MaxFPS, "fps", o.MaxFPS, "frame cap in frames per second (0: none, v-sync paces frames where it works)")
	fs.BoolVar(&o.VSync, "vsync", o.VSync, "wait for the screen's refresh on each buffer swap (ignored by some drivers, Xvfb's included)")
	fs.BoolVar(&o.Stats, "stats", o.Stats, "print the loop's statistics at exit")
	fs.IntVar(&o.Width, "width", o.Width, "window width")
	fs.IntVar(&o.Height, "height", o.Height, "window height")
	fs.StringVar(&o.Title, "title", o.Title, "window title")
	fs.StringVar(&o.Screenshot, "screenshot", o.Screenshot, "save a frame of the game as it ends to this PNG file")
	fs.StringVar(&o.Record, "record", o.Record, "record the session (its input and the game's checksums) to this `file`")
	fs.StringVar(&o.Replay, "replay", o.Replay, "replay the recording in this `file` headless (no window), as fast as possible, and say whether it matched")
}

func main() { os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr)) }

// realMain runs the command with args and returns its exit status.
func realMain(args []string, stdout, stderr io.Writer) int {
	opts := defaultOptions()
	fs := flag.NewFlagSet("colorfade", flag.ContinueOnError)
	fs.SetOutput(stderr)
	opts.register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "colorfade: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if opts.Record != "" && opts.Replay != "" {
		fmt.Fprintln(stderr, "colorfade: -record and -replay: one or the other")
		return 2
	}
	// A signal to end (Ctrl-C, a terminal closing, kill) ends the game as Escape does: the
	// window closes and -stats are printed.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// Interrupting the game ends it normally; interrupting a replay leaves it unproven.
	if err := run(ctx, opts, stdout); err != nil && (opts.Replay != "" || !errors.Is(err, context.Canceled)) {
		fmt.Fprintln(stderr, "colorfade:", err)
		return 1
	}
	return 0
}

// app is the demo put together: a window, a renderer, a loop over the window, and the game.
// Each piece is a field so that a test (or a recorder wrapping the window, or a replayer
// feeding the loop) can get at it.
type app struct {
	opts     options
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
	a := &app{opts: opts, win: win}
	if a.renderer, err = glfw.NewRenderer(win); err != nil {
		a.close()
		return nil, err
	}
	// Frames are paced by the loop's cap: v-sync is not honoured everywhere.
	if a.loop, err = gameloop.New(gameloop.Config{TickRate: opts.TickRate, MaxFPS: opts.MaxFPS, Window: win}); err != nil {
		a.close()
		return nil, err
	}
	a.game = newGame(a.renderer)
	return a, nil
}

// close frees the renderer and closes the window.
func (a *app) close() {
	if a.renderer != nil {
		a.renderer.Close()
	}
	a.win.Close()
}

// run plays the demo until it ends, recording it with -record, then prints the loop's stats
// (with -stats) and saves the last frame (with -screenshot). With -replay it opens no window:
// it replays the recording and prints whether it matched.
func run(ctx context.Context, opts options, stdout io.Writer) error {
	if opts.Replay != "" {
		return runReplay(ctx, opts.Replay, stdout)
	}
	a, err := newApp(opts)
	if err != nil {
		return err
	}
	defer a.close()
	err = a.play(ctx, a.game)
	if opts.Stats {
		printStats(stdout, a.loop.Stats())
	}
	if opts.Screenshot != "" {
		if serr := a.screenshot(opts.Screenshot); serr != nil && err == nil {
			err = serr
		}
	}
	return err
}

// printStats prints the loop's figures.
func printStats(w io.Writer, st gameloop.Stats) {
	fmt.Fprintf(w, "ran %.2fs: %d ticks, %d frames (%d skipped), %d ticks dropped (%v)\n",
		st.RealTime.Seconds(), st.Ticks, st.Frames, st.SkippedFrames, st.DroppedTicks, st.DroppedTime)
	fmt.Fprintf(w, "last second: %.1f TPS (target %d), %.1f FPS (cap %d)\n", st.TPS, st.TickRate, st.FPS, st.MaxFPS)
	fmt.Fprintf(w, "frame time over the last frames: p50 %v, p99 %v, max %v\n", st.FrameTimeP50, st.FrameTimeP99, st.FrameTimeMax)
}

// screenshot draws the game as it is now and saves the frame to path as a PNG.
func (a *app) screenshot(path string) error {
	width, height := a.win.Size()
	if err := a.game.Render(&gameloop.Render{Alpha: 1, Width: width, Height: height}); err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	img, err := a.renderer.ReadPixels()
	if err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("screenshot: encoding %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	return nil
}
