package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/gameloop-go/gameloop/internal/minheap"
	"github.com/gameloop-go/gameloop/netsim"
)

const (
	// maxMaxClients bounds -max-clients: each client holds a socket and a goroutine.
	maxMaxClients = 10000
	// maxDatagram is the largest UDP payload; reads use a buffer this size.
	maxDatagram = 65535
	// maxInFlight and maxInFlightBytes bound the packets waiting for their delivery time.
	maxInFlight      = 1 << 16
	maxInFlightBytes = 64 << 20
	// keptBuffer is the largest buffer kept for reuse once its packet is sent on.
	keptBuffer = 2048
	// clientIdle is how long a client must have sent and received nothing before a new
	// client past -max-clients takes its place: a game restarted many times comes from a new
	// port each time, and would otherwise be refused once -max-clients ports were used.
	clientIdle = 30 * time.Second
)

// direction is one way through the proxy: its link and its counts. Guarded by proxy.mu.
type direction struct {
	name      string
	link      *netsim.Link
	sent      int64 // packets sent on
	sentBytes int64
	overflow  int64 // packets dropped because too much was in flight
	errors    int64 // packets the system would not send
	left      int64 // packets still in flight when the run ended
}

// client is one client address and its upstream socket.
type client struct {
	addr     netip.AddrPort
	upstream *net.UDPConn  // connected to the target
	last     time.Duration // when a packet last came from it or for it; guarded by proxy.mu
}

// delivery is a packet waiting for its time.
type delivery struct {
	at  time.Duration
	seq uint64
	dir *direction
	c   *client // the client it comes from (up) or goes to (down)
	buf []byte
}

// hooks let a test force an order of events that timing makes rare. Each, if not nil, is
// called where its comment says; they are set before the proxy runs.
type hooks struct {
	replyRead func() // in a server reader, after a reply is read and before it is handed on
	closed    func() // in run, once the proxy is closed and before it waits for its readers
}

// proxy forwards between clients at listen and the target, through a Link each way.
type proxy struct {
	listen     *net.UDPConn
	target     *net.UDPAddr
	maxClients int
	idle       time.Duration // how long a client is idle before another may take its place
	start      time.Time
	kick       chan struct{} // tells the scheduler that the queue's head may have changed
	hooks      hooks

	mu         sync.Mutex
	up, down   direction
	clients    map[netip.AddrPort]*client
	refused    int64 // packets from clients past -max-clients
	letGo      int64 // idle clients whose place a new one took
	noSocket   int64 // packets from new clients for whom no socket to the server could be opened
	readErrors int64 // errors reading replies: the ICMP errors of packets sent earlier
	queue      []*delivery
	queueBytes int
	seq        uint64
	free       []*delivery
	ran        time.Duration
	closed     bool // the run has ended: no more clients
}

func newProxy(o options) (*proxy, error) {
	target, err := net.ResolveUDPAddr("udp", o.to)
	if err != nil {
		return nil, usagef("-to: %w", err)
	}
	laddr, err := net.ResolveUDPAddr("udp", o.listen)
	if err != nil {
		return nil, usagef("-listen: %w", err)
	}
	l, err := net.ListenUDP("udp", laddr)
	if err != nil {
		return nil, fmt.Errorf("listening: %w", err)
	}
	return &proxy{
		listen:     l,
		target:     target,
		maxClients: o.maxClients,
		idle:       clientIdle,
		kick:       make(chan struct{}, 1),
		up:         direction{name: "client->server", link: netsim.NewLink(o.conditions, o.seed)},
		down:       direction{name: "server->client", link: netsim.NewLink(o.conditions, o.seed^0x9e3779b97f4a7c15)},
		clients:    make(map[netip.AddrPort]*client),
	}, nil
}

// run forwards until ctx is done, then closes every socket.
func (p *proxy) run(ctx context.Context, stderr io.Writer) {
	p.start = time.Now()
	var wg sync.WaitGroup
	wg.Go(func() { p.readClients(&wg, stderr) })
	p.deliver(ctx)

	p.listen.Close()
	p.mu.Lock()
	p.closed = true
	for _, c := range p.clients {
		c.upstream.Close()
	}
	p.ran = time.Since(p.start)
	for _, x := range p.queue {
		x.dir.left++
	}
	p.mu.Unlock()
	if p.hooks.closed != nil {
		p.hooks.closed()
	}
	wg.Wait()
}

// now is the proxy's time, the time a Link is handed.
func (p *proxy) now() time.Duration { return time.Since(p.start) }

// readClients reads what clients send, until the listening socket is closed.
func (p *proxy) readClients(wg *sync.WaitGroup, stderr io.Writer) {
	buf := make([]byte, maxDatagram)
	for {
		n, from, err := p.listen.ReadFromUDPAddrPort(buf)
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			fmt.Fprintln(stderr, "netsim: reading from clients:", err)
			continue
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return
		}
		c := p.clients[from]
		if c == nil {
			if len(p.clients) >= p.maxClients && !p.letIdleGoLocked() {
				p.refused++
				p.mu.Unlock()
				continue
			}
			up, err := net.DialUDP("udp", nil, p.target)
			if err != nil {
				p.noSocket++
				p.mu.Unlock()
				fmt.Fprintln(stderr, "netsim: opening a socket to the server:", err)
				continue
			}
			c = &client{addr: from, upstream: up}
			p.clients[from] = c
			wg.Go(func() { p.readServer(c, stderr) })
		}
		p.sendLocked(&p.up, c, buf[:n])
		p.mu.Unlock()
	}
}

