package rtc

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/gameloop-go/gameloop/netplay"
	"github.com/pion/webrtc/v4"
)

// MaxDatagram is the largest datagram WriteTo sends and the largest a Conn takes from a peer
// (a larger one is dropped and counted in Stats.Oversized): it fits one SCTP chunk on a path
// of the usual MTU, so that a datagram is never split and lost in part. netplay's packets are
// at most 508 bytes.
const MaxDatagram = 1200

// DefaultQueueLen is how many received datagrams a Conn holds for reading, by default.
const DefaultQueueLen = 256

// maxBuffered is how many bytes may wait in a data channel's send buffer (the network being
// slower than the writer): past it WriteTo drops the datagram, as a full socket buffer would.
const maxBuffered = 256 << 10

// ErrPeerClosed is the error WriteTo returns for a member whose data channel has closed: it
// left, or the connection with it failed. The Conn goes on with the others.
var ErrPeerClosed = errors.New("rtc: the member's data channel is closed")

// Addr is the address of a member of a room: the room's name and the member's index, the
// order in which it joined, from 0. Addresses compare equal with == when they name the same
// member, and so do the net.Addr values holding them, as netplay compares addresses.
type Addr struct {
	Room  string
	Index int
}

// Network returns "rtc".
func (a Addr) Network() string { return "rtc" }

// String returns "rtc:ROOM/INDEX", such as "rtc:duel/1".
func (a Addr) String() string { return "rtc:" + a.Room + "/" + strconv.Itoa(a.Index) }

// Stats counts a Conn's traffic: payload only.
type Stats struct {
	PacketsSent, BytesSent         uint64 // datagrams and bytes handed to a data channel
	PacketsReceived, BytesReceived uint64 // datagrams and bytes received and queued for reading
	// SendDropped counts the datagrams WriteTo dropped because the channel's send buffer
	// was full (the network slower than the writer), as a socket drops them.
	SendDropped uint64
	// Dropped counts the datagrams received and dropped because the queue was full (the
	// reader slower than the network); Oversized those over MaxDatagram.
	Dropped, Oversized uint64
	// Closed counts the members whose data channel has closed.
	Closed int
	// WireBytesSent and WireBytesReceived are what the peer connections' transports sent
	// and received, over all members: the UDP payloads, DTLS records carrying the data
	// channels' SCTP packets, with their headers, acknowledgements and ICE's checks (UDP and
	// IP headers excluded, as in netplay's counts). 0 in a browser.
	WireBytesSent, WireBytesReceived uint64
}

// received is a datagram waiting to be read.
type received struct {
	data []byte // owned: each message is a new slice
	from int
}

// member is the connection with one other member of the room.
type member struct {
	pc     *webrtc.PeerConnection
	dc     *webrtc.DataChannel
	closed bool // the channel has closed (under Conn.mu)
}

// Conn is a net.PacketConn over WebRTC data channels to the other members of a room, each
// unordered and never retransmitted: datagrams, as UDP's. Make one with Dial.
//
// Its addresses are Addrs: LocalAddr is this member's, PeerAddr(i) member i's, and ReadFrom
// reports the sender's. Received datagrams wait in a bounded queue (Options.QueueLen; when it
// is full they are dropped and counted) for ReadFrom, which blocks, or TryReadFrom, which
// polls: netplay polls a Conn from its own calls, with no goroutine. WriteTo never blocks.
//
// A Conn is safe for concurrent use.
type Conn struct {
	local   Addr
	size    int
	addrs   []net.Addr // by index, made once so that handing them out allocates nothing
	members []*member  // by index; nil at the local index

	mu       sync.Mutex
	queue    []received // a ring
	head     int
	used     int
	closed   bool
	done     chan struct{} // closed by Close
	wake     chan struct{} // closed when readers blocked in ReadFrom should look again
	deadline time.Time
	stats    Stats
	// flushTimeout bounds Close's wait for the datagrams written to be sent.
	flushTimeout time.Duration
}

var _ net.PacketConn = (*Conn)(nil)

// newConn returns the Conn of member index of a room of size, its members to be connected.
func newConn(room string, index, size, queueLen int) *Conn {
	c := &Conn{local: Addr{Room: room, Index: index}, size: size, members: make([]*member, size),
		queue: make([]received, queueLen), done: make(chan struct{}), flushTimeout: FlushTimeout}
	for i := range size {
		c.addrs = append(c.addrs, Addr{Room: room, Index: i})
	}
	return c
}

// Index returns this member's index in the room: 0 to Size()-1, the order in which the
// members joined. Every member of a room agrees on every member's index, so that programs
// can give players their handles from it.
func (c *Conn) Index() int { return c.local.Index }

// Size returns the number of members of the room, this one included.
func (c *Conn) Size() int { return c.size }

