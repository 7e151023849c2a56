package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/duel"
	"github.com/gameloop-go/gameloop/internal/replaycli"
	"github.com/gameloop-go/gameloop/replay"
)

// runReplay replays a recording made by -record (or kept after a desync): the game started
// as its header says, stepped with the players' recorded inputs, its checksum compared with
// the recorded one after every tick. It prints the outcome ("replay: 600 ticks, matched
// (...)") and the last tick's checksum, as -headless prints it; a mismatch is an error that
// names the first tick that differed.
func runReplay(ctx context.Context, path string, stdout io.Writer) error {
	return replaycli.Run(ctx, path, stdout, func(ctx context.Context, h replay.Header, rec replaycli.Playable, w io.Writer) error {
		seed, err := parseStart(h)
		if err != nil {
			return err
		}
		g := &replayGame{state: duel.New(seed)}
		res, err := rec.Play(ctx, g, nil)
		if err != nil {
			return err
		}
		if err := replaycli.PrintResult(w, res); err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "tick %d checksum %016x\n", g.state.Tick, g.state.Checksum())
		return err
	})
}

// parseStart returns the seed a recording's header gives, checking that it is a duel's.
func parseStart(h replay.Header) (uint64, error) {
	const prefix = "duel-start/1 seed="
	meta := string(h.Meta)
	if h.Name != recordName || !strings.HasPrefix(meta, prefix) {
		return 0, fmt.Errorf("not a recording of duel: its header says %q, %q", h.Name, meta)
	}
	seed, err := strconv.ParseUint(meta[len(prefix):], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("the recording's start %q: %w", meta, err)
	}
	return seed, nil
}

// replayGame is the duel as replay.Play runs it: each player's recorded input holds until
// the player's next, and every Update is one tick.
type replayGame struct {
	state  duel.State
	inputs [2]duel.Input
}

// PlayerInput notes a player's input, from the tick it is recorded for.
func (g *replayGame) PlayerInput(tick uint64, player int, data []byte) error {
	if player < 0 || player > 1 || len(data) != duel.InputSize {
		return fmt.Errorf("tick %d: an input of %d bytes for player %d: not a duel's", tick, len(data), player)
	}
	g.inputs[player] = duel.Get(data)
	return nil
}

// Update runs one tick.
func (g *replayGame) Update(*gameloop.Update) error {
	g.state.Step(g.inputs)
	return nil
}

// Checksum is the state's, compared with the recorded one.
func (g *replayGame) Checksum() uint64 { return g.state.Checksum() }
