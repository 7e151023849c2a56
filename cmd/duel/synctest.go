package main

import (
	"context"
	"fmt"
	"io"

	"github.com/gameloop-go/gameloop/internal/duel"
	"github.com/gameloop-go/gameloop/internal/duelnet"
	"github.com/gameloop-go/gameloop/netplay"
)

// runSyncTest plays opts.ticks ticks between two bots (seeded by -bot, 1 if not given) under
// netplay's sync test: every tick is played, then the game goes back netplay's check distance
// and plays the ticks since again, and the checksums of the two runs of every tick must agree.
// It needs no network and runs as fast as it can.
func runSyncTest(ctx context.Context, opts options, stdout io.Writer) error {
	g := duelnet.NewGame(opts.seed, netplay.DefaultCheckDistance+2, nil)
	if err := syncTest(ctx, opts, g, &g.State, g.Resize); err != nil {
		return fmt.Errorf("-synctest: %w", err)
	}
	_, err := fmt.Fprintf(stdout, "synctest: %d ticks, each played again %d ticks later with the same checksum\n",
		opts.ticks, netplay.DefaultCheckDistance)
	return err
}

// syncTest runs the sync test on g, whose state the bots read from state, after resize gives
// it the slots the test asks for.
func syncTest(ctx context.Context, opts options, g netplay.Game[duel.Input], state *duel.State, resize func(slots int)) error {
	st, err := netplay.NewSyncTest(netplay.SyncTestConfig[duel.Input]{Players: 2, InputDelay: opts.delay})
	if err != nil {
		return err
	}
	resize(st.Slots())
	seed := uint64(1)
	if opts.bot.set {
		seed = opts.bot.seed
	}
	bots := [2]duel.Bot{duel.NewBot(seed), duel.NewBot(seed + 1)}
	// One tick more than asked: Advance checks the ticks the call before it ran.
	for st.Tick() <= opts.ticks {
		if st.Tick()%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		for h := range bots {
			if err := st.AddLocalInput(h, bots[h].Input(state, h)); err != nil {
				return err
			}
		}
		reqs, err := st.Advance()
		if err != nil {
			return err
		}
		if err := netplay.Run(reqs, g); err != nil {
			return err
		}
	}
	return nil
}
