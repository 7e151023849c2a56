package netplay

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay/internal/wire"
	"github.com/gameloop-go/gameloop/netsim"
)

// watcher is a spectator in a sim: its session on a netsim conn, the test game, and when it
// joins and stops.
type watcher struct {
	name   string
	conn   *netsim.Conn
	s      *Session[testInput]
	g      *testGame
	joinAt time.Duration
	killAt time.Duration // 0: never
	err    error
	behind uint64 // the most Stats.Behind seen after the first minute
}

// addWatchers adds n spectators of peer0 to sm, joining at joinAt, under preset.
func addWatchers(t *testing.T, sm *sim, n int, preset string, joinAt time.Duration) []*watcher {
	t.Helper()
	cond, err := netsim.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	ws := make([]*watcher, n)
	for i := range ws {
		w := &watcher{name: fmt.Sprintf("spectator%d", i), joinAt: joinAt}
		if w.conn, err = sm.net.Listen(w.name); err != nil {
			t.Fatal(err)
		}
		sm.net.SetConditions(w.name, "peer0", cond)
		sm.net.SetConditions("peer0", w.name, cond)
		w.s, err = NewSpectator(w.conn, sm.peers[0].conn.LocalAddr(), sm.cfg.players, Config[testInput]{Codec: byteCodec{}, Rand: &seqReader{x: uint64(i) + 1000}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.s.Close() })
		w.g = newTestGame(sm.cfg.players, w.s.Slots(), 0, sm.cfg.ticks+600)
		ws[i] = w
	}
	return ws
}

// step runs the spectators' ticks due at now: one every 1/60 s.
func stepWatchers(ws []*watcher, now time.Duration) {
	for _, w := range ws {
		if now < w.joinAt || w.err != nil || w.killAt != 0 && now >= w.killAt {
			continue
		}
		if (now-w.joinAt)%(time.Second/60) >= time.Millisecond {
			w.s.Poll(now)
			continue
		}
		reqs, err := w.s.Advance(now)
		switch {
		case err == nil:
			if err := Run(reqs, Game[testInput](w.g)); err != nil {
				w.err = err
			}
		case errors.Is(err, ErrNotSynchronized), errors.Is(err, ErrPredictionThreshold):
		default:
			w.err = err
		}
		if now > time.Minute {
			w.behind = max(w.behind, w.s.Stats().Behind)
		}
	}
}

// checkWatcher checks that w ran every tick it ran with the host's inputs and checksums.
func checkWatcher(t *testing.T, sm *sim, w *watcher, least uint64) {
	t.Helper()
	if w.err != nil {
		t.Fatalf("%s: %v", w.name, w.err)
	}
	host := sm.peers[0]
	ran := min(w.s.Tick(), host.s.final)
	if ran < least || ran+2*spectatorMaxBehind < host.s.final {
		t.Fatalf("%s ran %d ticks of the %d the host made final, want at least %d and nearly all", w.name, w.s.Tick(), host.s.final, least)
	}
	n := sm.cfg.players
	for tk := uint64(1); tk <= ran; tk++ {
		a, b := host.g.log[int(tk-1)*n:][:n], w.g.log[int(tk-1)*n:][:n]
		if !sameInputs(a, b) || host.g.sums[tk-1] != w.g.sums[tk-1] {
			t.Fatalf("tick %d: the host ran %v (sum %#x), %s %v (sum %#x)", tk, a, host.g.sums[tk-1], w.name, b, w.g.sums[tk-1])
		}
	}
	for _, e := range w.s.Events(nil) {
		if e.Kind == EventDesync {
			t.Errorf("%s: %v", w.name, e)
		}
	}
}

// TestSpectator: a spectator of a two-player game under poor, joining 20 s into it (starting
// from the first tick and catching up), runs every tick with the players' inputs and
// checksums, a few ticks behind them; a spectator that is refused gets ErrRefused.
func TestSpectator(t *testing.T) {
	minutes := 10
	if testing.Short() || raceEnabled {
		minutes = 1
	}
	sm := newSim(t, simConfig{players: 2, ticks: minutes * 3600, preset: "poor", seed: 8,
		configure: func(h int, cfg *Config[testInput]) { cfg.Spectators = 1 }})
	ws := addWatchers(t, sm, 2, "poor", 20*time.Second)
	ws[1].joinAt = 25 * time.Second // the host has room for one
	for now := time.Duration(0); now < sm.end()+2*time.Second; now += time.Millisecond {
		sm.step(now)
		stepWatchers(ws, now)
	}
	sm.check()
	checkWatcher(t, sm, ws[0], uint64(minutes*3600*9/10))
	if !errors.Is(ws[1].err, ErrRefused) {
		t.Errorf("a second spectator of a host with room for one: %v, want ErrRefused", ws[1].err)
	}
	t.Logf("%s: %d ticks run, at most %d behind after the first minute; the host's %+v", ws[0].name, ws[0].s.Tick(), ws[0].behind, sm.peers[0].s.Stats())
	if ws[0].behind > 2*spectatorMaxBehind {
		t.Errorf("the spectator fell %d ticks behind", ws[0].behind)
	}
}

