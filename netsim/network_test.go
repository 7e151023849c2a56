package netsim

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func listen(t *testing.T, n *Network, name string) *Conn {
	t.Helper()
	c, err := n.Listen(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func write(t *testing.T, c *Conn, to net.Addr, msg string) {
	t.Helper()
	if k, err := c.WriteTo([]byte(msg), to); err != nil || k != len(msg) {
		t.Fatalf("WriteTo(%q, %v) = %d, %v", msg, to, k, err)
	}
}

// drain reads everything deliverable now, as "from:message".
func drain(c *Conn) []string {
	var got []string
	buf := make([]byte, MaxPacketSize)
	for {
		k, from, ok := c.TryReadFrom(buf)
		if !ok {
			return got
		}
		got = append(got, from.String()+":"+string(buf[:k]))
	}
}

func TestNetworkDeliversAtLatency(t *testing.T) {
	n := NewNetwork(1)
	a, b := listen(t, n, "a"), listen(t, n, "b")
	n.SetConditions("a", "b", Conditions{Latency: 30 * ms})
	n.SetConditions("b", "a", Conditions{Latency: 10 * ms})

	write(t, a, b.LocalAddr(), "ping")
	n.Advance(29 * ms)
	if got := drain(b); len(got) != 0 {
		t.Fatalf("at 29ms b read %v, before the 30ms latency", got)
	}
	n.Advance(ms)
	if got := drain(b); !slices.Equal(got, []string{"a:ping"}) {
		t.Fatalf("at 30ms b read %v, want a:ping", got)
	}
	write(t, b, a.LocalAddr(), "pong")
	n.Advance(9 * ms)
	if got := drain(a); len(got) != 0 {
		t.Fatalf("a read %v before the reply's 10ms latency", got)
	}
	n.Advance(ms)
	if got := drain(a); !slices.Equal(got, []string{"b:pong"}) {
		t.Fatalf("a read %v, want b:pong", got)
	}
	if n.Now() != 40*ms {
		t.Fatalf("Now() = %v, want 40ms", n.Now())
	}
}

func TestNetworkOrdersByDeliveryTimeThenSendOrder(t *testing.T) {
	n := NewNetwork(1)
	a, b, c := listen(t, n, "a"), listen(t, n, "b"), listen(t, n, "c")
	n.SetConditions("a", "c", Conditions{Latency: 20 * ms})
	n.SetConditions("b", "c", Conditions{Latency: 5 * ms})
	write(t, a, c.LocalAddr(), "slow1")
	write(t, b, c.LocalAddr(), "fast1")
	n.Advance(15 * ms)
	write(t, b, c.LocalAddr(), "tie1") // due at 20ms, as are slow1...
	write(t, a, c.LocalAddr(), "slow2")
	n.SetConditions("a", "c", Conditions{Latency: 5 * ms})
	write(t, a, c.LocalAddr(), "tie2") // ... and this, sent last
	n.Advance(time.Second)
	want := []string{"b:fast1", "a:slow1", "b:tie1", "a:tie2", "a:slow2"}
	if got := drain(c); !slices.Equal(got, want) {
		t.Fatalf("c read %v, want %v", got, want)
	}
}

func TestNetworkWritesThatGoNowhere(t *testing.T) {
	n := NewNetwork(1)
	a := listen(t, n, "a")
	write(t, a, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9}, "lost")
	if s := a.Stats(); s.Sent != 1 || s.Unreachable != 1 {
		t.Fatalf("Stats() = %+v, want 1 sent, 1 unreachable", s)
	}
	if _, err := a.WriteTo(make([]byte, MaxPacketSize+1), a.LocalAddr()); err == nil || !strings.Contains(err.Error(), "1501 bytes") {
		t.Fatalf("a write of %d bytes: %v, want an error saying it is too large", MaxPacketSize+1, err)
	}
	if _, err := a.WriteTo([]byte("x"), nil); err == nil {
		t.Fatal("a write to no address succeeded")
	}
	// Any net.Addr reaches the endpoint whose name is its String.
	b := listen(t, n, "127.0.0.1:7000")
	write(t, a, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7000}, "found")
	if got := drain(b); !slices.Equal(got, []string{"a:found"}) {
		t.Fatalf("b read %v, want a:found", got)
	}
}

