package netplay

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// tryReader is a conn that can be polled without blocking, as netsim's Conn is.
type tryReader interface {
	TryReadFrom(p []byte) (n int, addr net.Addr, ok bool)
}

const (
	// readBufSize is the size of a receive buffer: larger than any packet of the protocol
	// (wire.MaxPacket), so that a longer one is seen as such and dropped.
	readBufSize = 1500
	// ringPackets is how many packets the reader goroutine holds for Poll: several ticks'
	// worth from every peer, as a socket's receive buffer would hold.
	ringPackets = 64
	// maxReadErrors is how many read errors in a row, other than timeouts, end the reader:
	// the conn is broken, not having a bad moment.
	maxReadErrors = 10
	// maxReadBackoff is the longest the reader waits after an error before it reads again,
	// so that a conn that fails at once, again and again, does not keep a core busy.
	maxReadBackoff = 100 * time.Millisecond
)

// packet is a received packet in the reader's ring.
type packet struct {
	buf  [readBufSize]byte
	n    int
	addr net.Addr       // the sender, for a conn that is not a *net.UDPConn
	ap   netip.AddrPort // the sender, for a *net.UDPConn
}

// transport sends and receives packets over a net.PacketConn: a UDPConn's socket with system
// calls made directly, by polling TryReadFrom where the conn has it, a *net.UDPConn's socket
// directly where the platform allows (Linux), or else through one reader goroutine and a fixed
// ring of packets.
type transport struct {
	conn      net.PacketConn
	raw       *UDPConn  // read and written directly (Linux)
	batch     *udpBatch // raw's packets read and not yet taken
	udp       *net.UDPConn
	connected bool // udp is connected to its one peer: it writes with Write
	try       tryReader
	poll      *udpPoller // udp read from the session's calls, where the platform allows
	failures  int        // read errors in a row of the poller
	// The peers' addresses, for the reader to drop what others send before it takes a
	// slot of the ring: peerAPs over a *net.UDPConn, peerAddrs over another conn.
	peerAPs   []netip.AddrPort
	peerAddrs []net.Addr
	// The spectators' addresses, which come and go (under mu).
	extraAPs   []netip.AddrPort
	extraAddrs []net.Addr

	mu         sync.Mutex
	ring       *[ringPackets]packet
	head, used int
	overflowed uint64 // packets the reader dropped because the ring was full
	strangers  uint64 // packets the reader dropped because no peer sent them
	readErrors uint64
	err        error // why the conn can no longer be used, once it cannot
	closed     bool
	quit       chan struct{} // closed by close, to end the reader's wait after an error
	done       chan struct{}
}

// newTransport returns a transport over conn to the peers at addrs.
func newTransport(conn net.PacketConn, addrs []net.Addr) *transport {
	t := &transport{conn: conn}
	if tr, ok := conn.(tryReader); ok {
		t.try = tr
		return t
	}
	t.udp, _ = conn.(*net.UDPConn)
	if c, ok := conn.(*UDPConn); ok {
		if t.udp = c.netUDP(); t.udp == nil {
			t.raw, t.batch = c, newUDPBatch()
			return t
		}
	}
	if t.udp != nil {
		t.connected = t.udp.RemoteAddr() != nil
		if t.poll = newUDPPoller(t.udp); t.poll != nil {
			return t
		}
		for _, a := range addrs {
			t.peerAPs = append(t.peerAPs, udpAddrPort(a))
		}
	} else {
		t.peerAddrs = addrs
	}
	t.ring = new([ringPackets]packet)
	t.done = make(chan struct{})
	t.quit = make(chan struct{})
	go t.read()
	return t
}

