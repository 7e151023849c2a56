package netplay

import (
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netsim"
)

// TestTwoLocalPlayers: a peer with two local players (a couch) and one with one play a
// three-player game under the poor preset, and agree on every tick.
func TestTwoLocalPlayers(t *testing.T) {
	network := netsim.NewNetwork(29)
	couch, err := network.Listen("couch")
	if err != nil {
		t.Fatal(err)
	}
	solo, err := network.Listen("solo")
	if err != nil {
		t.Fatal(err)
	}
	poor, _ := netsim.Preset("poor")
	network.SetConditions("couch", "solo", poor)
	network.SetConditions("solo", "couch", poor)
	configs := []struct {
		conn    *netsim.Conn
		players []Player
		local   []int
	}{
		{couch, []Player{{Local: true}, {Local: true}, {Addr: solo.LocalAddr()}}, []int{0, 1}},
		{solo, []Player{{Addr: couch.LocalAddr()}, {Addr: couch.LocalAddr()}, {Local: true}}, []int{2}},
	}
	const ticks = 1200
	sessions := make([]*Session[testInput], 2)
	games := make([]*testGame, 2)
	for i, c := range configs {
		s, err := NewSession(c.conn, Config[testInput]{Players: c.players, Codec: byteCodec{}, Rand: &seqReader{x: uint64(i)}})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		sessions[i] = s
		games[i] = newTestGame(3, s.Slots(), 0, ticks)
	}
	if len(sessions[1].peers) != 1 || sessions[1].peers[0].handles != 0b011 {
		t.Fatalf("the solo peer sees %d peers", len(sessions[1].peers))
	}
	now := time.Duration(0)
	for sessions[0].Tick() < ticks || sessions[1].Tick() < ticks {
		now += time.Millisecond
		network.Advance(time.Millisecond)
		if now%(time.Second/60) >= time.Millisecond {
			continue
		}
		for i, s := range sessions {
			if s.Tick() >= ticks {
				s.Poll(now)
				continue
			}
			for _, h := range configs[i].local {
				if err := s.AddLocalInput(h, bot(0, h, s.Tick()+1)); err != nil {
					t.Fatal(err)
				}
			}
			reqs, err := s.Advance(now)
			if err == nil {
				err = Run(reqs, Game[testInput](games[i]))
			}
			if err != nil && err != ErrNotSynchronized && err != ErrPredictionThreshold {
				t.Fatal(err)
			}
		}
		if now > 10*time.Minute {
			t.Fatalf("ticks %d and %d after 10 minutes", sessions[0].Tick(), sessions[1].Tick())
		}
	}
	common := min(sessions[0].final, sessions[1].final)
	if common < ticks-20 {
		t.Fatalf("only %d ticks final", common)
	}
	for tick := uint64(1); tick <= common; tick++ {
		a, b := games[0].log[(tick-1)*3:][:3], games[1].log[(tick-1)*3:][:3]
		if !sameInputs(a, b) || games[0].sums[tick-1] != games[1].sums[tick-1] {
			t.Fatalf("tick %d: %v and %v, checksums %#x and %#x", tick, a, b, games[0].sums[tick-1], games[1].sums[tick-1])
		}
		for h, in := range a {
			if in.Input != bot(0, h, tick) {
				t.Fatalf("tick %d: player %d ran with %v, its bot gave %v", tick, h, in.Input, bot(0, h, tick))
			}
		}
	}
}
