package netplay

import (
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