// PeerAddr returns the address of member i (LocalAddr for this member's own index). It panics
// if i is not between 0 and Size()-1.
func (c *Conn) PeerAddr(i int) net.Addr { return c.addrs[i] }

// Players returns the players of a netplay session with a player per member, in the order of
// their indices: this member's is Local, the others' have their Addr. Every member passes the
// same list, each with its own marked, as netplay.Config.Players wants.
func (c *Conn) Players() []netplay.Player {
	players := make([]netplay.Player, c.size)
	for i := range players {
		if i == c.local.Index {
			players[i].Local = true
		} else {
			players[i].Addr = c.addrs[i]
		}
	}
	return players
}

// Open reports whether the data channel with member i is open: false for a member that has
// left or whose connection failed, and for this member's own index.
func (c *Conn) Open(i int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return i >= 0 && i < c.size && c.members[i] != nil && !c.members[i].closed && !c.closed
}

// Stats returns the Conn's counts so far.
func (c *Conn) Stats() Stats {
	c.mu.Lock()
	st := c.stats
	c.mu.Unlock()
	for _, m := range c.members {
		if m != nil && m.pc != nil {
			sent, received := transportBytes(m.pc)
			st.WireBytesSent += sent
			st.WireBytesReceived += received
		}
	}
	return st
}

// LocalAddr returns this member's Addr.
func (c *Conn) LocalAddr() net.Addr { return c.addrs[c.local.Index] }

// deliver queues a datagram data from member i; pion's callback calls it.
func (c *Conn) deliver(i int, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed:
		return
	case len(data) > MaxDatagram:
		c.stats.Oversized++
		return
	case c.used == len(c.queue):
		c.stats.Dropped++
		return
	}
	c.queue[(c.head+c.used)%len(c.queue)] = received{data: data, from: i}
	c.used++
	c.stats.PacketsReceived++
	c.stats.BytesReceived += uint64(len(data))
	c.wakeLocked()
}

// memberClosed marks member i's channel closed: nothing more is written to it. What it
// delivered before it closed (its goodbye, often, a moment before) is still read.
func (c *Conn) memberClosed(i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.members[i]; m != nil && !m.closed {
		m.closed = true
		c.stats.Closed++
	}
}

// wakeLocked wakes the readers blocked in ReadFrom. c.mu is held.
func (c *Conn) wakeLocked() {
	if c.wake != nil {
		close(c.wake)
		c.wake = nil
	}
}

// TryReadFrom reads the next datagram received into p without blocking: ok is false if there
// is none or the Conn is closed. As with UDP, a datagram longer than p is cut to it. addr is
// the sender's Addr. It does not allocate.
func (c *Conn) TryReadFrom(p []byte) (n int, addr net.Addr, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tryReadLocked(p)
}

func (c *Conn) tryReadLocked(p []byte) (int, net.Addr, bool) {
	if c.closed || c.used == 0 {
		return 0, nil, false
	}
	r := c.queue[c.head]
	c.queue[c.head] = received{}
	c.head = (c.head + 1) % len(c.queue)
	c.used--
	return copy(p, r.data), c.addrs[r.from], true
}

// ReadFrom reads the next datagram received into p, blocking until one comes, the read
// deadline passes (os.ErrDeadlineExceeded, a timeout) or the Conn is closed (net.ErrClosed).
// As with UDP, a datagram longer than p is cut to it.
func (c *Conn) ReadFrom(p []byte) (int, net.Addr, error) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return 0, nil, c.opError("read", nil, net.ErrClosed)
		}
		if n, addr, ok := c.tryReadLocked(p); ok {
			c.mu.Unlock()
			return n, addr, nil
		}
		deadline := c.deadline
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			c.mu.Unlock()
			return 0, nil, c.opError("read", nil, os.ErrDeadlineExceeded)
		}
		if c.wake == nil {
			c.wake = make(chan struct{})
		}
		wake := c.wake
		c.mu.Unlock()

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
		case <-c.done:
		}
	}
}

// WriteTo sends p to the member at addr over its data channel and returns len(p). It never
// blocks: a datagram that finds the channel's send buffer full is dropped (Stats.SendDropped)
// with no error, as a socket drops one. It returns an error if p is over MaxDatagram bytes,
// addr is no other member's (an *net.OpError), the member's channel has closed
// (ErrPeerClosed: the Conn goes on with the others) or the Conn is closed (net.ErrClosed).
func (c *Conn) WriteTo(p []byte, addr net.Addr) (int, error) {
	if len(p) > MaxDatagram {
		return 0, c.opError("write", addr, fmt.Errorf("rtc: a datagram of %d bytes is larger than %d", len(p), MaxDatagram))
	}
	i := c.indexOf(addr)
	if i < 0 {
		return 0, c.opError("write", addr, errors.New("rtc: no other member of the room has this address"))
	}
	c.mu.Lock()
	m := c.members[i]
	switch {
	case c.closed:
		c.mu.Unlock()
		return 0, c.opError("write", addr, net.ErrClosed)
	case m.closed:
		c.mu.Unlock()
		return 0, c.opError("write", addr, ErrPeerClosed)
	}
	c.mu.Unlock()
	if m.dc.BufferedAmount() > maxBuffered {
		c.mu.Lock()
		c.stats.SendDropped++
		c.mu.Unlock()
		return len(p), nil
	}
	if err := m.dc.Send(p); err != nil {
		if m.dc.ReadyState() != webrtc.DataChannelStateOpen {
			c.memberClosed(i)
			err = errors.Join(ErrPeerClosed, err)
		}
		return 0, c.opError("write", addr, err)
	}
	c.mu.Lock()
	c.stats.PacketsSent++
	c.stats.BytesSent += uint64(len(p))
	c.mu.Unlock()
	return len(p), nil
}

