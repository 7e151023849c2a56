// Command bounce is the gameloop demo: balls bouncing in the terminal, with a simulation that
// ticks slowly on purpose (10 times a second) while frames are drawn up to 60 times a second,
// so that the ways of drawing between two ticks can be told apart by eye:
//
//	go run ./cmd/bounce
//
// Keys: i cycles interpolate (draw between the last two ticks, by Render.Alpha), extrapolate
// (draw ahead of the last tick along the velocity, by Render.Ext) and neither (draw the last
// tick: motion steps); p pauses and resumes; + and - double and halve the time scale; [ and ]
// lower and raise the tick rate; space adds a ball, backspace removes one, g toggles gravity,
// the arrows push the balls; q, Escape or Ctrl-C quits.
//
// With -headless -seconds N it runs without a terminal for exactly N seconds of game time (N
// times the tick rate ticks, paced in real time) and prints the loop's final statistics and the
// simulation's checksum, which is the same on every run and every machine.
//
// With -record FILE it records the session, in the terminal or headless, to FILE (see package
// replay): every input with the tick it preceded, the changes of the tick rate, and the
// simulation's checksum after every tick, with what decides the game's start (seed, balls,
// window size, glyphs, tick rate) in the recording's header. With -replay FILE it replays the
// recording headless, as fast as it goes, in a game started as the recording says (the other
// flags are ignored), and prints whether every checksum matched:
//
//	go run ./cmd/bounce -record session.rec    # play, then quit with q
//	go run ./cmd/bounce -replay session.rec    # replay: 1234 ticks, matched (...)
//
// A replay exits with status 0 when it matched, and 1 when a checksum differed (it prints the
// first tick that did, with the recorded and replayed checksums), the recording is damaged or
// cut short (the error names the byte), or the replay fails.
//
// The exit status is 0 when the user quits (or asks for -h), 1 on an error, 2 for a bad flag
// (nothing has started; as the flag package's ExitOnError), 3 on a panic in the game, and 128
// plus the signal's number when a signal (SIGTERM, SIGHUP, SIGINT) ends it; in every case the
// terminal is restored first.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/cli"
)

// options are the command's flags.
type options struct {
	tickRate int
	maxFPS   int
	balls    int
	seed     uint64
	glyphs   string // "braille" or "half"
	headless bool
	seconds  float64
	// panicAtTick makes the game panic in that tick's update, to check that the terminal is
	// restored after a panic; 0 never.
	panicAtTick uint64
	// record is a file to record the session to (-record), replayPath one to replay (-replay).
	record     string
	replayPath string
	// stopAfter ends the game after this tick's update; 0 never.
	stopAfter uint64
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("bounce", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.tickRate, "tps", 10, "ticks (simulation steps) per second")
	fs.IntVar(&o.maxFPS, "fps", 60, "most frames drawn per second")
	fs.IntVar(&o.balls, "balls", 5, "balls to start with")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the simulation's random numbers")
	fs.StringVar(&o.glyphs, "glyphs", "braille", "how sub-cell positions are drawn: braille (2x4 dots a cell) or half (half blocks, 1x2)")
	fs.BoolVar(&o.headless, "headless", false, "run without a terminal and print the final statistics")
	fs.Float64Var(&o.seconds, "seconds", 5, "with -headless, how many seconds of game time to run: exactly seconds x tps ticks")
	fs.Uint64Var(&o.panicAtTick, "panic-at-tick", 0, "for testing: panic in the update of this tick")
	fs.StringVar(&o.record, "record", "", "record the session (its input, tick rate changes and checksums) to this `file`")
	fs.StringVar(&o.replayPath, "replay", "", "replay the recording in this `file` headless, as fast as possible, and say whether it matched; the game starts as recorded, whatever the other flags say")
	if err := cli.Parse(fs, args); err != nil {
		return o, err
	}
	if err := checkFlags(o, fs.Args()); err != nil {
		return o, &cli.UsageError{Err: err}
	}
	return o, nil
}

// checkFlags reports a setting the game cannot take, naming its flag, or arguments after the
// flags.
func checkFlags(o options, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected arguments %q", args)
	}
	if o.glyphs != "braille" && o.glyphs != "half" {
		return fmt.Errorf("-glyphs %q: want braille or half", o.glyphs)
	}
	if o.balls < 0 {
		return fmt.Errorf("-balls %d: must not be negative", o.balls)
	}
	if !(o.seconds > 0 && o.seconds <= maxSeconds) {
		return fmt.Errorf("-seconds %g: must be a number above 0 and at most %d", o.seconds, maxSeconds)
	}
	if err := checkOptions(o); err != nil {
		return err
	}
	if o.record != "" && o.replayPath != "" {
		return errors.New("-record and -replay: one or the other")
	}
	return nil
}

// perSecond returns n per second of d, 0 for no time.
func perSecond(n uint64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// maxSeconds bounds -seconds: a headless run of over 11 days is a mistake.
const maxSeconds = 1_000_000

// Exit statuses.
const (
	exitError = 1
	exitUsage = 2 // as the flag package's ExitOnError
	exitPanic = 3
)

// signalError is the cause of the context's cancellation when a signal arrives.
type signalError struct{ sig syscall.Signal }

func (e signalError) Error() string { return "terminated by " + unix.SignalName(e.sig) }

func main() { os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr)) }

