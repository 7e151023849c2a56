//go:build linux

package netplay

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// UDPConn is a UDP socket for sessions that must cost little CPU: a game on battery, a server
// of many matches, a process that shares its cores. Open one with ListenUDP and hand it to
// NewSession in place of a *net.UDPConn; it is a net.PacketConn like any other.
//
// On Linux its socket is its own non-blocking one, which the Go runtime's network poller does
// not watch, and a session reads and writes it with system calls made directly: recvmmsg
// (every packet waiting, up to 8, in one call) and sendto, each with MSG_DONTWAIT, so that
// they never block and need not hand the goroutine's processor back. A *net.UDPConn costs
// more than its packets: each call through the runtime's system-call entry can wake the
// runtime's monitor thread, which then polls for a while, and a packet that arrives while the
// process waits for a timer wakes a thread for nothing, as the socket is in the runtime's epoll
// set. docs/netplay.md has the figures. Elsewhere a UDPConn is a *net.UDPConn inside, read by
// the session as one.
//
// Its own methods (ReadFrom and WriteTo and their netip forms) block as a net.PacketConn's do,
// in poll(2), and honour deadlines; a deadline set while a call waits is seen within 100 ms.
// Close ends the calls waiting. A UDPConn is safe for use by several goroutines; a session
// reads it from its own calls, so nothing else should read it while a session has it.
type UDPConn struct {
	fd    int
	v6    bool // an AF_INET6 socket: IPv4 peers are reached through IPv4-mapped addresses
	laddr *net.UDPAddr
	// state is closedBit once Close has been called, plus the count of calls using fd: the
	// last of them, or Close if there is none, closes fd, so that no call ever uses a number
	// the kernel has given to another file.
	state atomic.Uint64
	// The deadlines, in Unix nanoseconds; 0: none.
	readDeadline, writeDeadline atomic.Int64
}

const closedBit = 1 << 63

// maxPollWait bounds each poll(2) of a blocking call, so that a deadline set while it waits is
// seen.
const maxPollWait = 100 * time.Millisecond

// ListenUDP opens a UDP socket on laddr, as net.ListenUDP does: network is "udp", "udp4" or
// "udp6"; a nil laddr, or one with no IP, listens on every address of the machine (IPv6 and
// IPv4 for "udp" where the machine has IPv6), and port 0 takes a port of the system's choosing.
// The socket's send and receive buffers are the system's defaults.
func ListenUDP(network string, laddr *net.UDPAddr) (*UDPConn, error) {
	opErr := func(err error) error {
		var a net.Addr
		if laddr != nil {
			a = laddr
		}
		return &net.OpError{Op: "listen", Net: network, Addr: a, Err: err}
	}
	var ip net.IP
	var port int
	var zone string
	if laddr != nil {
		ip, port, zone = laddr.IP, laddr.Port, laddr.Zone
	}
	if port < 0 || port > 0xffff {
		return nil, opErr(fmt.Errorf("invalid port %d", port))
	}
	if ip != nil && ip.To16() == nil {
		return nil, opErr(fmt.Errorf("invalid IP address %v", ip))
	}
	is4 := ip != nil && ip.To4() != nil
	var family int
	v6only := false
	switch network {
	case "udp4":
		if ip != nil && !is4 {
			return nil, opErr(&net.AddrError{Err: "non-IPv4 address", Addr: ip.String()})
		}
		family = unix.AF_INET
	case "udp6":
		if is4 && !ip.Equal(net.IPv4zero) {
			return nil, opErr(&net.AddrError{Err: "non-IPv6 address", Addr: ip.String()})
		}
		family, v6only = unix.AF_INET6, true
	case "udp":
		family = unix.AF_INET6
		if is4 {
			family = unix.AF_INET
		}
	default:
		return nil, opErr(net.UnknownNetworkError(network))
	}
	fd, err := unix.Socket(family, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, unix.IPPROTO_UDP)
	if err == unix.EAFNOSUPPORT && network == "udp" && ip == nil {
		family = unix.AF_INET // a machine without IPv6
		fd, err = unix.Socket(family, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, unix.IPPROTO_UDP)
	}
	if err != nil {
		return nil, opErr(os.NewSyscallError("socket", err))
	}
	fail := func(call string, err error) (*UDPConn, error) {
		unix.Close(fd)
		return nil, opErr(os.NewSyscallError(call, err))
	}
	var sa unix.Sockaddr
	if family == unix.AF_INET {
		s4 := &unix.SockaddrInet4{Port: port}
		if ip != nil {
			copy(s4.Addr[:], ip.To4())
		}
		sa = s4
	} else {
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, boolInt(v6only)); err != nil {
			return fail("setsockopt", err)
		}
		s6 := &unix.SockaddrInet6{Port: port}
		if ip != nil {
			copy(s6.Addr[:], ip.To16())
		}
		if zone != "" {
			ifi, err := net.InterfaceByName(zone)
			if err != nil {
				unix.Close(fd)
				return nil, opErr(err)
			}
			s6.ZoneId = uint32(ifi.Index)
		}
		sa = s6
	}
	if err := unix.Bind(fd, sa); err != nil {
		return fail("bind", err)
	}
	bound, err := unix.Getsockname(fd)
	if err != nil {
		return fail("getsockname", err)
	}
	c := &UDPConn{fd: fd, v6: family == unix.AF_INET6}
	switch b := bound.(type) {
	case *unix.SockaddrInet4:
		c.laddr = &net.UDPAddr{IP: net.IP(b.Addr[:]).To16(), Port: b.Port}
	case *unix.SockaddrInet6:
		c.laddr = &net.UDPAddr{IP: net.IP(b.Addr[:]), Port: b.Port, Zone: zone}
	}
	return c, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// netUDP returns nil: on Linux a UDPConn is its own socket.
