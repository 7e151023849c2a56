package netsim

import (
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"os"
	"sync"
	"time"

	"github.com/gameloop-go/gameloop/internal/minheap"
)

// MaxPacketSize is the largest packet a Conn sends: a larger WriteTo returns an error, as a
// datagram larger than the path's MTU would. Each packet in flight holds a buffer this size.
const MaxPacketSize = 1500

// MaxQueued is the most packets in flight to one Conn. Like a socket's receive buffer, a
// packet that finds it full is dropped and counted (ConnStats.Overflowed), so that neither a
// sender nor a receiver that stops reading can grow memory without bound.
const MaxQueued = 4096

// Network is an in-memory network on simulated time, for tests that play minutes of a game in
// seconds, deterministically.
//
// Endpoints (Listen) are net.PacketConns named by address strings of the test's choosing. A
// packet written from one to another passes through the Link of that direction, under the
// Conditions set for it (SetConditions; by default none: delivered at once), and becomes
// readable once the network's time (Now, moved on by Advance and SetTime) reaches its delivery
// time. Packets are read in the order of their delivery times, ties in the order they were
// sent. Nothing happens by itself: time stands still until the test moves it, so the same
// seed and the same sequence of calls always give the same deliveries.
//
// A test that owns the loop polls: it writes, moves the time on, and reads with
// Conn.TryReadFrom until it reports nothing, at no allocation per packet. Conn.ReadFrom, which
// blocks until another goroutine moves the time on, is there for code that reads in a
// goroutine of its own.
//
// A Network is safe for concurrent use; one mutex guards it all. Make one with NewNetwork.
type Network struct {
	mu     sync.Mutex
	seed   uint64
	now    time.Duration
	seq    uint64 // packets enqueued so far: the tie-break between equal delivery times
	conns  map[string]*Conn
	routes map[routeKey]*route
	free   []*packet     // buffers of delivered packets, for the next ones
	wake   chan struct{} // closed when readers blocked in ReadFrom should look again; nil when none waits
}

type routeKey struct{ from, to string }

// route is one direction between two names.
type route struct {
	link       *Link
	cut        bool
	cutDropped int64
}

// packet is one copy of a datagram in flight.
type packet struct {
	at   time.Duration
	seq  uint64
	from *Addr
	n    int
	buf  [MaxPacketSize]byte
}

// NewNetwork returns a network at time 0 with no endpoints, whose links draw their randomness
// from seed: each direction between two names has a generator of its own, seeded from seed
// and the two names, so adding traffic on one route does not change what happens on another.
func NewNetwork(seed uint64) *Network {
	return &Network{
		seed:   seed,
		conns:  make(map[string]*Conn),
		routes: make(map[routeKey]*route),
	}
}

// Listen makes an endpoint named name: packets written to an address whose String is name
// reach it. The name is free again once the endpoint is closed.
func (n *Network) Listen(name string) (*Conn, error) {
	if name == "" {
		return nil, errors.New("netsim: Listen: the name is empty")
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.conns[name]; ok {
		return nil, fmt.Errorf("netsim: Listen: %q is in use", name)
	}
	c := &Conn{net: n, addr: Addr{name: name}, closed: make(chan struct{})}
	n.conns[name] = c
	return c, nil
}

// SetConditions sets the conditions of the packets sent from from to to, from now on; those
// in flight keep their delivery times. Set each direction on its own; unset ones are perfect.
// It panics if c is not valid (see Conditions.Validate).
func (n *Network) SetConditions(from, to string, c Conditions) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.route(from, to).link.SetConditions(c)
}

// Cut starts (cut true) or ends an outage between a and b: while cut, every packet sent either
// way is dropped (RouteStats.Cut). Packets already in flight still arrive.
func (n *Network) Cut(a, b string, cut bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.route(a, b).cut = cut
	n.route(b, a).cut = cut
}

// CutOneWay starts (cut true) or ends an outage of the packets sent from from to to, the other
// direction untouched: the way Wi-Fi or a NAT loses one direction of a link. Packets already in
// flight still arrive.
func (n *Network) CutOneWay(from, to string, cut bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.route(from, to).cut = cut
}

// RouteStats counts what happened to the packets sent from one name to another.
type RouteStats struct {
	LinkStats       // the link's own counts, for the packets sent while not cut
	Cut       int64 // packets dropped because the route was cut
}

// Stats returns the counts of the packets sent from from to to so far.
func (n *Network) Stats(from, to string) RouteStats {
	n.mu.Lock()
	defer n.mu.Unlock()
	r := n.routes[routeKey{from, to}]
	if r == nil {
		return RouteStats{}
	}
	return RouteStats{LinkStats: r.link.Stats(), Cut: r.cutDropped}
}

