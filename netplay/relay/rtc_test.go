//go:build !js

package relay

import (
	"context"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netplay/rtc"
	"github.com/gameloop-go/gameloop/netplay/rtc/lobby"
)

// TestRelayOverWebRTC: a relay serves over WebRTC data channels as well as over UDP: it joins
// a room of a lobby as one member (netplay/rtc), the players, who could be web pages, as the
// others, and they play a match through it on real time: they agree on every tick they made
// final.
func TestRelayOverWebRTC(t *testing.T) {
	l, err := lobby.New(lobby.Config{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(l)
	defer srv.Close()
	defer l.Close(context.Background())
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// The relay and two players join room "final" of three.
	conns := make([]*rtc.Conn, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range conns {
		wg.Add(1)
		go func() { defer wg.Done(); conns[i], errs[i] = rtc.Dial(ctx, url, "final", 3, nil) }()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("member %d: %v", i, err)
		}
		defer conns[i].Close()
	}
	relayConn := conns[0] // the first goroutine's: whichever index the room gave it
	relayAddr := relayConn.LocalAddr()
	clock := gameloop.NewSharedClock(nil)
	defer clock.Close()
	pool := gameloop.NewPool(clock, nil)
	defer pool.Close()
	r, err := New(relayConn, pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	serveCtx, stopServe := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- r.Serve(serveCtx) }()

	// Each player finds which of the two other members is the relay (netplay.FindRelay): the
	// room's order is the order of joining, which a page does not know.
	slots, relays := make([]int, 2), make([]net.Addr, 2)
	for i, c := range conns[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var others []net.Addr
			for m := range c.Size() {
				if m != c.Index() {
					others = append(others, c.PeerAddr(m))
				}
			}
			slot, found, err := netplay.FindRelay(ctx, c, others, "final", nil, 2, 1, 60)
			if err != nil || found.String() != relayAddr.String() {
				t.Errorf("FindRelay: %v, %v; want %v", found, err, relayAddr)
				return
			}
			slots[i], relays[i] = slot, found
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	ps := make([]*udpPlayer, 2)
	for i, c := range conns[1:] {
		ps[i] = newUDPPlayerOn(t, net.PacketConn(c), relays[i], "final", slots[i], 2, nil)
	}
	stop := make(chan struct{})
	for _, p := range ps {
		wg.Add(1)
		go func() { defer wg.Done(); p.play(stop) }()
	}
	deadline := time.Now().Add(time.Minute)
	for ps[0].final.Load() < 120 || ps[1].final.Load() < 120 {
		if time.Now().After(deadline) || ps[0].done.Load() || ps[1].done.Load() {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	stopServe()
	<-served
	n := 0
	for tick, a := range ps[0].sums {
		if b, ok := ps[1].sums[tick]; ok {
			n++
			if a != b {
				t.Fatalf("tick %d: %#x and %#x", tick, a, b)
			}
		}
	}
	if n < 100 {
		t.Fatalf("%d ticks compared; players %v, %v", n, ps[0].err, ps[1].err)
	}
	m := r.Metrics()
	t.Logf("%d ticks compared over WebRTC; relay: %d packets in, %d out, %d replaced", n, m.PacketsIn, m.PacketsOut, m.Replaced)
}
