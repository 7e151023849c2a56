package relay

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/replay"

	"github.com/gameloop-go/gameloop/internal/relaytest"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netsim"
)

// statusGame runs a relaytest.Game and notes the status each tick last ran with of one slot.
type statusGame struct {
	*relaytest.Game
	slot   int
	status map[uint64]netplay.Status
}

func (g *statusGame) Step(tick uint64, in []netplay.PlayerInput[byte]) error {
	g.status[tick] = in[g.slot].Status
	return g.Game.Step(tick, in)
}

// TestRelayLateJoin: a match of 3 that starts with 2 (MinPlayers) runs the third slot as
// Disconnected; a player joining it 5 s in re-simulates the match from its first tick, and
// from the tick after the one the relay had confirmed when it joined, its input counts, at
// every player and spectator alike: the same statuses, the same checksums, each told of the
// join by an EventJoined of the same tick. A fourth player finds no slot; a match that starts
// full takes nobody late.
func TestRelayLateJoin(t *testing.T) {
	recs := map[string]*nopCloser{}
	sr := newSimRelay(t, 21, &Options{OpenMatch: MatchConfig{MinPlayers: 2}, Record: func(name string) (io.WriteCloser, error) {
		recs[name] = &nopCloser{}
		return recs[name], nil
	}})
	for _, n := range []string{"a", "b", "c", "watch"} {
		c := netsim.Conditions{Latency: 25 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02}
		sr.net.SetConditions(n, "relay", c)
		sr.net.SetConditions("relay", n, c)
	}
	a := sr.player("a", "m", 0, 3, nil, nil)
	sr.player("b", "m", 1, 3, nil, nil)
	watch := sr.player("watch", "m", -1, 3, nil, nil)
	games := map[*simPlayer]*statusGame{}
	for _, p := range sr.players {
		games[p] = &statusGame{Game: p.g, slot: 2, status: map[uint64]netplay.Status{}}
		p.game = games[p]
	}
	sr.run(5 * time.Second)
	if st, _ := sr.relay.MatchStats("m"); !st.Started || st.Confirmed < 250 {
		t.Fatalf("the match of 2 of 3: %+v", st)
	}
	var cOwn bytes.Buffer
	c := sr.player("c", "m", 2, 3, nil, func(cfg *netplay.Config[byte]) { cfg.Record = &cOwn })
	games[c] = &statusGame{Game: c.g, slot: 2, status: map[uint64]netplay.Status{}}
	c.game = games[c]
	sr.run(sr.now + 10*time.Second)
	for _, p := range sr.players {
		if p.err != nil {
			t.Fatalf("%s: %v", p.name, p.err)
		}
	}
	st, err := sr.relay.MatchStats("m")
	if err != nil {
		t.Fatal(err)
	}
	if st.Joined != 3 || st.Dropped != 0 || sr.relay.Metrics().LateJoins != 1 {
		t.Fatalf("match %+v, metrics %+v", st, sr.relay.Metrics())
	}
	// Every member was told of the join, at the same tick.
	var first uint64
	for _, p := range sr.players {
		var joined []netplay.Event
		for _, e := range p.s.Events(nil) {
			if e.Kind == netplay.EventJoined {
				joined = append(joined, e)
			}
		}
		if len(joined) != 1 || joined[0].Handle != 2 || first != 0 && joined[0].Tick != first {
			t.Fatalf("%s: joins %v, want one of player 2 at tick %d", p.name, joined, first)
		}
		first = joined[0].Tick
	}
	if first < 250 || first > 400 {
		t.Fatalf("c's input counts from tick %d, 5 s in", first)
	}
	// Slot 2 ran Disconnected before it, and not after, everywhere.
	for _, p := range sr.players {
		g := games[p]
		final := p.s.Stats().Confirmed
		if final < first+400 {
			t.Fatalf("%s: final tick %d, the join's %d", p.name, final, first)
		}
		for tick := uint64(1); tick <= final; tick++ {
			got, ok := g.status[tick]
			if !ok {
				continue // before a player's first tick run here (c ran them all)
			}
			if want := tick < first; (got == netplay.Disconnected) != want {
				t.Fatalf("%s: slot 2 at tick %d ran %v (joined from %d)", p.name, tick, got, first)
			}
		}
	}
	if len(games[c].status) < int(first) {
		t.Errorf("c ran %d ticks: it re-simulates the match from tick 1", len(games[c].status))
	}
	if n := sr.agree(); n < 1000 {
		t.Errorf("%d checksums compared", n)
	}
	t.Logf("c joined from tick %d; relay %+v; a final %d, watch final %d, c final %d", first, st, a.s.Stats().Confirmed, watch.s.Stats().Confirmed, c.s.Stats().Confirmed)

	// A fourth player: no slot left.
	d := sr.player("d", "m", 0, 3, nil, nil)
	sr.run(sr.now + time.Second)
	if !errors.Is(d.err, netplay.ErrRefused) {
		t.Errorf("a fourth player: %v, want refused", d.err)
	}
	// The relay's recording replays, and holds what the late player recorded itself, the
	// ticks before it joined included.
	c.frozen = 1 << 62
	if err := sr.relay.EndMatch("m"); err != nil {
		t.Fatal(err)
	}
	if err := c.s.Close(); err != nil {
		t.Fatal(err)
	}
	res, err := replay.Play(context.Background(), bytes.NewReader(recs["m"].Bytes()), netplay.NewReplayGame[byte](relaytest.NewGame(1), relaytest.ByteCodec{}, 3), nil)
	if err != nil || res.Mismatch != nil || res.Checked < 10 {
		t.Fatalf("the relay's recording replayed: %v, %d checked, mismatch %v", err, res.Checked, res.Mismatch)
	}
	own, err := replay.Decode(bytes.NewReader(cOwn.Bytes()))
	if err != nil || own.Ticks < first+400 {
		t.Fatalf("c's recording: %v, %d ticks", err, own.Ticks)
	}
	if !bytes.Equal(playerInputs(t, recs["m"].Bytes(), 3, own.Ticks), playerInputs(t, cOwn.Bytes(), 3, own.Ticks)) {
		t.Fatal("the relay's recording and the late player's hold different inputs")
	}

	// A match that starts full takes nobody late.
	sr.player("e", "full", 0, 2, nil, nil)
	sr.player("f", "full", 1, 2, nil, nil)
	sr.run(sr.now + 2*time.Second)
	if st, _ := sr.relay.MatchStats("full"); !st.Started {
		t.Fatalf("a match of 2 of 2 not started: %+v", st)
	}
	late := sr.player("g", "full", 1, 2, nil, nil)
	sr.run(sr.now + time.Second)
	if !errors.Is(late.err, netplay.ErrRefused) {
		t.Errorf("a late player of a full match: %v, want refused", late.err)
	}
}
