package netplay

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay/internal/wire"
	"github.com/gameloop-go/gameloop/netsim"
)

// seeds returns n, or 2 under the race detector, which runs the games ten times slower.
func seeds(n int) int {
	if raceEnabled {
		return min(n, 2)
	}
	return n
}

// agreedCutoff returns the tick after which every peer in others dropped player h, failing
// the test if one did not or they disagree.
func agreedCutoff(t *testing.T, sm *sim, h int, others ...int) uint64 {
	t.Helper()
	var cut uint64
	for k, i := range others {
		q := sm.peers[i].s.queues[h]
		if !q.gone {
			t.Fatalf("peer %d did not drop player %d", i, h)
		}
		if k > 0 && q.goneAfter != cut {
			t.Fatalf("player %d dropped after tick %d at peer %d, %d at peer %d", h, q.goneAfter, i, cut, others[0])
		}
		cut = q.goneAfter
	}
	return cut
}

// noDesync fails the test if any peer raised EventDesync.
func noDesync(t *testing.T, sm *sim) {
	t.Helper()
	for _, p := range sm.peers {
		for _, e := range p.events {
			if e.Kind == EventDesync {
				t.Errorf("%s: %v", p.name, e)
			}
		}
	}
}

// TestFrozenPeerIsToldItWasDropped: of five peers, peer 4 stops calling its session for 3 s (a
// background tab) while the network works. The others drop it after the same tick and play on;
// peer 4, back, learns it was dropped and ends with a DroppedError, having made no tick final
// past the cutoff: it never plays a game of its own.
func TestFrozenPeerIsToldItWasDropped(t *testing.T) {
	for seed := range uint64(seeds(8)) {
		sm := newSim(t, simConfig{players: 5, ticks: 720, preset: "poor", seed: 40 + seed,
			at: func(now time.Duration, sm *sim) {
				if now == 3*time.Second {
					sm.peers[4].stallUntil = 6 * time.Second
				}
			}})
		sm.run()
		p := sm.peers[4]
		var de *DroppedError
		if !errors.As(p.err, &de) || !errors.Is(p.err, ErrDropped) {
			t.Fatalf("seed %d: the frozen peer ended with %v, want a DroppedError", seed, p.err)
		}
		cut := agreedCutoff(t, sm, 4, 0, 1, 2, 3)
		if p.s.final > cut {
			t.Errorf("seed %d: the frozen peer made tick %d final; the others dropped it after %d", seed, p.s.final, cut)
		}
		if p.errAt > 6*time.Second+500*time.Millisecond {
			t.Errorf("seed %d: the frozen peer learnt it was dropped at %v, resumed at 6s", seed, p.errAt)
		}
		p.done, p.err = true, nil
		noDesync(t, sm)
		sm.check()
	}
}

// TestStallsAreNotCutLinks: of eight peers, peer 5 stalls 1.4 s and peer 1 2.7 s from 0.1 s
// later. The six that never stalled play on, none cut off (peer 1's handle is lower than five of
// theirs: a stall taken for a cut link would make them leave); peer 1 is dropped and told so;
// peer 5, back within the timeout, plays on.
func TestStallsAreNotCutLinks(t *testing.T) {
	for seed := range uint64(seeds(8)) {
		sm := newSim(t, simConfig{players: 8, ticks: 720, preset: "poor", seed: 50 + seed,
			at: func(now time.Duration, sm *sim) {
				switch now {
				case 3 * time.Second:
					sm.peers[5].stallUntil = now + 1400*time.Millisecond
				case 3100 * time.Millisecond:
					sm.peers[1].stallUntil = now + 2700*time.Millisecond
				}
			}})
		sm.run()
		if err := sm.peers[1].err; !errors.Is(err, ErrDropped) {
			t.Fatalf("seed %d: peer 1, stalled 2.7 s, ended with %v; want ErrDropped", seed, err)
		}
		for i := range 8 {
			if err := sm.peers[i].err; i != 1 && err != nil {
				t.Fatalf("seed %d: peer %d left: %v", seed, i, err)
			}
		}
		agreedCutoff(t, sm, 1, 0, 2, 3, 4, 5, 6, 7)
		sm.peers[1].done, sm.peers[1].err = true, nil
		noDesync(t, sm)
		sm.check()
	}
}

