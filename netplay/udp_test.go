package netplay

import (
	"bytes"
	"net"
	"runtime"
	"testing"
	"time"
)

// TestUDP plays two sessions over real UDP sockets on 127.0.0.1, each read by its reader
// goroutine, stepping ticks on simulated time while the packets travel for real, and checks
// that they play the same game and that Close ends the readers.
// Over a *net.UDPConn the sessions poll the socket from their own calls on Linux, and start
// no goroutine; elsewhere, and over a conn that is not a *net.UDPConn, one reader goroutine
// each.
func TestUDP(t *testing.T) {
	t.Run("listening", func(t *testing.T) { testUDP(t, udpListen) })
	// One socket connected to the other (net.DialUDP): every write failed ("use of WriteTo
	// with pre-connected connection") and the handshake never ended.
	t.Run("dialed", func(t *testing.T) { testUDP(t, udpDial) })
	t.Run("reader goroutine", func(t *testing.T) { testUDP(t, udpOpaque) })
	t.Run("UDPConn", func(t *testing.T) { testUDP(t, udpRaw) })
}

// udpKind is how newUDPPairWith opens its sockets.
type udpKind int

const (
	udpListen udpKind = iota // net.ListenUDP
	udpDial                  // the second socket net.DialUDP to the first
	udpOpaque                // net.ListenUDP, hidden in an opaqueConn
	udpRaw                   // ListenUDP: this package's UDPConn
)

// opaqueConn hides what a conn is (a *net.UDPConn), so that the session reads it through a
// goroutine, as it reads a conn it cannot poll.
type opaqueConn struct{ net.PacketConn }

func testUDP(t *testing.T, kind udpKind) {
	u := newUDPPairWith(t, kind)
	want := 0
	if kind == udpOpaque || runtime.GOOS != "linux" {
		want = 2
	}
	if got := readers(); got != want {
		t.Errorf("%d reader goroutines with two sessions, want %d", got, want)
	}
	const ticks = 300
	for u.sessions[0].Tick() < ticks || u.sessions[1].Tick() < ticks {
		u.round(t, ticks)
		if u.now > 60*time.Second {
			t.Fatalf("ticks %d and %d after a minute of game time", u.sessions[0].Tick(), u.sessions[1].Tick())
		}
	}
	for tick := uint64(1); tick <= ticks-uint64(u.sessions[0].window); tick++ {
		if u.games[0].sums[tick-1] != u.games[1].sums[tick-1] {
			t.Fatalf("tick %d: checksums %#x and %#x", tick, u.games[0].sums[tick-1], u.games[1].sums[tick-1])
		}
	}
	for _, s := range u.sessions {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// A reader has returned when Close does; it may take a moment more to be gone.
	deadline := time.Now().Add(5 * time.Second)
	for readers() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := readers(); got != 0 {
		t.Errorf("%d reader goroutines after Close", got)
	}
}

// TestUDPNoAllocations: over UDP too, a tick of two peers in steady state (their reader
// goroutines included) allocates nothing, over a *net.UDPConn and over a UDPConn.
func TestUDPNoAllocations(t *testing.T) {
	for name, kind := range map[string]udpKind{"net.UDPConn": udpListen, "UDPConn": udpRaw} {
		t.Run(name, func(t *testing.T) {
			u := newUDPPairWith(t, kind)
			for u.sessions[0].Tick() < 120 {
				u.round(t, 1<<20)
			}
			if allocs := testing.AllocsPerRun(100, func() { u.round(t, 1<<20) }); allocs != 0 {
				t.Errorf("%v allocations a tick", allocs)
			}
		})
	}
}

// udpPair is two sessions over real UDP sockets on 127.0.0.1, each read by its reader
// goroutine, whose ticks are stepped on simulated time while the packets travel for real.
type udpPair struct {
	sessions [2]*Session[testInput]
	games    [2]*testGame
	now      time.Duration
}

// newUDPPairWith returns a udpPair over sockets of the kind given.
func newUDPPairWith(t *testing.T, kind udpKind) *udpPair {
	t.Helper()
	// One socket on 127.0.0.1, the other on every address (dual-stack, where IPv4 packets
	// come from IPv4-mapped IPv6 addresses), each given the other's address as 127.0.0.1.
	var conns [2]net.PacketConn
	loopback := func(c net.PacketConn) *net.UDPAddr {
		return &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: c.LocalAddr().(*net.UDPAddr).Port}
	}
	for i, ip := range []net.IP{net.IPv4(127, 0, 0, 1), nil} {
		var c net.PacketConn
		var err error
		switch {
		case kind == udpDial && i == 1:
			c, err = net.DialUDP("udp", nil, loopback(conns[0]))
		case kind == udpRaw:
			c, err = ListenUDP("udp", &net.UDPAddr{IP: ip})
		default:
			c, err = net.ListenUDP("udp", &net.UDPAddr{IP: ip})
		}
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	u := &udpPair{}
	for h := range u.sessions {
		players := make([]Player, 2)
		players[h] = Player{Local: true}
		players[1-h] = Player{Addr: loopback(conns[1-h])}
		conn := conns[h]
		if kind == udpOpaque {
			conn = opaqueConn{conns[h]}
		}
		s, err := NewSession(conn, Config[testInput]{Players: players, Codec: byteCodec{}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		u.sessions[h] = s
		u.games[h] = newTestGame(2, s.Slots(), uint64(h), 1<<16)
		u.games[h].session = s
	}
	return u
}

// round moves each session's time on by a tick and runs it (unless it has run ticks), then
// waits until the packets sent have come (or a second has passed: UDP may lose them).
func (u *udpPair) round(t *testing.T, ticks uint64) {
	u.now += time.Second / 60
	for h, s := range u.sessions {
		if s.Tick() >= ticks {
			s.Poll(u.now)
			continue
		}
		if err := s.AddLocalInput(h, u.games[h].LocalInput(h)); err != nil {
			t.Fatal(err)
		}
		reqs, err := s.Advance(u.now)
		if err == nil {
			err = Run(reqs, Game[testInput](u.games[h]))
		}
		if err != nil && err != ErrNotSynchronized && err != ErrPredictionThreshold {
			t.Fatal(err)
		}
		if s.tr.batch != nil && s.tr.batch.queued != 0 {
			t.Fatalf("%d packets queued after Advance", s.tr.batch.queued)
		}
	}
	deadline := time.Now().Add(time.Second)
	for u.sessions[0].stats.PacketsReceived+u.sessions[1].stats.PacketsReceived <
		u.sessions[0].stats.PacketsSent+u.sessions[1].stats.PacketsSent && time.Now().Before(deadline) {
		time.Sleep(100 * time.Microsecond)
		for _, s := range u.sessions {
			s.Poll(u.now)
		}
	}
}

// readers returns the number of the sessions' reader goroutines running.
func readers() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return bytes.Count(buf, []byte("created by github.com/gameloop-go/gameloop/netplay.newTransport"))
}