func realMain(args []string, stdout, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if err != nil {
		return cli.Report("bounce", err, stderr) // 0 for -h, 2 for a bad flag
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	defer signal.Stop(sigs)
	go func() {
		select {
		case sig := <-sigs:
			cancel(signalError{sig.(syscall.Signal)})
		case <-ctx.Done():
		}
	}()

	err = run(ctx, opts, stdout)
	var sigErr signalError
	var panicErr *gameloop.PanicError
	switch {
	case err == nil:
		return 0
	case errors.As(context.Cause(ctx), &sigErr):
		fmt.Fprintln(stderr, "bounce:", sigErr)
		return 128 + int(sigErr.sig)
	case errors.As(err, &panicErr):
		fmt.Fprintln(stderr, "bounce:", err)
		return exitPanic
	default:
		fmt.Fprintln(stderr, "bounce:", err)
		return exitError
	}
}

// run plays the game until the user quits (nil), ctx is cancelled, or something fails. The
// terminal, if one was opened, is restored before run returns, whatever happened.
func run(ctx context.Context, opts options, stdout io.Writer) error {
	if opts.replayPath != "" {
		return runReplay(ctx, opts.replayPath, stdout)
	}
	if opts.headless {
		return runHeadless(ctx, opts, stdout)
	}
	return runTerminal(ctx, opts)
}

// runHeadless runs the game without a terminal for opts.seconds of game time, in real time, and
// prints the statistics and the checksum. It stops after a number of ticks, not at a time on
// the clock, so that the checksum it prints is a fact about the simulation: a timer would race
// the last tick.
func runHeadless(ctx context.Context, opts options, stdout io.Writer) error {
	const width, height = 80, 24
	win := gameloop.NewHeadlessWindow(width, height)
	loop, err := gameloop.New(gameloop.Config{TickRate: opts.tickRate, MaxFPS: opts.maxFPS, Window: win})
	if err != nil {
		return fmt.Errorf("creating the loop: %w", err)
	}
	ticks := math.Round(opts.seconds * float64(loop.Config().TickRate))
	if ticks < 1 {
		return fmt.Errorf("-seconds %g at %d ticks per second is less than one tick", opts.seconds, loop.Config().TickRate)
	}
	g := newGame(opts, loop, newView(opts.glyphs, newMemSurface(width, height)), width, height)
	opts.stopAfter = uint64(ticks)
	if err := play(ctx, opts, loop, g, width, height); err != nil {
		return err
	}
	return printStats(stdout, loop.Stats(), g)
}

// stopAfter ends Run normally after the update of tick last, passing every callback on to the
// game it wraps.
type stopAfter struct {
	game     gameloop.Game
	last     uint64
	input    gameloop.InputHandler
	variable gameloop.VariableUpdater
	renderer gameloop.Renderer
}

func newStopAfter(g gameloop.Game, last uint64) *stopAfter {
	s := &stopAfter{game: g, last: last}
	s.input, _ = g.(gameloop.InputHandler)
	s.variable, _ = g.(gameloop.VariableUpdater)
	s.renderer, _ = g.(gameloop.Renderer)
	return s
}

func (s *stopAfter) Update(u *gameloop.Update) error {
	if err := s.game.Update(u); err != nil || u.Tick < s.last {
		return err
	}
	return gameloop.ErrStop
}

func (s *stopAfter) Input(in *gameloop.Input) error {
	if s.input == nil {
		return nil
	}
	return s.input.Input(in)
}

func (s *stopAfter) VariableUpdate(v *gameloop.VariableUpdate) error {
	if s.variable == nil {
		return nil
	}
	return s.variable.VariableUpdate(v)
}

func (s *stopAfter) Render(r *gameloop.Render) error {
	if s.renderer == nil {
		return nil
	}
	return s.renderer.Render(r)
}

// play runs g on loop until it ends, recording it to opts.record if that is set. The
// recording is closed (complete, with its end) however Run ends: a panic in the game or a
// signal leaves a recording of the ticks that ran.
func play(ctx context.Context, opts options, loop *gameloop.Loop, g *game, width, height int) error {
	limit := func(g gameloop.Game) gameloop.Game {
		if opts.stopAfter == 0 {
			return g
		}
		return newStopAfter(g, opts.stopAfter)
	}
	if opts.record == "" {
		return loop.Run(ctx, limit(g))
	}
	rec, err := startRecording(opts.record, loop, startOf(opts, width, height))
	if err != nil {
		return err
	}
	err = loop.Run(ctx, limit(rec.game(g)))
	return errors.Join(err, rec.close())
}

// printStats prints a run's statistics. Its tps is the ticks over the real time of the whole
// run, so that 50 ticks in 5 s print 10.0: the loop's own TPS is over its last window of about
// a second, which holds 10 or 11 ticks as they fall, and so read 9.8 or 10.8.
func printStats(w io.Writer, st gameloop.Stats, g *game) error {
	_, err := fmt.Fprintf(w, `ticks           %d
frames          %d
real time       %v
fps             %.1f
tps             %.1f
frame time p50  %v
frame time p99  %v
frame time max  %v
dropped ticks   %d
dropped time    %v
balls           %d
checksum        %016x
`, st.Ticks, st.Frames, st.RealTime.Round(time.Millisecond), st.FPS, perSecond(st.Ticks, st.RealTime),
		st.FrameTimeP50.Round(time.Microsecond), st.FrameTimeP99.Round(time.Microsecond),
		st.FrameTimeMax.Round(time.Microsecond), st.DroppedTicks, st.DroppedTime,
		len(g.Sim.Balls()), g.Sim.Checksum())
	if err != nil {
		return fmt.Errorf("printing the statistics: %w", err)
	}
	return nil
}
