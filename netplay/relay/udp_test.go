package relay

import (
	"context"
	"errors"
	"github.com/gameloop-go/gameloop/internal/relaytest"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/netplay"
)

// udpRelay is a relay serving on a real UDP socket on 127.0.0.1, its matches on a pool.
type udpRelay struct {
	relay  *Relay
	conn   *netplay.UDPConn
	cancel context.CancelFunc
	done   chan error
}

func startUDPRelay(t *testing.T, opts *Options) *udpRelay {
	t.Helper()
	conn, err := netplay.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	clock := gameloop.NewSharedClock(nil)
	pool := gameloop.NewPool(clock, nil)
	r, err := New(conn, pool, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	u := &udpRelay{relay: r, conn: conn, cancel: cancel, done: make(chan error, 1)}
	go func() { u.done <- r.Serve(ctx) }()
	t.Cleanup(func() {
		u.stop(t)
		pool.Close()
		clock.Close()
		conn.Close()
	})
	return u
}

// stop ends Serve (every match with it) and waits for it.
func (u *udpRelay) stop(t *testing.T) {
	if u.cancel == nil {
		return
	}
	u.cancel()
	u.cancel = nil
	if err := <-u.done; !errors.Is(err, context.Canceled) {
		t.Errorf("Serve = %v, want context.Canceled", err)
	}
}

// udpPlayer plays a session on real time in a goroutine of its own, 60 ticks a second, until
// its session ends, and keeps the checksum of every final tick.
type udpPlayer struct {
	s    *netplay.Session[byte]
	g    *relaytest.Game
	h    int
	sums map[uint64]uint64
	err  error
	// final is the last tick final, and done set once play returns: for the test's
	// goroutine to watch while play runs.
	final atomic.Uint64
	done  atomic.Bool
}

func newUDPPlayer(t *testing.T, relay net.Addr, match string, h, n int, tok []byte) *udpPlayer {
	t.Helper()
	return newUDPPlayerOn(t, listenUDP(t), relay, match, h, n, tok)
}

func listenUDP(t *testing.T) *netplay.UDPConn {
	t.Helper()
	conn, err := netplay.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

func newUDPPlayerOn(t *testing.T, conn net.PacketConn, relay net.Addr, match string, h, n int, tok []byte) *udpPlayer {
	t.Helper()
	var err error
	cfg := netplay.Config[byte]{Codec: relaytest.ByteCodec{}, Relay: relay, Match: match, Token: tok}
	p := &udpPlayer{h: h, sums: map[uint64]uint64{}}
	if h >= 0 {
		cfg.Players = make([]netplay.Player, n)
		cfg.Players[h].Local = true
		p.s, err = netplay.NewSession(net.PacketConn(conn), cfg)
	} else {
		p.s, err = netplay.NewSpectator(net.PacketConn(conn), nil, n, cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	p.g = relaytest.NewGame(p.s.Slots())
	return p
}

// play runs the session until it ends or stop is closed, then closes it.
func (p *udpPlayer) play(stop <-chan struct{}) {
	defer p.done.Store(true)
	defer p.s.Close()
	start := time.Now()
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		if p.h >= 0 {
			p.s.AddLocalInput(p.h, byte(i/7%4))
		}
		reqs, err := p.s.Advance(time.Since(start))
		switch {
		case errors.Is(err, netplay.ErrPredictionThreshold), errors.Is(err, netplay.ErrNotSynchronized):
			continue
		case err != nil:
			p.err = err
			return
		}
		if err := netplay.Run(reqs, p.g); err != nil {
			p.err = err
			return
		}
		final := p.s.Stats().Confirmed
		for t := final; t > 0; t-- {
			if _, ok := p.sums[t]; ok {
				break
			}
			if sum, ok := p.s.Checksum(t); ok {
				p.sums[t] = sum
			}
		}
		p.final.Store(final)
	}
}

// TestRelayUDP plays a match of two players and a spectator through a relay over real UDP
// sockets on 127.0.0.1, the relay's match on a pool, everybody on real time: the players and
// the spectator agree on every tick they made final, and when the relay shuts down the
// players' sessions end with ErrEnded, the spectator's once it has run what it received.
func TestRelayUDP(t *testing.T) {
	u := startUDPRelay(t, nil)
	addr := u.conn.LocalAddr()
	ps := []*udpPlayer{newUDPPlayer(t, addr, "duel", 0, 2, nil), newUDPPlayer(t, addr, "duel", 1, 2, nil)}
	ps = append(ps, newUDPPlayer(t, addr, "duel", -1, 2, nil))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Add(1)
		go func() { defer wg.Done(); p.play(stop) }()
	}
	// Until the relay has confirmed 3 s of game, however long that takes on a busy machine.
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := u.relay.MatchStats("duel")
		if err == nil && st.Confirmed >= 180 && st.Spectators == 1 {
			break
		}
		if time.Now().After(deadline) {
			close(stop)
			wg.Wait()
			t.Fatalf("after a minute: %+v, %v; players %v, %v, %v", st, err, ps[0].err, ps[1].err, ps[2].err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	u.stop(t)
	wg.Wait()
	for i, p := range ps[:2] {
		if !errors.Is(p.err, netplay.ErrEnded) {
			t.Errorf("player %d: %v, want ErrEnded", i, p.err)
		}
	}
	var hl *netplay.HostLostError
	if !errors.As(ps[2].err, &hl) {
		t.Errorf("spectator: %v, want a HostLostError", ps[2].err)
	}
	n := 0
	for i, a := range ps {
		for _, b := range ps[i+1:] {
			for tick, sa := range a.sums {
				if sb, ok := b.sums[tick]; ok {
					n++
					if sa != sb {
						t.Fatalf("tick %d: %#x and %#x", tick, sa, sb)
					}
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("%d ticks compared", n)
	}
	m := u.relay.Metrics()
	t.Logf("%d ticks compared; relay: %d packets in, %d out, %d inputs replaced, refused %v", n, m.PacketsIn, m.PacketsOut, m.Replaced, m.Refused)
}

// TestRelaySlot: players that ask an open relay for a slot (netplay.RelaySlot) get them in the
// order they ask, the first the first slot; one more is refused (the match is full), and the
// two play the match in the slots they were given.
func TestRelaySlot(t *testing.T) {
	u := startUDPRelay(t, nil)
	addr := u.conn.LocalAddr()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var ps []*udpPlayer
	for want := range 2 {
		conn := listenUDP(t)
		slot, err := netplay.RelaySlot(ctx, conn, addr, "pair", nil, 2, 1, 60)
		if err != nil || slot != want {
			t.Fatalf("RelaySlot: %d, %v; want %d", slot, err, want)
		}
		ps = append(ps, newUDPPlayerOn(t, conn, addr, "pair", slot, 2, nil))
	}
	third := listenUDP(t)
	defer third.Close()
	if _, err := netplay.RelaySlot(ctx, third, addr, "pair", nil, 2, 1, 60); !errors.Is(err, netplay.ErrRefused) || !strings.Contains(err.Error(), "no room") {
		t.Errorf("a third player: %v, want ErrRefused: no room", err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Add(1)
		go func() { defer wg.Done(); p.play(stop) }()
	}
	deadline := time.Now().Add(time.Minute)
	for ps[0].final.Load() < 60 || ps[1].final.Load() < 60 {
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	for i, p := range ps {
		if p.err != nil || len(p.sums) < 30 {
			t.Errorf("player %d: %v, %d final ticks", i, p.err, len(p.sums))
		}
	}
}