// TestSpectatorsCost: 16 spectators cost their host at most 16 times one spectator's bytes,
// and its ticks allocate nothing with all 16 watching.
func TestSpectatorsCost(t *testing.T) {
	bytes := func(n int, preset string) (int64, *sim, []*watcher) {
		sm := newSim(t, simConfig{players: 2, ticks: 3600, preset: preset, seed: 12,
			configure: func(h int, cfg *Config[testInput]) { cfg.Spectators = MaxSpectators }})
		ws := addWatchers(t, sm, n, preset, 0)
		for now := time.Duration(0); now < sm.end()+2*time.Second; now += time.Millisecond {
			sm.step(now)
			stepWatchers(ws, now)
		}
		var sent int64
		for _, w := range ws {
			checkWatcher(t, sm, w, 3000)
			sent += sm.net.Stats("peer0", w.name).Bytes
		}
		return sent, sm, ws
	}
	// On clean links every spectator costs what one alone does; under poor each link loses
	// other packets, sent again, so the sum may pass 16 times one by a little.
	for _, c := range []struct {
		preset string
		most   float64
	}{{"none", MaxSpectators}, {"poor", MaxSpectators * 1.05}} {
		one, _, _ := bytes(1, c.preset)
		all, _, _ := bytes(MaxSpectators, c.preset)
		t.Logf("%s: to 1 spectator %d bytes, to %d %d (%.2fx)", c.preset, one, MaxSpectators, all, float64(all)/float64(one))
		if float64(all) > float64(one)*c.most {
			t.Errorf("%s: %d spectators cost the host %d bytes, one %d: more than %.1f times as much", c.preset, MaxSpectators, all, one, c.most)
		}
	}
	_, sm, ws := bytes(MaxSpectators, "poor")
	// Steady state with 16 watching: a tick of the game, the spectators' included.
	now := sm.end() + 2*time.Second
	sm.cfg.ticks *= 2
	step := func() {
		for range 17 {
			sm.step(now)
			stepWatchers(ws, now)
			now += time.Millisecond
		}
	}
	for range 60 {
		step()
	}
	if allocs := testing.AllocsPerRun(100, step); allocs != 0 {
		t.Errorf("%v allocations a tick with %d spectators", allocs, MaxSpectators)
	}
}

// TestSpectatorKilled: a spectator that stops answering mid-game is dropped, and the players'
// game is the one they play with no spectator at all: the same inputs, checksums and
// rollbacks.
func TestSpectatorKilled(t *testing.T) {
	play := func(spectator bool) *sim {
		sm := newSim(t, simConfig{players: 2, ticks: 3600, preset: "poor", seed: 13,
			configure: func(h int, cfg *Config[testInput]) { cfg.Spectators = 1 }})
		var ws []*watcher
		if spectator {
			ws = addWatchers(t, sm, 1, "poor", time.Second)
			ws[0].killAt = 30 * time.Second
		}
		for now := time.Duration(0); now < sm.end()+2*time.Second; now += time.Millisecond {
			sm.step(now)
			stepWatchers(ws, now)
		}
		sm.check()
		if spectator {
			if got := sm.peers[0].s.Stats().Spectators; got != 0 {
				t.Errorf("%d spectators still served after the one was killed", got)
			}
			if ws[0].s.Tick() < 1000 {
				t.Errorf("the spectator ran %d ticks before it was killed", ws[0].s.Tick())
			}
		}
		return sm
	}
	with, without := play(true), play(false)
	for i := range with.peers {
		a, b := with.peers[i], without.peers[i]
		if a.s.Stats().Rollbacks != b.s.Stats().Rollbacks || a.s.final != b.s.final {
			t.Errorf("%s: %d rollbacks and %d ticks final with a spectator, %d and %d without", a.name, a.s.Stats().Rollbacks, a.s.final, b.s.Stats().Rollbacks, b.s.final)
		}
		for tk := range min(a.s.final, b.s.final) {
			if a.g.sums[tk] != b.g.sums[tk] {
				t.Fatalf("%s: tick %d: checksum %#x with a spectator, %#x without", a.name, tk+1, a.g.sums[tk], b.g.sums[tk])
			}
		}
	}
}

