package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gameloop-go/gameloop/internal/duel"
	"github.com/gameloop-go/gameloop/internal/replaycli"
	"github.com/gameloop-go/gameloop/netplay"
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
		g := newGame(seed, 1, nil)
		res, err := rec.Play(ctx, netplay.NewReplayGame(g, duel.Codec{}, 2), nil)
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
