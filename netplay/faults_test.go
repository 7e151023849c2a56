package netplay

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// faultGames is how many games TestPeersFaults plays: a short form in the suite, 1,000 by hand
// (docs/netplay.md).
var (
	faultGames = flag.Int("fault-games", 100, "games TestPeersFaults plays")
	faultSeed  = flag.Int("fault-seed", -1, "the one game TestPeersFaults plays, with every peer's events logged")
)

// faultKind is one of the faults TestPeersFaults draws.
type faultKind uint8

const (
	faultKill       faultKind = iota // peer a killed
	faultCut                         // the link between a and b cut both ways, for good
	faultOneWay                      // everything from a to b lost, for good
	faultOutage                      // the link between a and b cut both ways for dur
	faultOneWayOut                   // everything from a to b lost for dur
	faultFlap                        // the link between a and b down and up every period, for dur
	faultOneWayFlap                  // the same, from a to b only
	faultStall                       // peer a does not call its session for dur
	faultKinds
)

var faultNames = [...]string{"killed", "cut", "one-way cut", "outage", "one-way outage", "flapping", "one-way flapping", "stalled"}

// aFault is one fault of a game.
type aFault struct {
	kind        faultKind
	at, dur     time.Duration
	period      time.Duration // faultFlap, faultOneWayFlap
	a, b        int
	permanentAB bool // cuts the link for good (faultCut, faultOneWay)
}

func (f aFault) String() string {
	switch f.kind {
	case faultKill:
		return fmt.Sprintf("peer%d killed at %v", f.a, f.at)
	case faultStall:
		return fmt.Sprintf("peer%d stalled %v at %v", f.a, f.dur, f.at)
	case faultCut, faultOneWay:
		return fmt.Sprintf("peer%d-peer%d %s at %v", f.a, f.b, faultNames[f.kind], f.at)
	case faultFlap, faultOneWayFlap:
		return fmt.Sprintf("peer%d-peer%d %s every %v for %v at %v", f.a, f.b, faultNames[f.kind], f.period, f.dur, f.at)
	}
	return fmt.Sprintf("peer%d-peer%d %s for %v at %v", f.a, f.b, faultNames[f.kind], f.dur, f.at)
}

// faultGame is one seeded game of TestPeersFaults.
type faultGame struct {
	players, window, delay int
	sparse                 bool
	faults                 []aFault
}

// newFaultGame draws game seed: 3 to 8 peers, each link its own latency (0-300 ms), jitter and
// loss (0-20%) each way, a window of 1 to 20 and a delay of 0 to 5, sparse saving or not; 1 to
// 4 faults of every kind (kills, cuts and outages both ways and one way, flapping links both
// ways and one way, stalls of 0.5 to 5 s), 0 to 0.7 s apart from 4 s on, so that several
// overlap.
func newFaultGame(seed uint64) (faultGame, *rand.Rand) {
	r := rand.New(rand.NewPCG(seed, 0xfa017))
	g := faultGame{players: 3 + r.IntN(6), window: 1 + r.IntN(20), delay: r.IntN(6), sparse: r.IntN(2) == 0}
	at := 4 * time.Second
	killed := map[int]bool{}
	for range 1 + r.IntN(4) {
		at += time.Duration(r.Int64N(700)) * time.Millisecond
		f := aFault{kind: faultKind(r.IntN(int(faultKinds))), at: at, a: r.IntN(g.players), b: -1}
		switch f.kind {
		case faultKill:
		case faultStall:
			f.dur = 500*time.Millisecond + time.Duration(r.Int64N(4500))*time.Millisecond
		default:
			if f.b = r.IntN(g.players - 1); f.b >= f.a {
				f.b++
			}
			f.dur = 500*time.Millisecond + time.Duration(r.Int64N(2500))*time.Millisecond
			if f.kind == faultFlap || f.kind == faultOneWayFlap {
				f.dur = 2*time.Second + time.Duration(r.Int64N(2000))*time.Millisecond
				f.period = 300*time.Millisecond + time.Duration(r.Int64N(700))*time.Millisecond
			}
			f.permanentAB = f.kind == faultCut || f.kind == faultOneWay
		}
		if killed[f.a] || f.b >= 0 && killed[f.b] {
			continue
		}
		if f.kind == faultKill {
			killed[f.a] = true
		}
		g.faults = append(g.faults, f)
	}
	return g, r
}

