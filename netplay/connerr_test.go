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
