package relay

import (
	"errors"
	"fmt"
	"github.com/gameloop-go/gameloop/internal/relaytest"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netsim"
)

// simPlayer is one player (or spectator) of a simulated relayed match.
type simPlayer struct {
	name   string
	conn   *netsim.Conn
	s      *netplay.Session[byte]
	g      *relaytest.Game
	game   netplay.Game[byte] // what runs the requests: g unless set
	cap    *capture           // the conn, where a test captures what it sends
	handle int                // -1: a spectator
	err    error
	rng    *rand.Rand
	frozen time.Duration // no calls until then: a stall
	sums   map[uint64]uint64
	ticks  uint64 // ticks whose requests it carried out (rollbacks included)
}

// simRelay is a relay and its players on a netsim network, on simulated time.
type simRelay struct {
	t       testing.TB
	net     *netsim.Network
	relay   *Relay
	conn    *netsim.Conn
	now     time.Duration
	players []*simPlayer
	next    []time.Duration // when each player advances next
	rate    int
	relayAt time.Duration // when the relay's matches update next
	about   string        // what is played, for a failure
}

func newSimRelay(t testing.TB, seed uint64, opts *Options) *simRelay {
	sr := &simRelay{t: t, net: netsim.NewNetwork(seed), rate: 60}
	var err error
	if sr.conn, err = sr.net.Listen("relay"); err != nil {
		t.Fatal(err)
	}
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o.now = func() time.Duration { return sr.now }
	if sr.relay, err = New(sr.conn, nil, &o); err != nil {
		t.Fatal(err)
	}
	return sr
}

// player adds player handle of n (or a spectator, handle -1) of match, with tok.
func (sr *simRelay) player(name, match string, handle, n int, tok []byte, edit func(*netplay.Config[byte])) *simPlayer {
	conn, err := sr.net.Listen(name)
	if err != nil {
		sr.t.Fatal(err)
	}
	cfg := netplay.Config[byte]{Codec: relaytest.ByteCodec{}, Relay: sr.conn.LocalAddr(), Match: match, Token: tok,
		TickRate: sr.rate, Rand: rand.NewChaCha8([32]byte{byte(len(sr.players)), 9})}
	if edit != nil {
		edit(&cfg)
	}
	p := &simPlayer{name: name, conn: conn, handle: handle, rng: rand.New(rand.NewPCG(uint64(handle+2), 3)), sums: map[uint64]uint64{}}
	if handle >= 0 {
		cfg.Players = make([]netplay.Player, n)
		cfg.Players[handle].Local = true
		p.s, err = netplay.NewSession(net.PacketConn(conn), cfg)
	} else {
		p.s, err = netplay.NewSpectator(net.PacketConn(conn), nil, n, cfg)
	}
	if err != nil {
		sr.t.Fatal(err)
	}
	p.g = relaytest.NewGame(p.s.Slots())
	sr.players = append(sr.players, p)
	return p
}

// run plays until end, a millisecond at a time: the relay's matches update at their tick
// deadlines, each player advances at its tick rate unless frozen.
func (sr *simRelay) run(end time.Duration) {
	period := time.Second / time.Duration(sr.rate)
	for len(sr.next) < len(sr.players) {
		sr.next = append(sr.next, sr.now)
	}
	next := sr.next
	for ; sr.now < end; sr.now += time.Millisecond {
		sr.net.SetTime(sr.now)
		sr.relay.poll(sr.now)
		if sr.now >= sr.relayAt {
			sr.relay.advance(sr.now)
			sr.relayAt += period
		}
		sr.relay.poll(sr.now)
		for i, p := range sr.players {
			if p.err != nil || sr.now < p.frozen || sr.now < next[i] {
				continue
			}
			next[i] = max(next[i]+period, sr.now)
			sr.step(p)
		}
	}
}

// step adds a random input and advances player p once.
func (sr *simRelay) step(p *simPlayer) {
	if p.handle >= 0 {
		if err := p.s.AddLocalInput(p.handle, byte(p.rng.IntN(4))); err != nil {
			sr.t.Fatal(err)
		}
	}
	reqs, err := p.s.Advance(sr.now)
	switch {
	case errors.Is(err, netplay.ErrPredictionThreshold), errors.Is(err, netplay.ErrNotSynchronized):
		return
	case err != nil:
		p.err = err
		return
	}
	for _, r := range reqs {
		if r.Kind == netplay.Advance {
			p.ticks++
		}
	}
	var game netplay.Game[byte] = p.g
	if p.game != nil {
		game = p.game
	}
	if err := netplay.Run(reqs, game); err != nil {
		sr.t.Fatal(err)
	}
	// The checksums of the ticks final now.
	st := p.s.Stats()
	for t := st.Confirmed; t > 0; t-- {
		if _, ok := p.sums[t]; ok {
			break
		}
		if sum, ok := p.s.Checksum(t); ok {
			p.sums[t] = sum
		}
	}
}

