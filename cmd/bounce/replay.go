package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/replaycli"
	"github.com/gameloop-go/gameloop/replay"
)

// recordingName is the game's name in the header of its recordings.
const recordingName = "bounce"

// replayTimeout bounds a replay. Replays run in bench mode, without waiting: an hour of play
// at 120 ticks per second takes well under a second, so only a damaged or hostile recording
// (one claiming billions of ticks) comes near it.
const replayTimeout = 5 * time.Minute

// Limits on a recording's start, so that a damaged or hostile one cannot make the view
// allocate without bound: no terminal is this large. The view holds to the same limit on
// every resize (see view.resize), so a recorded Resize cannot ask for more either.
const (
	maxCells = 1024 // the most cells across or down: at most 8 MB of dots

	startVersion = "bounce-start/1"
)

// start is everything that decides the state a game of bounce starts in, stored in a
// recording's Meta so that a replay starts the same game whatever its own flags say: the
// simulation's seed and balls, the window's size in cells and the glyphs (which together make
// the size of the box in dots, the simulation's units), and the tick rate. Nothing else is
// state: the drawing mode only draws, and the time scale and pausing change no tick's step.
type start struct {
	seed          uint64
	balls         int
	width, height int    // the window, in cells
	glyphs        string // "braille" or "half"
	tickRate      int
}

// startOf returns the start of a game played with opts in a window of width by height cells.
func startOf(opts options, width, height int) start {
	return start{seed: opts.seed, balls: opts.balls, width: width, height: height, glyphs: opts.glyphs, tickRate: opts.tickRate}
}

// options returns the options that start a game as s says.
func (s start) options() options {
	return options{seed: s.seed, balls: s.balls, glyphs: s.glyphs, tickRate: s.tickRate}
}

// encode returns s as a line of text, such as
//
//	bounce-start/1 seed=1 balls=5 width=80 height=24 glyphs=braille tps=10
func (s start) encode() []byte {
	return fmt.Appendf(nil, "%s seed=%d balls=%d width=%d height=%d glyphs=%s tps=%d",
		startVersion, s.seed, s.balls, s.width, s.height, s.glyphs, s.tickRate)
}

// parseStart reads what encode wrote. Every field must be there, once, and in range.
func parseStart(meta []byte) (start, error) {
	fields := strings.Fields(string(meta))
	if len(fields) == 0 || fields[0] != startVersion {
		return start{}, fmt.Errorf("the recording's meta %q does not begin with %q", meta, startVersion)
	}
	var s start
	seen := make(map[string]bool)
	for _, f := range fields[1:] {
		key, value, ok := strings.Cut(f, "=")
		if !ok || seen[key] {
			return start{}, fmt.Errorf("the recording's meta %q: bad or repeated field %q", meta, f)
		}
		seen[key] = true
		var err error
		switch key {
		case "seed":
			s.seed, err = strconv.ParseUint(value, 10, 64)
		case "balls":
			s.balls, err = parseInt(value, 0, 1<<20)
		case "width":
			s.width, err = parseInt(value, 1, maxCells)
		case "height":
			s.height, err = parseInt(value, 1, maxCells)
		case "tps":
			s.tickRate, err = parseInt(value, 1, gameloop.MaxRate)
		case "glyphs":
			s.glyphs = value
			if value != "braille" && value != "half" {
				err = errors.New("want braille or half")
			}
		default:
			err = errors.New("unknown field")
		}
		if err != nil {
			return start{}, fmt.Errorf("the recording's meta %q: %s: %w", meta, f, err)
		}
	}
	for _, key := range []string{"seed", "balls", "width", "height", "glyphs", "tps"} {
		if !seen[key] {
			return start{}, fmt.Errorf("the recording's meta %q has no %s", meta, key)
		}
	}
	return s, nil
}

// parseInt parses a decimal integer in [lo, hi].
func parseInt(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, err
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("%d is out of range [%d, %d]", n, lo, hi)
	}
	return n, nil
}

// recording is a game being recorded to a file.
type recording struct {
	file *os.File
	rec  *replay.Recorder
}

// startRecording creates path and starts a recording, into it, of a game that starts as s says
// and is about to run on loop. Hand the recording's game() to Run, and close the recording when
// Run returns.
func startRecording(path string, loop *gameloop.Loop, s start) (*recording, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-record: %w", err)
	}
	rec, err := replay.NewRecorder(f, loop.Config().TickRate, &replay.RecordOptions{Name: recordingName, Meta: s.encode()})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("-record %s: %w", path, err), f.Close())
	}
	return &recording{file: f, rec: rec}, nil
}

// game wraps g so that its input, its ticks and its checksum after each are recorded.
func (r *recording) game(g *game) gameloop.Game { return r.rec.Game(g) }

// close ends the recording and closes its file.
func (r *recording) close() error {
	if err := errors.Join(r.rec.Close(), r.file.Close()); err != nil {
		return fmt.Errorf("-record %s: %w", r.file.Name(), err)
	}
	return nil
}

// runReplay replays the recording in path headless, as fast as it goes, with a game built from
// the recording's own start, and prints whether every checksum matched (see replaycli.Run).
func runReplay(ctx context.Context, path string, stdout io.Writer) error {
	return replaycli.Run(ctx, path, stdout, playRecording)
}

// playRecording replays rec headless in bench mode into a new game started from its Meta, and
// prints the outcome as one line.
func playRecording(ctx context.Context, h replay.Header, rec replaycli.Playable, stdout io.Writer) error {
	if h.Name != recordingName {
		return fmt.Errorf("a recording of %q, not of %s", h.Name, recordingName)
	}
	s, err := parseStart(h.Meta)
	if err != nil {
		return err
	}
	if s.tickRate != h.TickRate {
		return fmt.Errorf("the recording's meta says %d ticks per second, its header %d", s.tickRate, h.TickRate)
	}
	// No loop: Play runs its own, and replays the recorded changes of the tick rate itself.
	g := newGame(s.options(), nil, newView(s.glyphs, newMemSurface(s.width, s.height)), s.width, s.height)
	ctx, cancel := context.WithTimeout(ctx, replayTimeout)
	defer cancel()
	res, err := rec.Play(ctx, g, nil)
	if err != nil {
		return err
	}
	return replaycli.PrintResult(stdout, res)
}
