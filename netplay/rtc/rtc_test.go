//go:build !js

package rtc_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay/rtc"
	"github.com/gameloop-go/gameloop/netplay/rtc/lobby"
)

// guard bounds every wait of these tests: it is there to fail a test that hangs, never to
// pass one, so it is far longer than anything should take on a loaded machine.
const guard = 2 * time.Minute

// startLobby serves a lobby with cfg's limits on 127.0.0.1 until the test ends, and returns its
// WebSocket URL.
func startLobby(t testing.TB, cfg lobby.Config) (string, *lobby.Server) {
	t.Helper()
	l, err := lobby.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(l)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		if err := l.Close(ctx); err != nil {
			t.Error(err)
		}
		srv.Close()
	})
	return "ws" + strings.TrimPrefix(srv.URL, "http"), l
}

// dialRoom joins n peers to room at the lobby at url, all at once, and returns their Conns
// ordered by index, closed with the test.
func dialRoom(t testing.TB, url, room string, n int, opts *rtc.Options) []*rtc.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	conns := make([]*rtc.Conn, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { conns[i], errs[i] = rtc.Dial(ctx, url, room, n, opts) })
	}
	wg.Wait()
	for _, c := range conns {
		if c != nil {
			t.Cleanup(func() { c.Close() })
		}
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(conns, func(a, b *rtc.Conn) int { return a.Index() - b.Index() })
	for i, c := range conns {
		if c.Index() != i || c.Size() != n {
			t.Fatalf("the members' indices are not 0 to %d: member %d of %d at place %d", n-1, c.Index(), c.Size(), i)
		}
	}
	return conns
}

// TestMesh: 2, 3 and 8 peers join a room; every member agrees on every address, and every
// pair exchanges datagrams both ways, each reported from the sender's address.
func TestMesh(t *testing.T) {
	url, _ := startLobby(t, lobby.Config{})
	for _, n := range []int{2, 3, 8} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			conns := dialRoom(t, url, fmt.Sprintf("mesh%d", n), n, nil)
			for _, c := range conns {
				for j, d := range conns {
					if a, b := c.PeerAddr(j), d.LocalAddr(); a != b || a.String() != b.String() || a.Network() != "rtc" {
						t.Errorf("member %d names member %d %v, which calls itself %v", c.Index(), j, a, b)
					}
				}
				players := c.Players()
				for j, p := range players {
					if p.Local != (j == c.Index()) || !p.Local && p.Addr != c.PeerAddr(j) {
						t.Errorf("member %d: player %d is %+v", c.Index(), j, p)
					}
				}
			}
			pingAll(t, conns)
		})
	}
}