// TestSpectatorUDP: a spectator over real UDP sockets on 127.0.0.1 watches two players, who
// tick on simulated time while the packets travel for real, and runs their game; the sockets
// polled, and read by goroutines (where the host lets the spectator's packets into its ring).
func TestSpectatorUDP(t *testing.T) {
	t.Run("polled", func(t *testing.T) { testSpectatorUDP(t, false) })
	t.Run("reader goroutine", func(t *testing.T) { testSpectatorUDP(t, true) })
}

func testSpectatorUDP(t *testing.T, opaque bool) {
	wrap := func(c *net.UDPConn) net.PacketConn {
		if opaque {
			return opaqueConn{c}
		}
		return c
	}
	var conns [3]*net.UDPConn
	for i := range conns {
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	var sessions [3]*Session[testInput]
	var games [3]*testGame
	for h := range 2 {
		players := make([]Player, 2)
		players[h] = Player{Local: true}
		players[1-h] = Player{Addr: conns[1-h].LocalAddr()}
		s, err := NewSession(wrap(conns[h]), Config[testInput]{Players: players, Codec: byteCodec{}, Spectators: 1})
		if err != nil {
			t.Fatal(err)
		}
		sessions[h] = s
	}
	spec, err := NewSpectator(wrap(conns[2]), conns[0].LocalAddr(), 2, Config[testInput]{Codec: byteCodec{}})
	if err != nil {
		t.Fatal(err)
	}
	sessions[2] = spec
	for i, s := range sessions {
		defer s.Close()
		games[i] = newTestGame(2, s.Slots(), uint64(i), 1<<12)
		games[i].session = s
	}
	const ticks = 300
	deadline := time.Now().Add(time.Minute)
	for now := time.Duration(0); spec.Tick() < ticks; now += time.Second / 60 {
		if time.Now().After(deadline) {
			t.Fatalf("after a minute the players are at ticks %d and %d, the spectator at %d", sessions[0].Tick(), sessions[1].Tick(), spec.Tick())
		}
		for i, s := range sessions {
			if i < 2 {
				if err := s.AddLocalInput(i, games[i].LocalInput(i)); err != nil {
					t.Fatal(err)
				}
			}
			reqs, err := s.Advance(now)
			if err == nil {
				err = Run(reqs, Game[testInput](games[i]))
			}
			if err != nil && !errors.Is(err, ErrNotSynchronized) && !errors.Is(err, ErrPredictionThreshold) {
				t.Fatal(err)
			}
		}
		time.Sleep(time.Millisecond) // for the packets to travel
	}
	for tk := range uint64(ticks) {
		if games[2].sums[tk] != games[0].sums[tk] {
			t.Fatalf("tick %d: checksum %#x at the spectator, %#x at the host", tk+1, games[2].sums[tk], games[0].sums[tk])
		}
	}
}

// TestNewSpectatorErrors: a spectator's settings that cannot be are errors naming them.
func TestNewSpectatorErrors(t *testing.T) {
	network := netsim.NewNetwork(1)
	conn, err := network.Listen("spectator")
	if err != nil {
		t.Fatal(err)
	}
	host, err := network.Listen("host")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		host    net.Addr
		players int
		cfg     Config[testInput]
		want    string
	}{
		{host.LocalAddr(), 2, Config[testInput]{Codec: byteCodec{}, Players: []Player{{Local: true}, {Addr: host.LocalAddr()}}}, "Config.Players"},
		{nil, 2, Config[testInput]{Codec: byteCodec{}}, "host is nil"},
		{host.LocalAddr(), 1, Config[testInput]{Codec: byteCodec{}}, "players = 1"},
		{host.LocalAddr(), 9, Config[testInput]{Codec: byteCodec{}}, "players = 9"},
		{host.LocalAddr(), 2, Config[testInput]{Codec: byteCodec{}, Spectators: 1}, "Config.Spectators"},
		{host.LocalAddr(), 2, Config[testInput]{Codec: byteCodec{}, InputDelay: 2}, "InputDelay"},
		{host.LocalAddr(), 2, Config[testInput]{}, "Config.Codec"},
	} {
		s, err := NewSpectator(conn, c.host, c.players, c.cfg)
		if err == nil {
			s.Close()
			t.Errorf("NewSpectator(%v, %d, %+v): no error", c.host, c.players, c.cfg)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewSpectator(%v, %d): %v, want it to say %q", c.host, c.players, err, c.want)
		}
	}
	if _, err := NewSession(conn, Config[testInput]{Codec: byteCodec{}, Players: []Player{{Local: true}, {Addr: host.LocalAddr()}}, Spectators: MaxSpectators + 1}); err == nil || !strings.Contains(err.Error(), "Config.Spectators = 17") {
		t.Errorf("Spectators past MaxSpectators: %v", err)
	}
}

