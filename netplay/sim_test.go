package netplay

import (
	"fmt"
	"math"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/netsim"
)

// simPeer is one peer of a simulated game: a session on a netsim conn, the test game, and a
// loop's schedule on a clock of its own, which may start late and run fast or slow.
type simPeer struct {
	name       string
	conn       *netsim.Conn
	s          *Session[testInput]
	g          *testGame
	update     gameloop.Game
	sched      *gameloop.Schedule
	clock      simClock
	start      time.Duration // when, on the network's time, its loop starts
	ppm        int64         // how fast its clock runs, in parts per million
	u          gameloop.Update
	events     []Event
	eventTimes []time.Duration // when each event was taken, on the network's time
	done       bool            // killed
	stallUntil time.Duration   // its loop and session are not called before then (a stall)
	err        error
	errAt      time.Duration // when err came, on the network's time
	depths     []int         // ticks run again at each tick
	finalAt    uint64        // a final tick, noted by a test
}

// simClock is a peer's clock, and the loop around the schedule for NewLoopGame.
type simClock struct {
	now   time.Duration
	sched *gameloop.Schedule
}

func (c *simClock) Now() time.Duration                       { return c.now }
func (c *simClock) WaitUntil(time.Duration, <-chan struct{}) {}
func (c *simClock) Clock() gameloop.Clock                    { return c }
func (c *simClock) SetTimeScale(scale float64) error         { return c.sched.SetTimeScale(c.now, scale) }

// simConfig describes a simulated game.
type simConfig struct {
	players int
	ticks   int // how many ticks to play (of the first peer's loop)
	preset  string
	seed    uint64
	delay   int
	window  int
	// start and ppm are each peer's start time and clock rate; missing entries are 0.
	start []time.Duration
	ppm   []int64
	// configure changes each peer's Config.
	configure func(h int, cfg *Config[testInput])
	// at is called every millisecond of network time, to cut links or kill peers.
	at func(now time.Duration, sim *sim)
	// wrap, if set, gives each peer's session its conn: the netsim one, or one around it.
	wrap func(h int, c *netsim.Conn) net.PacketConn
}

// sim is a simulated game between peers over a netsim network.
type sim struct {
	t     testing.TB
	cfg   simConfig
	net   *netsim.Network
	peers []*simPeer
	// spread holds the largest difference of the peers' ticks, sampled every 10 ms after
	// the first second of play.
	spread []int
	// estimates holds the largest of the peers' estimates of how far they run ahead of
	// another (PeerStats.TicksAhead, in absolute value), sampled with spread.
	estimates []float64
	// running is when every peer was synchronized.
	running time.Duration
}

func newSim(t testing.TB, cfg simConfig) *sim {
	t.Helper()
	sm := &sim{t: t, cfg: cfg, net: netsim.NewNetwork(cfg.seed), spread: make([]int, 0, cfg.ticks*2), estimates: make([]float64, 0, cfg.ticks*2)}
	names := make([]string, cfg.players)
	for h := range names {
		names[h] = fmt.Sprintf("peer%d", h)
	}
	conns := make([]*netsim.Conn, cfg.players)
	for h, name := range names {
		c, err := sm.net.Listen(name)
		if err != nil {
			t.Fatal(err)
		}
		conns[h] = c
	}
	if cfg.preset != "" {
		cond, err := netsim.Preset(cfg.preset)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range names {
			for _, b := range names {
				if a != b {
					sm.net.SetConditions(a, b, cond)
				}
			}
		}
	}
	for h := range cfg.players {
		players := make([]Player, cfg.players)
		for o := range players {
			if o == h {
				players[o] = Player{Local: true}
			} else {
				players[o] = Player{Addr: conns[o].LocalAddr()}
			}
		}
		pc := Config[testInput]{Players: players, Codec: byteCodec{}, InputDelay: cfg.delay,
			PredictionWindow: cfg.window, Rand: &seqReader{x: cfg.seed + uint64(h)*7919}}
		if cfg.configure != nil {
			cfg.configure(h, &pc)
		}
		var conn net.PacketConn = conns[h]
		if cfg.wrap != nil {
			conn = cfg.wrap(h, conns[h])
		}
		s, err := NewSession(conn, pc)
		if err != nil {
			t.Fatal(err)
		}
		sched, err := gameloop.NewSchedule(gameloop.Config{TickRate: 60, MaxTicksPerFrame: 1000, MaxFrameTime: 1 << 62})
		if err != nil {
			t.Fatal(err)
		}
		p := &simPeer{name: names[h], conn: conns[h], s: s, sched: sched,
			g: newTestGame(cfg.players, s.Slots(), cfg.seed*31+uint64(h), cfg.ticks+600)}
		p.g.session = s
		p.depths = make([]int, 0, cfg.ticks+60)
		p.events = make([]Event, 0, 1024)
		p.eventTimes = make([]time.Duration, 0, 1024)
		p.clock.sched = sched
		if h < len(cfg.start) {
			p.start = cfg.start[h]
		}
		if h < len(cfg.ppm) {
			p.ppm = cfg.ppm[h]
		}
		p.update = NewLoopGame(s, p.g, &p.clock)
		sm.peers = append(sm.peers, p)
	}
	t.Cleanup(func() {
		for _, p := range sm.peers {
			p.s.Close()
		}
	})
	return sm
}

// seqReader is a deterministic source of nonces.
type seqReader struct{ x uint64 }

func (r *seqReader) Read(p []byte) (int, error) {
	for i := range p {
		r.x = r.x*6364136223846793005 + 1442695040888963407
		p[i] = byte(r.x >> 56)
	}
	return len(p), nil
}

