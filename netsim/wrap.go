package netsim

import (
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"sync"
	"time"

	"github.com/gameloop-go/gameloop/internal/minheap"
)

// Wrap returns conn with the datagrams it writes put through the same model as a Network's
// routes, in real time: each is dropped, delayed, held back or duplicated under c, as a Link
// decides, then written to conn when its time comes. There is a Link for each destination
// (by its address's String), seeded from seed and the address, so the same seed and the same
// sequence of writes to a destination get the same fates. What conn receives is read as it
// is: wrap both ends of a connection to make both directions bad.
//
// The result is a *Wrapped, or, where conn has a TryReadFrom method (as a netsim Conn or an
// rtc.Conn has, for netplay to poll), a *WrappedTry that keeps it. Writes never block; the
// datagrams waiting for their time are written by one goroutine of the wrapper's, which
// Close ends (dropping those still waiting) before it closes conn. It panics if c is not
// valid (see Conditions.Validate).
func Wrap(conn net.PacketConn, c Conditions, seed uint64) net.PacketConn {
	if err := c.Validate(); err != nil {
		panic(err)
	}
	w := &Wrapped{inner: conn, c: c, seed: seed, start: time.Now(), links: map[string]*Link{},
		kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go w.send()
	if tr, ok := conn.(interface {
		TryReadFrom(p []byte) (int, net.Addr, bool)
	}); ok {
		return &WrappedTry{Wrapped: w, try: tr.TryReadFrom}
	}
	return w
}

// Wrapped is a net.PacketConn whose writes go through a Link: see Wrap.
type Wrapped struct {
	inner net.PacketConn
	c     Conditions
	seed  uint64
	start time.Time // the origin of the times handed to the links

	mu     sync.Mutex
	links  map[string]*Link
	queue  []*delayed // min-heap by (at, seq)
	free   []*delayed
	seq    uint64
	closed bool
	stats  WrapStats

	kick chan struct{} // the sender looks at the queue again
	quit chan struct{} // closed by Close
	done chan struct{} // closed when the sender has ended
}

// WrappedTry is a Wrapped over a conn that has TryReadFrom, which it keeps.
type WrappedTry struct {
	*Wrapped
	try func(p []byte) (int, net.Addr, bool)
}

// TryReadFrom reads from the wrapped conn with its own TryReadFrom.
func (w *WrappedTry) TryReadFrom(p []byte) (n int, addr net.Addr, ok bool) { return w.try(p) }

// WrapStats counts what a Wrapped did to the datagrams written to it.
type WrapStats struct {
	LinkStats // the links' counts, summed over the destinations
	// Overflowed counts the datagrams dropped because MaxQueued were waiting for their time;
	// SendErrors those the wrapped conn failed to write when their time came.
	Overflowed, SendErrors int64
}

// Stats returns the counts so far.
func (w *Wrapped) Stats() WrapStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.stats
	for _, l := range w.links {
		ls := l.Stats()
		st.Packets += ls.Packets
		st.Bytes += ls.Bytes
		st.Dropped += ls.Dropped
		st.Duplicated += ls.Duplicated
		st.Reordered += ls.Reordered
	}
	return st
}