// indexOf returns the index of the other member at addr, or -1.
func (c *Conn) indexOf(addr net.Addr) int {
	var a Addr
	switch v := addr.(type) {
	case Addr:
		a = v
	case *Addr:
		if v == nil {
			return -1
		}
		a = *v
	default:
		if addr == nil {
			return -1
		}
		for i, b := range c.addrs {
			if addr.Network() == b.Network() && addr.String() == b.String() {
				a = Addr{Room: c.local.Room, Index: i}
				break
			}
		}
		if a.Room == "" {
			return -1
		}
	}
	if a.Room != c.local.Room || a.Index < 0 || a.Index >= c.size || a.Index == c.local.Index {
		return -1
	}
	return a.Index
}

// FlushTimeout is how long Close waits at most, by default, for the datagrams already written
// to reach the other members before it closes the connections with them (see Close).
const FlushTimeout = 500 * time.Millisecond

// flushPoll is how often Close looks at what the data channels still hold.
const flushPoll = time.Millisecond

// Close closes every data channel and peer connection; blocked reads return net.ErrClosed.
// Closing twice returns an error.
//
// The datagrams written last (a netplay session's goodbye, written just before it closes its
// conn) are not dropped: Close first waits, up to FlushTimeout (see SetFlushTimeout), until
// every open data channel has sent all it holds, as a datagram written to a UDP socket goes
// out before the socket closes. Natively that is once the member has acknowledged it, some
// milliseconds on a LAN; in a browser, once the browser has sent it. A member that is gone or
// unreachable costs the wait in full.
func (c *Conn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return c.opError("close", nil, net.ErrClosed)
	}
	c.closed = true
	close(c.done)
	c.wakeLocked()
	clear(c.queue) // the datagrams unread are dropped
	c.head, c.used = 0, 0
	wait := c.flushTimeout
	c.mu.Unlock()
	if wait > 0 {
		c.flush(time.Now().Add(wait))
	}
	return closeMembers(c.members)
}

// SetFlushTimeout sets how long Close waits at most for the datagrams written to reach the
// other members: FlushTimeout until set; 0 (or less) closes at once, the datagrams written
// last going out only as far as they have got by then. In a browser, a page's pagehide
// handler must close at once: a Go function called from JavaScript must not block.
func (c *Conn) SetFlushTimeout(d time.Duration) {
	c.mu.Lock()
	c.flushTimeout = d
	c.mu.Unlock()
}

// flush waits until the data channels still open hold nothing to send (natively: nothing
// unacknowledged), or until deadline.
func (c *Conn) flush(deadline time.Time) {
	for {
		pending := false
		for _, m := range c.members {
			if m != nil && m.dc != nil && m.dc.ReadyState() == webrtc.DataChannelStateOpen && m.dc.BufferedAmount() > 0 {
				pending = true
				break
			}
		}
		if !pending || !time.Now().Before(deadline) {
			return
		}
		time.Sleep(flushPoll)
	}
}

// closeMembers closes the peer connections of members, returning their errors.
func closeMembers(members []*member) error {
	var errs []error
	for i, m := range members {
		if m == nil || m.pc == nil {
			continue
		}
		if err := m.pc.Close(); err != nil {
			errs = append(errs, fmt.Errorf("rtc: closing the connection with member %d: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// SetDeadline sets the read deadline (writes never block).
func (c *Conn) SetDeadline(t time.Time) error { return c.SetReadDeadline(t) }

// SetReadDeadline sets the time after which ReadFrom gives up; the zero time means never. It
// wakes a blocked ReadFrom to look at the new deadline.
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadline = t
	c.wakeLocked()
	return nil
}

// SetWriteDeadline does nothing: writes never block.
func (c *Conn) SetWriteDeadline(time.Time) error { return nil }

func (c *Conn) opError(op string, addr net.Addr, err error) error {
	return &net.OpError{Op: op, Net: "rtc", Source: c.addrs[c.local.Index], Addr: addr, Err: err}
}
