package netplay

import (
	"bytes"
	"errors"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func listenUDPConn(t *testing.T, network string, ip net.IP) *UDPConn {
	t.Helper()
	c, err := ListenUDP(network, &net.UDPAddr{IP: ip})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestUDPConnPackets: packets go between UDPConns of each kind (IPv4, IPv6 where the machine
// has it, dual-stack), with the sender's address as it bound, IPv4 unmapped.
func TestUDPConnPackets(t *testing.T) {
	v4 := listenUDPConn(t, "udp4", net.IPv4(127, 0, 0, 1))
	dual := listenUDPConn(t, "udp", nil)
	pairs := [][2]*UDPConn{{v4, dual}, {dual, v4}}
	if v6, err := ListenUDP("udp6", &net.UDPAddr{IP: net.IPv6loopback}); err == nil {
		t.Cleanup(func() { v6.Close() })
		pairs = append(pairs, [2]*UDPConn{v6, dual}, [2]*UDPConn{dual, v6})
	}
	addr := func(c *UDPConn, to *UDPConn) netip.AddrPort {
		la := c.LocalAddr().(*net.UDPAddr).AddrPort()
		ip := la.Addr()
		if ip.IsUnspecified() { // reached on loopback, in the family of the sender
			ip = netip.MustParseAddr("127.0.0.1")
			if to.v6Only() {
				ip = netip.IPv6Loopback()
			}
		}
		return netip.AddrPortFrom(ip.Unmap(), la.Port())
	}
	for _, p := range pairs {
		from, to := p[0], p[1]
		msg := []byte("hello " + from.LocalAddr().String())
		if _, err := from.WriteTo(msg, net.UDPAddrFromAddrPort(addr(to, from))); err != nil {
			t.Fatalf("%v to %v: %v", from.LocalAddr(), to.LocalAddr(), err)
		}
		to.SetReadDeadline(time.Now().Add(10 * time.Second))
		buf := make([]byte, 100)
		n, sender, err := to.ReadFrom(buf)
		if err != nil {
			t.Fatalf("%v from %v: %v", to.LocalAddr(), from.LocalAddr(), err)
		}
		if !bytes.Equal(buf[:n], msg) {
			t.Errorf("%v read %q, want %q", to.LocalAddr(), buf[:n], msg)
		}
		if got, want := sender.(*net.UDPAddr).AddrPort(), addr(from, to); got != want {
			t.Errorf("%v read from %v, want %v", to.LocalAddr(), got, want)
		}
	}
}

// v6Only reports whether c speaks IPv6 alone (a "udp6" socket), for the test above.
func (c *UDPConn) v6Only() bool {
	a := c.LocalAddr().(*net.UDPAddr)
	return a.IP.To4() == nil && !a.IP.IsUnspecified()
}

// TestUDPConnDeadlinesAndClose: a read past its deadline fails with a timeout, a read waiting
// ends with net.ErrClosed when the conn is closed, and every call after Close fails so.
func TestUDPConnDeadlinesAndClose(t *testing.T) {
	c := listenUDPConn(t, "udp4", net.IPv4(127, 0, 0, 1))
	c.SetReadDeadline(time.Now().Add(-time.Second))
	_, _, err := c.ReadFrom(make([]byte, 10))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("read past its deadline: %v, want a timeout", err)
	}
	c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, _, err := c.ReadFrom(make([]byte, 10)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("read to a deadline: %v, want a timeout", err)
	}
	c.SetReadDeadline(time.Time{})

	// Readers waiting, then Close: each returns net.ErrClosed.
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := c.ReadFrom(make([]byte, 10))
			errs <- err
		}()
	}
	time.Sleep(10 * time.Millisecond) // most likely waiting by now; either way they must end
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("a read waiting at Close: %v, want net.ErrClosed", err)
		}
	}
	if _, _, err := c.ReadFrom(make([]byte, 10)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("a read after Close: %v, want net.ErrClosed", err)
	}
	if _, err := c.WriteTo([]byte("x"), c.LocalAddr()); !errors.Is(err, net.ErrClosed) {
		t.Errorf("a write after Close: %v, want net.ErrClosed", err)
	}
	if err := c.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("a second Close: %v, want net.ErrClosed", err)
	}
}

// TestListenUDPErrors: a bad network, an address of the wrong family and a port in use are
// errors that say so.
func TestListenUDPErrors(t *testing.T) {
	used := listenUDPConn(t, "udp4", net.IPv4(127, 0, 0, 1))
	for _, c := range []struct {
		network string
		addr    *net.UDPAddr
		want    string
		is      error
	}{
		{"tcp", nil, "unknown network tcp", nil},
		{"udp4", &net.UDPAddr{IP: net.IPv6loopback}, "non-IPv4 address", nil},
		{"udp6", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}, "non-IPv6 address", nil},
		{"udp", &net.UDPAddr{Port: 70000}, "invalid port", nil},
		{"udp4", used.LocalAddr().(*net.UDPAddr), "address already in use", syscall.EADDRINUSE},
	} {
		c2, err := ListenUDP(c.network, c.addr)
		if err == nil {
			c2.Close()
			t.Errorf("ListenUDP(%q, %v): no error", c.network, c.addr)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || (c.is != nil && runtime.GOOS == "linux" && !errors.Is(err, c.is)) {
			t.Errorf("ListenUDP(%q, %v): %v, want %q", c.network, c.addr, err, c.want)
		}
	}
	if _, err := used.WriteTo([]byte("x"), &net.IPAddr{IP: net.IPv4(127, 0, 0, 1)}); err == nil {
		t.Errorf("WriteTo a *net.IPAddr: no error")
	}
}