// WriteTo puts p through the link to addr and returns len(p): a datagram dropped by the link
// is not an error, as with UDP. A datagram due at once is written before WriteTo returns, and
// its error returned; one due later is written by the wrapper's goroutine (its error counted,
// WrapStats.SendErrors). It returns an error if p is larger than MaxPacketSize, addr is nil or
// the conn is closed.
func (w *Wrapped) WriteTo(p []byte, addr net.Addr) (int, error) {
	if len(p) > MaxPacketSize {
		return 0, w.opError("write", addr, fmt.Errorf("netsim: packet of %d bytes is larger than %d", len(p), MaxPacketSize))
	}
	if addr == nil {
		return 0, w.opError("write", nil, errors.New("netsim: no address"))
	}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return 0, w.opError("write", addr, net.ErrClosed)
	}
	key := addr.String()
	link := w.links[key]
	if link == nil {
		h := fnv.New64a()
		h.Write([]byte(addr.Network()))
		h.Write([]byte{0})
		h.Write([]byte(key))
		link = NewLink(w.c, mix(w.seed^h.Sum64()))
		w.links[key] = link
	}
	now := time.Since(w.start)
	at, copies := link.Send(now, len(p))
	now2 := copies > 0 && at[0] <= now // the first copy goes at once
	for i := range copies {
		if i == 0 && now2 {
			continue
		}
		if len(w.queue) >= MaxQueued {
			w.stats.Overflowed++
			continue
		}
		pk := w.newPacket()
		pk.at, pk.seq, pk.addr, pk.n = at[i], w.seq, addr, copy(pk.buf[:], p)
		w.seq++
		first := len(w.queue) == 0 || earlier(pk, w.queue[0])
		w.queue = minheap.Push(w.queue, pk, earlier)
		if first {
			select {
			case w.kick <- struct{}{}:
			default:
			}
		}
	}
	w.mu.Unlock()
	if now2 {
		if _, err := w.inner.WriteTo(p, addr); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// delayed is a datagram waiting for its time.
type delayed struct {
	at   time.Duration
	seq  uint64
	addr net.Addr
	n    int
	buf  [MaxPacketSize]byte
}

// earlier orders datagrams by time, ties by the order they were written.
func earlier(a, b *delayed) bool {
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

// newPacket returns a buffer, reusing a written one. w.mu is held.
func (w *Wrapped) newPacket() *delayed {
	if k := len(w.free); k > 0 {
		p := w.free[k-1]
		w.free = w.free[:k-1]
		return p
	}
	return new(delayed)
}

// send is the wrapper's goroutine: it writes each datagram waiting when its time comes, until
// Close.
func (w *Wrapped) send() {
	defer close(w.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var due []*delayed
	for {
		w.mu.Lock()
		if w.closed {
			w.mu.Unlock()
			return
		}
		now := time.Since(w.start)
		due = due[:0]
		for len(w.queue) > 0 && w.queue[0].at <= now {
			var pk *delayed
			pk, w.queue = minheap.Pop(w.queue, earlier)
			due = append(due, pk)
		}
		wait := time.Duration(-1)
		if len(w.queue) > 0 {
			wait = w.queue[0].at - now
		}
		w.mu.Unlock()

		var failed int64
		for _, pk := range due {
			if _, err := w.inner.WriteTo(pk.buf[:pk.n], pk.addr); err != nil {
				failed++
			}
			pk.addr = nil
		}
		if len(due) > 0 {
			w.mu.Lock()
			w.stats.SendErrors += failed
			w.free = append(w.free, due...)
			clear(due)
			w.mu.Unlock()
			continue // the time has moved on while writing: look again
		}
		var expired <-chan time.Time
		if wait >= 0 {
			timer.Reset(wait)
			expired = timer.C
		}
		select {
		case <-expired:
		case <-w.kick:
			timer.Stop() // since Go 1.23 a stopped timer's channel holds nothing stale
		case <-w.quit:
			return
		}
	}
}

// ReadFrom reads from the wrapped conn.
func (w *Wrapped) ReadFrom(p []byte) (int, net.Addr, error) { return w.inner.ReadFrom(p) }

// LocalAddr returns the wrapped conn's.
func (w *Wrapped) LocalAddr() net.Addr { return w.inner.LocalAddr() }

// Close drops the datagrams waiting for their time, ends the wrapper's goroutine and closes
// the wrapped conn, returning its error. Closing twice returns an error.
func (w *Wrapped) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return w.opError("close", nil, net.ErrClosed)
	}
	w.closed = true
	w.queue = nil
	w.mu.Unlock()
	close(w.quit)
	<-w.done
	return w.inner.Close()
}

// SetDeadline sets the wrapped conn's deadlines.
func (w *Wrapped) SetDeadline(t time.Time) error { return w.inner.SetDeadline(t) }

// SetReadDeadline sets the wrapped conn's read deadline.
func (w *Wrapped) SetReadDeadline(t time.Time) error { return w.inner.SetReadDeadline(t) }

// SetWriteDeadline sets the wrapped conn's write deadline: it bounds the writes made when a
// datagram's time comes, not WriteTo, which never blocks.
func (w *Wrapped) SetWriteDeadline(t time.Time) error { return w.inner.SetWriteDeadline(t) }

func (w *Wrapped) opError(op string, addr net.Addr, err error) error {
	return &net.OpError{Op: op, Net: "netsim", Source: w.inner.LocalAddr(), Addr: addr, Err: err}
}
