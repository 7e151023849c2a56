//go:build !linux

package netplay

import (
	"errors"
	"net"
	"net/netip"
)

// udpPoller is not available here: a *net.UDPConn is read by a goroutine.
type udpPoller struct{}

func newUDPPoller(*net.UDPConn) *udpPoller { return nil }

var errNoPacket = errors.New("netplay: no packet")

func (p *udpPoller) read([]byte) (int, netip.AddrPort, error) {
	return 0, netip.AddrPort{}, errNoPacket
}

func refusedErr(error) bool { return false }
