package relay

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/gameloop-go/gameloop/internal/relaytest"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netplay/internal/wire"
	"github.com/gameloop-go/gameloop/netsim"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

// tokenRelay is a simulated relay that takes tokens made with testKey under id 1, with match
// "m" of two players created.
func tokenRelay(t *testing.T) *simRelay {
	sr := newSimRelay(t, 5, &Options{Keys: map[byte][]byte{1: testKey}, StrangerRate: 1000})
	if err := sr.relay.CreateMatch("m", MatchConfig{Players: 2, InputSize: 1, TickRate: 60}); err != nil {
		t.Fatal(err)
	}
	return sr
}

func mustToken(t *testing.T, key []byte, match string, slot int, expiry time.Time) []byte {
	t.Helper()
	tok, err := MakeToken(key, 1, match, slot, expiry)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestRelayRefusals: joins with a forged token, an expired one, one for another match or
// another slot, for a match that does not exist, or with another game's shape are refused:
// the player's session ends with an error wrapping ErrRefused that says why, the relay counts
// each reason, and the match goes on with the players whose tokens are good.
func TestRelayRefusals(t *testing.T) {
	sr := tokenRelay(t)
	later := time.Now().Add(time.Hour)
	if err := sr.relay.CreateMatch("other", MatchConfig{Players: 2, InputSize: 1, TickRate: 60}); err != nil {
		t.Fatal(err)
	}
	forged := mustToken(t, testKey, "m", 0, later)
	forged[len(forged)-1] ^= 1
	cases := []struct {
		name, match string
		slot        int
		tok         []byte
		edit        func(*netplay.Config[byte])
		reason, why string
	}{
		{"forged", "m", 0, forged, nil, "token", "not valid"},
		{"expired", "m", 0, mustToken(t, testKey, "m", 0, time.Now().Add(-time.Minute)), nil, "expired", "expired"},
		{"other match", "m", 0, mustToken(t, testKey, "other", 0, later), nil, "token", "not valid"},
		{"other slot", "m", 0, mustToken(t, testKey, "m", 1, later), nil, "slot", "slot"},
		{"no match", "", 0, mustToken(t, testKey, "", 0, later), nil, "no_match", "no such match"},
		{"no token", "m", 0, nil, nil, "token", "not valid"},
		{"shape", "m", 0, mustToken(t, testKey, "m", 0, later), func(c *netplay.Config[byte]) { c.TickRate = 30 }, "shape", "tick rate"},
	}
	for _, c := range cases {
		sr.player(c.name, c.match, c.slot, 2, c.tok, c.edit)
	}
	a := sr.player("a", "m", 0, 2, mustToken(t, testKey, "m", 0, later), nil)
	b := sr.player("b", "m", 1, 2, mustToken(t, testKey, "m", 1, later), nil)
	sr.run(3 * time.Second)
	m := sr.relay.Metrics()
	want := map[string]uint64{}
	for i, c := range cases {
		p := sr.players[i]
		if !errors.Is(p.err, netplay.ErrRefused) || !strings.Contains(p.err.Error(), c.why) {
			t.Errorf("%s: %v, want ErrRefused saying %q", c.name, p.err, c.why)
		}
		want[c.reason]++
	}
	for reason, n := range want {
		// Each refused once at least (the refusal may be asked again while it travels).
		if m.Refused[reason] < n {
			t.Errorf("refused %q: %d, want %d or more", reason, m.Refused[reason], n)
		}
	}
	if a.err != nil || b.err != nil || a.s.Stats().Confirmed < 120 {
		t.Fatalf("the good players: %v, %v, %d ticks final", a.err, b.err, a.s.Stats().Confirmed)
	}
	sr.agree()
}

// capture is a conn that keeps a copy of every packet it sends, so that a test can send them
// again or forge others from them.
type capture struct {
	*netsim.Conn
	sent [][]byte
}

func (c *capture) WriteTo(p []byte, addr net.Addr) (int, error) {
	c.sent = append(c.sent, bytes.Clone(p))
	return c.Conn.WriteTo(p, addr)
}

// lastSent returns the last packet of kind sent, decoded.
func (c *capture) lastSent(t *testing.T, kind wire.Kind) wire.Message {
	t.Helper()
	var m wire.Message
	for i := len(c.sent) - 1; i >= 0; i-- {
		if wire.Decode(c.sent[i], &m) == nil && m.Kind == kind {
			return m
		}
	}
	t.Fatalf("no %v sent", kind)
	return m
}

// markGame is a relaytest.Game that also notes whether any tick ran with the input 0xEE.
type markGame struct {
	*relaytest.Game
	sawMark bool
}

func (g *markGame) Step(tick uint64, in []netplay.PlayerInput[byte]) error {
	for _, p := range in {
		if p.Input == 0xEE {
			g.sawMark = true
		}
	}
	return g.Game.Step(tick, in)
}

// TestRelayHostile: a joined player sending inputs for another's slot, packets of its own
// replayed later, a flood of packets from a joined player, a spectator sending inputs, and
// 10,000 joins from strangers that never answer their cookie: each is refused and counted,
// strangers leave no state behind, and the match plays on, no tick ever running an input
// that no player gave.
func TestRelayHostile(t *testing.T) {
	sr := tokenRelay(t)
	later := time.Now().Add(time.Hour)
	a := sr.player("a", "m", 0, 2, mustToken(t, testKey, "m", 0, later), nil)
	sr.player("b", "m", 1, 2, mustToken(t, testKey, "m", 1, later), nil)
	spec := sr.player("s", "m", -1, 2, mustToken(t, testKey, "m", -1, later), nil)
	// Sessions over capturing conns: the hostile packets come from their addresses.
	for _, p := range []*simPlayer{a, spec} {
		cap := &capture{Conn: p.conn}
		var err error
		cfg := netplay.Config[byte]{Codec: relaytest.ByteCodec{}, Relay: sr.conn.LocalAddr(), Match: "m", Token: mustToken(t, testKey, "m", p.handle, later), TickRate: 60}
		if p.handle >= 0 {
			cfg.Players = make([]netplay.Player, 2)
			cfg.Players[p.handle].Local = true
			p.s, err = netplay.NewSession(net.PacketConn(cap), cfg)
		} else {
			p.s, err = netplay.NewSpectator(net.PacketConn(cap), nil, 2, cfg)
		}
		if err != nil {
			t.Fatal(err)
		}
		p.conn = nil
		p.cap = cap
	}
	games := make([]*markGame, len(sr.players))
	for i, p := range sr.players {
		games[i] = &markGame{Game: relaytest.NewGame(p.s.Slots())}
		p.game = games[i]
	}
	sr.run(2 * time.Second)
	before := sr.relay.Metrics()
	relay := sr.conn.LocalAddr()

	// a's last Input, made b's and carrying the mark, then a's own replayed.
	in := a.cap.lastSent(t, wire.KindInput)
	old := a.cap.sent[len(a.cap.sent)-1]
	forged := in
	forged.Handles = 1 << 1
	start := sr.relay.matchConfirmed("m") + 2
	forged.StartTick = int64(start)
	if _, err := forged.PackInputs([]byte{0}, []byte{0xEE, 0xEE, 0xEE}); err != nil {
		t.Fatal(err)
	}
	pkt, err := wire.Append(nil, &forged)
	if err != nil {
		t.Fatal(err)
	}
	a.cap.Conn.WriteTo(pkt, relay)
	// A spectator's inputs, for slot 0.
	sin := spec.cap.lastSent(t, wire.KindInput)
	sin.Handles, sin.InputSize, sin.StartTick = 1, 1, int64(start)
	if _, err := sin.PackInputs([]byte{0}, []byte{0xEE}); err != nil {
		t.Fatal(err)
	}
	if pkt, err = wire.Append(nil, &sin); err != nil {
		t.Fatal(err)
	}
	spec.cap.Conn.WriteTo(pkt, relay)
	sr.run(sr.now + 200*time.Millisecond)
	a.cap.Conn.WriteTo(old, relay) // replayed: its ticks are long confirmed

	// A flood from a joined player: that packet 2,000 times at once.
	for range 2000 {
		a.cap.Conn.WriteTo(old, relay)
	}
	// 10,000 joins from 100 strangers, none echoing its cookie.
	var join wire.Message
	join.Kind, join.Slot, join.Players, join.InputSize, join.TickRate = wire.KindJoin, 0, 2, 1, 60
	join.SetMatch("m")
	join.SetToken(mustToken(t, testKey, "m", 0, later))
	if pkt, err = wire.Append(nil, &join); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		c, err := sr.net.Listen(fmt.Sprintf("stranger%d", i))
		if err != nil {
			t.Fatal(err)
		}
		for range 100 {
			c.WriteTo(pkt, relay)
		}
		sr.run(sr.now + time.Millisecond)
	}
	sr.run(sr.now + 3*time.Second)

	after := sr.relay.Metrics()
	for _, reason := range []string{"other_slot", "spectator_input", "rate"} {
		if after.Refused[reason] == before.Refused[reason] {
			t.Errorf("refused %q: none counted", reason)
		}
	}
	if n := after.Cookies - before.Cookies + after.Refused["rate"] - before.Refused["rate"]; n < 10000 {
		t.Errorf("10,000 joins from strangers: %d cookies and refusals", n)
	}
	if len(sr.relay.addrs) != 3 || after.Matches != 1 || after.Players != 2 {
		t.Errorf("%d addresses known, %d matches, %d players: want 3, 1, 2", len(sr.relay.addrs), after.Matches, after.Players)
	}
	for i, g := range games {
		if g.sawMark {
			t.Errorf("%s ran a tick with an input nobody gave", sr.players[i].name)
		}
	}
	for _, p := range sr.players {
		if p.err != nil {
			t.Fatalf("%s: %v", p.name, p.err)
		}
	}
	if n := sr.agree(); n < 200 {
		t.Errorf("%d ticks compared", n)
	}
}