func TestNetworkListen(t *testing.T) {
	n := NewNetwork(1)
	if _, err := n.Listen(""); err == nil {
		t.Fatal("Listen(\"\") succeeded")
	}
	a := listen(t, n, "a")
	if _, err := n.Listen("a"); err == nil || !strings.Contains(err.Error(), `"a" is in use`) {
		t.Fatalf("a second Listen(a): %v, want an error saying it is in use", err)
	}
	b := listen(t, n, "b")
	write(t, b, a.LocalAddr(), "for the old a")
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("a second Close: %v, want net.ErrClosed", err)
	}
	if _, err := a.WriteTo([]byte("x"), b.LocalAddr()); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("WriteTo after Close: %v, want net.ErrClosed", err)
	}
	a2 := listen(t, n, "a")
	if got := drain(a2); len(got) != 0 {
		t.Fatalf("a new endpoint named a read %v, sent to the closed one", got)
	}
	write(t, b, a2.LocalAddr(), "for the new a")
	if got := drain(a2); !slices.Equal(got, []string{"b:for the new a"}) {
		t.Fatalf("the new a read %v", got)
	}
}

func TestNetworkTruncatesLikeUDP(t *testing.T) {
	n := NewNetwork(1)
	a := listen(t, n, "a")
	write(t, a, a.LocalAddr(), "hello, me")
	buf := make([]byte, 5)
	k, _, ok := a.TryReadFrom(buf)
	if !ok || string(buf[:k]) != "hello" {
		t.Fatalf("TryReadFrom into 5 bytes = %q, %v", buf[:k], ok)
	}
	if _, _, ok := a.TryReadFrom(buf); ok {
		t.Fatal("the rest of a truncated packet was read as another")
	}
}

func TestNetworkCut(t *testing.T) {
	n := NewNetwork(1)
	a, b := listen(t, n, "a"), listen(t, n, "b")
	n.SetConditions("a", "b", Conditions{Latency: 50 * ms})
	write(t, a, b.LocalAddr(), "before")
	n.Cut("a", "b", true)
	write(t, a, b.LocalAddr(), "during")
	write(t, b, a.LocalAddr(), "during")
	n.Advance(time.Second)
	if got := drain(b); !slices.Equal(got, []string{"a:before"}) {
		t.Fatalf("b read %v, want only the packet in flight before the cut", got)
	}
	if got := drain(a); len(got) != 0 {
		t.Fatalf("a read %v during the cut", got)
	}
	n.Cut("b", "a", false)
	write(t, a, b.LocalAddr(), "after")
	n.Advance(time.Second)
	if got := drain(b); !slices.Equal(got, []string{"a:after"}) {
		t.Fatalf("b read %v after the cut, want a:after", got)
	}
	if s := n.Stats("a", "b"); s.Cut != 1 || s.Packets != 2 {
		t.Fatalf("Stats(a, b) = %+v, want 1 cut, 2 through the link", s)
	}
	if s := n.Stats("b", "a"); s.Cut != 1 || s.Packets != 0 {
		t.Fatalf("Stats(b, a) = %+v, want 1 cut", s)
	}
}

func TestNetworkBoundsWhatIsInFlight(t *testing.T) {
	n := NewNetwork(1)
	a, b := listen(t, n, "a"), listen(t, n, "b")
	n.SetConditions("a", "b", Conditions{Latency: ms})
	for range MaxQueued + 10 {
		write(t, a, b.LocalAddr(), "x")
	}
	if s := b.Stats(); s.Overflowed != 10 {
		t.Fatalf("b's Stats() = %+v, want 10 overflowed", s)
	}
	n.Advance(ms)
	if got := len(drain(b)); got != MaxQueued {
		t.Fatalf("b read %d, want %d", got, MaxQueued)
	}
}

