package netplay

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// TestIsHandshake: the first packet a session sends is a handshake; garbage, a packet cut
// short and the protocol's other kinds are not.
func TestIsHandshake(t *testing.T) {
	peer, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(conn, Config[testInput]{Players: []Player{{Local: true}, {Addr: peer.LocalAddr()}}, Codec: byteCodec{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Poll(0)
	if err := peer.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2048)
	n, _, err := peer.ReadFrom(buf)
	if err != nil {
		t.Fatal(err)
	}
	if !IsHandshake(buf[:n]) {
		t.Errorf("IsHandshake(% x), a session's first packet, is false", buf[:n])
	}
	if IsHandshake(buf[:n-1]) {
		t.Errorf("IsHandshake of a handshake cut short is true")
	}
	for _, b := range [][]byte{nil, []byte("hello"), make([]byte, 600)} {
		if IsHandshake(b) {
			t.Errorf("IsHandshake(%q) is true", b)
		}
	}
	for _, k := range []wire.Kind{wire.KindSyncReply, wire.KindKeepAlive, wire.KindBye} {
		b, err := wire.Append(nil, &wire.Message{Header: wire.Header{Kind: k, Session: 1}, Nonce: 1})
		if err != nil {
			t.Fatal(err)
		}
		if IsHandshake(b) {
			t.Errorf("IsHandshake of a %v is true", k)
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { IsHandshake(buf[:n]) }); allocs != 0 {
		t.Errorf("IsHandshake: %v allocations", allocs)
	}
}

// TestRefusedWhenFull: a session that a stranger asks to join (its players are all there)
// answers with a refusal no larger than the request, and the stranger's Advance returns
// ErrRefused; the players' game goes on undisturbed.
func TestRefusedWhenFull(t *testing.T) {
	sm := newSim(t, simConfig{players: 2, ticks: 600, seed: 3})
	stranger, err := sm.net.Listen("stranger")
	if err != nil {
		t.Fatal(err)
	}
	host := sm.peers[0]
	s, err := NewSession(stranger, Config[testInput]{Players: []Player{{Addr: host.conn.LocalAddr()}, {Local: true}}, Codec: byteCodec{}, Rand: &seqReader{x: 99}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var refusal error
	now := time.Duration(0)
	for ; now < sm.end()+2*time.Second; now += time.Millisecond {
		sm.step(now)
		if refusal == nil && now > 2*time.Second {
			if _, err := s.Advance(now); errors.Is(err, ErrRefused) {
				refusal = err
			} else if !errors.Is(err, ErrNotSynchronized) {
				t.Fatalf("the stranger's Advance = %v, want ErrNotSynchronized until refused", err)
			}
		}
	}
	if refusal == nil {
		t.Fatal("the stranger was never refused")
	}
	t.Log(refusal)
	st := s.Stats()
	if st.PacketsReceived == 0 || st.BytesReceived > st.PacketsReceived*st.BytesSent/st.PacketsSent {
		t.Errorf("refusals: %d packets of %d bytes in all, for %d requests of %d bytes: larger than the requests", st.PacketsReceived, st.BytesReceived, st.PacketsSent, st.BytesSent)
	}
	if got := sm.net.Stats("peer0", "stranger"); got.Packets > sm.net.Stats("stranger", "peer0").Packets {
		t.Errorf("the host sent the stranger %d packets for %d", got.Packets, sm.net.Stats("stranger", "peer0").Packets)
	}
	sm.check()
}

// TestAwaitHandshake: a host waiting for a player ignores stray packets, returns the sender of
// the first handshake, and then plays with it on the same conn; a context that ends first
// ends the wait with its error.
func TestAwaitHandshake(t *testing.T) {
	host, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	if _, err := AwaitHandshake(ctx, host); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("AwaitHandshake with nobody coming: %v, want context.DeadlineExceeded", err)
	}
	cancel()
	player, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	stray, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer stray.Close()
	if _, err := stray.WriteTo([]byte("hello"), host.LocalAddr()); err != nil {
		t.Fatal(err)
	}
	joiner, err := NewSession(player, Config[testInput]{Players: []Player{{Addr: host.LocalAddr()}, {Local: true}}, Codec: byteCodec{}})
	if err != nil {
		t.Fatal(err)
	}
	quit, polled := make(chan struct{}), make(chan struct{})
	go func() { // the joiner, trying to join
		defer close(polled)
		for now := time.Duration(0); ; now += 10 * time.Millisecond {
			select {
			case <-quit:
				return
			case <-time.After(10 * time.Millisecond):
			}
			joiner.Poll(now)
		}
	}()
	defer func() {
		close(quit)
		<-polled
		joiner.Close()
	}()
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	addr, err := AwaitHandshake(ctx, host)
	if err != nil {
		t.Fatal(err)
	}
	if addr.String() != player.LocalAddr().String() {
		t.Fatalf("AwaitHandshake = %v, want the player at %v (not the stray at %v)", addr, player.LocalAddr(), stray.LocalAddr())
	}
	s, err := NewSession(host, Config[testInput]{Players: []Player{{Local: true}, {Addr: addr}}, Codec: byteCodec{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	deadline := time.Now().Add(10 * time.Second)
	for now := time.Duration(0); !s.running; now += 10 * time.Millisecond {
		if time.Now().After(deadline) {
			t.Fatal("the host never synchronised with the player it found")
		}
		s.Poll(now)
		time.Sleep(5 * time.Millisecond)
	}
}