// agree fails the test unless every two players (and spectators) that both made tick t final
// had the same checksum for it, and returns how many checksums were compared.
func (sr *simRelay) agree() int {
	n := 0
	first := map[uint64]*simPlayer{}
	for _, p := range sr.players {
		for t, sum := range p.sums {
			q, ok := first[t]
			if !ok {
				first[t] = p
				continue
			}
			n++
			if q.sums[t] != sum {
				sr.t.Fatalf("%stick %d: %s has %#x, %s %#x", sr.about, t, q.name, q.sums[t], p.name, sum)
			}
		}
	}
	return n
}

func TestRelayTwoPlayers(t *testing.T) {
	sr := newSimRelay(t, 1, nil)
	sr.net.SetConditions("a", "relay", netsim.Conditions{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond})
	sr.net.SetConditions("relay", "a", netsim.Conditions{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond})
	a := sr.player("a", "m1", 0, 2, nil, nil)
	b := sr.player("b", "m1", 1, 2, nil, nil)
	sr.run(10 * time.Second)
	for _, p := range sr.players {
		if p.err != nil {
			t.Fatalf("%s: %v", p.name, p.err)
		}
	}
	st, err := sr.relay.MatchStats("m1")
	if err != nil {
		t.Fatal(err)
	}
	sa, sb := a.s.Stats(), b.s.Stats()
	t.Logf("relay: %+v; a: tick %d confirmed %d rollbacks %d skipped %d; b: tick %d confirmed %d rollbacks %d skipped %d; compared %d",
		st, sa.Tick, sa.Confirmed, sa.Rollbacks, sa.Skipped, sb.Tick, sb.Confirmed, sb.Rollbacks, sb.Skipped, sr.agree())
	if st.Confirmed < 550 || sa.Confirmed < 500 || sb.Confirmed < 500 {
		t.Fatalf("too few ticks confirmed: relay %d, a %d, b %d", st.Confirmed, sa.Confirmed, sb.Confirmed)
	}
	if st.Replaced > 10 {
		t.Errorf("%d inputs replaced on links of 20 ± 5 ms", st.Replaced)
	}
}

// TestRelayInTime: on links of up to 60 ± 10 ms that lose up to 5% of packets, with nothing
// else going wrong, each player's inputs reach the relay before their deadlines: the time
// sync aims them two ticks early, so that one packet lost costs nothing; the match's clock
// waits for every player's first input, so that a far player, which hears of the start late,
// loses none of its first ticks. What is replaced is what a burst of losses takes: 0 to
// 0.06% of the inputs (0.04 to 0.4% when the clock started at once).
func TestRelayInTime(t *testing.T) {
	for seed := range uint64(10) {
		g := newFaultGame(seed)
		sr := newSimRelay(t, g.seed, nil)
		for h := range g.players {
			pn := fmt.Sprintf("p%d", h)
			sr.net.SetConditions(pn, "relay", g.conds[h])
			sr.net.SetConditions("relay", pn, g.conds[h])
			sr.player(pn, "m", h, g.players, nil, nil)
		}
		sr.run(20 * time.Second)
		st, err := sr.relay.MatchStats("m")
		if err != nil {
			t.Fatal(err)
		}
		inputs := st.Confirmed * uint64(g.players)
		t.Logf("%d players: %d of %d inputs replaced (%.2f%%)", g.players, st.Replaced, inputs, 100*float64(st.Replaced)/float64(inputs))
		if limit := inputs / 500; st.Replaced > limit {
			t.Errorf("seed %d, %d players on %v: %d inputs replaced, over %d", seed, g.players, g.conds, st.Replaced, limit)
		}
		for _, p := range sr.players {
			if p.err != nil {
				t.Fatalf("%s: %v", p.name, p.err)
			}
		}
		sr.agree()
	}
}

// matchConfirmed returns the last tick match name has confirmed.
func (r *Relay) matchConfirmed(name string) uint64 {
	st, err := r.MatchStats(name)
	if err != nil {
		panic(err)
	}
	return st.Confirmed
}