// pingAll has every member ping every other until it is answered, and checks each datagram's
// sender and content. A datagram may be lost (none is retransmitted), so pings are repeated
// until answered: how long that takes does not decide the outcome.
func pingAll(t *testing.T, conns []*rtc.Conn) {
	t.Helper()
	n := len(conns)
	var mu sync.Mutex
	answered := make([][]bool, n)
	for i := range answered {
		answered[i] = make([]bool, n)
		answered[i][i] = true
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() {
			buf := make([]byte, 64)
			for {
				c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
				k, from, err := c.ReadFrom(buf)
				select {
				case <-done:
					return
				default:
				}
				if err != nil {
					if ne, ok := err.(net.Error); ok && ne.Timeout() {
						continue
					}
					t.Errorf("member %d: %v", i, err)
					return
				}
				var kind string
				var src, dst int
				if _, err := fmt.Sscanf(string(buf[:k]), "%s %d %d", &kind, &src, &dst); err != nil || dst != i || from != c.PeerAddr(src) {
					t.Errorf("member %d read %q from %v", i, buf[:k], from)
					return
				}
				switch kind {
				case "ping":
					if _, err := c.WriteTo(fmt.Appendf(nil, "pong %d %d", i, src), from); err != nil {
						t.Errorf("member %d: %v", i, err)
					}
				case "pong":
					mu.Lock()
					answered[i][src] = true
					mu.Unlock()
				}
			}
		})
	}
	deadline := time.Now().Add(guard)
	for {
		missing := 0
		for i, c := range conns {
			for j := range n {
				mu.Lock()
				ok := answered[i][j]
				mu.Unlock()
				if ok {
					continue
				}
				missing++
				if _, err := c.WriteTo(fmt.Appendf(nil, "ping %d %d", i, j), c.PeerAddr(j)); err != nil {
					t.Fatalf("member %d to %d: %v", i, j, err)
				}
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d pairs unanswered after %v", missing, guard)
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(done)
	wg.Wait()
	for _, c := range conns {
		st := c.Stats()
		if st.PacketsSent < uint64(2*(n-1)) || st.PacketsReceived < uint64(2*(n-1)) || st.BytesSent == 0 || st.Closed != 0 {
			t.Errorf("member %d: %+v", c.Index(), st)
		}
	}
}

// TestConnErrors: WriteTo refuses an oversized datagram and an address that is no other
// member's; ReadFrom honours its deadline, is woken by a new one and by Close; a member whose
// peer has closed gets ErrPeerClosed, not a closed Conn.
func TestConnErrors(t *testing.T) {
	url, _ := startLobby(t, lobby.Config{})
	conns := dialRoom(t, url, "errors", 2, nil)
	a, b := conns[0], conns[1]
	if _, err := a.WriteTo(make([]byte, rtc.MaxDatagram+1), b.LocalAddr()); err == nil {
		t.Error("an oversized datagram was sent")
	}
	for _, addr := range []net.Addr{a.LocalAddr(), rtc.Addr{Room: "other", Index: 1}, rtc.Addr{Room: "errors", Index: 2},
		&net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, nil} {
		if _, err := a.WriteTo([]byte("x"), addr); err == nil {
			t.Errorf("a datagram to %v was sent", addr)
		}
	}
	// The address as a pointer, or as another type of the same network and string, is the member's.
	if _, err := a.WriteTo([]byte("x"), &rtc.Addr{Room: "errors", Index: 1}); err != nil {
		t.Error(err)
	}

	buf := make([]byte, 16)
	a.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	for {
		_, _, err := a.ReadFrom(buf)
		if ne, ok := err.(net.Error); ok && ne.Timeout() && errors.Is(err, os.ErrDeadlineExceeded) {
			break
		}
		if err != nil {
			t.Fatalf("ReadFrom past its deadline: %v, want a timeout", err)
		}
		// a datagram b sent: read on
	}
	// A deadline in the past set while ReadFrom waits wakes it.
	a.SetReadDeadline(time.Time{})
	errc := make(chan error, 1)
	go func() {
		_, _, err := a.ReadFrom(buf)
		errc <- err
	}()
	time.Sleep(10 * time.Millisecond)
	a.SetReadDeadline(time.Now().Add(-time.Second))
	if err := <-errc; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("after a deadline in the past: %v", err)
	}
	// Close wakes it.
	a.SetReadDeadline(time.Time{})
	go func() {
		_, _, err := a.ReadFrom(buf)
		errc <- err
	}()
	time.Sleep(10 * time.Millisecond)

	// b closes: a's channel with it closes, a's writes to it say so, and a is not closed.
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("a second Close: %v", err)
	}
	deadline := time.Now().Add(guard)
	for a.Open(1) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if a.Open(1) {
		t.Fatal("the channel is still open after the peer closed")
	}
	if _, err := a.WriteTo([]byte("x"), b.LocalAddr()); !errors.Is(err, rtc.ErrPeerClosed) || errors.Is(err, net.ErrClosed) {
		t.Errorf("a write to a closed peer: %v, want ErrPeerClosed", err)
	}
	if st := a.Stats(); st.Closed != 1 {
		t.Errorf("%d members closed, want 1", st.Closed)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, net.ErrClosed) {
		t.Errorf("ReadFrom when closed: %v", err)
	}
	if _, _, ok := a.TryReadFrom(buf); ok {
		t.Error("TryReadFrom read after Close")
	}
	if _, err := a.WriteTo([]byte("x"), b.LocalAddr()); !errors.Is(err, net.ErrClosed) {
		t.Errorf("a write after Close: %v", err)
	}
}

// TestQueueFull: datagrams that find the queue full are dropped and counted; the queue holds
// Options.QueueLen of them, read in order.
func TestQueueFull(t *testing.T) {
	url, _ := startLobby(t, lobby.Config{})
	const queue = 16
	conns := dialRoom(t, url, "full", 2, &rtc.Options{QueueLen: queue})
	a, b := conns[0], conns[1]
	deadline := time.Now().Add(guard)
	sent := 0
	for a.Stats().Dropped == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("nothing dropped after %d datagrams: %+v", sent, a.Stats())
		}
		for range queue {
			if _, err := b.WriteTo(fmt.Appendf(nil, "%d", sent), a.LocalAddr()); err != nil {
				t.Fatal(err)
			}
			sent++
		}
		time.Sleep(time.Millisecond)
	}
	st := a.Stats()
	if st.PacketsReceived != queue {
		t.Errorf("%d datagrams queued, want %d", st.PacketsReceived, queue)
	}
	buf := make([]byte, 16)
	last := -1
	for i := range queue {
		n, from, ok := a.TryReadFrom(buf)
		if !ok || from != b.LocalAddr() {
			t.Fatalf("datagram %d: %v from %v", i, ok, from)
		}
		var seq int
		fmt.Sscan(string(buf[:n]), &seq)
		if seq == last {
			t.Errorf("datagram %d read twice", seq)
		}
		last = seq
	}
	if _, _, ok := a.TryReadFrom(buf); ok {
		t.Errorf("more than %d datagrams queued", queue)
	}
}

