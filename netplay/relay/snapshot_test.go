package relay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/internal/relaytest"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netplay/internal/wire"
	"github.com/gameloop-go/gameloop/netsim"
)

// snapGame is relaytest.Game with its state encoded: the state, then filler bytes derived from
// it (a state of some kilobytes, as a game's is, sent in many pieces). broken encodes a state
// other than the one saved.
type snapGame struct {
	*relaytest.Game
	saved  []uint64
	filler int
	broken bool
	first  uint64 // the first tick it ran
}

func (g *snapGame) Step(tick uint64, in []netplay.PlayerInput[byte]) error {
	if g.first == 0 {
		g.first = tick
	}
	return g.Game.Step(tick, in)
}

func newSnapGame(slots, filler int) *snapGame {
	return &snapGame{Game: relaytest.NewGame(slots), saved: make([]uint64, slots), filler: filler}
}

func (g *snapGame) Save(slot int) uint64 {
	g.saved[slot] = g.Game.Save(slot)
	return g.saved[slot]
}

func (g *snapGame) AppendSnapshot(dst []byte, slot int) []byte {
	st := g.saved[slot]
	if g.broken {
		st++
	}
	dst = binary.LittleEndian.AppendUint64(dst, st)
	for i := range g.filler {
		dst = append(dst, byte(st>>(8*(i%8)))^byte(i))
	}
	return dst
}

func (g *snapGame) LoadSnapshot(data []byte) (uint64, error) {
	if len(data) != 8+g.filler {
		return 0, fmt.Errorf("a snapshot of %d bytes, want %d", len(data), 8+g.filler)
	}
	st := binary.LittleEndian.Uint64(data)
	for i := range g.filler {
		if data[8+i] != byte(st>>(8*(i%8)))^byte(i) {
			return 0, fmt.Errorf("byte %d of the filler is wrong", 8+i)
		}
	}
	g.State = st
	return st, nil
}

// snapPlayer adds a player whose session takes snapshots, playing a snapGame.
func (sr *simRelay) snapPlayer(name, match string, handle, n int, tok []byte, edits ...func(*netplay.Config[byte])) (*simPlayer, *snapGame) {
	p := sr.player(name, match, handle, n, tok, func(c *netplay.Config[byte]) {
		c.Snapshots = true
		for _, edit := range edits {
			edit(c)
		}
	})
	g := newSnapGame(p.s.Slots(), 5000)
	p.g, p.game = g.Game, g
	return p, g
}