func TestNetworkNextDelivery(t *testing.T) {
	n := NewNetwork(1)
	a, b := listen(t, n, "a"), listen(t, n, "b")
	if _, ok := n.NextDelivery(); ok {
		t.Fatal("NextDelivery with nothing in flight reported one")
	}
	n.SetConditions("a", "b", Conditions{Latency: 70 * ms})
	n.SetConditions("b", "a", Conditions{Latency: 30 * ms})
	write(t, a, b.LocalAddr(), "x")
	write(t, b, a.LocalAddr(), "y")
	if at, ok := n.NextDelivery(); !ok || at != 30*ms {
		t.Fatalf("NextDelivery() = %v, %v, want 30ms", at, ok)
	}
}

func TestNetworkTimeOnlyGoesForward(t *testing.T) {
	n := NewNetwork(1)
	n.SetTime(time.Second)
	n.SetTime(time.Second)
	for name, f := range map[string]func(){
		"SetTime back": func() { n.SetTime(time.Second - 1) },
		"Advance(-1)":  func() { n.Advance(-1) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "cannot go back") {
					t.Errorf("%s: recovered %v, want a panic saying time cannot go back", name, r)
				}
			}()
			f()
		}()
	}
	n.Advance(1<<63 - 1)
	if n.Now() != 1<<63-1 {
		t.Fatalf("Advance past the end of time: Now() = %v, want it saturated", n.Now())
	}
}

// scenario plays minutes of traffic among three endpoints under bad conditions, moving the
// time in steps as a game loop would, and returns every read in order.
func scenario(t *testing.T, seed uint64) []string {
	n := NewNetwork(seed)
	names := []string{"p1", "p2", "p3"}
	conns := make([]*Conn, len(names))
	for i, name := range names {
		conns[i] = listen(t, n, name)
	}
	terrible, _ := Preset("terrible")
	terrible.Dup, terrible.Reorder = 0.05, 0.05
	mobile, _ := Preset("mobile")
	n.SetConditions("p1", "p2", terrible)
	n.SetConditions("p2", "p1", mobile)
	n.SetConditions("p3", "p1", terrible)
	var log []string
	for tick := range 3600 {
		for i, c := range conns {
			to := conns[(i+1+tick%2)%len(conns)]
			write(t, c, to.LocalAddr(), fmt.Sprintf("%d", tick))
		}
		n.Advance(time.Second / 60)
		for _, c := range conns {
			for _, r := range drain(c) {
				log = append(log, fmt.Sprintf("%v %s<-%s", n.Now(), c.LocalAddr(), r))
			}
		}
	}
	return log
}

func TestNetworkDeterministic(t *testing.T) {
	a, b := scenario(t, 99), scenario(t, 99)
	if !slices.Equal(a, b) {
		t.Fatal("the same scenario and seed delivered differently")
	}
	if c := scenario(t, 100); slices.Equal(a, c) {
		t.Fatal("another seed delivered the same")
	}
	if len(a) < 3*3600*8/10 {
		t.Fatalf("only %d of %d packets read", len(a), 3*3600)
	}
}

func TestNetworkSendReceiveDoesNotAllocate(t *testing.T) {
	n := NewNetwork(1)
	a, b := listen(t, n, "a"), listen(t, n, "b")
	c, _ := Preset("poor")
	c.Dup, c.Reorder = 0.1, 0.1
	n.SetConditions("a", "b", c)
	n.SetConditions("b", "a", c)
	msg, buf := make([]byte, 200), make([]byte, MaxPacketSize)
	to, back := b.LocalAddr(), a.LocalAddr()
	step := func() {
		a.WriteTo(msg, to)
		b.WriteTo(msg, back)
		n.Advance(time.Second / 60)
		for {
			if _, _, ok := a.TryReadFrom(buf); !ok {
				break
			}
		}
		for {
			if _, _, ok := b.TryReadFrom(buf); !ok {
				break
			}
		}
	}
	for range 600 { // fill the pool of buffers and the queues' capacity
		step()
	}
	if allocs := testing.AllocsPerRun(1000, step); allocs != 0 {
		t.Fatalf("%v allocations per send and receive, want 0", allocs)
	}
}