// faultRun is what a game of TestPeersFaults did, beside its sim.
type faultRun struct {
	killed, stalled, touched []bool // touched: a link of its failed in some way
	cut                      [][]bool
	frozen                   []time.Duration // the longest a peer's final tick stood still while it ran
}

// TestPeersFaults plays seeded games with the faults players really meet, several at once:
// peers killed, links cut both ways or one way, for good or for a while, links flapping, and
// peers that stall for seconds (a background tab, a laptop lid) and come back. It checks that
// no peer raises EventDesync (every desync here is false: the game is deterministic); that no
// healthy peer (never stalled, no link of its failed) leaves; that every two peers whose link
// works both ways at the end ran every tick both made final with the same inputs and reached
// the same checksums, whether they still play or left (two peers that each dropped the other,
// split by a partition that outlasted the timeout, up to the first player either dropped, and
// one of them must have been told); that no peer's final tick stands still
// for longer than three disconnect timeouts while it runs; that the peers still playing made
// ticks final to the end; and that every peer that ends does so with a documented error.
func TestPeersFaults(t *testing.T) {
	games := *faultGames
	if testing.Short() || raceEnabled {
		games = min(games, 6) // the race detector runs it ten times slower
	}
	ended := map[string]int{}
	var frozen time.Duration
	for seed := range uint64(games) {
		if *faultSeed >= 0 && seed != uint64(*faultSeed) {
			continue
		}
		fg, r := newFaultGame(seed)
		sm, run := playFaultGame(t, seed, fg, r)
		if *faultSeed >= 0 {
			for _, p := range sm.peers {
				for i, e := range p.events {
					if e.Kind != EventSynchronizing && e.Kind != EventSynchronized {
						t.Logf("%v %s: %v", p.eventTimes[i], p.name, e)
					}
				}
				t.Logf("%s: tick %d, final %d, error %v", p.name, p.s.Tick(), p.s.final, p.err)
			}
		}
		for _, f := range run.frozen {
			frozen = max(frozen, f)
		}
		if !sm.checkFaults(seed, fg, run, ended) {
			t.Logf("game %d: %d peers, window %d, delay %d, sparse %v, faults %v", seed, fg.players, fg.window, fg.delay, fg.sparse, fg.faults)
		}
	}
	t.Logf("%d games; peers that left: %v; the longest a final tick stood still: %v", games, ended, frozen)
}

// playFaultGame plays one game of TestPeersFaults.
func playFaultGame(t *testing.T, seed uint64, fg faultGame, r *rand.Rand) (*sim, *faultRun) {
	n := fg.players
	run := &faultRun{killed: make([]bool, n), stalled: make([]bool, n), touched: make([]bool, n),
		cut: make([][]bool, n), frozen: make([]time.Duration, n)}
	for i := range run.cut {
		run.cut[i] = make([]bool, n)
	}
	for _, f := range fg.faults {
		switch f.kind {
		case faultKill:
			run.killed[f.a] = true
		case faultStall:
			run.stalled[f.a] = true
		default:
			run.touched[f.a], run.touched[f.b] = true, true
			if f.permanentAB {
				run.cut[f.a][f.b], run.cut[f.b][f.a] = true, true
			}
		}
	}
	lastFinal := make([]uint64, n)
	lastMoved := make([]time.Duration, n)
	const ticks = 960 // 16 s: the faults end by 12 s, and the timeout is 2 s
	sm := newSim(t, simConfig{players: n, ticks: ticks, seed: seed*1000 + 11, delay: fg.delay, window: fg.window,
		configure: func(h int, cfg *Config[testInput]) { cfg.SparseSaving = fg.sparse },
		at: func(now time.Duration, sm *sim) {
			sm.noteFinal(now)
			for _, f := range fg.faults {
				applyFault(sm, f, now)
			}
			if sm.running == 0 || now >= sm.end() {
				return
			}
			for i, p := range sm.peers {
				switch {
				case p.done || p.err != nil:
				case now < p.stallUntil || p.s.final > lastFinal[i] || lastMoved[i] == 0:
					lastFinal[i], lastMoved[i] = p.s.final, now
				default:
					run.frozen[i] = max(run.frozen[i], now-lastMoved[i])
				}
			}
		}})
	randomLinks(sm, r)
	sm.run()
	return sm, run
}