// TestRelaySnapshotLateJoin: a match of 4 that started with 2, on lossy links, gathers a state
// snapshot every 2 s (5,008 bytes: 12 pieces), each checked by the other player's checksum.
// 20 s in, past the 10 s of ticks the relay keeps, a player whose session takes snapshots
// joins: it downloads the latest, loads it (its checksum the sharer's) and plays on from there
// in the same game as the others; a player whose session does not is refused as late.
func TestRelaySnapshotLateJoin(t *testing.T) {
	sr := newSimRelay(t, 31, &Options{OpenMatch: MatchConfig{MinPlayers: 2, History: 600, SnapshotEvery: 120}})
	for _, n := range []string{"a", "b", "c", "d"} {
		c := netsim.Conditions{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.03}
		sr.net.SetConditions(n, "relay", c)
		sr.net.SetConditions("relay", n, c)
	}
	a, _ := sr.snapPlayer("a", "m", 0, 4, nil)
	b, _ := sr.snapPlayer("b", "m", 1, 4, nil)
	sr.run(20 * time.Second)
	st, err := sr.relay.MatchStats("m")
	if err != nil {
		t.Fatal(err)
	}
	if st.Snapshot < st.Confirmed-240 || st.SnapshotBytes != 5008 {
		t.Fatalf("at tick %d, the latest snapshot is of tick %d (%d bytes)", st.Confirmed, st.Snapshot, st.SnapshotBytes)
	}
	met := sr.relay.Metrics()
	if met.Snapshots < 8 || met.SnapshotsFailed > 1 {
		t.Fatalf("%d snapshots, %d rounds failed in 20 s", met.Snapshots, met.SnapshotsFailed)
	}
	if sa, sb := a.s.Stats(), b.s.Stats(); sa.SnapshotsShared+sb.SnapshotsShared < met.Snapshots || sa.SnapshotsShared == 0 || sb.SnapshotsShared == 0 {
		t.Fatalf("shared: a %d, b %d; the relay took %d", sa.SnapshotsShared, sb.SnapshotsShared, met.Snapshots)
	}

	c, gc := sr.snapPlayer("c", "m", 2, 4, nil)
	d := sr.player("d", "m", 3, 4, nil, nil) // no snapshots: the match's start is gone
	sr.run(sr.now + 5*time.Second)
	if !errors.Is(d.err, netplay.ErrRefused) {
		t.Fatalf("a late player that takes no snapshot, 25 s in: %v, want refused", d.err)
	}
	if a.err != nil || b.err != nil || c.err != nil {
		t.Fatalf("a: %v; b: %v; c: %v", a.err, b.err, c.err)
	}
	cs := c.s.Stats()
	st, _ = sr.relay.MatchStats("m")
	if cs.SnapshotsLoaded != 1 || sr.relay.Metrics().SnapshotStarts != 1 || cs.Confirmed+30 < st.Confirmed {
		t.Fatalf("c: %+v; the relay at %d", cs, st.Confirmed)
	}
	if gc.first < 20*60-240 {
		t.Errorf("c ran from tick %d: it starts from a snapshot at most 2 s old, 20 s in", gc.first)
	}
	var joinedAt uint64
	for _, e := range a.s.Events(nil) {
		if e.Kind == netplay.EventJoined && e.Handle == 2 {
			joinedAt = e.Tick
		}
	}
	n := 0
	for t := range c.sums {
		if _, ok := a.sums[t]; ok && t >= joinedAt {
			n++
		}
	}
	if joinedAt == 0 || n < 200 {
		t.Fatalf("c joined at %d; %d of its checksums compared with a's", joinedAt, n)
	}
	sr.agree()
}

// TestRelaySnapshotRejoin: a player whose address changes 20 s into a match that keeps 10 s of
// ticks comes back with its token from its new address and starts from the latest snapshot;
// the other player notices nothing.
func TestRelaySnapshotRejoin(t *testing.T) {
	sr := newSimRelay(t, 32, &Options{Keys: map[byte][]byte{1: testKey}})
	if err := sr.relay.CreateMatch("m", MatchConfig{Players: 2, InputSize: 1, TickRate: 60, History: 600, SnapshotEvery: 180}); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	tokA := mustToken(t, testKey, "m", 0, later)
	a, _ := sr.snapPlayer("a", "m", 0, 2, tokA)
	b, _ := sr.snapPlayer("b", "m", 1, 2, mustToken(t, testKey, "m", 1, later))
	sr.run(20 * time.Second)
	a.frozen = 1 << 62
	sr.run(sr.now + time.Second)
	a2, _ := sr.snapPlayer("a2", "m", 0, 2, tokA)
	sr.run(sr.now + 4*time.Second)
	if a2.err != nil || b.err != nil {
		t.Fatalf("a again: %v; b: %v", a2.err, b.err)
	}
	st, _ := sr.relay.MatchStats("m")
	if s := a2.s.Stats(); s.SnapshotsLoaded != 1 || s.Confirmed+30 < st.Confirmed || st.Dropped != 0 {
		t.Fatalf("a again: %+v; the relay at %d, %d dropped", s, st.Confirmed, st.Dropped)
	}
	if n := sr.agree(); n < 400 {
		t.Errorf("%d checksums compared", n)
	}
	for _, e := range b.s.Events(nil) {
		if e.Kind == netplay.EventDisconnected || e.Kind == netplay.EventDesync {
			t.Errorf("b saw %v", e)
		}
	}
}