// TestDialErrors: Dial reports a room of another size (the lobby's refusal, a *LobbyError), a
// room that never fills (ctx's deadline), bad arguments, and a lobby that is not there.
func TestDialErrors(t *testing.T) {
	url, l := startLobby(t, lobby.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()

	// A peer waits in a room of 3; a Dial to it for a room of 2 is refused.
	waiting := make(chan error, 1)
	waitCtx, stopWaiting := context.WithCancel(ctx)
	go func() {
		_, err := rtc.Dial(waitCtx, url, "three", 3, nil)
		waiting <- err
	}()
	for l.Stats().Waiting == 0 {
		time.Sleep(time.Millisecond)
	}
	_, err := rtc.Dial(ctx, url, "three", 2, nil)
	var le *rtc.LobbyError
	if !errors.As(err, &le) || !strings.Contains(le.Message, `room "three" is for 3 peers, not 2`) {
		t.Errorf("Dial to a room of another size: %v", err)
	}
	stopWaiting()
	if err := <-waiting; !errors.Is(err, context.Canceled) {
		t.Errorf("Dial cancelled: %v", err)
	}

	short, cancelShort := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancelShort()
	if _, err := rtc.Dial(short, url, "alone", 2, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Dial to a room that never fills: %v", err)
	}
	for _, tc := range []struct {
		room string
		size int
	}{{"x", 1}, {"x", 9}, {"", 2}} {
		if _, err := rtc.Dial(ctx, url, tc.room, tc.size, nil); err == nil {
			t.Errorf("Dial(%q, %d) succeeded", tc.room, tc.size)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if _, err := rtc.Dial(ctx, "ws://"+addr+"/", "x", 2, nil); err == nil {
		t.Error("Dial to no lobby succeeded")
	}
}

// TestDialNoLobbyAtPath: a server that has its lobby at /ws answers 404 Not Found at the URL
// without the /ws; Dial says that there is no lobby there, and where lobbies are served.
func TestDialNoLobbyAtPath(t *testing.T) {
	l, err := lobby.New(lobby.Config{})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(rtc.LobbyPath, l)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.Close()
		l.Close(context.Background())
	})
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, url := range []string{"ws://" + host, "ws://" + host + "/", "ws://" + host + "/lobby"} {
		_, err := rtc.Dial(ctx, url, "x", 2, nil)
		want := "rtc: no lobby at " + url + ": the server answered 404 Not Found, not a WebSocket; " +
			"cmd/lobby and cmd/duelweb serve their lobby at /ws: ws://" + host + "/ws: "
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Dial(%s): %v\nwant it to begin %q", url, err, want)
		}
	}
	// At /ws itself, a 404 says only that there is no lobby.
	srv404 := httptest.NewServer(http.NotFoundHandler())
	defer srv404.Close()
	url := "ws" + strings.TrimPrefix(srv404.URL, "http") + "/ws"
	_, err = rtc.Dial(ctx, url, "x", 2, nil)
	if want := "rtc: no lobby at " + url + ": the server answered 404 Not Found, not a WebSocket: "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Dial(%s): %v\nwant it to begin %q", url, err, want)
	}
}

// TestNoLeak: once the Conns are closed, every goroutine Dial and pion started has ended.
func TestNoLeak(t *testing.T) {
	url, _ := startLobby(t, lobby.Config{})
	conns := dialRoom(t, url, "warm", 2, nil) // pion's first use starts what stays
	for _, c := range conns {
		c.Close()
	}
	time.Sleep(100 * time.Millisecond)
	before := runtime.NumGoroutine()
	conns = dialRoom(t, url, "leak", 3, nil)
	pingAll(t, conns)
	for _, c := range conns {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	waitGoroutines(t, before)
}

// waitGoroutines fails the test if the number of goroutines does not come back to n within
// the guard.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for runtime.NumGoroutine() > n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := runtime.NumGoroutine(); got > n {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines left, %d before:\n%s", got, n, buf[:runtime.Stack(buf, true)])
	}
}
