package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/duel"
	"github.com/gameloop-go/gameloop/internal/duelnet"
	"github.com/gameloop-go/gameloop/internal/replaycli"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netplay/relay"
	"github.com/gameloop-go/gameloop/replay"
)

// runReplay replays a recording made by -record (or kept after a desync): the game started
// as its header says, stepped with the players' recorded inputs, its checksum compared with
// the recorded one after every tick. It prints the outcome ("replay: 600 ticks, matched
// (...)") and the last tick's checksum, as -headless prints it; a mismatch is an error that
// names the first tick that differed.
//
// Recordings of a desync are meant to be shared, so a replay takes no file on trust: one that
// claims more ticks than it holds checksums for (duel records every tick's) is refused at the
// first tick past them, and a replay that runs for over replayTimeout is stopped.
//
// A relay's recording of a duel (cmd/relay -record) holds the players' inputs and the checksums
// they reported, one a second, but not the seed: the replay takes -seed's.
func runReplay(ctx context.Context, path string, seed uint64, stdout io.Writer) error {
	return replayWithin(ctx, path, seed, stdout, replayTimeout)
}

// replayTimeout bounds a replay, as cmd/bounce bounds its own. Replays run as fast as they go: a
// day of play replays in seconds, so only a recording far larger than any game makes comes
// near it.
const replayTimeout = 5 * time.Minute

// replayWithin is runReplay, the replay stopped after timeout.
func replayWithin(ctx context.Context, path string, relaySeed uint64, stdout io.Writer, timeout time.Duration) error {
	return replaycli.Run(ctx, path, stdout, func(ctx context.Context, h replay.Header, rec replaycli.Playable, w io.Writer) error {
		seed, err := duelnet.ParseStart(h)
		slack := uint64(1) // a session records every tick's checksum
		if err != nil && h.Name == relay.RecordName {
			// The players report one a second, and the relay's last two seconds may have
			// none.
			seed, err, slack = relaySeed, nil, (relay.RecordLagSeconds+1)*duel.TickRate
		}
		if err != nil {
			return err
		}
		g := duelnet.NewGame(seed, 1, nil)
		rg := &replayGame{ReplayGame: netplay.NewReplayGame(g, duel.Codec{}, 2), state: &g.State, slack: slack}
		played, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		res, err := rec.Play(played, rg, nil)
		if err != nil {
			if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("stopped after %v, which no recording of duel takes to replay: %w", timeout, err)
			}
			return err
		}
		if err := replaycli.PrintResult(w, res); err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "tick %d checksum %016x\n", g.State.Tick, g.State.Checksum())
		return err
	})
}

// replayGame is the game a replay runs: the recording's inputs into the duel, each tick
// checked to follow one whose checksum the recording holds. A session records the checksum of
// every tick, so a tick past the last checksum is a tick the recording only claims to hold:
// without the check, an end record claiming billions of ticks (a few bytes) would replay them.
type replayGame struct {
	*netplay.ReplayGame[duel.Input]
	state   *duel.State
	checked uint64 // the last tick whose checksum was compared
	slack   uint64 // how many ticks past it may come before the next checksum
}

func (r *replayGame) Update(u *gameloop.Update) error {
	if u.Tick > r.checked+r.slack {
		return fmt.Errorf("no checksum recorded for tick %d, where a recording of duel holds one for every tick "+
			"(a relay's, one a second): the recording is damaged, or was not made by duel", r.checked+r.slack)
	}
	return r.ReplayGame.Update(u)
}

// Checksum returns the checksum of the state after the tick just played, which the replay
// compares with the recorded one (replay.Checksummer).
func (r *replayGame) Checksum() uint64 {
	r.checked = r.state.Tick
	return r.ReplayGame.Checksum()
}
