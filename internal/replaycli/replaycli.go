// Package replaycli is what the demos' -replay flags share: reading a recording from a file,
// replaying it, and printing and returning the outcome.
package replaycli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/replay"
)

// ErrMismatch is what Run and PrintResult return, wrapped, when a replay ran but did not match
// its recording.
var ErrMismatch = errors.New("the replay did not match the recording")

// Run opens the recording in the file at path and replays it with play, which prints the
// outcome to w (with PrintResult). The recording is read as it is replayed (replay.Open), so a
// file of any size replays in bounded memory. It returns nil when every checksum matched, an
// error wrapping ErrMismatch when one did not (or the replay stopped short), and another error
// when the recording could not be read or replayed. A recording cut short (by a crash while
// recording) is replayed as far as it goes, then reported as an error that says where it ends.
func Run(ctx context.Context, path string, w io.Writer,
	play func(ctx context.Context, h replay.Header, rec Playable, w io.Writer) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("-replay: %w", err)
	}
	defer f.Close()
	rec, err := replay.Open(bufio.NewReader(f))
	if err != nil {
		return fmt.Errorf("-replay %s: %w", path, err)
	}
	if err := play(ctx, rec.Header, rec, w); err != nil {
		return fmt.Errorf("-replay %s: %w", path, err)
	}
	if cut := rec.Cut(); cut != nil {
		// What there was matched, but not the whole session: cut says where it was cut.
		return fmt.Errorf("-replay %s: %w", path, cut)
	}
	return nil
}

// Playable is a recording to replay: a *replay.Stream, or a decoded *replay.Recording (which a
// test may have changed).
type Playable interface {
	Play(ctx context.Context, g gameloop.Game, opts *replay.PlayOptions) (*replay.Result, error)
}

// PrintResult prints the outcome of a replay as one line, such as "replay: 36000 ticks,
// matched (52 inputs, 36000 checksums, in 27ms)", and returns an error wrapping ErrMismatch if
// it did not match. Of a recording cut short it says so; Run reports where it was cut.
func PrintResult(w io.Writer, res *replay.Result) error {
	var line string
	var failed error
	switch {
	case res.Mismatch != nil:
		m := res.Mismatch
		line = fmt.Sprintf("replay: MISMATCH at tick %d of %d: expected checksum %016x, got %016x (%d checksums matched before it)",
			m.Tick, res.Recorded, m.Recorded, m.Replayed, res.Checked-1)
		failed = fmt.Errorf("%w at tick %d", ErrMismatch, m.Tick)
	case res.Ticks < res.Recorded:
		line = fmt.Sprintf("replay: STOPPED at tick %d of %d", res.Ticks, res.Recorded)
		failed = fmt.Errorf("%w: the game stopped at tick %d of %d", ErrMismatch, res.Ticks, res.Recorded)
	case res.Cut != nil:
		line = fmt.Sprintf("replay: %d ticks, matched as far as the recording goes, but it was cut short (%s, %d checksums, in %v)",
			res.Ticks, inputs(res), res.Checked, res.Elapsed.Round(time.Microsecond))
	default:
		line = fmt.Sprintf("replay: %d ticks, matched (%s, %d checksums, in %v)",
			res.Ticks, inputs(res), res.Checked, res.Elapsed.Round(time.Microsecond))
	}
	if _, err := fmt.Fprintln(w, line); err != nil {
		return fmt.Errorf("printing the result: %w", err)
	}
	return failed
}

// inputs says how many inputs a replay delivered, and how many of them came after the last
// tick (the game received them before the recording ended, with no tick after).
func inputs(res *replay.Result) string {
	s := fmt.Sprintf("%d inputs", res.Inputs)
	if res.Inputs == 1 {
		s = "1 input"
	}
	if res.Trailing > 0 {
		s += fmt.Sprintf(", %d of them after the last tick", res.Trailing)
	}
	return s
}
