package netsim

import (
	"encoding/binary"
	"errors"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"
)

// udpPair returns two UDP sockets on 127.0.0.1, closed with the test.
func udpPair(t *testing.T) (a, b *net.UDPConn) {
	t.Helper()
	var conns [2]*net.UDPConn
	for i := range conns {
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		conns[i] = c
	}
	return conns[0], conns[1]
}

// TestWrapDelays: over real UDP, every datagram written through a wrapper of 30 ms latency
// arrives, and none sooner than 30 ms after it was written (later is allowed: a busy machine
// only adds to the delay).
func TestWrapDelays(t *testing.T) {
	a, b := udpPair(t)
	const latency = 30 * time.Millisecond
	w := Wrap(a, Conditions{Latency: latency}, 1)
	defer w.Close()
	if _, ok := w.(*Wrapped); !ok {
		t.Fatalf("Wrap of a *net.UDPConn is a %T, want a *Wrapped (it has no TryReadFrom)", w)
	}
	const n = 20
	go func() {
		for i := range n {
			var msg [16]byte
			binary.LittleEndian.PutUint64(msg[:], uint64(i))
			binary.LittleEndian.PutUint64(msg[8:], uint64(time.Now().UnixNano()))
			if _, err := w.WriteTo(msg[:], b.LocalAddr()); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	b.SetReadDeadline(time.Now().Add(time.Minute)) // a failure guard only
	seen := map[uint64]bool{}
	buf := make([]byte, 64)
	for len(seen) < n {
		k, from, err := b.ReadFrom(buf)
		if err != nil {
			t.Fatalf("after %d datagrams: %v", len(seen), err)
		}
		arrived := time.Now()
		if k != 16 || from.String() != a.LocalAddr().String() {
			t.Fatalf("read %d bytes from %v", k, from)
		}
		i := binary.LittleEndian.Uint64(buf)
		sent := time.Unix(0, int64(binary.LittleEndian.Uint64(buf[8:])))
		if d := arrived.Sub(sent); d < latency {
			t.Errorf("datagram %d arrived %v after it was written, under the latency %v", i, d, latency)
		}
		seen[i] = true
	}
	if st := w.(*Wrapped).Stats(); st.Packets != n || st.Dropped != 0 || st.SendErrors != 0 {
		t.Errorf("stats %+v, want %d packets and no drop", st, n)
	}
}

// TestWrapModel: a wrapper puts the datagrams through the same model as a Network's links:
// the same seed and writes give the same fates, another seed others, and what is not dropped
// arrives (twice if duplicated). It wraps an endpoint of an in-memory Network, and keeps its
// TryReadFrom.
func TestWrapModel(t *testing.T) {
	c := Conditions{Latency: 2 * time.Millisecond, Jitter: 2 * time.Millisecond, Loss: 0.3, Dup: 0.1, Reorder: 0.1,
		ReorderDelay: 3 * time.Millisecond, BurstLoss: 0.2, BurstLen: 2}
	run := func(seed uint64) WrapStats {
		network := NewNetwork(1)
		from, err := network.Listen("from")
		if err != nil {
			t.Fatal(err)
		}
		to, err := network.Listen("to")
		if err != nil {
			t.Fatal(err)
		}
		defer to.Close()
		wc := Wrap(from, c, seed)
		w, ok := wc.(*WrappedTry)
		if !ok {
			t.Fatalf("Wrap of a netsim Conn is a %T, want a *WrappedTry", wc)
		}
		const n = 1000
		for i := range n {
			if _, err := w.WriteTo([]byte{byte(i)}, to.LocalAddr()); err != nil {
				t.Fatal(err)
			}
		}
		st := w.Stats()
		want := st.Packets - st.Dropped + st.Duplicated
		got := int64(0)
		buf := make([]byte, 8)
		deadline := time.Now().Add(time.Minute) // a failure guard only
		for got < want && time.Now().Before(deadline) {
			if _, addr, ok := to.TryReadFrom(buf); ok {
				if addr.String() != "from" {
					t.Fatalf("a datagram from %v", addr)
				}
				got++
				continue
			}
			time.Sleep(time.Millisecond)
		}
		if got != want {
			t.Errorf("seed %d: %d datagrams arrived, want %d (%+v)", seed, got, want, st)
		}
		// TryReadFrom is the wrapped conn's own: nothing more to read.
		if _, _, ok := w.TryReadFrom(buf); ok {
			t.Error("the wrapper read a datagram sent to no one")
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if st.Packets != n {
			t.Errorf("%d packets counted, want %d", st.Packets, n)
		}
		return w.Stats()
	}
	s1, s2, s3 := run(7), run(7), run(8)
	if s1 != s2 {
		t.Errorf("the same seed gave %+v and %+v", s1, s2)
	}
	if s1 == s3 {
		t.Errorf("seeds 7 and 8 gave the same %+v", s1)
	}
	// The long-run loss, bursts included, is about c.LossRate() (36%): 1,000 draws stay
	// well within 30-42%.
	for _, s := range []WrapStats{s1, s3} {
		if loss := float64(s.Dropped) / float64(s.Packets); loss < 0.30 || loss > 0.42 {
			t.Errorf("loss %.3f, want about %.3f", loss, c.LossRate())
		}
		if s.Duplicated == 0 || s.Reordered == 0 {
			t.Errorf("nothing duplicated or reordered: %+v", s)
		}
	}
}

// TestWrapClose: Close drops what waits, ends the wrapper's goroutine, closes the wrapped conn;
// a write after it, or a second Close, fails. Writes that are too large or have no address
// fail too.
func TestWrapClose(t *testing.T) {
	a, b := udpPair(t)
	before := wrapGoroutines()
	w := Wrap(a, Conditions{Latency: MaxDelay}, 1)
	if _, err := w.WriteTo(make([]byte, MaxPacketSize+1), b.LocalAddr()); err == nil {
		t.Error("a datagram over MaxPacketSize was written")
	}
	if _, err := w.WriteTo([]byte{1}, nil); err == nil {
		t.Error("a datagram to no address was written")
	}
	if _, err := w.WriteTo([]byte{1}, b.LocalAddr()); err != nil { // waits a minute
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("a second Close: %v, want net.ErrClosed", err)
	}
	if _, err := w.WriteTo([]byte{1}, b.LocalAddr()); !errors.Is(err, net.ErrClosed) {
		t.Errorf("a write after Close: %v, want net.ErrClosed", err)
	}
	if _, err := a.WriteTo([]byte{1}, b.LocalAddr()); !errors.Is(err, net.ErrClosed) {
		t.Errorf("the wrapped conn after Close: %v, want it closed", err)
	}
	if n := wrapGoroutines(); n != before {
		t.Errorf("%d wrapper goroutines after Close, %d before", n, before)
	}
}

// wrapGoroutines returns how many wrapper goroutines run.
func wrapGoroutines() int {
	buf := make([]byte, 1<<20)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), "netsim.(*Wrapped).send")
}