// TestOneWayLoss: of three peers over 40 ms links, everything from peer 2 to peer 1 is lost
// from 3 s on (peer 2 still hears peer 1). Peers 0 and 1 drop player 2 and play on; peer 2
// leaves within a second of the timeout, having made no tick final past the cutoff the others
// agreed, and no peer raises a desync for the ticks peer 2 ran past it.
func TestOneWayLoss(t *testing.T) {
	for seed := range uint64(seeds(8)) {
		sm := newSim(t, simConfig{players: 3, ticks: 720, seed: 60 + seed,
			at: func(now time.Duration, sm *sim) {
				if now == 0 {
					for _, a := range sm.peers {
						for _, b := range sm.peers {
							if a != b {
								sm.net.SetConditions(a.name, b.name, netsim.Conditions{Latency: 40 * time.Millisecond})
							}
						}
					}
				}
				if now == 3*time.Second {
					sm.net.CutOneWay(sm.peers[2].name, sm.peers[1].name, true)
				}
			}})
		sm.run()
		p := sm.peers[2]
		if !errors.Is(p.err, ErrCutOff) && !errors.Is(p.err, ErrDropped) {
			t.Fatalf("seed %d: peer 2 ended with %v, want ErrCutOff or ErrDropped", seed, p.err)
		}
		if p.errAt > 3*time.Second+DefaultDisconnectTimeout+time.Second {
			t.Errorf("seed %d: peer 2 left at %v, the fault at 3s", seed, p.errAt)
		}
		cut := agreedCutoff(t, sm, 2, 0, 1)
		if p.s.final > cut {
			t.Errorf("seed %d: peer 2 made tick %d final; the others dropped it after %d", seed, p.s.final, cut)
		}
		noDesync(t, sm)
		p.done, p.err = true, nil
		sm.check()
	}
}

// deafConn is a peer's conn that never hears that it was kicked or dropped: a modified client
// that takes a Kick for a keep-alive and plays on.
type deafConn struct {
	*netsim.Conn
	local wire.HandleSet
	m     wire.Message
}

func (c *deafConn) TryReadFrom(p []byte) (int, net.Addr, bool) {
	for {
		n, addr, ok := c.Conn.TryReadFrom(p)
		if !ok || wire.Decode(p[:n], &c.m) != nil {
			return n, addr, ok
		}
		switch c.m.Kind {
		case wire.KindKick, wire.KindDropped:
			continue
		case wire.KindInput:
			c.m.Kicked = 0
			for h := range c.m.Players {
				if c.local.Has(h) {
					c.m.Status[h].Disconnected = false
				}
			}
			b, err := wire.Append(p[:0], &c.m)
			if err != nil {
				panic(err)
			}
			return len(b), addr, true
		}
		return n, addr, ok
	}
}

// TestKickIgnored: of three peers, peer 0 disconnects player 1 by hand, and peer 1 ignores it,
// sending on. Peers 0 and 2 drop player 1 after the same tick and play on in the same game.
func TestKickIgnored(t *testing.T) {
	for seed := range uint64(4) {
		sm := newSim(t, simConfig{players: 3, ticks: 900, preset: "poor", seed: 70 + seed,
			wrap: func(h int, c *netsim.Conn) net.PacketConn {
				if h == 1 {
					return &deafConn{Conn: c, local: 1 << 1}
				}
				return c
			},
			at: func(now time.Duration, sm *sim) {
				if now == 6*time.Second {
					if err := sm.peers[0].s.DisconnectPlayer(1); err != nil {
						t.Fatal(err)
					}
				}
			}})
		sm.run()
		agreedCutoff(t, sm, 1, 0, 2)
		for _, i := range []int{0, 2} {
			if err := sm.peers[i].err; err != nil {
				t.Fatalf("seed %d: peer %d ended with %v", seed, i, err)
			}
		}
		sm.peers[1].done, sm.peers[1].err = true, nil
		noDesync(t, sm)
		sm.check()
	}
}