// letIdleGoLocked closes the client idle the longest, if it has been idle for p.idle, to make
// room for a new one, and reports whether it did. Its reader ends on the closed socket; its
// packets still in flight to the server count as send errors. p.mu is held.
func (p *proxy) letIdleGoLocked() bool {
	var idlest *client
	for _, c := range p.clients {
		if idlest == nil || c.last < idlest.last {
			idlest = c
		}
	}
	if idlest == nil || p.now()-idlest.last < p.idle {
		return false
	}
	idlest.upstream.Close()
	delete(p.clients, idlest.addr)
	p.letGo++
	return true
}

// readServer reads the server's replies to one client, until its socket is closed or the run
// has ended. A reply read as the run ends is not taken in: the summary has counted what was in
// flight, and a reply queued after that would be counted in and never out.
func (p *proxy) readServer(c *client, stderr io.Writer) {
	buf := make([]byte, maxDatagram)
	for {
		n, err := c.upstream.Read(buf)
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err == nil && p.hooks.replyRead != nil {
			p.hooks.replyRead()
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return
		}
		if err != nil {
			// A connected socket reports the ICMP errors of earlier sends (the server not
			// listening, say), packets already counted as sent; the next read goes on.
			p.readErrors++
		} else {
			p.sendLocked(&p.down, c, buf[:n])
		}
		p.mu.Unlock()
	}
}

// sendLocked passes a packet through d's link and queues its copies. p.mu is held.
func (p *proxy) sendLocked(d *direction, c *client, b []byte) {
	c.last = p.now()
	at, n := d.link.Send(c.last, len(b))
	for _, t := range at[:n] {
		if len(p.queue) >= maxInFlight || p.queueBytes+len(b) > maxInFlightBytes {
			d.overflow++
			continue
		}
		var x *delivery
		if k := len(p.free); k > 0 {
			x, p.free = p.free[k-1], p.free[:k-1]
		} else {
			x = new(delivery)
		}
		*x = delivery{at: t, seq: p.seq, dir: d, c: c, buf: append(x.buf[:0], b...)}
		p.seq++
		p.queueBytes += len(b)
		p.queue = minheap.Push(p.queue, x, before)
		if p.queue[0] == x {
			select {
			case p.kick <- struct{}{}:
			default:
			}
		}
	}
}

// deliver sends each queued packet on at its time, until ctx is done.
func (p *proxy) deliver(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var due []*delivery
	for {
		p.mu.Lock()
		now := p.now()
		for len(p.queue) > 0 && p.queue[0].at <= now {
			var x *delivery
			x, p.queue = minheap.Pop(p.queue, before)
			due = append(due, x)
		}
		wait := time.Hour
		if len(p.queue) > 0 {
			wait = p.queue[0].at - now
		}
		p.mu.Unlock()

		for _, x := range due {
			var err error
			if x.dir == &p.up {
				_, err = x.c.upstream.Write(x.buf)
			} else {
				_, err = p.listen.WriteToUDPAddrPort(x.buf, x.c.addr)
			}
			p.mu.Lock()
			if err != nil {
				x.dir.errors++
			} else {
				x.dir.sent++
				x.dir.sentBytes += int64(len(x.buf))
			}
			p.queueBytes -= len(x.buf)
			if cap(x.buf) > keptBuffer {
				x.buf = nil
			}
			x.c, x.dir = nil, nil
			p.free = append(p.free, x)
			p.mu.Unlock()
		}
		clear(due)
		due = due[:0]

		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-p.kick:
		}
	}
}

// counts returns the packets taken in each way so far, and those refused.
func (p *proxy) counts() (up, down, refused int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.up.link.Stats().Packets, p.down.link.Stats().Packets, p.refused
}

// summary prints what happened each way. Each way, in - dropped + duplicated = out + still in
// flight + dropped with too much in flight + send errors.
func (p *proxy) summary(w io.Writer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(w, "netsim: ran %v; clients: %d", p.ran.Round(time.Millisecond), len(p.clients))
	if p.refused > 0 {
		fmt.Fprintf(w, ", %d packets refused from clients past -max-clients", p.refused)
	}
	if p.letGo > 0 {
		fmt.Fprintf(w, ", %d idle clients let go for new ones", p.letGo)
	}
	if p.noSocket > 0 {
		fmt.Fprintf(w, ", %d packets dropped for want of a socket to the server", p.noSocket)
	}
	if p.readErrors > 0 {
		fmt.Fprintf(w, ", %d errors reading replies (the server refused earlier packets)", p.readErrors)
	}
	fmt.Fprintln(w)
	for _, d := range []*direction{&p.up, &p.down} {
		s := d.link.Stats()
		fmt.Fprintf(w, "%s: %d packets, %d bytes in; dropped %d, duplicated %d, reordered %d; %d packets, %d bytes out",
			d.name, s.Packets, s.Bytes, s.Dropped, s.Duplicated, s.Reordered, d.sent, d.sentBytes)
		if d.left > 0 {
			fmt.Fprintf(w, "; %d still in flight at the end", d.left)
		}
		if d.overflow > 0 {
			fmt.Fprintf(w, "; %d dropped with too much in flight", d.overflow)
		}
		if d.errors > 0 {
			fmt.Fprintf(w, "; %d send errors", d.errors)
		}
		fmt.Fprintln(w)
	}
}

// before orders deliveries by time, ties in the order sent.
func before(a, b *delivery) bool {
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}