// run plays until the first peer's loop has ticked cfg.ticks times, and 2 s more of the
// network alone, for the last inputs to arrive.
func (sm *sim) run() {
	end := sm.end()
	for now := time.Duration(0); now < end+2*time.Second; now += time.Millisecond {
		sm.step(now)
	}
}

// end returns when the peers' loops stop ticking.
func (sm *sim) end() time.Duration {
	return time.Duration(sm.cfg.ticks)*time.Second/60 + sm.peers[0].start
}

// step moves the network on by a millisecond, to now, and runs every loop to now.
func (sm *sim) step(now time.Duration) {
	end := sm.end()
	sm.net.Advance(time.Millisecond)
	if sm.cfg.at != nil {
		sm.cfg.at(now, sm)
	}
	for _, p := range sm.peers {
		if p.done || p.err != nil || now < p.start || now < p.stallUntil {
			continue
		}
		p.clock.now = (now - p.start) + (now-p.start)*time.Duration(p.ppm)/1e6
		if now >= end {
			// The tail: no more ticks, only the network, so that the last inputs arrive.
			p.s.Poll(p.clock.now)
			continue
		}
		st := p.sched.Advance(p.clock.now)
		for range st.Ticks {
			tick, _ := p.sched.Next()
			before := p.g.steps
			p.u.Tick = tick
			if err := p.update.Update(&p.u); err != nil {
				p.err, p.errAt = err, now
				p.s.Close() // as a game that ends on an error does
				break
			}
			if ran := p.g.steps - before; ran > 0 {
				p.depths = append(p.depths, ran-1)
			}
		}
		n := len(p.events)
		p.events = p.s.Events(p.events)
		for range len(p.events) - n {
			p.eventTimes = append(p.eventTimes, now)
		}
	}
	if sm.running == 0 {
		sm.running = now
		for _, p := range sm.peers {
			if !p.s.running {
				sm.running = 0
			}
		}
	}
	if sm.running != 0 && now >= sm.running+time.Second && now < end && now%(10*time.Millisecond) == 0 {
		lo, hi := uint64(1<<63), uint64(0)
		for _, p := range sm.peers {
			if !p.done {
				lo, hi = min(lo, p.s.Tick()), max(hi, p.s.Tick())
			}
		}
		sm.spread = append(sm.spread, int(hi-lo))
		est := 0.0
		for _, p := range sm.peers {
			for h := range p.s.queues {
				if !p.done && !p.s.queues[h].local {
					est = max(est, math.Abs(p.s.PeerStats(h).TicksAhead))
				}
			}
		}
		sm.estimates = append(sm.estimates, est)
	}
}

// check checks that the peers played the same game: no desync event, the same confirmed
// inputs and checksums for every tick all of them confirmed.
func (sm *sim) check() {
	sm.t.Helper()
	common := uint64(1 << 63)
	for _, p := range sm.peers {
		if p.err != nil {
			sm.t.Errorf("%s: %v", p.name, p.err)
		}
		for _, e := range p.events {
			if e.Kind == EventDesync {
				sm.t.Errorf("%s: %v", p.name, e)
			}
		}
		if !p.done {
			common = min(common, p.s.final)
		}
	}
	played := uint64(1 << 63)
	for _, p := range sm.peers {
		if !p.done {
			played = min(played, p.s.Tick())
		}
	}
	if played < uint64(sm.cfg.ticks)/4 || common+2*uint64(sm.peers[0].s.window)+2 < played {
		sm.t.Errorf("only %d ticks confirmed by every peer, of %d played (%d of the loop)", common, played, sm.cfg.ticks)
	}
	ref := sm.peers[0]
	n := sm.cfg.players
	for _, p := range sm.peers[1:] {
		if p.done {
			continue
		}
		for t := uint64(1); t <= common; t++ {
			a := ref.g.log[int(t-1)*n:][:n]
			b := p.g.log[int(t-1)*n:][:n]
			if !sameInputs(a, b) {
				sm.t.Fatalf("tick %d: %s ran with %v, %s with %v", t, ref.name, a, p.name, b)
			}
			if ref.g.sums[t-1] != p.g.sums[t-1] {
				sm.t.Fatalf("tick %d: checksum %#x at %s, %#x at %s", t, ref.g.sums[t-1], ref.name, p.g.sums[t-1], p.name)
			}
		}
	}
}

// figures returns the median and maximum spread of ticks, and the median and 99th percentile
// of rollback depth over every peer's ticks.
func (sm *sim) figures() (spreadMedian, spreadMax, depthMedian, depthP99 int) {
	sp := slices.Clone(sm.spread)
	slices.Sort(sp)
	var d []int
	for _, p := range sm.peers {
		d = append(d, p.depths...)
	}
	slices.Sort(d)
	if len(sp) > 0 {
		spreadMedian, spreadMax = sp[len(sp)/2], sp[len(sp)-1]
	}
	if len(d) > 0 {
		depthMedian, depthP99 = d[len(d)/2], d[len(d)*99/100]
	}
	return
}

// sameInputs reports whether two ticks ran with the same inputs, predicted or confirmed.
func sameInputs(a, b []PlayerInput[testInput]) bool {
	return slices.EqualFunc(a, b, func(x, y PlayerInput[testInput]) bool {
		return x.Input == y.Input && (x.Status == Disconnected) == (y.Status == Disconnected)
	})
}

// estimated returns the median and maximum of the peers' estimates of ticks ahead.
func (sm *sim) estimated() (median, most float64) {
	e := slices.Clone(sm.estimates)
	slices.Sort(e)
	if len(e) == 0 {
		return 0, 0
	}
	return e[len(e)/2], e[len(e)-1]
}