// TestSpectatorHostLeaves: a host that waits for its spectator to have the ticks it made
// final (Stats.SpectatorsHave) and then closes leaves the spectator to run every tick it
// received before its Advance says the host is gone (it stopped at once, up to 10 ticks short).
func TestSpectatorHostLeaves(t *testing.T) {
	sm := newSim(t, simConfig{players: 2, ticks: 3600, preset: "poor", seed: 17,
		configure: func(h int, cfg *Config[testInput]) { cfg.Spectators = 1 }})
	ws := addWatchers(t, sm, 1, "poor", time.Second)
	host := sm.peers[0]
	var final uint64
	for now := time.Duration(0); now < 40*time.Second; now += time.Millisecond {
		if final == 0 && now >= 30*time.Second {
			final = host.s.Stats().Confirmed
		}
		if final != 0 && !host.done && host.s.Stats().SpectatorsHave >= final {
			host.done = true
			host.s.Close()
		}
		sm.step(now)
		stepWatchers(ws, now)
	}
	w := ws[0]
	if !host.done {
		t.Fatalf("the spectator never had tick %d: it has %d", final, host.s.Stats().SpectatorsHave)
	}
	var lost *HostLostError
	if !errors.Is(w.err, ErrDisconnected) || !errors.As(w.err, &lost) || lost.Reason != ReasonLeft {
		t.Fatalf("the spectator's Advance: %v, want a HostLostError (ErrDisconnected) saying %q once the host is gone", w.err, ReasonLeft)
	}
	if got := w.s.peers[0].recvd; w.s.Tick() < got || w.s.Tick() < final {
		t.Fatalf("the spectator ran to tick %d; it had received %d, and its host waited for it to have %d", w.s.Tick(), got, final)
	}
	for tk := range final {
		if w.g.sums[tk] != host.g.sums[tk] {
			t.Fatalf("tick %d: checksum %#x at the spectator, %#x at the host", tk+1, w.g.sums[tk], host.g.sums[tk])
		}
	}
}

// TestSpectatorGetsTheLastTick: a host whose match ends at tick N stops running ticks once N is
// confirmed and only polls until its spectator has N (Stats.SpectatorsHave), then closes: the
// spectator runs to N and then learns the host left, over clean, poor and terrible links.
func TestSpectatorGetsTheLastTick(t *testing.T) {
	for _, preset := range []string{"none", "poor", "terrible"} {
		for seed := range uint64(12) {
			sm := newSim(t, simConfig{players: 2, ticks: 1200, preset: preset, seed: 90 + seed,
				configure: func(h int, cfg *Config[testInput]) { cfg.Spectators = 1 }})
			ws := addWatchers(t, sm, 1, preset, time.Second)
			host := sm.peers[0]
			var last uint64
			closed := false
			for now := time.Duration(0); now < 30*time.Second && !closed; now += time.Millisecond {
				if last == 0 && now >= 8*time.Second {
					last = host.s.Tick()
				}
				if last != 0 && !host.done && host.s.Stats().Confirmed >= last {
					host.done = true // the match is over here: no more ticks, only Poll
				}
				if host.done {
					host.s.Poll(now)
					if host.s.Stats().SpectatorsHave >= last {
						host.s.Close()
						closed = true
					}
				}
				sm.step(now)
				stepWatchers(ws, now)
			}
			for now := 30 * time.Second; now < 40*time.Second; now += time.Millisecond {
				sm.net.Advance(time.Millisecond)
				stepWatchers(ws, now)
			}
			w := ws[0]
			if !closed {
				t.Fatalf("%s, seed %d: the spectator never had tick %d: SpectatorsHave %d", preset, seed, last, host.s.Stats().SpectatorsHave)
			}
			var lost *HostLostError
			if !errors.As(w.err, &lost) || lost.Reason != ReasonLeft || w.s.Tick() < last {
				t.Fatalf("%s, seed %d: the spectator ran to tick %d of %d and ended with %v", preset, seed, w.s.Tick(), last, w.err)
			}
		}
	}
}

