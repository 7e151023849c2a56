//go:build linux

package netplay

import (
	"bytes"
	"errors"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestUDPConnOutsideThePoller: on Linux a UDPConn's socket is not in the Go runtime's epoll set
// (a *net.UDPConn's is), so that its packets wake no thread, and closing UDPConns leaves no
// descriptor open.
func TestUDPConnOutsideThePoller(t *testing.T) {
	fds := func() map[string]string {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, e := range ents {
			target, _ := os.Readlink("/proc/self/fd/" + e.Name())
			m[e.Name()] = target
		}
		return m
	}
	netConn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer netConn.Close()
	before := fds()
	raw := listenUDPConn(t, "udp4", net.IPv4(127, 0, 0, 1))
	rawFD := strconv.Itoa(raw.fd)
	sc, err := netConn.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var netFD string
	sc.Control(func(fd uintptr) { netFD = strconv.Itoa(int(fd)) })

	// The runtime's epoll instance lists the descriptors it watches in its fdinfo ("tfd: N").
	watched := map[string]bool{}
	polls := 0
	for fd, target := range fds() {
		if target != "anon_inode:[eventpoll]" {
			continue
		}
		polls++
		info, err := os.ReadFile("/proc/self/fdinfo/" + fd)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(info), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "tfd:" {
				watched[f[1]] = true
			}
		}
	}
	if polls == 0 {
		t.Skip("no epoll instance in /proc/self/fd")
	}
	if !watched[netFD] {
		t.Fatalf("a *net.UDPConn's descriptor %s is not in the runtime's epoll set %v: the check sees nothing", netFD, watched)
	}
	if watched[rawFD] {
		t.Errorf("the UDPConn's descriptor %s is in the runtime's epoll set", rawFD)
	}

	// Open and close many: none is left open.
	for range 100 {
		c, err := ListenUDP("udp", nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	raw.Close()
	if after := fds(); len(after) > len(before) {
		t.Errorf("%d descriptors open before, %d after opening and closing 101 UDPConns", len(before), len(after))
	}
}

// TestUDPConnBatches: packets queued for several addresses, more than one sendmmsg takes, all
// arrive, each at its address, in order; read back in batches by recvmmsg, with their senders.
func TestUDPConnBatches(t *testing.T) {
	from := listenUDPConn(t, "udp4", net.IPv4(127, 0, 0, 1))
	var to [3]*UDPConn
	for i := range to {
		to[i] = listenUDPConn(t, "udp", nil)
	}
	batch := newUDPBatch()
	const n = 3*batchPackets + 2
	for i := range n {
		port := to[i%3].LocalAddr().(*net.UDPAddr).Port
		ap := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port))
		if err := from.queue([]byte{byte(i)}, ap, batch); err != nil {
			t.Fatal(err)
		}
	}
	if failed, err := from.flush(batch); failed != 0 || err != nil {
		t.Fatalf("flush: %d failed, %v", failed, err)
	}
	if err := from.queue([]byte{1}, netip.MustParseAddrPort("[::1]:7000"), batch); err == nil {
		t.Errorf("an IPv6 address queued on an IPv4 socket")
	}
	sender := netip.AddrPortFrom(from.LocalAddr().(*net.UDPAddr).AddrPort().Addr().Unmap(), from.LocalAddr().(*net.UDPAddr).AddrPort().Port())
	for r, c := range to {
		var want []byte
		for i := r; i < n; i += 3 {
			want = append(want, byte(i))
		}
		var got []byte
		rb := newUDPBatch()
		deadline := time.Now().Add(10 * time.Second)
		for len(got) < len(want) && time.Now().Before(deadline) {
			k, err := c.tryRecv(rb)
			if err == errNoPacket {
				time.Sleep(time.Millisecond)
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range k {
				var p packet
				rb.packet(i, &p)
				if p.ap != sender {
					t.Errorf("a packet from %v, want %v", p.ap, sender)
				}
				got = append(got, p.buf[:p.n]...)
			}
		}
		if !bytes.Equal(got, want) {
			t.Errorf("receiver %d got %v, want %v", r, got, want)
		}
	}
}

// SetReadBuffer and SetWriteBuffer set the socket's buffers (Linux doubles what is asked, for
// its bookkeeping), and fail once the conn is closed.
func TestUDPConnBuffers(t *testing.T) {
	c := listenUDPConn(t, "udp4", net.IPv4(127, 0, 0, 1))
	for _, opt := range []struct {
		set  func(int) error
		name int
	}{{c.SetReadBuffer, unix.SO_RCVBUF}, {c.SetWriteBuffer, unix.SO_SNDBUF}} {
		if err := opt.set(64 << 10); err != nil {
			t.Fatal(err)
		}
		got, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, opt.name)
		if err != nil {
			t.Fatal(err)
		}
		if got < 64<<10 {
			t.Errorf("option %d: %d bytes after asking for 64 KiB", opt.name, got)
		}
	}
	c.Close()
	if err := c.SetReadBuffer(1 << 16); !errors.Is(err, net.ErrClosed) {
		t.Errorf("SetReadBuffer after Close: %v", err)
	}
}