func (c *UDPConn) netUDP() *net.UDPConn { return nil }

// acquire counts a call using fd, and reports false once the conn is closed.
func (c *UDPConn) acquire() bool {
	for {
		s := c.state.Load()
		if s&closedBit != 0 {
			return false
		}
		if c.state.CompareAndSwap(s, s+1) {
			return true
		}
	}
}

// release ends a call counted by acquire (or Close's own); the last one after Close closes fd.
func (c *UDPConn) release() {
	if c.state.Add(^uint64(0)) == closedBit {
		unix.Close(c.fd)
	}
}

// Close closes the socket. The calls waiting return net.ErrClosed (an *net.OpError wrapping
// it), as do the calls made after it, Close included.
func (c *UDPConn) Close() error {
	for {
		s := c.state.Load()
		if s&closedBit != 0 {
			return c.opError("close", nil, net.ErrClosed)
		}
		// Close holds fd too while it works, so that fd stays this socket's until it is done.
		if !c.state.CompareAndSwap(s, (s+1)|closedBit) {
			continue
		}
		if s != 0 {
			// Calls are using fd: shutdown wakes those waiting in poll(2), even on an
			// unconnected UDP socket (which it otherwise refuses, ENOTCONN).
			unix.Shutdown(c.fd, unix.SHUT_RDWR)
		}
		c.release() // the last call using fd closes it: this one, or one still running
		return nil
	}
}

// SetReadBuffer sets the size of the socket's receive buffer (SO_RCVBUF), as
// net.UDPConn.SetReadBuffer does: what arrives between two of a session's calls waits there.
func (c *UDPConn) SetReadBuffer(bytes int) error { return c.setsockopt(unix.SO_RCVBUF, bytes) }

// SetWriteBuffer sets the size of the socket's send buffer (SO_SNDBUF).
func (c *UDPConn) SetWriteBuffer(bytes int) error { return c.setsockopt(unix.SO_SNDBUF, bytes) }

func (c *UDPConn) setsockopt(opt, value int) error {
	if !c.acquire() {
		return c.opError("set", nil, net.ErrClosed)
	}
	defer c.release()
	if err := unix.SetsockoptInt(c.fd, unix.SOL_SOCKET, opt, value); err != nil {
		return c.opError("set", nil, os.NewSyscallError("setsockopt", err))
	}
	return nil
}

// LocalAddr returns the address the socket is bound to, a *net.UDPAddr.
func (c *UDPConn) LocalAddr() net.Addr { return c.laddr }

// SetDeadline sets the read and the write deadline (see net.Conn); the zero time clears them.
func (c *UDPConn) SetDeadline(t time.Time) error {
	c.readDeadline.Store(unixNano(t))
	c.writeDeadline.Store(unixNano(t))
	return nil
}

// SetReadDeadline sets the deadline of ReadFrom; the zero time clears it.
func (c *UDPConn) SetReadDeadline(t time.Time) error {
	c.readDeadline.Store(unixNano(t))
	return nil
}

