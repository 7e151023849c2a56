package netplay

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"
)

// TestUDPConnBatch: a batch queues up to its size, WriteBatch sends what it queued (to two
// addresses), ReadBatch reads every packet with its sender, and neither allocates; a read
// deadline and Close end a ReadBatch that waits.
func TestUDPConnBatch(t *testing.T) {
	if _, err := NewBatch(0); err == nil {
		t.Error("NewBatch(0): no error")
	}
	if _, err := NewBatch(MaxBatch + 1); err == nil {
		t.Error("NewBatch(MaxBatch+1): no error")
	}
	src := listenUDPConn(t, "udp4", net.IPv4(127, 0, 0, 1))
	dst := [2]*UDPConn{listenUDPConn(t, "udp4", net.IPv4(127, 0, 0, 1)), listenUDPConn(t, "udp4", net.IPv4(127, 0, 0, 1))}
	srcAP := src.LocalAddr().(*net.UDPAddr).AddrPort()
	srcAP = netip.AddrPortFrom(srcAP.Addr().Unmap(), srcAP.Port())
	out, err := NewBatch(16)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := NewBatch(16)
	for i := range 16 {
		to := dst[i%2].LocalAddr().(*net.UDPAddr).AddrPort()
		if !out.Add([]byte(fmt.Sprintf("packet %02d", i)), to) {
			t.Fatalf("Add %d refused", i)
		}
	}
	if out.Add([]byte("one more"), srcAP) || out.Queued() != 16 {
		t.Fatalf("a 17th packet taken into a batch of 16 (%d queued)", out.Queued())
	}
	if out.Add(make([]byte, 1501), srcAP) {
		t.Error("a packet of 1,501 bytes taken")
	}
	if sent, err := src.WriteBatch(out); sent != 16 || err != nil || out.Queued() != 0 {
		t.Fatalf("WriteBatch: %d sent, %v, %d still queued", sent, err, out.Queued())
	}
	for d, c := range dst {
		got := map[string]bool{}
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		for len(got) < 8 {
			n, err := c.ReadBatch(in)
			if err != nil || n != in.Len() || n < 1 {
				t.Fatalf("ReadBatch: %d, %v", n, err)
			}
			for i := range n {
				p, from := in.Packet(i)
				if from != srcAP {
					t.Errorf("a packet from %v, want %v", from, srcAP)
				}
				got[string(p)] = true
			}
		}
		for i := d; i < 16; i += 2 {
			if !got[fmt.Sprintf("packet %02d", i)] {
				t.Errorf("socket %d: packet %d missing from %v", d, i, got)
			}
		}
	}
	// No allocation either way, in steady state.
	to := dst[0].LocalAddr().(*net.UDPAddr).AddrPort()
	payload := []byte("steady")
	allocs := testing.AllocsPerRun(100, func() {
		out.Add(payload, to)
		if _, err := src.WriteBatch(out); err != nil {
			t.Fatal(err)
		}
		if _, err := dst[0].ReadBatch(in); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations a packet written and read", allocs)
	}
	// A deadline, then Close, end a wait.
	drain(dst[0], in)
	dst[0].SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := dst[0].ReadBatch(in); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("ReadBatch past the deadline: %v", err)
	}
	dst[0].SetReadDeadline(time.Time{})
	done := make(chan error, 1)
	go func() { _, err := dst[0].ReadBatch(in); done <- err }()
	time.Sleep(10 * time.Millisecond)
	dst[0].Close()
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Errorf("ReadBatch ended by Close: %v", err)
	}
	if _, err := dst[0].WriteBatch(out); err != nil {
		t.Errorf("WriteBatch of nothing after Close: %v", err)
	}
	out.Add(payload, netip.AddrPortFrom(netip.IPv4Unspecified(), 9))
	if _, err := dst[0].WriteBatch(out); !errors.Is(err, net.ErrClosed) {
		t.Errorf("WriteBatch after Close: %v", err)
	}
}

// drain reads what waits on c.
func drain(c *UDPConn, b *Batch) {
	c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	for {
		if _, err := c.ReadBatch(b); err != nil {
			break
		}
	}
	c.SetReadDeadline(time.Time{})
}
