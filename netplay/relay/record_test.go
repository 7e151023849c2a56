package relay

import (
	"bytes"
	"context"
	"github.com/gameloop-go/gameloop/internal/relaytest"
	"io"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netsim"
	"github.com/gameloop-go/gameloop/replay"
)

// nopCloser is a bytes.Buffer that can be closed, and says so.
type nopCloser struct {
	bytes.Buffer
	closed bool
}

func (b *nopCloser) Close() error { b.closed = true; return nil }

// TestRelayRecord: a relay recording its matches writes every confirmed tick of every player,
// with the checksums the players reported; replayed into the game, it reproduces every one of
// them, and it holds the same inputs as a player's own recording (Config.Record) of the same
// match.
func TestRelayRecord(t *testing.T) {
	recs := map[string]*nopCloser{}
	sr := newSimRelay(t, 4, &Options{Record: func(name string) (io.WriteCloser, error) {
		recs[name] = &nopCloser{}
		return recs[name], nil
	}})
	sr.net.SetConditions("b", "relay", netsim.Conditions{Latency: 30 * time.Millisecond, Loss: 0.02})
	var own bytes.Buffer
	sr.player("a", "m", 0, 2, nil, func(c *netplay.Config[byte]) { c.Record = &own })
	sr.player("b", "m", 1, 2, nil, nil)
	sr.run(6 * time.Second)
	sr.players[0].frozen = 1 << 62 // a's session ends with the match, before it is closed
	if err := sr.relay.EndMatch("m"); err != nil {
		t.Fatal(err)
	}
	sr.run(sr.now + 100*time.Millisecond)
	if err := sr.players[0].s.Close(); err != nil {
		t.Fatal(err)
	}
	rec := recs["m"]
	if rec == nil || !rec.closed {
		t.Fatalf("recording %v", rec)
	}
	res, err := replay.Play(context.Background(), bytes.NewReader(rec.Bytes()), netplay.NewReplayGame[byte](relaytest.NewGame(1), relaytest.ByteCodec{}, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Mismatch != nil || res.Checked < 4 || res.Ticks < 300 {
		t.Fatalf("replay: %d ticks, %d checksums checked, mismatch %v", res.Ticks, res.Checked, res.Mismatch)
	}
	// The relay's and the player's recordings: the same inputs, tick by tick.
	relayRec, err := replay.Decode(bytes.NewReader(rec.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	ownRec, err := replay.Decode(bytes.NewReader(own.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("relay: %d ticks, player: %d ticks; replay checked %d checksums", relayRec.Ticks, ownRec.Ticks, res.Checked)
	if ownRec.Ticks < 300 || relayRec.Ticks < ownRec.Ticks {
		t.Fatalf("%d ticks recorded by the relay, %d by the player", relayRec.Ticks, ownRec.Ticks)
	}
	ownRes, err := replay.Play(context.Background(), bytes.NewReader(own.Bytes()), netplay.NewReplayGame[byte](relaytest.NewGame(1), relaytest.ByteCodec{}, 2), nil)
	if err != nil || ownRes.Mismatch != nil {
		t.Fatalf("the player's recording replayed: %v, %v", err, ownRes.Mismatch)
	}
	a, b := playerInputs(t, rec.Bytes(), 2, ownRec.Ticks), playerInputs(t, own.Bytes(), 2, ownRec.Ticks)
	if !bytes.Equal(a, b) {
		t.Fatal("the relay's recording and the player's hold different inputs")
	}
}

// playerInputs returns every player input of a recording's first ticks, as replayed.
func playerInputs(t *testing.T, rec []byte, players int, ticks uint64) []byte {
	t.Helper()
	c := &inputCollector{ReplayGame: netplay.NewReplayGame[byte](relaytest.NewGame(1), relaytest.ByteCodec{}, players), ticks: ticks,
		cur: make([][]byte, players)}
	if _, err := replay.Play(context.Background(), bytes.NewReader(rec), c, nil); err != nil {
		t.Fatal(err)
	}
	return c.all
}

// inputCollector replays a recording into the game, keeping every player input it is given,
// tick by tick, up to a tick.
type inputCollector struct {
	*netplay.ReplayGame[byte]
	ticks uint64
	cur   [][]byte // by player
	all   []byte
}

func (c *inputCollector) PlayerInput(tick uint64, player int, data []byte) error {
	c.cur[player] = bytes.Clone(data)
	return c.ReplayGame.PlayerInput(tick, player, data)
}

func (c *inputCollector) Update(u *gameloop.Update) error {
	if u.Tick <= c.ticks {
		for _, in := range c.cur {
			c.all = append(c.all, in...)
		}
	}
	return c.ReplayGame.Update(u)
}

// TestRelaySyncTest: the inputs a relay confirmed for a match, as it recorded them, run through
// a sync test of the game (netplay.SyncTest: every tick run, then run again from two ticks
// back, the checksums compared): the game is deterministic on exactly the inputs its players
// ran through the relay, and reaches the checksums they reported.
func TestRelaySyncTest(t *testing.T) {
	recs := map[string]*nopCloser{}
	sr := newSimRelay(t, 6, &Options{Record: func(name string) (io.WriteCloser, error) {
		recs[name] = &nopCloser{}
		return recs[name], nil
	}})
	sr.player("a", "m", 0, 2, nil, nil)
	sr.player("b", "m", 1, 2, nil, nil)
	sr.run(5 * time.Second)
	if err := sr.relay.EndMatch("m"); err != nil {
		t.Fatal(err)
	}
	rec, err := replay.Decode(bytes.NewReader(recs["m"].Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	st, err := netplay.NewSyncTest(netplay.SyncTestConfig[byte]{Players: 2})
	if err != nil {
		t.Fatal(err)
	}
	g := relaytest.NewGame(st.Slots())
	// The recording holds each player's input where it changed: kept between ticks.
	in := [2]byte{}
	next := 0
	sums := map[uint64]uint64{}
	for _, c := range rec.Checksums {
		sums[c.Tick] = c.Sum
	}
	checked := 0
	for tick := uint64(1); tick <= rec.Ticks; tick++ {
		for ; next < len(rec.PlayerInputs) && rec.PlayerInputs[next].Tick == tick; next++ {
			p := rec.PlayerInputs[next]
			in[p.Player] = p.Data[1]
		}
		for h := range 2 {
			st.AddLocalInput(h, in[h])
		}
		reqs, err := st.Advance()
		if err != nil {
			t.Fatalf("tick %d: %v", tick, err)
		}
		if err := netplay.Run(reqs, g); err != nil {
			t.Fatal(err)
		}
		if want, ok := sums[tick]; ok {
			checked++
			if g.State != want {
				t.Fatalf("tick %d: the sync test's state %#x, the players reported %#x", tick, g.State, want)
			}
		}
	}
	if checked < 3 || rec.Ticks < 250 {
		t.Fatalf("%d ticks, %d checksums checked", rec.Ticks, checked)
	}
}