// SetWriteDeadline sets the deadline of WriteTo; the zero time clears it. A write waits only
// while the socket's send buffer is full.
func (c *UDPConn) SetWriteDeadline(t time.Time) error {
	c.writeDeadline.Store(unixNano(t))
	return nil
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return max(t.UnixNano(), 1)
}

// ReadFrom reads a packet into b, waiting for one, and returns its length and its sender, a
// *net.UDPAddr. A packet longer than b is cut to len(b).
func (c *UDPConn) ReadFrom(b []byte) (int, net.Addr, error) {
	n, ap, err := c.ReadFromUDPAddrPort(b)
	if err != nil {
		return n, nil, err
	}
	return n, net.UDPAddrFromAddrPort(ap), nil
}

// ReadFromUDPAddrPort is ReadFrom returning the sender as a netip.AddrPort (IPv4 senders
// unmapped, also on an IPv6 socket).
func (c *UDPConn) ReadFromUDPAddrPort(b []byte) (int, netip.AddrPort, error) {
	if !c.acquire() {
		return 0, netip.AddrPort{}, c.opError("read", nil, net.ErrClosed)
	}
	defer c.release()
	var from unix.RawSockaddrAny
	for {
		fromLen := uint32(unix.SizeofSockaddrAny)
		var p unsafe.Pointer
		if len(b) > 0 {
			p = unsafe.Pointer(&b[0])
		}
		n, _, errno := unix.RawSyscall6(unix.SYS_RECVFROM, uintptr(c.fd), uintptr(p), uintptr(len(b)),
			unix.MSG_DONTWAIT|unix.MSG_TRUNC, uintptr(unsafe.Pointer(&from)), uintptr(unsafe.Pointer(&fromLen)))
		switch errno {
		case 0:
			return min(int(n), len(b)), sockaddrAddrPort(&from), nil
		case unix.EAGAIN, unix.EINTR:
		default:
			return 0, netip.AddrPort{}, c.opError("read", nil, c.closedOr(os.NewSyscallError("recvfrom", errno)))
		}
		if err := c.wait(unix.POLLIN, &c.readDeadline, "read", nil); err != nil {
			return 0, netip.AddrPort{}, err
		}
	}
}

// WriteTo writes the packet b to addr, a *net.UDPAddr, waiting while the socket's send buffer
// is full.
func (c *UDPConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	u, ok := addr.(*net.UDPAddr)
	if !ok || u == nil {
		return 0, c.opError("write", addr, unix.EINVAL)
	}
	return c.WriteToUDPAddrPort(b, u.AddrPort())
}

// WriteToUDPAddrPort is WriteTo to a netip.AddrPort.
func (c *UDPConn) WriteToUDPAddrPort(b []byte, ap netip.AddrPort) (int, error) {
	if !c.acquire() {
		return 0, c.opError("write", net.UDPAddrFromAddrPort(ap), net.ErrClosed)
	}
	defer c.release()
	var sa unix.RawSockaddrInet6
	for {
		errno := c.sendto(b, ap, &sa)
		switch errno {
		case 0:
			return len(b), nil
		case unix.EAGAIN, unix.EINTR:
		default:
			return 0, c.opError("write", net.UDPAddrFromAddrPort(ap), c.closedOr(os.NewSyscallError("sendto", errno)))
		}
		if err := c.wait(unix.POLLOUT, &c.writeDeadline, "write", net.UDPAddrFromAddrPort(ap)); err != nil {
			return 0, err
		}
	}
}

// wait waits in poll(2) until the socket may be ready for events, the deadline passes (an
// error that is a timeout) or the conn is closed (net.ErrClosed). It may return early.
func (c *UDPConn) wait(events int16, deadline *atomic.Int64, op string, addr net.Addr) error {
	if c.state.Load()&closedBit != 0 {
		return c.opError(op, addr, net.ErrClosed)
	}
	timeout := maxPollWait
	if d := deadline.Load(); d != 0 {
		left := time.Duration(d - time.Now().UnixNano())
		if left <= 0 {
			return c.opError(op, addr, os.ErrDeadlineExceeded)
		}
		timeout = min(timeout, left)
	}
	fds := [1]unix.PollFd{{Fd: int32(c.fd), Events: events}}
	ms := int((timeout + time.Millisecond - 1) / time.Millisecond)
	if _, err := unix.Poll(fds[:], ms); err != nil && err != unix.EINTR {
		return c.opError(op, addr, os.NewSyscallError("poll", err))
	}
	if c.state.Load()&closedBit != 0 {
		return c.opError(op, addr, net.ErrClosed)
	}
	return nil
}