// Now returns the network's time: 0 when made, then as Advance and SetTime move it.
func (n *Network) Now() time.Duration {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.now
}

// Advance moves the network's time on by d, making readable the packets due by then.
// The time saturates at the largest Duration. It panics if d is negative.
func (n *Network) Advance(d time.Duration) {
	if d < 0 {
		panic(fmt.Sprintf("netsim: Advance(%v): time cannot go back", d))
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.now = addSat(n.now, d)
	n.wakeReaders()
}

// SetTime moves the network's time to now, as when following a gameloop.ManualClock's elapsed
// time. It panics if now is before Now: simulated time only goes forward.
func (n *Network) SetTime(now time.Duration) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if now < n.now {
		panic(fmt.Sprintf("netsim: SetTime(%v) is before the network's time %v: time cannot go back", now, n.now))
	}
	n.now = now
	n.wakeReaders()
}

// NextDelivery returns the earliest delivery time of the packets in flight to any endpoint,
// and false if none is in flight: a test can move the time straight there.
func (n *Network) NextDelivery() (time.Duration, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var next time.Duration
	found := false
	for _, c := range n.conns {
		if len(c.queue) > 0 && (!found || c.queue[0].at < next) {
			next, found = c.queue[0].at, true
		}
	}
	return next, found
}

// route returns the route from from to to, made on first use. n.mu is held.
func (n *Network) route(from, to string) *route {
	k := routeKey{from, to}
	r := n.routes[k]
	if r == nil {
		h := fnv.New64a()
		h.Write([]byte(from))
		h.Write([]byte{0})
		h.Write([]byte(to))
		r = &route{link: NewLink(Conditions{}, mix(n.seed^h.Sum64()))}
		n.routes[k] = r
	}
	return r
}

// mix is SplitMix64's finaliser: nearby seeds give unrelated ones.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// wakeReaders wakes the readers blocked in ReadFrom, to look again. n.mu is held.
func (n *Network) wakeReaders() {
	if n.wake != nil {
		close(n.wake)
		n.wake = nil
	}
}

// newPacket returns a packet buffer, reusing a delivered one. n.mu is held.
func (n *Network) newPacket() *packet {
	if k := len(n.free); k > 0 {
		p := n.free[k-1]
		n.free = n.free[:k-1]
		return p
	}
	return new(packet)
}

// Addr is the address of a Network's endpoint: its name. Each endpoint has one Addr, made
// with it, so that handing it out allocates nothing.
type Addr struct{ name string }

// Network returns "netsim".
func (a *Addr) Network() string { return "netsim" }

// String returns the endpoint's name.
func (a *Addr) String() string { return a.name }

// Conn is an endpoint of a Network: a net.PacketConn whose packets travel on simulated time.
// Writes never block. Its deadlines are compared with real time, and only by ReadFrom.
type Conn struct {
	net    *Network
	addr   Addr
	closed chan struct{} // closed by Close

	// Guarded by net.mu:
	queue        []*packet // min-heap by (at, seq)
	isClosed     bool
	readDeadline time.Time
	stats        ConnStats
}

// ConnStats counts one endpoint's traffic.
type ConnStats struct {
	Sent, SentBytes         int64 // packets and bytes written (all of them, whatever their fate)
	Received, ReceivedBytes int64 // packets and bytes read
	Unreachable             int64 // packets written to an address with no endpoint, dropped
	Overflowed              int64 // packets to this endpoint dropped because MaxQueued were in flight
}

var _ net.PacketConn = (*Conn)(nil)

// Stats returns the endpoint's counts so far.
func (c *Conn) Stats() ConnStats {
	c.net.mu.Lock()
	defer c.net.mu.Unlock()
	return c.stats
}

// LocalAddr returns the endpoint's address, an *Addr.
func (c *Conn) LocalAddr() net.Addr { return &c.addr }

// WriteTo sends p to the endpoint named addr.String() under the conditions of that direction
// and returns len(p). As with UDP, a packet to a name with no endpoint is dropped without an
// error (and counted, ConnStats.Unreachable). It returns an error if p is larger than
// MaxPacketSize, addr is nil or the conn is closed. It does not allocate in steady state when
// addr is an *Addr.
func (c *Conn) WriteTo(p []byte, addr net.Addr) (int, error) {
	if len(p) > MaxPacketSize {
		return 0, c.opError("write", addr, fmt.Errorf("netsim: packet of %d bytes is larger than %d", len(p), MaxPacketSize))
	}
	if addr == nil {
		return 0, c.opError("write", nil, errors.New("netsim: no address"))
	}
	to := ""
	if a, ok := addr.(*Addr); ok {
		to = a.name
	} else {
		to = addr.String()
	}
	n := c.net
	n.mu.Lock()
	defer n.mu.Unlock()
	if c.isClosed {
		return 0, c.opError("write", addr, net.ErrClosed)
	}
	c.stats.Sent++
	c.stats.SentBytes += int64(len(p))
	dst := n.conns[to]
	if dst == nil {
		c.stats.Unreachable++
		return len(p), nil
	}
	r := n.route(c.addr.name, to)
	if r.cut {
		r.cutDropped++
		return len(p), nil
	}
	at, copies := r.link.Send(n.now, len(p))
	for i := range copies {
		if len(dst.queue) >= MaxQueued {
			dst.stats.Overflowed++
			continue
		}
		pk := n.newPacket()
		pk.at, pk.seq, pk.from, pk.n = at[i], n.seq, &c.addr, copy(pk.buf[:], p)
		n.seq++
		dst.queue = minheap.Push(dst.queue, pk, less)
		if pk.at <= n.now {
			n.wakeReaders()
		}
	}
	return len(p), nil
}