// TestUDPConnSpectators: a host with three spectators over UDPConns on 127.0.0.1 sends each
// tick to its peer and to every spectator in one sendmmsg; every spectator plays the players'
// game to the end with the same checksums.
func TestUDPConnSpectators(t *testing.T) {
	u := newUDPPairWith(t, udpRaw)
	// Rebuild the host (session 0) to take spectators.
	host := u.sessions[0]
	hostAddr := host.tr.conn.LocalAddr().(*net.UDPAddr)
	peerAddr := u.sessions[1].tr.conn.LocalAddr().(*net.UDPAddr)
	host.Close()
	conn, err := ListenUDP("udp4", hostAddr)
	if err != nil {
		t.Fatal(err)
	}
	host, err = NewSession(conn, Config[testInput]{
		Players:    []Player{{Local: true}, {Addr: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: peerAddr.Port}}},
		Codec:      byteCodec{},
		Spectators: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Close() })
	u.sessions[0] = host
	u.games[0] = newTestGame(2, host.Slots(), 0, 1<<16)
	u.games[0].session = host

	var specs [3]*Session[testInput]
	var specGames [3]*testGame
	for i := range specs {
		c := listenUDPConn(t, "udp4", net.IPv4(127, 0, 0, 1))
		s, err := NewSpectator(c, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: hostAddr.Port}, 2, Config[testInput]{Codec: byteCodec{}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		specs[i], specGames[i] = s, newTestGame(2, s.Slots(), 0, 1<<16)
	}
	const ticks = 300
	all := []*Session[testInput]{u.sessions[0], u.sessions[1], specs[0], specs[1], specs[2]}
	spectate := func() {
		for i, s := range specs {
			for {
				reqs, err := s.Advance(u.now)
				if err != nil {
					if err != ErrNotSynchronized && err != ErrPredictionThreshold {
						t.Fatalf("spectator %d: %v", i, err)
					}
					break
				}
				if err := Run(reqs, Game[testInput](specGames[i])); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for done := false; !done; {
		// A tick of the players, then every session polled until all that was sent has
		// arrived (or a second has passed: UDP may lose packets).
		u.now += time.Second / 60
		for h, s := range u.sessions {
			if s.Tick() >= ticks {
				s.Poll(u.now)
				continue
			}
			s.AddLocalInput(h, u.games[h].LocalInput(h))
			reqs, err := s.Advance(u.now)
			if err == nil {
				err = Run(reqs, Game[testInput](u.games[h]))
			}
			if err != nil && err != ErrNotSynchronized && err != ErrPredictionThreshold {
				t.Fatal(err)
			}
		}
		spectate()
		deadline := time.Now().Add(time.Second)
		for time.Now().Before(deadline) {
			var sent, received uint64
			for _, s := range all {
				st := s.Stats()
				sent, received = sent+st.PacketsSent, received+st.PacketsReceived
			}
			if received >= sent {
				break
			}
			time.Sleep(100 * time.Microsecond)
			for _, s := range u.sessions {
				s.Poll(u.now)
			}
			spectate()
		}
		done = u.sessions[0].Tick() >= ticks && u.sessions[1].Tick() >= ticks
		for _, s := range specs {
			done = done && s.Tick() >= ticks-uint64(host.window)
		}
		if u.now > 60*time.Second {
			t.Fatalf("after a minute of game time: players at %d and %d, spectators at %d, %d, %d",
				u.sessions[0].Tick(), u.sessions[1].Tick(), specs[0].Tick(), specs[1].Tick(), specs[2].Tick())
		}
	}
	for i := range specs {
		for tick := uint64(1); tick <= ticks-uint64(host.window); tick++ {
			if specGames[i].sums[tick-1] != u.games[1].sums[tick-1] {
				t.Fatalf("spectator %d, tick %d: checksum %#x, the players' %#x", i, tick, specGames[i].sums[tick-1], u.games[1].sums[tick-1])
			}
		}
	}
	if st := host.Stats(); st.Spectators != 3 || st.SendErrors != 0 {
		t.Errorf("host: %d spectators, %d send errors", st.Spectators, st.SendErrors)
	}
}

// TestUDPConnCloseWhileUsed: Close while other goroutines read and write: every call ends
// with net.ErrClosed or succeeds, and each socket's descriptor is closed once, by the last
// call using it, so that none is left open (and none closed twice, which could close another
// file's).
func TestUDPConnCloseWhileUsed(t *testing.T) {
	count := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	before := count()
	for round := range 50 {
		c, err := ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		self := c.LocalAddr()
		done := make(chan error, 4)
		for g := range 4 {
			go func() {
				buf := make([]byte, 16)
				for {
					var err error
					if g%2 == 0 {
						_, err = c.WriteTo([]byte("x"), self)
					} else {
						c.SetReadDeadline(time.Now().Add(time.Millisecond))
						_, _, err = c.ReadFrom(buf)
					}
					if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
						done <- err
						return
					}
				}
			}()
		}
		time.Sleep(time.Duration(round%5) * time.Millisecond)
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		for range 4 {
			if err := <-done; !errors.Is(err, net.ErrClosed) {
				t.Errorf("round %d: a call ended with %v, want net.ErrClosed", round, err)
			}
		}
	}
	if after := count(); after > before {
		t.Errorf("%d descriptors open before, %d after 50 UDPConns closed while used", before, after)
	}
}