// TestRelaySnapshotChecked: a state that does not load as the one its sharer saved (a game whose
// encoding is broken) ends the session that starts from it with ErrSnapshot; and a sharer
// whose game went its own way (its checksums not the others') has its states thrown away by
// the relay, the others' kept.
func TestRelaySnapshotChecked(t *testing.T) {
	sr := newSimRelay(t, 33, &Options{OpenMatch: MatchConfig{MinPlayers: 2, SnapshotEvery: 60}})
	a, ga := sr.snapPlayer("a", "m", 0, 3, nil)
	b := sr.player("b", "m", 1, 3, nil, nil) // takes no snapshots: a shares them all
	ga.broken = true
	sr.run(3 * time.Second)
	// The relay checks a state's checksum, which is right, not its bytes: the player that
	// starts from it finds them wrong.
	c, _ := sr.snapPlayer("c", "m", 2, 3, nil)
	sr.run(sr.now + 2*time.Second)
	if m := sr.relay.Metrics(); m.Snapshots < 2 || m.SnapshotStarts != 1 {
		t.Fatalf("%d snapshots, %d starts from one", m.Snapshots, m.SnapshotStarts)
	}
	if a.err != nil || b.err != nil {
		t.Fatalf("a: %v; b: %v", a.err, b.err)
	}
	if !errors.Is(c.err, netplay.ErrSnapshot) {
		t.Fatalf("c, from a broken state: %v, want ErrSnapshot", c.err)
	}
	t.Logf("c: %v", c.err)

	// A sharer out of step with the others: its rounds fail, the others' succeed.
	sr2 := newSimRelay(t, 34, &Options{OpenMatch: MatchConfig{SnapshotEvery: 60}})
	x, _ := sr2.snapPlayer("x", "m", 0, 3, nil)
	sr2.snapPlayer("y", "m", 1, 3, nil)
	sr2.snapPlayer("z", "m", 2, 3, nil)
	x.game = &offGame{snapGame: x.game.(*snapGame)}
	sr2.run(10 * time.Second)
	m := sr2.relay.Metrics()
	if m.SnapshotsFailed < 2 || m.Snapshots < 4 {
		t.Fatalf("%d snapshots, %d rounds failed, with one player out of step", m.Snapshots, m.SnapshotsFailed)
	}
	if st, _ := sr2.relay.MatchStats("m"); st.Snapshot == 0 {
		t.Fatal("no snapshot")
	}
	_ = x
}

// offGame is a snapGame that goes its own way from tick 100: a desync.
type offGame struct{ *snapGame }

func (g *offGame) Step(tick uint64, in []netplay.PlayerInput[byte]) error {
	if tick >= 100 {
		g.State ^= 1
	}
	return g.snapGame.Step(tick, in)
}

// TestRelaySnapshotSizes: how long a state snapshot of 5 KB, 100 KB and 1 MiB takes to gather
// (from the match's start, when the relay asks for the first, to the state checked; within
// 10 ms) and to start from (from a late player's join to
// its first tick run past the snapshot's), on links of 30 ms each way that lose 1% of packets,
// on simulated time. A player sends at most 300 pieces (134 KB) a second; the relay sends a
// joining player 64 pieces a round trip or so.
func TestRelaySnapshotSizes(t *testing.T) {
	for _, size := range []int{5_000, 100_000, 1 << 20} {
		sr := newSimRelay(t, 35, &Options{OpenMatch: MatchConfig{MinPlayers: 2, SnapshotEvery: 60, MaxSnapshot: 1<<20 + 16}})
		for _, n := range []string{"a", "b", "c"} {
			c := netsim.Conditions{Latency: 30 * time.Millisecond, Loss: 0.01}
			sr.net.SetConditions(n, "relay", c)
			sr.net.SetConditions("relay", n, c)
		}
		var games []*snapGame
		for h, n := range []string{"a", "b"} {
			_, g := sr.snapPlayer(n, "m", h, 3, nil)
			g.filler = size - 8
			games = append(games, g)
		}
		// The match asks for its first snapshot as it starts.
		for st, _ := sr.relay.MatchStats("m"); !st.Started && sr.now < time.Minute; st, _ = sr.relay.MatchStats("m") {
			sr.run(sr.now + 10*time.Millisecond)
		}
		started := sr.now
		for sr.relay.Metrics().Snapshots == 0 && sr.now < time.Minute {
			sr.run(sr.now + 10*time.Millisecond)
		}
		gather := sr.now - started
		c, gc := sr.snapPlayer("c", "m", 2, 3, nil)
		gc.filler = size - 8
		joined := sr.now
		for gc.first == 0 && c.err == nil && sr.now < joined+time.Minute {
			sr.run(sr.now + 10*time.Millisecond)
		}
		start := sr.now - joined
		t.Logf("a snapshot of %d bytes: gathered in %v, started from in %v", size, gather, start)
		if c.err != nil || gc.first == 0 || c.s.Stats().SnapshotsLoaded != 1 {
			t.Fatalf("%d bytes: c %v, first tick %d, %+v", size, c.err, gc.first, c.s.Stats())
		}
		// The pieces at 300 a second, a quarter more for the losses, and 2 s.
		pieces := time.Duration((size + wire.MaxSnapshotChunk - 1) / wire.MaxSnapshotChunk)
		if limit := pieces*time.Second/300*5/4 + 2*time.Second; gather > limit || start > limit {
			t.Errorf("%d bytes: gathered in %v, started from in %v: over %v", size, gather, start, limit)
		}
		_ = games
	}
}

