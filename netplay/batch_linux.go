//go:build linux

package netplay

import (
	"net"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// batchSys is a Batch's recvmmsg and sendmmsg headers.
type batchSys struct {
	hdrs    []mmsghdr
	iovs    []unix.Iovec
	names   []unix.RawSockaddrAny
	out     []mmsghdr
	outIovs []unix.Iovec
	outTo   []unix.RawSockaddrInet6
}

func (s *batchSys) init(b *Batch) {
	s.hdrs, s.iovs, s.names = make([]mmsghdr, b.n), make([]unix.Iovec, b.n), make([]unix.RawSockaddrAny, b.n)
	s.out, s.outIovs, s.outTo = make([]mmsghdr, b.n), make([]unix.Iovec, b.n), make([]unix.RawSockaddrInet6, b.n)
	for i := range b.n {
		s.iovs[i].Base = &b.in[i][0]
		s.iovs[i].SetLen(readBufSize)
		s.hdrs[i].hdr.Iov = &s.iovs[i]
		s.hdrs[i].hdr.SetIovlen(1)
		s.hdrs[i].hdr.Name = (*byte)(unsafe.Pointer(&s.names[i]))
		s.outIovs[i].Base = &b.out[i][0]
		s.out[i].hdr.Iov = &s.outIovs[i]
		s.out[i].hdr.SetIovlen(1)
		s.out[i].hdr.Name = (*byte)(unsafe.Pointer(&s.outTo[i]))
	}
}

// ReadBatch reads into b the packets waiting, up to its size, with one recvmmsg made directly,
// waiting for one first as ReadFrom does (the read deadline, Close); it returns how many
// (b.Len()).
func (c *UDPConn) ReadBatch(b *Batch) (int, error) {
	b.read = 0
	if !c.acquire() {
		return 0, c.opError("read", nil, net.ErrClosed)
	}
	defer c.release()
	s := &b.sys
	for {
		for i := range b.n {
			s.hdrs[i].hdr.Namelen = unix.SizeofSockaddrAny
			s.hdrs[i].hdr.Flags = 0
		}
		n, _, errno := unix.RawSyscall6(unix.SYS_RECVMMSG, uintptr(c.fd), uintptr(unsafe.Pointer(&s.hdrs[0])),
			uintptr(b.n), unix.MSG_DONTWAIT, 0, 0)
		switch errno {
		case 0:
			for i := range int(n) {
				b.inLen[i] = min(int(s.hdrs[i].n), readBufSize)
				b.from[i] = sockaddrAddrPort(&s.names[i])
			}
			b.read = int(n)
			return b.read, nil
		case unix.EAGAIN, unix.EINTR:
		default:
			return 0, c.opError("read", nil, c.closedOr(os.NewSyscallError("recvmmsg", errno)))
		}
		if err := c.wait(unix.POLLIN, &c.readDeadline, "read", nil); err != nil {
			return 0, err
		}
	}
}

// WriteBatch sends the packets queued in b with one sendmmsg made directly (more only after a
// packet fails: it is dropped, as the network may drop it, and the rest go on), without
// waiting for room in the socket's send buffer, and empties the queue. It returns how many
// were sent and the first error.
func (c *UDPConn) WriteBatch(b *Batch) (sent int, err error) {
	n := b.queued
	b.queued = 0
	if n == 0 {
		return 0, nil
	}
	if !c.acquire() {
		return 0, c.opError("write", nil, net.ErrClosed)
	}
	defer c.release()
	s := &b.sys
	for i := range n {
		saLen, errno := c.sockaddr(b.to[i], &s.outTo[i])
		if errno != 0 {
			saLen = 0 // fails in sendmmsg, as it would in sendto
		}
		s.out[i].hdr.Namelen = saLen
		s.outIovs[i].SetLen(b.outLen[i])
	}
	for i := 0; i < n; {
		k, _, errno := unix.RawSyscall6(unix.SYS_SENDMMSG, uintptr(c.fd), uintptr(unsafe.Pointer(&s.out[i])),
			uintptr(n-i), unix.MSG_DONTWAIT, 0, 0)
		switch {
		case errno == unix.EINTR:
		case errno != 0:
			if err == nil {
				err = c.opError("write", nil, c.closedOr(os.NewSyscallError("sendmmsg", errno)))
			}
			i++ // that one is lost
		default:
			i += int(k)
			sent += int(k)
		}
	}
	return sent, err
}
