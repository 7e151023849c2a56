package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/bounce"
	"github.com/gameloop-go/gameloop/internal/bouncegame"
	"github.com/gameloop-go/gameloop/internal/replaycli"
	"github.com/gameloop-go/gameloop/replay"
)

// start is what decides the state a game of bounce starts in: see bouncegame.Start.
type start = bouncegame.Start

// startOf returns the start of a game played with opts in a window of width by height cells:
// what the game uses, which is what a recording must store to be replayed.
func startOf(opts options, width, height int) start {
	return start{Seed: opts.seed, Balls: opts.balls, Width: width, Height: height, Glyphs: opts.glyphs, TickRate: opts.tickRate}.Used()
}

// checkOptions refuses the flags a game cannot honour, before anything starts: a game that
// did not do what its flags said would be recorded as what they said, and would not replay.
// The tick rate is the loop's to refuse (0 means its default), and a recording stores the
// rate the loop runs at.
func checkOptions(opts options) error {
	if opts.balls > bounce.MaxBalls {
		return fmt.Errorf("-balls %d: the box holds at most %d", opts.balls, bounce.MaxBalls)
	}
	return nil
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
	s.TickRate = loop.Config().TickRate
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("-record: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-record: %w", err)
	}
	rec, err := replay.NewRecorder(f, s.TickRate, s.RecordOptions())
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
	res, err := bouncegame.Replay(ctx, h, rec)
	if err != nil {
		return err
	}
	return replaycli.PrintResult(stdout, res)
}
