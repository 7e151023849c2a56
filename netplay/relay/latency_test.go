package relay

import (
	"github.com/gameloop-go/gameloop/internal/relaytest"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netsim"
)

// inputLatency returns the median time from a's running the tick whose input it adds (tick k,
// with no input delay) to b's holding that input for good (PeerStats(0).Confirmed >= k).
func inputLatency(t *testing.T, a, b *netplay.Session[byte], step func(time.Duration), end time.Duration) time.Duration {
	t.Helper()
	ran := map[uint64]time.Duration{}
	var lat []time.Duration
	got := uint64(0)
	for now := time.Duration(0); now < end; now += time.Millisecond {
		step(now)
		if k := a.Tick(); k > 0 {
			if _, ok := ran[k]; !ok {
				ran[k] = now
			}
		}
		for c := b.PeerStats(0).Confirmed; got < c; got++ {
			if at, ok := ran[got+1]; ok && got+1 > 120 { // after the first two seconds
				lat = append(lat, now-at)
			}
		}
	}
	if len(lat) == 0 {
		t.Fatal("no input arrived")
	}
	slices.Sort(lat)
	return lat[len(lat)/2]
}

// TestRelayLatency: a player's input reaches the other player through a relay at most a tick
// later than it would peer to peer over the same path (20 ms each way to the relay, 40 ms
// peer to peer): a tick is confirmed as soon as every player's input for it is in, not at its
// deadline, so the relay adds no more than its hop. With MatchConfig.AtDeadline it waits for
// the deadline: two ticks and the way there more.
func TestRelayLatency(t *testing.T) {
	const end = 8 * time.Second
	leg := netsim.Conditions{Latency: 20 * time.Millisecond}
	// Through a relay, and through one that confirms ticks at their deadlines only.
	through := func(atDeadline bool) time.Duration {
		sr := newSimRelay(t, 11, &Options{OpenMatch: MatchConfig{AtDeadline: atDeadline}})
		for _, n := range []string{"a", "b"} {
			sr.net.SetConditions(n, "relay", leg)
			sr.net.SetConditions("relay", n, leg)
		}
		a := sr.player("a", "m", 0, 2, nil, func(c *netplay.Config[byte]) { c.PredictionWindow = 30 })
		b := sr.player("b", "m", 1, 2, nil, func(c *netplay.Config[byte]) { c.PredictionWindow = 30 })
		return inputLatency(t, a.s, b.s, func(now time.Duration) { sr.run(now + time.Millisecond) }, end)
	}
	relayed, atDeadline := through(false), through(true)

	// Peer to peer, 40 ms each way.
	nw := netsim.NewNetwork(11)
	nw.SetConditions("a", "b", netsim.Conditions{Latency: 40 * time.Millisecond})
	nw.SetConditions("b", "a", netsim.Conditions{Latency: 40 * time.Millisecond})
	ca, _ := nw.Listen("a")
	cb, _ := nw.Listen("b")
	var ps [2]*netplay.Session[byte]
	var gs [2]*relaytest.Game
	for h, c := range []*netsim.Conn{ca, cb} {
		players := make([]netplay.Player, 2)
		players[h].Local = true
		players[1-h].Addr = []*netsim.Conn{ca, cb}[1-h].LocalAddr()
		s, err := netplay.NewSession(net.PacketConn(c), netplay.Config[byte]{Players: players, Codec: relaytest.ByteCodec{}, PredictionWindow: 30})
		if err != nil {
			t.Fatal(err)
		}
		ps[h], gs[h] = s, relaytest.NewGame(s.Slots())
	}
	period := time.Second / 60
	next := time.Duration(0)
	direct := inputLatency(t, ps[0], ps[1], func(now time.Duration) {
		nw.SetTime(now)
		if now < next {
			for _, s := range ps {
				s.Poll(now)
			}
			return
		}
		next += period
		for h, s := range ps {
			s.AddLocalInput(h, byte(now/period%4))
			reqs, err := s.Advance(now)
			if err == nil {
				netplay.Run(reqs, gs[h])
			}
		}
	}, end)
	t.Logf("an input's way to the other player: %v peer to peer, %v through the relay, %v with ticks at their deadlines", direct, relayed, atDeadline)
	if relayed > direct+period {
		t.Errorf("through the relay %v, peer to peer %v: more than a tick more", relayed, direct)
	}
	if atDeadline < relayed+2*period {
		t.Errorf("with ticks at their deadlines %v, against %v: not held to them", atDeadline, relayed)
	}
}
