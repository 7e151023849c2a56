package relay

import (
	"fmt"
	"net"

	"github.com/gameloop-go/gameloop/internal/relaytest"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netsim"
	"net/netip"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// directMatch is a match driven by hand, a tick at a time on simulated time, its members
// answering as each test has them: for hostile members no session would play.
type directMatch struct {
	t     *testing.T
	sr    *simRelay
	mt    *match
	now   time.Duration
	conns map[string]*netsim.Conn // by name: a join again comes from the same address
}

// newDirectMatch creates match m with cfg on a relay with opts, its players joined (taking
// snapshots) from addresses p0, p1, ...
func newDirectMatch(t *testing.T, cfg MatchConfig, opts *Options, joined int) (*directMatch, []*member) {
	t.Helper()
	sr := newSimRelay(t, 1, opts)
	mt, err := sr.relay.createMatch("m", cfg)
	if err != nil {
		t.Fatal(err)
	}
	dm := &directMatch{t: t, sr: sr, mt: mt, conns: map[string]*netsim.Conn{}}
	var mbs []*member
	for i := range joined {
		mbs = append(mbs, dm.join(fmt.Sprintf("p%d", i), i, wire.JoinSnapshots))
	}
	return dm, mbs
}

// join admits a member at a new address name into slot (wire.SpectatorSlot for a
// spectator), and returns it; the test fails on a refusal.
func (dm *directMatch) join(name string, slot int, flags uint8) *member {
	dm.t.Helper()
	mb, reason := dm.tryJoin(name, slot, flags)
	if reason != 0 {
		dm.t.Fatalf("%s: join refused: %d", name, reason)
	}
	return mb
}

// tryJoin is join that returns the refusal.
func (dm *directMatch) tryJoin(name string, slot int, flags uint8) (*member, uint8) {
	c := dm.conns[name]
	if c == nil {
		var err error
		if c, err = dm.sr.net.Listen(name); err != nil {
			dm.t.Fatal(err)
		}
		dm.conns[name] = c
	}
	k := keyOf(c.LocalAddr(), netip.AddrPort{})
	cfg := dm.mt.cfg
	if reason := dm.mt.admit(dm.now, k, c.LocalAddr(), slot, 1, cfg.Players, cfg.InputSize, cfg.TickRate, flags, len(dm.sr.relay.opts.Keys) > 0); reason != 0 {
		return nil, reason
	}
	dm.mt.mu.Lock()
	defer dm.mt.mu.Unlock()
	if slot == wire.SpectatorSlot {
		return dm.mt.spectators[len(dm.mt.spectators)-1], 0
	}
	return dm.mt.players[slot], 0
}

// send has mb send m, stamped with its session.
func (dm *directMatch) send(mb *member, m wire.Message) {
	m.Session = mb.session
	s := dm.sr.relay.sender()
	dm.mt.receive(dm.now, mb, &m, s)
	dm.sr.relay.release(s)
}

// ackTicks has each of mbs acknowledge the ticks confirmed, as a session would, a player with
// the zero input for the tick after them (which also starts the match's clock, waiting for
// every player's first input).
func (dm *directMatch) ackTicks(mbs ...*member) {
	for _, mb := range mbs {
		m := wire.Message{AckTick: int64(dm.mt.auth.Confirmed())}
		m.Kind = wire.KindInput
		if mb.slot != wire.SpectatorSlot {
			m.StartTick, m.Handles, m.InputSize = int64(dm.mt.auth.Confirmed()+1), 1<<mb.slot, dm.mt.cfg.InputSize
			if _, err := m.PackInputs(make([]byte, m.InputSize), make([]byte, m.InputSize)); err != nil {
				dm.t.Fatal(err)
			}
		}
		dm.send(mb, m)
	}
}

// tick runs the match one tick on.
func (dm *directMatch) tick() {
	dm.now += time.Second / time.Duration(dm.mt.cfg.TickRate)
	dm.sr.now = dm.now
	dm.mt.update(dm.now, dm.now)
}

// share has sharer send the whole state of the round's tick, size bytes with checksum sum,
// and each of others report sum as its checksum.
func (dm *directMatch) share(sharer *member, size int64, sum uint64, others ...*member) {
	tick := int64(dm.mt.round.tick)
	for off := int64(0); off < size; off += wire.MaxSnapshotChunk {
		dm.send(sharer, wire.Message{Header: wire.Header{Kind: wire.KindSnapshot}, Tick: tick, Sum: sum, Size: size, Offset: off,
			InputsLen: int(min(wire.MaxSnapshotChunk, size-off))})
	}
	for _, o := range others {
		dm.send(o, wire.Message{Header: wire.Header{Kind: wire.KindChecksumReport}, Tick: tick, Sum: sum})
	}
}

// TestRelaySnapshotSlowSharer: a sharer that says its state is 1 MiB and then sends a piece
// every 4.9 s, never quite letting its round time out, keeps it open no longer than the
// round's deadline (5 s and a second for every 150 pieces: 20.6 s), and the other player's
// turns give the match its snapshots: joiners still have one to start from. (Without the
// deadline the first such round lasted the whole 2 minutes, and late joins were refused.)
func TestRelaySnapshotSlowSharer(t *testing.T) {
	dm, p := newDirectMatch(t, MatchConfig{Players: 2, InputSize: 1, TickRate: 60, SnapshotEvery: 60, History: 600}, nil, 2)
	mt := dm.mt
	var lastPiece time.Duration
	var offset int64
	longest, opened := time.Duration(0), time.Duration(-1)
	for dm.now < 120*time.Second {
		dm.tick()
		dm.ackTicks(p...)
		rd := mt.round
		switch {
		case !rd.open:
			opened = -1
			continue
		case opened < 0:
			opened, offset = dm.now, 0
		}
		longest = max(longest, dm.now-opened)
		if mt.auth.Confirmed() < rd.tick {
			continue // the sharer answers once the tick is final
		}
		switch rd.sharer {
		case 0: // the slow one
			if dm.now-lastPiece >= 4900*time.Millisecond && offset < 1<<20 {
				dm.send(p[0], wire.Message{Header: wire.Header{Kind: wire.KindSnapshot}, Tick: int64(rd.tick), Sum: 9, Size: 1 << 20, Offset: offset, InputsLen: wire.MaxSnapshotChunk})
				offset += wire.MaxSnapshotChunk
				lastPiece = dm.now
			}
		case 1:
			if rd.asm == nil {
				dm.share(p[1], 1000, 7, p[0])
			}
		}
	}
	m := dm.sr.relay.Metrics()
	latest := uint64(0)
	if sn := mt.latest(); sn != nil {
		latest = sn.tick
	}
	t.Logf("%d snapshots taken, %d rounds failed; the longest round lasted %v; latest after tick %d of %d",
		m.Snapshots, m.SnapshotsFailed, longest, latest, mt.auth.Confirmed())
	if limit := snapRoundTimeout + 2341*time.Second/snapRoundPace + time.Second; longest > limit {
		t.Errorf("a round lasted %v, over its deadline of %v", longest, limit)
	}
	if mt.startFrom(true, false) == nil {
		t.Fatal("no snapshot a late player could start from")
	}
	if m.Snapshots < 3 || m.SnapshotsFailed < 3 {
		t.Errorf("%d snapshots taken and %d rounds failed: want the slow sharer's turns failing and the other's taken", m.Snapshots, m.SnapshotsFailed)
	}
}

// TestRelaySnapshotStalledDownload: members that start from a snapshot and never acknowledge
// a piece of it (spectators joining after each snapshot, a player joining late) are dropped
// once 10 s pass without progress, counted as relay_dropped_total{reason="snapshot"}, and
// hold no snapshot after: the match's memory is its own snapshots, not one a stalled member
// pins. (Without it, the spectators of 30 s held 29 snapshots.) An honest spectator, which
// acknowledges what it gets, starts and stays.
func TestRelaySnapshotStalledDownload(t *testing.T) {
	dm, p := newDirectMatch(t, MatchConfig{Players: 3, MinPlayers: 2, InputSize: 1, TickRate: 60, SnapshotEvery: 60, History: 600}, nil, 2)
	mt := dm.mt
	var stalled []*member
	var honest, late *member
	lastSnap := uint64(0)
	for dm.now < 30*time.Second {
		dm.tick()
		dm.ackTicks(p...)
		dm.ackTicks(stalled...) // ticks, never the snapshot's pieces
		if late != nil && !late.dropped {
			dm.ackTicks(late)
		}
		if honest != nil {
			if d := honest.down; d != nil {
				dm.send(honest, wire.Message{Header: wire.Header{Kind: wire.KindSnapshotAck}, Tick: int64(d.snap.tick), Offset: int64(len(d.snap.data))})
			}
			dm.ackTicks(honest)
		}
		if rd := mt.round; rd.open && rd.asm == nil && mt.auth.Confirmed() >= rd.tick {
			dm.share(p[rd.sharer], 5000, 7, p[1-rd.sharer])
		}
		if sn := mt.latest(); sn != nil && sn.tick != lastSnap {
			lastSnap = sn.tick
			stalled = append(stalled, dm.join(fmt.Sprintf("s%d", len(stalled)), wire.SpectatorSlot, wire.JoinSnapshots))
			if late == nil {
				late = dm.join("late", 2, wire.JoinSnapshots)
			}
			if honest == nil && dm.now > 15*time.Second {
				honest = dm.join("honest", wire.SpectatorSlot, wire.JoinSnapshots)
			}
		}
	}
	m := dm.sr.relay.Metrics()
	mt.mu.Lock()
	defer mt.mu.Unlock()
	held := map[*snapshot]bool{}
	for _, mb := range append(append([]*member{}, mt.spectators...), mt.players...) {
		if mb != nil && mb.down != nil {
			held[mb.down.snap] = true
		}
	}
	t.Logf("%d spectators joined, %d still there; %d snapshots held by members, %d by the match; dropped %v",
		len(stalled)+1, len(mt.spectators), len(held), len(mt.snaps), m.Dropped)
	// Those that joined in the last 10 s and a bit may still be downloading.
	if len(held) > 12 {
		t.Errorf("members hold %d snapshots", len(held))
	}
	if !late.dropped || late.down != nil {
		t.Errorf("the late player that never acknowledged its snapshot: dropped %v, still holding it %v", late.dropped, late.down != nil)
	}
	if n := m.Dropped["snapshot"]; n < uint64(len(stalled))-12 || n == 0 {
		t.Errorf(`relay_dropped_total{reason="snapshot"} = %d of %d stalled`, n, len(stalled)+1)
	}
	kept := false
	for _, sp := range mt.spectators {
		kept = kept || sp == honest
	}
	if honest == nil || !kept || honest.down != nil {
		t.Errorf("the honest spectator did not start and stay")
	}
}

// TestRelayRejoinRefusedKeepsSlot: a join with the token of a slot that plays, from a new
// address, that can start from neither the match's first tick (no longer kept) nor a
// snapshot is refused as late, and the player at the slot's address plays on, its packets
// taken. (It used to lose its address to the refused join, and be dropped as unheard.)
func TestRelayRejoinRefusedKeepsSlot(t *testing.T) {
	dm, p := newDirectMatch(t, MatchConfig{Players: 2, InputSize: 1, TickRate: 60, History: 120}, &Options{Keys: map[byte][]byte{1: testKey}}, 2)
	mt := dm.mt
	for dm.now < 5*time.Second {
		dm.tick()
		dm.ackTicks(p...)
	}
	if _, reason := dm.tryJoin("elsewhere", 0, 0); reason != wire.RefusedLate {
		t.Fatalf("a rejoin past the ticks kept, with no snapshot: refusal %d, want RefusedLate", reason)
	}
	for end := dm.now + 10*time.Second; dm.now < end; {
		dm.tick()
		dm.ackTicks(p...)
	}
	dm.sr.relay.mu.Lock()
	owner := dm.sr.relay.addrs[p[0].key]
	dm.sr.relay.mu.Unlock()
	if owner != p[0] || mt.players[0] != p[0] || p[0].dropped || mt.auth.Dropped().Has(0) {
		t.Fatalf("the playing player lost its slot to a refused join: address kept %v, slot kept %v, dropped %v",
			owner == p[0], mt.players[0] == p[0], p[0].dropped || mt.auth.Dropped().Has(0))
	}
}

// TestRelaySnapshotDeclined: a sharer that cannot share the state it is asked for (its saved
// state gone before the tick was final there) says so, an acknowledgement of none of it, and
// the relay asks the next player in turn a second later, not after the round's 5 s.
func TestRelaySnapshotDeclined(t *testing.T) {
	dm, p := newDirectMatch(t, MatchConfig{Players: 2, InputSize: 1, TickRate: 60, SnapshotEvery: 60}, nil, 2)
	mt := dm.mt
	for !mt.round.open {
		dm.tick()
		dm.ackTicks(p...)
	}
	first := mt.round.sharer
	dm.send(p[first], wire.Message{Header: wire.Header{Kind: wire.KindSnapshotAck}, Tick: int64(mt.round.tick), Offset: 0})
	if mt.round.open {
		t.Fatal("the round is still open after its sharer declined")
	}
	declined := dm.now
	for !mt.round.open {
		dm.tick()
		dm.ackTicks(p...)
	}
	if mt.round.sharer == first || dm.now-declined > 1100*time.Millisecond {
		t.Fatalf("after player %d declined, player %d was asked %v later", first, mt.round.sharer, dm.now-declined)
	}
	dm.share(p[mt.round.sharer], 1000, 7, p[first])
	if m := dm.sr.relay.Metrics(); m.Snapshots != 1 || m.SnapshotsFailed != 1 {
		t.Fatalf("%d snapshots, %d failed rounds: want 1 and 1", m.Snapshots, m.SnapshotsFailed)
	}
}

// TestRelayFarSharerDeclines: a player whose link from the relay loses 30% of packets often
// gets the relay's ask for its state only when it asks again, 200 ms on, by when the player
// has saved later states over that tick's (its slots last 10 ticks with a prediction window
// of 4). It says it cannot share it, and the relay asks the next player in turn a second
// later: in 30 s, 21 snapshots are taken (over 5 seeds, 19 to 22) where rounds that waited
// out their 5 s took 5 (5 to 15).
func TestRelayFarSharerDeclines(t *testing.T) {
	sr := newSimRelay(t, 4, &Options{OpenMatch: MatchConfig{SnapshotEvery: 60}})
	sr.net.SetConditions("far", "relay", netsim.Conditions{Latency: 50 * time.Millisecond})
	sr.net.SetConditions("relay", "far", netsim.Conditions{Latency: 50 * time.Millisecond, Loss: 0.3})
	a, _ := sr.snapPlayer("far", "m", 0, 2, nil, func(c *netplay.Config[byte]) { c.PredictionWindow = 4 })
	b, _ := sr.snapPlayer("near", "m", 1, 2, nil)
	sr.run(30 * time.Second)
	if a.err != nil || b.err != nil {
		t.Fatalf("far: %v; near: %v", a.err, b.err)
	}
	m := sr.relay.Metrics()
	sa, sb := a.s.Stats(), b.s.Stats()
	t.Logf("%d snapshots taken, %d rounds gave none; shared: far %d, near %d", m.Snapshots, m.SnapshotsFailed, sa.SnapshotsShared, sb.SnapshotsShared)
	if m.Snapshots < 15 || m.SnapshotsFailed == 0 {
		t.Errorf("%d snapshots taken, %d rounds gave none: want the far player declining at once what it cannot share", m.Snapshots, m.SnapshotsFailed)
	}
}

// lossyAcks is a conn that loses the first few acknowledgements of a snapshot's last piece
// (a snapshot whose size is not a multiple of a piece's).
type lossyAcks struct {
	*netsim.Conn
	lose int
}

func (c *lossyAcks) WriteTo(p []byte, addr net.Addr) (int, error) {
	var m wire.Message
	if c.lose > 0 && wire.Decode(p, &m) == nil && m.Kind == wire.KindSnapshotAck && m.Offset%wire.MaxSnapshotChunk != 0 {
		c.lose--
		return len(p), nil
	}
	return c.Conn.WriteTo(p, addr)
}

// TestRelaySnapshotLastAckLost: a member that has its snapshot whole and loaded, whose
// acknowledgement of the last piece was lost, acknowledges it again when the relay sends the
// pieces again: the relay lets the snapshot go, and the member plays on. (Before, a session
// done with its snapshot ignored its pieces, and the relay sent them until it dropped the
// member as stalled: a late player of the fault campaign, which nothing befell.)
func TestRelaySnapshotLastAckLost(t *testing.T) {
	sr := newSimRelay(t, 38, &Options{OpenMatch: MatchConfig{History: 600, SnapshotEvery: 120}})
	sr.snapPlayer("a", "m", 0, 2, nil)
	sr.snapPlayer("b", "m", 1, 2, nil)
	sr.run(15 * time.Second)
	watch := sr.player("watch", "m", -1, 2, nil, nil)
	conn := &lossyAcks{Conn: watch.conn, lose: 3}
	var err error
	watch.s, err = netplay.NewSpectator(net.PacketConn(conn), nil, 2, netplay.Config[byte]{Codec: relaytest.ByteCodec{},
		Relay: sr.conn.LocalAddr(), Match: "m", TickRate: 60, Snapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	g := newSnapGame(watch.s.Slots(), 5000)
	watch.g, watch.game, watch.conn = g.Game, g, nil
	sr.run(sr.now + 15*time.Second)
	m := sr.relay.Metrics()
	if watch.err != nil || watch.s.Stats().SnapshotsLoaded != 1 || conn.lose != 0 {
		t.Fatalf("the spectator: %v, %+v; %d acknowledgements left to lose", watch.err, watch.s.Stats(), conn.lose)
	}
	mt := sr.relay.matches["m"]
	mt.mu.Lock()
	defer mt.mu.Unlock()
	if len(mt.spectators) != 1 || mt.spectators[0].down != nil || m.Dropped["snapshot"] != 0 {
		t.Fatalf("%d spectators, still downloading %v; %d dropped as stalled", len(mt.spectators), len(mt.spectators) == 1 && mt.spectators[0].down != nil, m.Dropped["snapshot"])
	}
}
