package netplay

import (
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// udpSession returns a session on a real UDP socket on 127.0.0.1 whose peer is another socket
// that never answers, and the session's socket.
func udpSession(t *testing.T, wrap func(*net.UDPConn) net.PacketConn) (*Session[testInput], *net.UDPConn) {
	t.Helper()
	var conns [2]*net.UDPConn
	for i := range conns {
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	t.Cleanup(func() { conns[1].Close() })
	var conn net.PacketConn = conns[0]
	if wrap != nil {
		conn = wrap(conns[0])
	}
	s, err := NewSession(conn, Config[testInput]{
		Players: []Player{{Local: true}, {Addr: conns[1].LocalAddr()}},
		Codec:   byteCodec{},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, conns[0]
}

// advanceUntilError advances s until it returns an error other than ErrNotSynchronized, or
// until 10 s have passed (then it fails the test).
func advanceUntilError(t *testing.T, s *Session[testInput]) error {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for now := time.Duration(0); time.Now().Before(deadline); now += time.Second / 60 {
		if _, err := s.Advance(now); err != nil && !errors.Is(err, ErrNotSynchronized) {
			return err
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("Advance returned only ErrNotSynchronized for 10 s")
	return nil
}

// TestConnClosedUnderneath: a conn closed under the session makes Advance return an error
// wrapping net.ErrClosed, rather than ErrNotSynchronized for ever.
func TestConnClosedUnderneath(t *testing.T) {
	s, conn := udpSession(t, nil)
	if _, err := s.Advance(0); !errors.Is(err, ErrNotSynchronized) {
		t.Fatalf("Advance: %v, want ErrNotSynchronized", err)
	}
	conn.Close()
	if err := advanceUntilError(t, s); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Advance after the conn was closed: %v, want net.ErrClosed", err)
	}
}

var errBroken = errors.New("broken conn")

// failingConn is a UDP socket whose reads fail with errBroken, the first fail of them.
type failingConn struct {
	*net.UDPConn
	reads, fail atomic.Int64
}

func (c *failingConn) ReadFrom(p []byte) (int, net.Addr, error) {
	if c.reads.Add(1) <= c.fail.Load() {
		return 0, nil, errBroken
	}
	return c.UDPConn.ReadFrom(p)
}

// TestConnReadErrors: a conn whose reads keep failing is read maxReadErrors times, not in a
// busy loop, and Advance then returns its error, counted in Stats.ReadErrors.
func TestConnReadErrors(t *testing.T) {
	var fc *failingConn
	s, _ := udpSession(t, func(c *net.UDPConn) net.PacketConn {
		fc = &failingConn{UDPConn: c}
		fc.fail.Store(1 << 62)
		return fc
	})
	err := advanceUntilError(t, s)
	if !errors.Is(err, errBroken) {
		t.Fatalf("Advance with a failing conn: %v, want errBroken", err)
	}
	if got := fc.reads.Load(); got != maxReadErrors {
		t.Errorf("%d reads of a failing conn, want %d", got, maxReadErrors)
	}
	if got := s.Stats().ReadErrors; got != maxReadErrors {
		t.Errorf("Stats().ReadErrors = %d, want %d", got, maxReadErrors)
	}
}

// TestConnReadErrorsWaitedOut: fewer than maxReadErrors read errors in a row are counted and
// waited out: the reader goes on reading.
func TestConnReadErrorsWaitedOut(t *testing.T) {
	var fc *failingConn
	s, _ := udpSession(t, func(c *net.UDPConn) net.PacketConn {
		fc = &failingConn{UDPConn: c}
		fc.fail.Store(maxReadErrors - 1)
		return fc
	})
	deadline := time.Now().Add(10 * time.Second)
	for s.Stats().ReadErrors < maxReadErrors-1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := s.Stats().ReadErrors; got != maxReadErrors-1 {
		t.Fatalf("Stats().ReadErrors = %d, want %d", got, maxReadErrors-1)
	}
	if _, err := s.Advance(0); !errors.Is(err, ErrNotSynchronized) {
		t.Fatalf("Advance after %d read errors: %v, want ErrNotSynchronized", maxReadErrors-1, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close again: %v, want nil", err)
	}
	s.Poll(time.Second)
	if _, err := s.Advance(time.Second); !errors.Is(err, ErrClosed) {
		t.Errorf("Advance after Close: %v, want ErrClosed", err)
	}
	// A reader has returned when Close does; it may take a moment more to be gone.
	for readers() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := readers(); got != 0 {
		t.Errorf("%d reader goroutines after Close", got)
	}
}

// TestUDPAddrRequired: over a UDP socket, a remote player's address that the socket could not
// reach or match (not a UDP address, no IP, an unspecified IP, no port) is an error naming the
// field, rather than a session that never hears its peer.
func TestUDPAddrRequired(t *testing.T) {
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, addr := range []net.Addr{
		&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7000},
		&net.UDPAddr{Port: 7000},
		&net.UDPAddr{IP: net.IPv4zero, Port: 7000},
		&net.UDPAddr{IP: net.IPv6unspecified, Port: 7000},
		&net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)},
	} {
		s, err := NewSession(conn, Config[testInput]{Players: []Player{{Local: true}, {Addr: addr}}, Codec: byteCodec{}})
		if err == nil {
			s.Close()
			t.Fatalf("NewSession with a peer at %v (%T): no error", addr, addr)
		}
		if !strings.Contains(err.Error(), "Config.Players[1].Addr") {
			t.Errorf("NewSession with a peer at %v: %v, want it to name Config.Players[1].Addr", addr, err)
		}
	}
}

// TestUDPAddrChecks: NewSession refuses a peer address the socket can never talk with: its
// own (the session synchronised with itself, then froze), an IPv6 address on a socket bound
// to an IPv4 one (never synchronised), and over a socket connected to one address
// (net.DialUDP), any other.
func TestUDPAddrChecks(t *testing.T) {
	listen := func(network string, ip net.IP) *net.UDPConn {
		c, err := net.ListenUDP(network, &net.UDPAddr{IP: ip})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	port := func(c *net.UDPConn) int { return c.LocalAddr().(*net.UDPAddr).Port }
	v4 := listen("udp", net.IPv4(127, 0, 0, 1))
	any4 := listen("udp4", nil)
	other := listen("udp", net.IPv4(127, 0, 0, 1))
	dialed, err := net.DialUDP("udp", nil, other.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dialed.Close() })
	for _, c := range []struct {
		conn *net.UDPConn
		peer *net.UDPAddr
		want string
	}{
		{v4, v4.LocalAddr().(*net.UDPAddr), "own address"},
		{any4, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port(any4)}, "own address"},
		{v4, &net.UDPAddr{IP: net.IPv6loopback, Port: 7000}, "IPv6 address"},
		{any4, &net.UDPAddr{IP: net.ParseIP("2001:db8::1"), Port: 7000}, "IPv6 address"},
		{dialed, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port(v4)}, "connected to"},
	} {
		s, err := NewSession(c.conn, Config[testInput]{Players: []Player{{Local: true}, {Addr: c.peer}}, Codec: byteCodec{}})
		if err == nil {
			s.Close()
			t.Errorf("NewSession on %v with a peer at %v: no error", c.conn.LocalAddr(), c.peer)
			continue
		}
		if !strings.Contains(err.Error(), "Config.Players[1].Addr") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewSession on %v with a peer at %v: %v, want it to name Config.Players[1].Addr and say %q", c.conn.LocalAddr(), c.peer, err, c.want)
		}
	}
}

