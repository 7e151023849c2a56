package netplay

import (
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netsim"
)

// TestConfirmedNeverRunsAgain: a tick at or before Stats.Confirmed never runs again, even when
// a Poll between two ticks brings an input that proves a prediction wrong. Two peers 50 ms
// apart; peer 1 changes its input every 20 ticks; peer 0 runs a tick every 16 ms and polls in
// between, and every Load it is asked for must be of a tick at or after the Confirmed it was
// told before.
func TestConfirmedNeverRunsAgain(t *testing.T) {
	net := netsim.NewNetwork(5)
	a, err := net.Listen("a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := net.Listen("b")
	if err != nil {
		t.Fatal(err)
	}
	net.SetConditions("a", "b", netsim.Conditions{Latency: 50 * time.Millisecond})
	net.SetConditions("b", "a", netsim.Conditions{Latency: 50 * time.Millisecond})
	cfg := func(local int, addr *netsim.Conn) Config[testInput] {
		players := []Player{{Local: true}, {Addr: addr.LocalAddr()}}
		if local == 1 {
			players[0], players[1] = players[1], players[0]
		}
		return Config[testInput]{Players: players, Codec: byteCodec{}, PredictionWindow: 10, Rand: &seqReader{x: uint64(local) + 1}}
	}
	s0, err := NewSession(a, cfg(0, b))
	if err != nil {
		t.Fatal(err)
	}
	defer s0.Close()
	s1, err := NewSession(b, cfg(1, a))
	if err != nil {
		t.Fatal(err)
	}
	defer s1.Close()
	g0, g1 := newTestGame(2, s0.Slots(), 1, 2000), newTestGame(2, s1.Slots(), 2, 2000)
	loads := 0
	var confirmed uint64
	for ms := time.Duration(0); ms < 20*time.Second; ms += time.Millisecond {
		net.Advance(time.Millisecond)
		now := net.Now()
		if ms%(16*time.Millisecond) != 0 {
			s0.Poll(now)
			s1.Poll(now)
			confirmed = s0.Stats().Confirmed
			continue
		}
		_ = s1.AddLocalInput(1, testInput(s1.Tick()/20))
		if reqs, err := s1.Advance(now); err == nil {
			if err := Run(reqs, g1); err != nil {
				t.Fatal(err)
			}
		}
		_ = s0.AddLocalInput(0, 7)
		reqs, err := s0.Advance(now)
		if err != nil {
			continue
		}
		for _, r := range reqs {
			if r.Kind == Load {
				loads++
				if r.Tick < confirmed {
					t.Fatalf("at %v: Load of tick %d: ticks from %d run again, after Stats.Confirmed said %d", now, r.Tick, r.Tick+1, confirmed)
				}
			}
		}
		if err := Run(reqs, g0); err != nil {
			t.Fatal(err)
		}
	}
	if loads < 20 {
		t.Fatalf("%d rollbacks: the test did not test", loads)
	}
}
