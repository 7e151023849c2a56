//go:build !linux

package netplay

import (
	"errors"
	"net"
	"net/netip"
)

// UDPConn is a UDP socket for sessions that must cost little CPU. Open one with ListenUDP and
// hand it to NewSession in place of a *net.UDPConn; it is a net.PacketConn like any other.
//
// On Linux its socket is its own non-blocking one, outside the Go runtime's network poller,
// read and written with system calls made directly (see the Linux documentation). Here it is a
// *net.UDPConn inside, and a session reads it as one.
type UDPConn struct {
	*net.UDPConn
}

// ListenUDP opens a UDP socket on laddr, as net.ListenUDP does.
func ListenUDP(network string, laddr *net.UDPAddr) (*UDPConn, error) {
	c, err := net.ListenUDP(network, laddr)
	if err != nil {
		return nil, err
	}
	return &UDPConn{c}, nil
}

// netUDP returns the *net.UDPConn inside.
func (c *UDPConn) netUDP() *net.UDPConn { return c.UDPConn }

// udpBatch is not used here.
type udpBatch struct {
	next, n int
	drained bool
	queued  int
}

func newUDPBatch() *udpBatch { return nil }

var errNoRaw = errors.New("netplay: no raw socket on this platform")

func (c *UDPConn) tryRecv(*udpBatch) (int, error)                { return 0, errNoRaw }
func (b *udpBatch) packet(int, *packet)                          {}
func (c *UDPConn) queue([]byte, netip.AddrPort, *udpBatch) error { return errNoRaw }
func (c *UDPConn) flush(*udpBatch) (int, error)                  { return 0, nil }

const batchPackets = 8
