package netplay

import (
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// TestDropped: packets from an address that is no peer's, malformed ones, ones of another
// session, and inputs for a handle that is not the sender's are dropped and counted, and the
// game goes on in sync.
func TestDropped(t *testing.T) {
	sm := newSim(t, simConfig{players: 2, ticks: 600, seed: 17})
	stranger, err := sm.net.Listen("stranger")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Duration(0)
	for ; now < 3*time.Second; now += time.Millisecond {
		sm.step(now)
	}
	target := sm.peers[0]
	session := target.s.peers[0].session
	if session == 0 {
		t.Fatal("not synchronized after 3 s")
	}
	packet := func(m *wire.Message) []byte {
		b, err := wire.Append(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	keepAlive := packet(&wire.Message{Header: wire.Header{Kind: wire.KindKeepAlive, Session: session}})
	stale := packet(&wire.Message{Header: wire.Header{Kind: wire.KindKeepAlive, Session: session + 1}})
	// An Input from peer 1 carrying player 0's input (peer 0's own player).
	theft := &wire.Message{Header: wire.Header{Kind: wire.KindInput, Session: session},
		StartTick: int64(target.s.Tick()), AckTick: wire.NoTick, Handles: 1 << 0, InputSize: 1, Players: 2}
	if _, err := theft.PackInputs([]byte{0}, []byte{3, 3, 3}); err != nil {
		t.Fatal(err)
	}
	for _, send := range []struct {
		from *simPeer
		pkt  []byte
	}{
		{nil, keepAlive},                 // a stranger
		{sm.peers[1], stale},             // another session
		{sm.peers[1], packet(theft)},     // another player's input
		{sm.peers[1], []byte("garbage")}, // malformed
		{sm.peers[1], append(keepAlive[:len(keepAlive):len(keepAlive)], 0)}, // a byte too long
	} {
		conn := stranger
		if send.from != nil {
			conn = send.from.conn
		}
		if _, err := conn.WriteTo(send.pkt, target.conn.LocalAddr()); err != nil {
			t.Fatal(err)
		}
	}
	before := target.s.Stats().Dropped
	for end := now + 5*time.Second; now < end; now += time.Millisecond {
		sm.step(now)
	}
	if got := target.s.Stats().Dropped - before; got != 5 {
		t.Errorf("%d packets dropped, want 5", got)
	}
	for now < sm.end()+2*time.Second {
		sm.step(now)
		now += time.Millisecond
	}
	sm.check()
}