// TryReadFrom reads the next packet deliverable at the network's current time into p, without
// blocking: ok is false if there is none (or the conn is closed). As with UDP, a packet longer
// than p is truncated to it. addr is the sender's *Addr. It does not allocate.
func (c *Conn) TryReadFrom(p []byte) (n int, addr net.Addr, ok bool) {
	c.net.mu.Lock()
	defer c.net.mu.Unlock()
	return c.tryRead(p)
}

// tryRead is TryReadFrom with c.net.mu held.
func (c *Conn) tryRead(p []byte) (int, net.Addr, bool) {
	if c.isClosed || len(c.queue) == 0 || c.queue[0].at > c.net.now {
		return 0, nil, false
	}
	var pk *packet
	pk, c.queue = minheap.Pop(c.queue, less)
	k := copy(p, pk.buf[:pk.n])
	c.stats.Received++
	c.stats.ReceivedBytes += int64(k)
	from := pk.from
	pk.from = nil
	c.net.free = append(c.net.free, pk)
	return k, from, true
}

// ReadFrom reads the next packet into p, blocking until one is deliverable (another goroutine
// moves the network's time on), the read deadline passes (compared with real time; the error
// is then os.ErrDeadlineExceeded, a timeout) or the conn is closed (net.ErrClosed).
// A caller that owns the network's time should poll TryReadFrom instead.
func (c *Conn) ReadFrom(p []byte) (int, net.Addr, error) {
	n := c.net
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		n.mu.Lock()
		if c.isClosed {
			n.mu.Unlock()
			return 0, nil, c.opError("read", nil, net.ErrClosed)
		}
		if k, from, ok := c.tryRead(p); ok {
			n.mu.Unlock()
			return k, from, nil
		}
		deadline := c.readDeadline
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			n.mu.Unlock()
			return 0, nil, c.opError("read", nil, os.ErrDeadlineExceeded)
		}
		if n.wake == nil {
			n.wake = make(chan struct{})
		}
		wake := n.wake
		n.mu.Unlock()

		var expired <-chan time.Time
		if !deadline.IsZero() {
			if timer == nil {
				timer = time.NewTimer(time.Until(deadline))
			} else {
				timer.Reset(time.Until(deadline))
			}
			expired = timer.C
		}
		select {
		case <-wake:
		case <-expired:
		case <-c.closed:
		}
	}
}

// Close closes the endpoint: its packets in flight are dropped, blocked reads return
// net.ErrClosed, and its name is free for Listen again. Closing twice returns an error.
func (c *Conn) Close() error {
	n := c.net
	n.mu.Lock()
	defer n.mu.Unlock()
	if c.isClosed {
		return c.opError("close", nil, net.ErrClosed)
	}
	c.isClosed = true
	close(c.closed)
	if n.conns[c.addr.name] == c {
		delete(n.conns, c.addr.name)
	}
	for _, pk := range c.queue {
		pk.from = nil
		n.free = append(n.free, pk)
	}
	c.queue = nil
	return nil
}

// SetDeadline sets the read deadline (writes never block).
func (c *Conn) SetDeadline(t time.Time) error { return c.SetReadDeadline(t) }

// SetReadDeadline sets the real time after which ReadFrom gives up; the zero time means never.
// It wakes a blocked ReadFrom to look at the new deadline.
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.net.mu.Lock()
	defer c.net.mu.Unlock()
	c.readDeadline = t
	c.net.wakeReaders()
	return nil
}

// SetWriteDeadline does nothing: writes never block.
func (c *Conn) SetWriteDeadline(time.Time) error { return nil }

func (c *Conn) opError(op string, addr net.Addr, err error) error {
	return &net.OpError{Op: op, Net: "netsim", Source: &c.addr, Addr: addr, Err: err}
}

// less orders packets by delivery time, ties by the order they were sent.
func less(a, b *packet) bool {
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}
