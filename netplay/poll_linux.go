//go:build linux

package netplay

import (
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// udpPoller reads a *net.UDPConn without blocking and without a goroutine: one recvfrom with
// MSG_DONTWAIT on the socket, through its syscall.RawConn, each time the session polls. The
// kernel's receive buffer holds what arrives between two polls, as the reader goroutine's ring
// does elsewhere, and no goroutine is woken per packet. It allocates nothing: the callback, the
// buffer it fills and the sender's address live here.
type udpPoller struct {
	rc      syscall.RawConn
	recv    func(fd uintptr) bool // p.recvfrom, made once
	buf     []byte
	n       int
	errno   syscall.Errno
	from    unix.RawSockaddrAny
	fromLen uint32
}

// newUDPPoller returns a poller of c, or nil if c's socket cannot be reached.
func newUDPPoller(c *net.UDPConn) *udpPoller {
	rc, err := c.SyscallConn()
	if err != nil {
		return nil
	}
	p := &udpPoller{rc: rc}
	p.recv = p.recvfrom
	return p
}

func (p *udpPoller) recvfrom(fd uintptr) bool {
	p.fromLen = unix.SizeofSockaddrAny
	n, _, errno := unix.Syscall6(unix.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&p.buf[0])), uintptr(len(p.buf)),
		unix.MSG_DONTWAIT, uintptr(unsafe.Pointer(&p.from)), uintptr(unsafe.Pointer(&p.fromLen)))
	p.n, p.errno = int(n), errno
	return true // never wait for the socket to be readable
}

// errNoPacket: nothing is waiting.
var errNoPacket = errors.New("netplay: no packet")

// read reads the next packet waiting into b, and its sender: errNoPacket if there is none, a
// net.ErrClosed error once the conn is closed, the socket's error (such as ECONNREFUSED on a
// connected socket whose peer is not there yet) otherwise.
func (p *udpPoller) read(b []byte) (int, netip.AddrPort, error) {
	p.buf = b
	if err := p.rc.Read(p.recv); err != nil {
		return 0, netip.AddrPort{}, err
	}
	switch p.errno {
	case 0:
	case unix.EAGAIN, unix.EINTR:
		return 0, netip.AddrPort{}, errNoPacket
	default:
		return 0, netip.AddrPort{}, p.errno
	}
	var ap netip.AddrPort
	switch p.from.Addr.Family {
	case unix.AF_INET:
		sa := (*unix.RawSockaddrInet4)(unsafe.Pointer(&p.from))
		ap = netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), port(sa.Port))
	case unix.AF_INET6:
		sa := (*unix.RawSockaddrInet6)(unsafe.Pointer(&p.from))
		ap = netip.AddrPortFrom(netip.AddrFrom16(sa.Addr).Unmap(), port(sa.Port))
	}
	return p.n, ap, nil
}

// port returns a sockaddr's port, stored in network byte order.
func port(raw uint16) uint16 {
	var b [2]byte
	*(*uint16)(unsafe.Pointer(&b[0])) = raw
	return binary.BigEndian.Uint16(b[:])
}

// refusedErr reports whether err is a connected socket told that its peer is not listening
// (yet): not a failure of the conn.
func refusedErr(err error) bool { return errors.Is(err, unix.ECONNREFUSED) }