// read is the reader goroutine: it reads packets into the ring until the conn is closed or
// fails. A read error is counted; the reader waits a little before it reads again, longer
// after each error in a row, and ends on net.ErrClosed, io.EOF or maxReadErrors errors in a
// row other than timeouts, keeping the error for the session to return.
func (t *transport) read() {
	defer close(t.done)
	var p packet
	failures := 0
	for {
		var err error
		if t.udp != nil {
			p.n, p.ap, err = t.udp.ReadFromUDPAddrPort(p.buf[:])
		} else {
			p.n, p.addr, err = t.conn.ReadFrom(p.buf[:])
		}
		if err == nil {
			failures = 0
		} else if !isTimeout(err) {
			failures++
		}
		fatal := err != nil && (errors.Is(err, net.ErrClosed) || errors.Is(err, io.EOF) || failures >= maxReadErrors)
		t.mu.Lock()
		closed := t.closed
		switch {
		case closed:
		case err != nil:
			t.readErrors++
			if fatal && t.err == nil {
				t.err = err
			}
		case !t.fromPeer(&p) && (t.used >= ringPackets/2 || !joinRequest(p.buf[:p.n])):
			// Not a peer's: dropped here, so that a flood of them cannot crowd the
			// peers' packets out of the ring. A handshake may be a player at the wrong
			// door, whom the session answers, while the ring is at most half full.
			t.strangers++
		case t.used == ringPackets:
			t.overflowed++
		default:
			slot := &t.ring[(t.head+t.used)%ringPackets]
			slot.n, slot.addr, slot.ap = p.n, p.addr, p.ap
			copy(slot.buf[:p.n], p.buf[:p.n])
			t.used++
		}
		t.mu.Unlock()
		if closed || fatal {
			return
		}
		if err != nil {
			wait := min(time.Millisecond<<min(max(failures-1, 0), 7), maxReadBackoff)
			timer := time.NewTimer(wait)
			select {
			case <-timer.C:
			case <-t.quit:
				timer.Stop()
				return
			}
		}
	}
}

// fromPeer reports whether p was sent by a peer or a spectator; t.mu is held.
func (t *transport) fromPeer(p *packet) bool {
	if p.ap.IsValid() {
		ap := netip.AddrPortFrom(p.ap.Addr().Unmap(), p.ap.Port())
		return slices.Contains(t.peerAPs, ap) || slices.Contains(t.extraAPs, ap)
	}
	for _, list := range [2][]net.Addr{t.peerAddrs, t.extraAddrs} {
		for _, a := range list {
			if sameAddr(p.addr, a) {
				return true
			}
		}
	}
	return false
}

// admit lets the packets of a spectator at addr (ap over UDP) through to the session.
func (t *transport) admit(addr net.Addr, ap netip.AddrPort) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ap.IsValid() {
		t.extraAPs = append(t.extraAPs, ap)
	} else {
		t.extraAddrs = append(t.extraAddrs, addr)
	}
}

// dismiss undoes admit.
func (t *transport) dismiss(addr net.Addr, ap netip.AddrPort) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ap.IsValid() {
		if i := slices.Index(t.extraAPs, ap); i >= 0 {
			t.extraAPs = slices.Delete(t.extraAPs, i, i+1)
		}
		return
	}
	for i, a := range t.extraAddrs {
		if sameAddr(a, addr) {
			t.extraAddrs = slices.Delete(t.extraAddrs, i, i+1)
			return
		}
	}
}

// joinRequest reports whether b is a handshake request of a player or of a spectator.
func joinRequest(b []byte) bool {
	var m wire.Message
	return wire.Decode(b, &m) == nil && (m.Kind == wire.KindSyncRequest || m.Kind == wire.KindSpectate)
}

