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
const recordingName = "colorfade"

// startVersion begins a recording's Meta.
const startVersion = "colorfade-start/1"

// replayTimeout bounds a replay. Replays run in bench mode, without waiting: an hour of play
// at 60 ticks per second takes a fraction of a second, so only a damaged or hostile recording
// (one claiming billions of ticks) comes near it.
const replayTimeout = 5 * time.Minute

// encodeStart returns the recording's Meta for a game at tickRate: colorfade always starts at
// black with no key held, so the tick rate (which the header has too) is all there is to say,
// as "colorfade-start/1 tps=60". The window's size decides nothing: it only scales the drawing.
func encodeStart(tickRate int) []byte {
	return fmt.Appendf(nil, "%s tps=%d", startVersion, tickRate)
}

// parseStart reads what encodeStart wrote and returns the tick rate.
func parseStart(meta []byte) (int, error) {
	rest, ok := strings.CutPrefix(string(meta), startVersion+" tps=")
	if !ok {
		return 0, fmt.Errorf("the recording's meta %q is not %q", meta, startVersion+" tps=N")
	}
	rate, err := strconv.Atoi(rest)
	if err != nil || rate < 1 || rate > gameloop.MaxRate {
		return 0, fmt.Errorf("the recording's meta %q: bad tick rate %q", meta, rest)
	}
	return rate, nil
}

// play runs g (the app's game, or a test's wrapper of it) on the app's loop until it ends,
// recording it to opts.Record if that is set; the recording is closed however Run ends.
func (a *app) play(ctx context.Context, g gameloop.Game) error {
	if a.opts.Record == "" {
		return a.loop.Run(ctx, g)
	}
	f, err := os.Create(a.opts.Record)
	if err != nil {
		return fmt.Errorf("-record: %w", err)
	}
	rec, err := replay.NewRecorder(f, a.loop.Config().TickRate, &replay.RecordOptions{
		Name: recordingName, Meta: encodeStart(a.loop.Config().TickRate), Checksum: a.game.Checksum})
	if err != nil {
		return errors.Join(fmt.Errorf("-record %s: %w", a.opts.Record, err), f.Close())
	}
	err = a.loop.Run(ctx, rec.Game(g))
	if cerr := errors.Join(rec.Close(), f.Close()); cerr != nil {
		err = errors.Join(err, fmt.Errorf("-record %s: %w", a.opts.Record, cerr))
	}
	return err
}

// runReplay replays the recording in path headless (no window, no OpenGL), as fast as it goes,
// and prints whether every checksum matched (see replaycli.Run).
func runReplay(ctx context.Context, path string, stdout io.Writer) error {
	return replaycli.Run(ctx, path, stdout, func(ctx context.Context, h replay.Header, rec replaycli.Playable, w io.Writer) error {
		_, res, err := replayRecording(ctx, h, rec)
		if err != nil {
			return err
		}
		return replaycli.PrintResult(w, res)
	})
}

// replayRecording replays rec, whose header is h, in bench mode into a new game with no screen,
// and returns the game as the replay left it.
func replayRecording(ctx context.Context, h replay.Header, rec replaycli.Playable) (*game, *replay.Result, error) {
	if h.Name != recordingName {
		return nil, nil, fmt.Errorf("a recording of %q, not of %s", h.Name, recordingName)
	}
	rate, err := parseStart(h.Meta)
	if err != nil {
		return nil, nil, err
	}
	if rate != h.TickRate {
		return nil, nil, fmt.Errorf("the recording's meta says %d ticks per second, its header %d", rate, h.TickRate)
	}
	ctx, cancel := context.WithTimeout(ctx, replayTimeout)
	defer cancel()
	g := newGame(nil)
	res, err := rec.Play(ctx, g, nil)
	if err != nil {
		return nil, nil, err
	}
	return g, res, nil
}