// TestRelaySnapshotSpectator: a spectator joining 20 s into a match that keeps 10 s of ticks,
// with a broadcast delay of 3 s, starts from a state snapshot no newer than what spectators
// are fed (the relay keeps the snapshots the delay needs), and from there runs the players'
// game, checksum for checksum; a spectator whose session takes no snapshot is refused as late.
func TestRelaySnapshotSpectator(t *testing.T) {
	sr := newSimRelay(t, 36, &Options{OpenMatch: MatchConfig{History: 600, SnapshotEvery: 120, SpectatorDelay: 180}})
	a, _ := sr.snapPlayer("a", "m", 0, 2, nil)
	sr.snapPlayer("b", "m", 1, 2, nil)
	sr.run(20 * time.Second)
	watch := sr.player("watch", "m", -1, 2, nil, func(c *netplay.Config[byte]) { c.Snapshots = true })
	gw := newSnapGame(watch.s.Slots(), 5000)
	watch.g, watch.game = gw.Game, gw
	plain := sr.player("plain", "m", -1, 2, nil, nil)
	joined := sr.relay.matchConfirmed("m")
	sr.run(sr.now + 5*time.Second)
	if !errors.Is(plain.err, netplay.ErrRefused) {
		t.Fatalf("a spectator that takes no snapshot, 20 s in: %v, want refused", plain.err)
	}
	if watch.err != nil || watch.s.Stats().SnapshotsLoaded != 1 {
		t.Fatalf("the spectator: %v, %+v", watch.err, watch.s.Stats())
	}
	if gw.first > joined-180+1 || gw.first+600 < joined {
		t.Fatalf("the spectator, joining at tick %d, ran from tick %d: want no later than the %d it may see", joined, gw.first, joined-180)
	}
	n := 0
	for tick, sum := range watch.sums {
		if theirs, ok := a.sums[tick]; ok {
			n++
			if theirs != sum {
				t.Fatalf("tick %d: the spectator has %#x, a %#x", tick, sum, theirs)
			}
		}
	}
	if c := watch.s.Stats().Confirmed; n < 100 || c+180+30 < sr.relay.matchConfirmed("m") {
		t.Fatalf("%d checksums compared; the spectator at %d, the relay at %d", n, c, sr.relay.matchConfirmed("m"))
	}
}