// closedOr returns net.ErrClosed once Close has been called (a call it interrupted fails with
// what shutdown made of it, such as EPIPE), and err before.
func (c *UDPConn) closedOr(err error) error {
	if c.state.Load()&closedBit != 0 {
		return net.ErrClosed
	}
	return err
}

func (c *UDPConn) opError(op string, addr net.Addr, err error) error {
	e := &net.OpError{Op: op, Net: "udp", Source: c.laddr, Err: err}
	if addr != nil {
		e.Addr = addr
	}
	return e
}

// sendto sends b to ap with one non-blocking system call made directly, its address built in
// sa; it returns the error number. The caller holds fd (acquire).
func (c *UDPConn) sendto(b []byte, ap netip.AddrPort, sa *unix.RawSockaddrInet6) unix.Errno {
	saLen, errno := c.sockaddr(ap, sa)
	if errno != 0 {
		return errno
	}
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	_, _, errno = unix.RawSyscall6(unix.SYS_SENDTO, uintptr(c.fd), uintptr(p), uintptr(len(b)),
		unix.MSG_DONTWAIT, uintptr(unsafe.Pointer(sa)), uintptr(saLen))
	return errno
}

// sockaddr writes ap into sa as the socket's family takes it (an IPv4 address IPv4-mapped on
// an IPv6 socket) and returns its length, or EAFNOSUPPORT for an IPv6 address on an IPv4
// socket.
func (c *UDPConn) sockaddr(ap netip.AddrPort, sa *unix.RawSockaddrInet6) (uint32, unix.Errno) {
	addr := ap.Addr()
	if c.v6 {
		*sa = unix.RawSockaddrInet6{Family: unix.AF_INET6}
		sa.Addr = addr.As16()
		if z := addr.Zone(); z != "" {
			if ifi, err := net.InterfaceByName(z); err == nil {
				sa.Scope_id = uint32(ifi.Index)
			}
		}
		putPort(&sa.Port, ap.Port())
		return unix.SizeofSockaddrInet6, 0
	}
	addr = addr.Unmap()
	if !addr.Is4() {
		return 0, unix.EAFNOSUPPORT
	}
	s4 := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
	*s4 = unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: addr.As4()}
	putPort(&s4.Port, ap.Port())
	return unix.SizeofSockaddrInet4, 0
}

// putPort stores port in a sockaddr's port field, in network byte order.
func putPort(dst *uint16, port uint16) {
	b := (*[2]byte)(unsafe.Pointer(dst))
	b[0], b[1] = byte(port>>8), byte(port)
}

// sockaddrAddrPort returns the address in sa, IPv4 unmapped, or the zero AddrPort.
func sockaddrAddrPort(sa *unix.RawSockaddrAny) netip.AddrPort {
	switch sa.Addr.Family {
	case unix.AF_INET:
		s4 := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
		return netip.AddrPortFrom(netip.AddrFrom4(s4.Addr), port(s4.Port))
	case unix.AF_INET6:
		s6 := (*unix.RawSockaddrInet6)(unsafe.Pointer(sa))
		return netip.AddrPortFrom(netip.AddrFrom16(s6.Addr).Unmap(), port(s6.Port))
	}
	return netip.AddrPort{}
}

// batchPackets is how many packets one recvmmsg reads at most.
const batchPackets = 8

// mmsghdr is struct mmsghdr of recvmmsg(2): a message header and the length received.
type mmsghdr struct {
	hdr unix.Msghdr
	n   uint32
}

// udpBatch is the packets one recvmmsg read, which a session takes one at a time, and the
// packets a session's call has sent, which go out together at its end with one sendmmsg. It
// is owned by the session's transport (one goroutine at a time), and using it allocates
// nothing.
type udpBatch struct {
	hdrs [batchPackets]mmsghdr
	iovs [batchPackets]unix.Iovec
	from [batchPackets]unix.RawSockaddrAny
	bufs [batchPackets][readBufSize]byte
	// next is the next packet to take, of n read; drained: the last read took fewer than it
	// could, so the socket had no more then.
	next, n int
	drained bool

	// The packets to send: queued of them, each with its address.
	out     [batchPackets]mmsghdr
	outIovs [batchPackets]unix.Iovec
	to      [batchPackets]unix.RawSockaddrInet6
	outBufs [batchPackets][readBufSize]byte
	queued  int
}