func TestReadFromBlocksUntilTheTimeComes(t *testing.T) {
	n := NewNetwork(1)
	a, b := listen(t, n, "a"), listen(t, n, "b")
	n.SetConditions("a", "b", Conditions{Latency: 100 * ms})
	type result struct {
		msg string
		at  time.Duration
		err error
	}
	done := make(chan result)
	go func() {
		buf := make([]byte, 100)
		k, _, err := b.ReadFrom(buf)
		done <- result{string(buf[:k]), n.Now(), err}
	}()
	write(t, a, b.LocalAddr(), "hi")
	for range 10 {
		n.Advance(10 * ms)
	}
	r := <-done
	if r.err != nil || r.msg != "hi" || r.at != 100*ms {
		t.Fatalf("ReadFrom = %q at %v, %v; want hi at 100ms", r.msg, r.at, r.err)
	}
}

func TestReadFromDeadlineAndClose(t *testing.T) {
	n := NewNetwork(1)
	a := listen(t, n, "a")
	if err := a.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	var ne net.Error
	if _, _, err := a.ReadFrom(make([]byte, 10)); !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("ReadFrom past its deadline: %v, want a timeout", err)
	}
	// A deadline set while a read waits ends it, as does Close.
	a.SetReadDeadline(time.Time{})
	errs := make(chan error)
	go func() {
		_, _, err := a.ReadFrom(make([]byte, 10))
		errs <- err
	}()
	time.Sleep(10 * ms) // let it block; the test holds either way
	a.SetReadDeadline(time.Now())
	if err := <-errs; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("ReadFrom after SetReadDeadline(now): %v", err)
	}
	a.SetReadDeadline(time.Time{})
	go func() {
		_, _, err := a.ReadFrom(make([]byte, 10))
		errs <- err
	}()
	time.Sleep(10 * ms)
	a.Close()
	if err := <-errs; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("ReadFrom after Close: %v, want net.ErrClosed", err)
	}
}

// BenchmarkNetworkSendReceive is one packet each way between two endpoints under poor
// conditions, a tick of simulated time, and reading what arrived: the cost a simulated tick
// adds to a test, per packet.
func BenchmarkNetworkSendReceive(b *testing.B) {
	n := NewNetwork(1)
	x, _ := n.Listen("x")
	y, _ := n.Listen("y")
	poor, _ := Preset("poor")
	n.SetConditions("x", "y", poor)
	n.SetConditions("y", "x", poor)
	msg, buf := make([]byte, 64), make([]byte, MaxPacketSize)
	toY, toX := y.LocalAddr(), x.LocalAddr()
	b.ReportAllocs()
	for b.Loop() {
		x.WriteTo(msg, toY)
		y.WriteTo(msg, toX)
		n.Advance(time.Second / 60)
		for _, c := range []*Conn{x, y} {
			for {
				if _, _, ok := c.TryReadFrom(buf); !ok {
					break
				}
			}
		}
	}
}

func BenchmarkLinkSend(b *testing.B) {
	c, _ := Preset("mobile")
	l := NewLink(c, 1)
	now := time.Duration(0)
	b.ReportAllocs()
	for b.Loop() {
		now += time.Millisecond
		l.Send(now, 64)
	}
}

func TestNetworkCutOneWay(t *testing.T) {
	n := NewNetwork(1)
	a, b := listen(t, n, "a"), listen(t, n, "b")
	n.CutOneWay("a", "b", true)
	write(t, a, b.LocalAddr(), "lost")
	write(t, b, a.LocalAddr(), "through")
	n.Advance(time.Second)
	if got := drain(b); len(got) != 0 {
		t.Fatalf("b read %v from a while a -> b was cut", got)
	}
	if got := drain(a); !slices.Equal(got, []string{"b:through"}) {
		t.Fatalf("a read %v, want b:through (b -> a is not cut)", got)
	}
	n.CutOneWay("a", "b", false)
	write(t, a, b.LocalAddr(), "after")
	n.Advance(time.Second)
	if got := drain(b); !slices.Equal(got, []string{"a:after"}) {
		t.Fatalf("b read %v after the cut ended, want a:after", got)
	}
	if s := n.Stats("a", "b"); s.Cut != 1 {
		t.Fatalf("Stats(a, b) = %+v, want 1 cut", s)
	}
}