// TestRelaySnapshotLimits: states larger than the match's MaxSnapshot are refused (counted, the
// round given up, none kept) and the game plays on; pieces from a spectator are refused, and
// pieces of a state the relay did not ask for are ignored.
func TestRelaySnapshotLimits(t *testing.T) {
	sr := newSimRelay(t, 37, &Options{OpenMatch: MatchConfig{SnapshotEvery: 60, MaxSnapshot: 1000}})
	a, _ := sr.snapPlayer("a", "m", 0, 2, nil)
	sr.snapPlayer("b", "m", 1, 2, nil)
	spec := sr.player("s", "m", -1, 2, nil, nil)
	cap := &capture{Conn: spec.conn}
	var err error
	spec.s, err = netplay.NewSpectator(net.PacketConn(cap), nil, 2, netplay.Config[byte]{Codec: relaytest.ByteCodec{}, Relay: sr.conn.LocalAddr(), Match: "m", TickRate: 60})
	if err != nil {
		t.Fatal(err)
	}
	spec.conn, spec.cap = nil, cap
	sr.run(5 * time.Second)
	m := sr.relay.Metrics()
	st, _ := sr.relay.MatchStats("m")
	if m.Snapshots != 0 || m.SnapshotsFailed < 3 || m.Refused["snapshot"] < 3 || st.Snapshot != 0 {
		t.Fatalf("states of 5,008 bytes, MaxSnapshot 1,000: %d taken, %d rounds failed, %d refused; the match's %d", m.Snapshots, m.SnapshotsFailed, m.Refused["snapshot"], st.Snapshot)
	}
	if a.err != nil || a.s.Stats().Confirmed < 250 {
		t.Fatalf("a: %v, %+v", a.err, a.s.Stats())
	}
	// A spectator's piece: refused.
	in := cap.lastSent(t, wire.KindInput)
	piece := wire.Message{Header: wire.Header{Kind: wire.KindSnapshot, Session: in.Session}, Tick: 5, Size: 3, InputsLen: 3}
	pkt, err := wire.Append(nil, &piece)
	if err != nil {
		t.Fatal(err)
	}
	before := sr.relay.Metrics().Refused["kind"]
	cap.Conn.WriteTo(pkt, sr.conn.LocalAddr())
	sr.run(sr.now + 100*time.Millisecond)
	if after := sr.relay.Metrics().Refused["kind"]; after != before+1 {
		t.Errorf("a spectator's snapshot piece: refused{kind} %d, then %d", before, after)
	}
	sr.agree()
}

// TestRelaySnapshotCrowd: 300 spectators join at once, past the ticks the relay keeps, each to
// start from a state snapshot of 50 KB (112 pieces): the relay sends the pieces at most
// snapBudget an update, in turn, so that its packets in a tick's time stay within what the
// match's ticks and the joins cost plus that budget (a window of 64 pieces to each at once would
// be 19,200), and every spectator starts.
func TestRelaySnapshotCrowd(t *testing.T) {
	sr := newSimRelay(t, 38, &Options{OpenMatch: MatchConfig{History: 600, SnapshotEvery: 120}})
	for h, n := range []string{"a", "b"} {
		_, g := sr.snapPlayer(n, "m", h, 2, nil)
		g.filler = 50_000
	}
	sr.run(20 * time.Second)
	var crowd []*simPlayer
	for i := range 300 {
		sp := sr.player(fmt.Sprintf("s%d", i), "m", -1, 2, nil, func(c *netplay.Config[byte]) { c.Snapshots = true })
		g := newSnapGame(sp.s.Slots(), 50_000)
		sp.g, sp.game = g.Game, g
		crowd = append(crowd, sp)
	}
	most, last := uint64(0), sr.relay.Metrics().PacketsOut
	period := time.Second / 60
	for end := sr.now + 10*time.Second; sr.now < end; {
		sr.run(sr.now + period)
		out := sr.relay.Metrics().PacketsOut
		most, last = max(most, out-last), out
	}
	started := 0
	for _, sp := range crowd {
		if sp.err == nil && sp.s.Stats().SnapshotsLoaded == 1 {
			started++
		}
	}
	t.Logf("%d of 300 spectators started from a snapshot; at most %d packets out in a tick's time", started, most)
	if started != 300 {
		t.Fatalf("%d of 300 spectators started", started)
	}
	// A tick's time: confirmed ticks to the 302 members as the players' inputs complete them
	// (twice here at most) and at the deadline, a cookie and a welcome for each join, and the
	// pieces' budget, 128.
	if limit := uint64(3*302 + 2*300 + 128); most > limit {
		t.Errorf("%d packets out in a tick's time, over %d", most, limit)
	}
}