// isTimeout reports whether err is a timeout (a read deadline passed).
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// next copies the next packet received into p and reports whether there was one.
func (t *transport) next(p *packet) bool {
	if t.raw != nil {
		return t.nextRaw(p)
	}
	if t.poll != nil {
		return t.nextPolled(p)
	}
	if t.try != nil {
		n, addr, ok := t.try.TryReadFrom(p.buf[:])
		p.n, p.addr = n, addr
		return ok
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.used == 0 {
		return false
	}
	slot := &t.ring[t.head]
	p.n, p.addr, p.ap = slot.n, slot.addr, slot.ap
	copy(p.buf[:slot.n], slot.buf[:slot.n])
	t.head = (t.head + 1) % ringPackets
	t.used--
	return true
}

// nextRaw is next for a UDPConn: a packet of the last batch read, or of a new one. Once a
// batch came short (the socket had no more), the call after its last packet reports none
// without asking the socket again: what arrives meanwhile waits for the next poll.
func (t *transport) nextRaw(p *packet) bool {
	b := t.batch
	if b.next == b.n {
		if b.drained {
			b.drained = false
			return false
		}
		n, err := t.raw.tryRecv(b)
		if err != nil {
			return t.readFailed(err)
		}
		t.failures = 0
		b.next, b.n, b.drained = 0, n, n < batchPackets
		if n == 0 {
			return false
		}
	}
	b.packet(b.next, p)
	b.next++
	return true
}

// nextPolled is next for a polled UDP socket.
func (t *transport) nextPolled(p *packet) bool {
	n, ap, err := t.poll.read(p.buf[:])
	if err != nil {
		return t.readFailed(err)
	}
	t.failures = 0
	p.n, p.ap, p.addr = n, ap, nil
	return true
}

// readFailed counts a read error of a socket read from the session's calls and returns false.
// An error ends this poll (a socket that fails at once does not keep the session spinning);
// maxReadErrors in a row, other than a connected socket's refusals (its peer not there yet),
// or the conn closed, and the conn has failed.
func (t *transport) readFailed(err error) bool {
	if err == errNoPacket {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if errors.Is(err, net.ErrClosed) {
		if t.err == nil && !t.closed {
			t.err = err
		}
		return false
	}
	t.readErrors++
	if !refusedErr(err) {
		if t.failures++; t.failures >= maxReadErrors && t.err == nil {
			t.err = err
		}
	}
	return false
}

// send writes b to the peer at addr (ap for a UDP conn); over a UDPConn it queues b, and flush
// sends it. An error that says the conn is closed is kept for the session to return, as the
// reader keeps its own.
func (t *transport) send(b []byte, addr net.Addr, ap netip.AddrPort) error {
	var err error
	if t.raw != nil {
		err = t.raw.queue(b, ap, t.batch)
	} else if t.connected {
		_, err = t.udp.Write(b) // its one peer: NewSession checked
	} else if t.udp != nil && ap.IsValid() {
		_, err = t.udp.WriteToUDPAddrPort(b, ap)
	} else {
		_, err = t.conn.WriteTo(b, addr)
	}
	t.sendFailed(err)
	return err
}

// flush sends the packets send queued (over a UDPConn, with one sendmmsg) and returns how many
// of them failed.
func (t *transport) flush() int {
	if t.raw == nil || t.batch.queued == 0 {
		return 0
	}
	failed, err := t.raw.flush(t.batch)
	t.sendFailed(err)
	return failed
}

// sendFailed keeps err, if it says the conn is closed, for the session to return.
func (t *transport) sendFailed(err error) {
	if err != nil && errors.Is(err, net.ErrClosed) {
		t.mu.Lock()
		if t.err == nil && !t.closed {
			t.err = err
		}
		t.mu.Unlock()
	}
}

// failed returns why the conn can no longer be used (closed under the session, or failing
// every read), or nil.
func (t *transport) failed() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// counts returns the packets the reader dropped and the read errors it met.
func (t *transport) counts() (overflowed, readErrors uint64) {
	if t.try != nil {
		return 0, 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.overflowed + t.strangers, t.readErrors
}

// close closes the conn and waits for the reader goroutine, if any, to end.
func (t *transport) close() error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	if t.quit != nil {
		close(t.quit)
	}
	err := t.conn.Close()
	if t.done != nil {
		<-t.done
	}
	return err
}

// sameAddr reports whether a, the sender of a packet, is b, a peer's address.
func sameAddr(a, b net.Addr) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	return a.Network() == b.Network() && a.String() == b.String()
}

// udpAddrPort returns addr as an unmapped netip.AddrPort, if it is a UDP address.
func udpAddrPort(addr net.Addr) netip.AddrPort {
	u, ok := addr.(*net.UDPAddr)
	if !ok {
		return netip.AddrPort{}
	}
	ap := u.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
}

// IsHandshake reports whether packet is a session's handshake request, the first packet a
// session sends its peer (of this version of the protocol). A program that learns its peer's
// address from the first packet to arrive, as a host waiting for a player to join does, takes
// the sender of a packet for which IsHandshake is true, and ignores the others: a port scan,
// a stray or late packet of an earlier game, or any other traffic is not a peer. It does not
// allocate.
func IsHandshake(packet []byte) bool {
	var m wire.Message
	return wire.Decode(packet, &m) == nil && m.Kind == wire.KindSyncRequest
}

// checkAddrs checks that conn can reach and hear every remote player's address: not its own
// (a session would synchronise with itself), and over a *net.UDPConn or a UDPConn a *net.UDPAddr with an
// IP address and a port (an unspecified address, as ":7000" resolves to, reaches no one) of a
// family the socket speaks, and over a connected socket (net.DialUDP) the address it is
// connected to.
func checkAddrs(conn net.PacketConn, players []Player) error {
	bad := func(h int, addr net.Addr, why string) error {
		return fmt.Errorf("netplay: Config.Players[%d].Addr = %v: %s", h, addr, why)
	}
	local := conn.LocalAddr()
	udp, _ := conn.(*net.UDPConn)
	_, isUDP := conn.(*UDPConn)
	isUDP = isUDP || udp != nil
	var localAP, remoteAP netip.AddrPort
	if isUDP {
		localAP = udpAddrPort(local)
	}
	if udp != nil {
		if r := udp.RemoteAddr(); r != nil {
			remoteAP = udpAddrPort(r)
		}
	}
	var ifaces []netip.Addr // this machine's addresses, for a socket bound to all of them
	for h, p := range players {
		if p.Local {
			continue
		}
		if local != nil && sameAddr(p.Addr, local) {
			return bad(h, p.Addr, "the conn's own address: the session would talk to itself")
		}
		if !isUDP {
			continue
		}
		_, ok := p.Addr.(*net.UDPAddr)
		ap := udpAddrPort(p.Addr)
		if !ok || !ap.IsValid() || ap.Addr().IsUnspecified() || ap.Port() == 0 {
			return bad(h, p.Addr, fmt.Sprintf("a UDP conn needs a *net.UDPAddr with an IP address and a port, not a %T", p.Addr))
		}
		if remoteAP.IsValid() && ap != remoteAP {
			return bad(h, p.Addr, fmt.Sprintf("the conn is connected to %v (net.DialUDP), and reaches no other address", remoteAP))
		}
		if !localAP.IsValid() {
			continue
		}
		switch la := localAP.Addr(); {
		case la.Is4() && !ap.Addr().Is4():
			return bad(h, p.Addr, fmt.Sprintf("an IPv6 address, and the conn is bound to the IPv4 address %v", la))
		case la.Is6() && !la.IsUnspecified() && ap.Addr().Is4():
			return bad(h, p.Addr, fmt.Sprintf("an IPv4 address, and the conn is bound to the IPv6 address %v", la))
		}
		if ap.Port() != localAP.Port() {
			continue
		}
		if ap.Addr() == localAP.Addr() || localAP.Addr().IsUnspecified() && ap.Addr().IsLoopback() {
			return bad(h, p.Addr, fmt.Sprintf("the conn's own address (%v): the session would talk to itself", local))
		}
		if localAP.Addr().IsUnspecified() {
			if ifaces == nil {
				ifaces = interfaceAddrs()
			}
			for _, a := range ifaces {
				if a == ap.Addr() {
					return bad(h, p.Addr, fmt.Sprintf("the conn's own address (%v, bound to every address of this machine): the session would talk to itself", local))
				}
			}
		}
	}
	return nil
}

// interfaceAddrs returns this machine's IP addresses, unmapped (none if they cannot be read).
func interfaceAddrs() []netip.Addr {
	addrs, err := net.InterfaceAddrs()
	out := []netip.Addr{}
	if err != nil {
		return out
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(n.IP); ok {
				out = append(out, ip.Unmap())
			}
		}
	}
	return out
}