func newUDPBatch() *udpBatch {
	b := new(udpBatch)
	for i := range b.hdrs {
		b.iovs[i].Base = &b.bufs[i][0]
		b.iovs[i].SetLen(readBufSize)
		b.hdrs[i].hdr.Iov = &b.iovs[i]
		b.hdrs[i].hdr.SetIovlen(1)
		b.hdrs[i].hdr.Name = (*byte)(unsafe.Pointer(&b.from[i]))

		b.outIovs[i].Base = &b.outBufs[i][0]
		b.out[i].hdr.Iov = &b.outIovs[i]
		b.out[i].hdr.SetIovlen(1)
		b.out[i].hdr.Name = (*byte)(unsafe.Pointer(&b.to[i]))
	}
	return b
}

// tryRecv reads the packets waiting, up to batchPackets, into b with one non-blocking
// recvmmsg made directly: their count, 0 with errNoPacket if none is waiting, or the error.
func (c *UDPConn) tryRecv(b *udpBatch) (int, error) {
	if !c.acquire() {
		return 0, c.opError("read", nil, net.ErrClosed)
	}
	defer c.release()
	for i := range b.hdrs {
		b.hdrs[i].hdr.Namelen = unix.SizeofSockaddrAny
		b.hdrs[i].hdr.Flags = 0
	}
	n, _, errno := unix.RawSyscall6(unix.SYS_RECVMMSG, uintptr(c.fd), uintptr(unsafe.Pointer(&b.hdrs[0])),
		batchPackets, unix.MSG_DONTWAIT, 0, 0)
	switch errno {
	case 0:
		return int(n), nil
	case unix.EAGAIN, unix.EINTR:
		return 0, errNoPacket
	}
	return 0, c.opError("read", nil, c.closedOr(os.NewSyscallError("recvmmsg", errno)))
}

// packet copies the i-th packet of the batch into p.
func (b *udpBatch) packet(i int, p *packet) {
	// A packet longer than the buffer comes cut to readBufSize bytes, more than any packet
	// of the protocol: the session drops it as such.
	p.n = copy(p.buf[:], b.bufs[i][:min(int(b.hdrs[i].n), readBufSize)])
	p.ap, p.addr = sockaddrAddrPort(&b.from[i]), nil
}

// queue adds the packet b for ap to the batch's packets to send, sending those queued first if
// it is full. It fails at once only for an address the socket cannot reach (an IPv6 address
// on an IPv4 socket) or a packet longer than any of the protocol's.
func (c *UDPConn) queue(b []byte, ap netip.AddrPort, batch *udpBatch) error {
	if len(b) > readBufSize {
		return c.opError("write", nil, unix.EMSGSIZE)
	}
	if batch.queued == batchPackets {
		if _, err := c.flush(batch); err != nil && errors.Is(err, net.ErrClosed) {
			return err
		}
	}
	i := batch.queued
	saLen, errno := c.sockaddr(ap, &batch.to[i])
	if errno != 0 {
		return c.opError("write", nil, os.NewSyscallError("sendmmsg", errno))
	}
	batch.out[i].hdr.Namelen = saLen
	batch.outIovs[i].SetLen(copy(batch.outBufs[i][:], b))
	batch.queued++
	return nil
}

// flush sends the packets queued with one non-blocking sendmmsg made directly (more than one
// only after a packet fails: it is dropped, as the network may drop it, and the rest go on).
// It returns how many failed and the first error.
func (c *UDPConn) flush(batch *udpBatch) (failed int, err error) {
	n := batch.queued
	if n == 0 {
		return 0, nil
	}
	batch.queued = 0
	if !c.acquire() {
		return n, c.opError("write", nil, net.ErrClosed)
	}
	defer c.release()
	for i := 0; i < n; {
		sent, _, errno := unix.RawSyscall6(unix.SYS_SENDMMSG, uintptr(c.fd), uintptr(unsafe.Pointer(&batch.out[i])),
			uintptr(n-i), unix.MSG_DONTWAIT, 0, 0)
		switch {
		case errno == unix.EINTR:
		case errno != 0:
			failed++
			if err == nil {
				err = c.opError("write", nil, c.closedOr(os.NewSyscallError("sendmmsg", errno)))
			}
			i++
		default:
			i += int(sent)
		}
	}
	return failed, err
}
