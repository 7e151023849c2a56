package bouncegame

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/bounce"
	"github.com/gameloop-go/gameloop/replay"
)

// RecordingName is the game's name in the header of its recordings.
const RecordingName = "bounce"

// startVersion begins the Meta of a recording of bounce.
const startVersion = "bounce-start/1"

// replayTimeout bounds a replay. Replays run in bench mode, without waiting: an hour of play
// at 120 ticks per second takes well under a second, so only a damaged or hostile recording
// (one claiming billions of ticks) comes near it.
const replayTimeout = 5 * time.Minute

// Start is everything that decides the state a game of bounce starts in, stored in a
// recording's Meta so that a replay starts the same game whatever its own flags say: the
// simulation's seed and balls, the window's size in cells and the glyphs (which together make
// the size of the box in dots, the simulation's units), and the tick rate. Nothing else is
// state: the drawing mode only draws, and the time scale and pausing change no tick's step.
//
// A Start describes what the game used, not what it was asked for: Check refuses what the game
// could not honour, and Used makes a window's size what the view lays out.
type Start struct {
	Seed          uint64
	Balls         int // 0 to bounce.MaxBalls
	Width, Height int // the window, in cells: 1 to MaxCells
	Glyphs        string
	TickRate      int // 1 to gameloop.MaxRate
}

// Check reports a field of s that a game cannot honour, naming it as the command's flag.
func (s Start) Check() error {
	switch {
	case s.Glyphs != "braille" && s.Glyphs != "half":
		return fmt.Errorf("-glyphs %q: want braille or half", s.Glyphs)
	case s.Balls < 0 || s.Balls > bounce.MaxBalls:
		return fmt.Errorf("-balls %d: must be between 0 and %d", s.Balls, bounce.MaxBalls)
	case s.TickRate < 1 || s.TickRate > gameloop.MaxRate:
		return fmt.Errorf("-tps %d: must be between 1 and %d", s.TickRate, gameloop.MaxRate)
	case s.Width < 1 || s.Height < 1:
		return fmt.Errorf("a window of %dx%d cells: too small", s.Width, s.Height)
	}
	return nil
}

// Used returns s with the window's size as a View lays it out: a terminal larger than MaxCells
// each way is drawn in MaxCells, and that is the size a replay must start with.
func (s Start) Used() Start {
	s.Width, s.Height = ClampCells(s.Width), ClampCells(s.Height)
	return s
}

// Encode returns s as a line of text, such as
//
//	bounce-start/1 seed=1 balls=5 width=80 height=24 glyphs=braille tps=10
func (s Start) Encode() []byte {
	return fmt.Appendf(nil, "%s seed=%d balls=%d width=%d height=%d glyphs=%s tps=%d",
		startVersion, s.Seed, s.Balls, s.Width, s.Height, s.Glyphs, s.TickRate)
}

// ParseStart reads what Encode wrote. Every field must be there, once, and in range.
func ParseStart(meta []byte) (Start, error) {
	fields := strings.Fields(string(meta))
	if len(fields) == 0 || fields[0] != startVersion {
		return Start{}, fmt.Errorf("the recording's meta %q does not begin with %q", meta, startVersion)
	}
	var s Start
	seen := make(map[string]bool)
	for _, f := range fields[1:] {
		key, value, ok := strings.Cut(f, "=")
		if !ok || seen[key] {
			return Start{}, fmt.Errorf("the recording's meta %q: bad or repeated field %q", meta, f)
		}
		seen[key] = true
		var err error
		switch key {
		case "seed":
			s.Seed, err = strconv.ParseUint(value, 10, 64)
		case "balls":
			// Recordings made before -balls was checked may hold more than the cap: the
			// simulation starts with MaxBalls then, as it did when they were made.
			s.Balls, err = parseInt(value, 0, 1<<20)
		case "width":
			s.Width, err = parseInt(value, 1, MaxCells)
		case "height":
			s.Height, err = parseInt(value, 1, MaxCells)
		case "tps":
			s.TickRate, err = parseInt(value, 1, gameloop.MaxRate)
		case "glyphs":
			s.Glyphs = value
			if value != "braille" && value != "half" {
				err = errors.New("want braille or half")
			}
		default:
			err = errors.New("unknown field")
		}
		if err != nil {
			return Start{}, fmt.Errorf("the recording's meta %q: %s: %w", meta, f, err)
		}
	}
	for _, key := range []string{"seed", "balls", "width", "height", "glyphs", "tps"} {
		if !seen[key] {
			return Start{}, fmt.Errorf("the recording's meta %q has no %s", meta, key)
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

// RecordOptions returns the options of a Recorder for a game that starts as s says.
func (s Start) RecordOptions() *replay.RecordOptions {
	return &replay.RecordOptions{Name: RecordingName, Meta: s.Encode()}
}

// Playable is a recording to replay: a decoded *replay.Recording, or one read as it is
// replayed.
type Playable interface {
	Play(ctx context.Context, g gameloop.Game, opts *replay.PlayOptions) (*replay.Result, error)
}

// Replay replays rec, whose header is h, headless in bench mode into a new game started from
// its Meta, and returns what it found.
func Replay(ctx context.Context, h replay.Header, rec Playable) (*replay.Result, error) {
	if h.Name != RecordingName {
		return nil, fmt.Errorf("a recording of %q, not of %s", h.Name, RecordingName)
	}
	s, err := ParseStart(h.Meta)
	if err != nil {
		return nil, err
	}
	if s.TickRate != h.TickRate {
		return nil, fmt.Errorf("the recording's meta says %d ticks per second, its header %d", s.TickRate, h.TickRate)
	}
	// No loop: Play runs its own, and replays the recorded changes of the tick rate itself.
	g := New(s, nil, NewView(s.Glyphs, NewGrid(s.Width, s.Height)))
	ctx, cancel := context.WithTimeout(ctx, replayTimeout)
	defer cancel()
	return rec.Play(ctx, g, nil)
}