// TestSpectatorToldWhy: a spectator that stops for 5 s is dropped by its host and, back, learns
// that it was, and why, rather than blaming a live host; spectators refused are told whether
// the host is full, past the time a spectator may join, or takes none.
func TestSpectatorToldWhy(t *testing.T) {
	sm := newSim(t, simConfig{players: 2, ticks: 1800, preset: "poor", seed: 5,
		configure: func(h int, cfg *Config[testInput]) {
			cfg.Spectators = 1
			cfg.TickRate = 1 // the spectators' history: 600 ticks, 10 s of this 60 Hz game
		}})
	ws := addWatchers(t, sm, 3, "poor", time.Second)
	ws[1].joinAt = 2 * time.Second  // while spectator0 holds the one place
	ws[2].joinAt = 15 * time.Second // past the history
	for now := time.Duration(0); now < 25*time.Second; now += time.Millisecond {
		sm.step(now)
		if now >= 5*time.Second && now < 10*time.Second {
			stepWatchers(ws[1:], now) // spectator0 stalls
			continue
		}
		stepWatchers(ws, now)
	}
	var lost *HostLostError
	if !errors.As(ws[0].err, &lost) || !strings.Contains(lost.Reason, "dropped this spectator") || !strings.Contains(lost.Reason, "did not hear") {
		t.Errorf("the spectator that stalled 5 s: %v; want the host dropped it for not hearing it", ws[0].err)
	}
	if err := ws[1].err; !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "all the spectators it takes") {
		t.Errorf("a spectator of a full host: %v", err)
	}
	if err := ws[2].err; !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "past the first") {
		t.Errorf("a spectator past the history: %v", err)
	}

	none := newSim(t, simConfig{players: 2, ticks: 300, seed: 6})
	w := addWatchers(t, none, 1, "none", time.Second)
	for now := time.Duration(0); now < 4*time.Second && w[0].err == nil; now += time.Millisecond {
		none.step(now)
		stepWatchers(w, now)
	}
	if err := w[0].err; !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "takes no spectators") {
		t.Errorf("a spectator of a host that takes none: %v", err)
	}
}

// TestForgedSpectator: a host with one place for a spectator gets spectators' handshakes from
// an address that never answers (forged): it answers each with a cookie no larger than the
// request and admits none, so that a real spectator joining after takes the place and watches.
func TestForgedSpectator(t *testing.T) {
	sm := newSim(t, simConfig{players: 2, ticks: 600, preset: "poor", seed: 8,
		configure: func(h int, cfg *Config[testInput]) { cfg.Spectators = 1 }})
	forger, err := sm.net.Listen("forger")
	if err != nil {
		t.Fatal(err)
	}
	ws := addWatchers(t, sm, 1, "poor", 3*time.Second)
	var m wire.Message
	m.Kind, m.Session, m.Nonce = wire.KindSpectate, 77, 5
	req, err := wire.Append(nil, &m)
	if err != nil {
		t.Fatal(err)
	}
	for now := time.Duration(0); now < 8*time.Second; now += time.Millisecond {
		if now >= time.Second && now < 4*time.Second && now%(100*time.Millisecond) == 0 {
			m.Session++
			req, _ = wire.Append(req[:0], &m)
			if _, err := forger.WriteTo(req, sm.peers[0].conn.LocalAddr()); err != nil {
				t.Fatal(err)
			}
		}
		sm.step(now)
		stepWatchers(ws, now)
	}
	if st := sm.peers[0].s.Stats(); st.Spectators != 1 {
		t.Fatalf("the host serves %d spectators, want the real one alone", st.Spectators)
	}
	checkWatcher(t, sm, ws[0], 200)
	in, out := sm.net.Stats("forger", "peer0"), sm.net.Stats("peer0", "forger")
	if out.Packets > in.Packets || out.Bytes > in.Bytes {
		t.Errorf("the host sent the forged address %d packets, %d bytes, for %d packets, %d bytes", out.Packets, out.Bytes, in.Packets, in.Bytes)
	}
}