// TestStrangersKeptOutOfTheRing: packets from addresses that are not a peer's are dropped by
// the reader goroutine (of a conn the session cannot poll) before they take a slot of its
// ring, so that a flood of them cannot crowd out the peers' packets. 200 packets from a
// stranger, then 5 from the peer, with no Poll in between: the peer's 5 all reach the session.
func TestStrangersKeptOutOfTheRing(t *testing.T) {
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	peer, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	stranger, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer stranger.Close()
	s, err := NewSession(opaqueConn{conn}, Config[testInput]{Players: []Player{{Local: true}, {Addr: peer.LocalAddr()}}, Codec: byteCodec{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	read := func() uint64 {
		s.tr.mu.Lock()
		defer s.tr.mu.Unlock()
		return s.tr.strangers + s.tr.overflowed + uint64(s.tr.used)
	}
	// In batches that the socket's buffer holds, each read by the reader before the next.
	send := func(from *net.UDPConn, n int, want uint64) {
		for i := range n {
			if _, err := from.WriteTo([]byte("junk junk junk"), conn.LocalAddr()); err != nil {
				t.Fatal(err)
			}
			if i%20 == 19 || i == n-1 {
				for deadline := time.Now().Add(10 * time.Second); read() < want-uint64(n-1-i); time.Sleep(time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("the reader read %d packets of %d sent", read(), want-uint64(n-1-i))
					}
				}
			}
		}
	}
	send(stranger, 200, 200)
	send(peer, 5, 205)
	s.Poll(0)
	if got := s.Stats().PacketsReceived; got != 5 {
		t.Errorf("the session took %d packets from the ring, want the peer's 5", got)
	}
	if got := s.Stats().Dropped; got != 205 {
		t.Errorf("Stats.Dropped = %d, want 205: 200 from the stranger, 5 malformed", got)
	}
}
