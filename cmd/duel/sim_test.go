package main

// The duel over netsim's in-memory network on simulated time: minutes of play under each of
// its presets in a second or two, deterministically, with the command's own game (its saves,
// loads and final checksums) in netplay sessions.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/internal/duel"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netsim"
	"github.com/gameloop-go/gameloop/replay"
)

// simPeer is one player's machine in the simulation.
type simPeer struct {
	session *netplay.Session[duel.Input]
	game    *game
	rec     bytes.Buffer
	start   time.Duration // when its loop starts, on the network's time
	next    time.Duration // when its next tick is due
}

// Minutes at 60 Hz under every preset, the second peer starting half a second late: both
// peers' recordings (every confirmed tick's inputs and checksum) agree tick for tick, and each
// replays matched. One minute by default; GAMELOOP_DUEL_MINUTES=10 plays the ten that
// docs/duel.md quotes.
func TestSimulatedPresets(t *testing.T) {
	minutes := 1
	if s := os.Getenv("GAMELOOP_DUEL_MINUTES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 24*60 {
			t.Fatalf("GAMELOOP_DUEL_MINUTES=%q: want a number of minutes", s)
		}
		minutes = n
	}
	for _, preset := range netsim.PresetNames() {
		t.Run(preset, func(t *testing.T) {
			t.Parallel()
			cond, err := netsim.Preset(preset)
			if err != nil {
				t.Fatal(err)
			}
			ticks := uint64(minutes * 60 * duel.TickRate)
			peers, st := simulate(t, cond, ticks, 500*time.Millisecond)
			recs := [2]*replay.Recording{}
			for i, p := range peers {
				rec, err := replay.Decode(bytes.NewReader(p.rec.Bytes()))
				if err != nil {
					t.Fatalf("peer %d's recording: %v", i, err)
				}
				recs[i] = rec
				res, err := rec.Play(t.Context(), netplay.NewReplayGame(newGame(1, 1, nil), duel.Codec{}, 2), nil)
				if err != nil || !res.Matched() {
					t.Fatalf("peer %d's recording replayed: %v, %v", i, res, err)
				}
			}
			compareRecordings(t, recs, ticks)
			t.Logf("%s: %d ticks; %v", preset, ticks, st)
		})
	}
}

// simulate plays a game between two bots on a network with conditions c both ways, the
// second peer starting late, until both have tick ticks final, and returns the peers and a
// summary of their sessions' figures.
func simulate(t *testing.T, c netsim.Conditions, ticks uint64, late time.Duration) ([2]*simPeer, string) {
	t.Helper()
	network := netsim.NewNetwork(1)
	names := [2]string{"left", "right"}
	network.SetConditions(names[0], names[1], c)
	network.SetConditions(names[1], names[0], c)
	var conns [2]*netsim.Conn
	for i, name := range names {
		conn, err := network.Listen(name)
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = conn
	}
	var peers [2]*simPeer
	for i := range peers {
		p := &simPeer{start: time.Duration(i) * late}
		p.next = p.start
		players := make([]netplay.Player, 2)
		players[i] = netplay.Player{Local: true}
		players[1-i] = netplay.Player{Addr: conns[1-i].LocalAddr()}
		s, err := netplay.NewSession(conns[i], netplay.Config[duel.Input]{
			Players: players, Codec: duel.Codec{}, InputDelay: defaultDelay,
			Record: &p.rec, RecordName: recordName, RecordMeta: startMeta(1),
		})
		if err != nil {
			t.Fatal(err)
		}
		bot := duel.NewBot(uint64(i + 1))
		p.session, p.game = s, newGame(1, s.Slots(), &bot)
		peers[i] = p
	}
	const step = time.Second / duel.TickRate
	// Time runs until both peers have the tick final, and a little longer for what is in
	// flight, within a bound that a stuck session cannot pass.
	limit := time.Duration(ticks)*step*2 + time.Minute
	for network.Now() < limit {
		done := true
		for i, p := range peers {
			if st := p.session.Stats(); min(st.Confirmed, st.Tick) < ticks+settleTicks {
				done = false
			}
			if network.Now() < p.next {
				continue
			}
			// Time sync, as the loop applies it: a peer ahead ticks a little slower.
			p.next += time.Duration(float64(step) / p.session.TimeScale())
			if err := p.session.AddLocalInput(i, p.game.LocalInput(i)); err != nil {
				t.Fatal(err)
			}
			reqs, err := p.session.Advance(network.Now())
			switch {
			case errors.Is(err, netplay.ErrNotSynchronized), errors.Is(err, netplay.ErrPredictionThreshold):
			case err != nil:
				t.Fatalf("peer %d: %v", i, err)
			default:
				if err := netplay.Run(reqs, p.game); err != nil {
					t.Fatalf("peer %d: %v", i, err)
				}
			}
		}
		if done {
			break
		}
		network.Advance(time.Millisecond)
	}
	var summary string
	for i, p := range peers {
		st := p.session.Stats()
		ps := p.session.PeerStats(1 - i)
		if min(st.Confirmed, st.Tick) < ticks {
			t.Fatalf("peer %d: tick %d final after %v of simulated time, want %d: %+v", i, min(st.Confirmed, st.Tick), network.Now(), ticks, st)
		}
		if err := p.session.Close(); err != nil {
			t.Fatal(err)
		}
		summary += fmt.Sprintf("peer %d: %d rollbacks, at most %d deep, %d skipped, ping %v, %.1f ahead; ",
			i, st.Rollbacks, st.MaxRollback, st.Skipped, ps.Ping.Round(time.Millisecond), ps.TicksAhead)
	}
	return peers, summary
}

// compareRecordings checks that two peers recorded the same checksum for every tick up to
// ticks, and the same inputs.
func compareRecordings(t *testing.T, recs [2]*replay.Recording, ticks uint64) {
	t.Helper()
	sums := [2]map[uint64]uint64{{}, {}}
	for i, rec := range recs {
		for _, c := range rec.Checksums {
			sums[i][c.Tick] = c.Sum
		}
	}
	for tick := uint64(1); tick <= ticks; tick++ {
		a, okA := sums[0][tick]
		b, okB := sums[1][tick]
		if !okA || !okB || a != b {
			t.Fatalf("tick %d: checksums %016x (recorded %v) and %016x (recorded %v)", tick, a, okA, b, okB)
		}
	}
	inputs := func(rec *replay.Recording) string {
		var b bytes.Buffer
		for _, in := range rec.PlayerInputs {
			if in.Tick <= ticks {
				fmt.Fprintf(&b, "%d/%d/%x ", in.Tick, in.Player, in.Data)
			}
		}
		return b.String()
	}
	if inputs(recs[0]) != inputs(recs[1]) {
		t.Fatalf("the peers recorded different inputs up to tick %d", ticks)
	}
}