// applyFault does what fault f does at now.
func applyFault(sm *sim, f aFault, now time.Duration) {
	if now < f.at || now > f.at+f.dur {
		return
	}
	a := sm.peers[f.a]
	cut := func(down bool) {
		b := sm.peers[f.b]
		switch f.kind {
		case faultCut, faultOutage, faultFlap:
			sm.net.Cut(a.name, b.name, down)
		default:
			sm.net.CutOneWay(a.name, b.name, down)
		}
	}
	switch f.kind {
	case faultKill:
		if now == f.at {
			a.done = true
		}
	case faultStall:
		if now == f.at {
			a.stallUntil = f.at + f.dur
		}
	case faultCut, faultOneWay:
		if now == f.at {
			cut(true)
		}
	case faultOutage, faultOneWayOut:
		if now == f.at || now == f.at+f.dur {
			cut(now == f.at)
		}
	case faultFlap, faultOneWayFlap:
		if since := now - f.at; since%f.period == 0 {
			cut(since/f.period%2 == 0 && now != f.at+f.dur)
		} else if now == f.at+f.dur {
			cut(false)
		}
	}
}

// checkFaults checks a game of TestPeersFaults, counting in ended the errors peers left with.
func (sm *sim) checkFaults(seed uint64, fg faultGame, run *faultRun, ended map[string]int) (ok bool) {
	t := sm.t
	t.Helper()
	ok = true
	fail := func(format string, args ...any) {
		t.Errorf("game %d: "+format, append([]any{seed}, args...)...)
		ok = false
	}
	limit := 3 * DefaultDisconnectTimeout
	for i, p := range sm.peers {
		for _, e := range p.events {
			if e.Kind == EventDesync {
				fail("%s: %v", p.name, e)
				break
			}
		}
		healthy := !run.killed[i] && !run.stalled[i] && !run.touched[i]
		switch {
		case run.killed[i]:
		case p.err == nil:
			if p.s.final < p.finalAt+10 {
				fail("%s stalled: final tick %d 3 s before the end, %d at the end (tick %d)", p.name, p.finalAt, p.s.final, p.s.Tick())
			}
		case healthy:
			fail("%s, healthy, left: %v", p.name, p.err)
		case errors.Is(p.err, ErrCutOff):
			ended["cut off"]++
		case errors.Is(p.err, ErrDropped):
			ended["dropped"]++
		default:
			fail("%s ended with an undocumented error: %v", p.name, p.err)
		}
		if run.frozen[i] > limit {
			fail("%s: final tick stood still for %v while it ran", p.name, run.frozen[i])
		}
	}
	n := fg.players
	for i, p := range sm.peers {
		for j, q := range sm.peers {
			if j <= i || run.killed[i] || run.killed[j] || run.cut[i][j] {
				continue
			}
			common := min(p.s.final, q.s.final)
			if p.s.queues[j].gone && q.s.queues[i].gone {
				// Each dropped the other: a partition that outlasted the timeout (each
				// side lost every peer it did not hear) split the game, and the two
				// meet again in different games. One of them must learn it, and they
				// agree up to the first player either dropped.
				if p.err == nil && q.err == nil {
					fail("%s and %s each dropped the other and play on, neither told", p.name, q.name)
				}
				for _, s := range []*Session[testInput]{p.s, q.s} {
					for _, x := range s.queues {
						if x.gone {
							common = min(common, x.goneAfter)
						}
					}
				}
			}
			for tk := uint64(1); tk <= common; tk++ {
				a, b := p.g.log[int(tk-1)*n:][:n], q.g.log[int(tk-1)*n:][:n]
				if !sameInputs(a, b) || p.g.sums[tk-1] != q.g.sums[tk-1] {
					fail("tick %d: %s (%v) ran %v (sum %#x), %s (%v) ran %v (sum %#x)", tk, p.name, p.err, a, p.g.sums[tk-1], q.name, q.err, b, q.g.sums[tk-1])
					break
				}
			}
		}
	}
	return ok
}
