package netplay

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netsim"
)

// leaveGames is how many games TestPeersLeave plays: a short form in the suite, 1,000 or
// more by hand (docs/netplay.md).
var leaveGames = flag.Int("leave-games", 100, "games TestPeersLeave plays")

// leaveGame is one seeded game of TestPeersLeave: its peers, their links, and the faults.
type leaveGame struct {
	players int
	window  int
	delay   int
	sparse  bool // Config.SparseSaving
	faults  []leaveFault
}

// leaveFault kills peer a, or (b >= 0) cuts the link between a and b for good, at a time.
type leaveFault struct {
	at   time.Duration
	a, b int
}

func (f leaveFault) String() string {
	if f.b < 0 {
		return fmt.Sprintf("peer%d killed at %v", f.a, f.at)
	}
	return fmt.Sprintf("peer%d-peer%d cut at %v", f.a, f.b, f.at)
}

// newLeaveGame draws game seed: 3 to 8 peers, each link its own latency (0-300 ms), jitter and
// loss (0-20%) each way, a window of 1 to 20 and a delay of 0 to 5, sparse saving or not; 1 to
// 3 faults, each a peer killed or a link cut, 0 to 2 s apart from 4 s on.
func newLeaveGame(seed uint64) (leaveGame, *rand.Rand) {
	r := rand.New(rand.NewPCG(seed, 0x1ea7e))
	g := leaveGame{players: 3 + r.IntN(6), window: 1 + r.IntN(20), delay: r.IntN(6)}
	at := 4 * time.Second
	killed := map[int]bool{}
	for range 1 + r.IntN(3) {
		at += time.Duration(r.Int64N(667)) * time.Millisecond
		f := leaveFault{at: at, a: r.IntN(g.players), b: -1}
		if r.IntN(2) == 0 {
			if f.b = r.IntN(g.players - 1); f.b >= f.a {
				f.b++
			}
		}
		if killed[f.a] || f.b >= 0 && killed[f.b] {
			continue
		}
		if f.b < 0 {
			killed[f.a] = true
		}
		g.faults = append(g.faults, f)
	}
	g.sparse = r.IntN(2) == 0
	return g, r
}

// TestPeersLeave plays seeded games in which peers are killed and links between peers cut for
// good, 1 to 3 of them 0 to 2 s apart, over links of random latency, jitter and loss, and
// checks that no two peers that still hear each other ever play different games: every two
// peers still playing at the end whose link is not cut ran every tick both made final with
// the same inputs and reached the same checksums, no peer raised EventDesync, and the peers
// still playing made their ticks final to the end (none stalled). A peer may leave the game
// with ErrCutOff, and only where a link of its was cut.
func TestPeersLeave(t *testing.T) {
	games := *leaveGames
	if testing.Short() || raceEnabled {
		games = min(games, 6) // the race detector runs it ten times slower
	}
	cutOff := 0
	for seed := range uint64(games) {
		lg, r := newLeaveGame(seed)
		left, ok := playLeaveGame(t, seed, lg, r)
		cutOff += left
		if !ok {
			t.Logf("game %d: %d peers, window %d, delay %d, faults %v", seed, lg.players, lg.window, lg.delay, lg.faults)
		}
	}
	t.Logf("%d games, %d peers cut off", games, cutOff)
}

// playLeaveGame plays one game and checks it, reporting the peers cut off and whether it passed.
func playLeaveGame(t *testing.T, seed uint64, lg leaveGame, r *rand.Rand) (cutOff int, ok bool) {
	t.Helper()
	sm, cut := playLeaveGameSim(t, seed, lg, r)
	return sm.checkLeave(seed, lg, cut)
}

// playLeaveGameSim plays one game and returns it, with its cut links.
func playLeaveGameSim(t *testing.T, seed uint64, lg leaveGame, r *rand.Rand) (*sim, [][]bool) {
	cut := make([][]bool, lg.players)
	for i := range cut {
		cut[i] = make([]bool, lg.players)
	}
	const ticks = 720 // 12 s: the faults end by 6 s, and the timeout is 2 s
	sm := newSim(t, simConfig{players: lg.players, ticks: ticks, seed: seed*1000 + 7, delay: lg.delay, window: lg.window,
		configure: func(h int, cfg *Config[testInput]) { cfg.SparseSaving = lg.sparse },
		at: func(now time.Duration, sm *sim) {
			sm.noteFinal(now)
			for _, f := range lg.faults {
				if now != f.at {
					continue
				}
				if f.b < 0 {
					sm.peers[f.a].done = true
					continue
				}
				sm.net.Cut(sm.peers[f.a].name, sm.peers[f.b].name, true)
				cut[f.a][f.b], cut[f.b][f.a] = true, true
			}
		}})
	randomLinks(sm, r)
	sm.run()
	return sm, cut
}

// noteFinal notes each peer's final tick 3 s before the loops stop (checkLeave and
// checkFaults check that the peers still playing made ticks final after it).
func (sm *sim) noteFinal(now time.Duration) {
	if now == sm.end()-3*time.Second {
		for _, p := range sm.peers {
			p.finalAt = p.s.final
		}
	}
}

// randomLinks gives each direction of each link between sm's peers its own latency (0-300 ms),
// jitter (0-30 ms) and loss (0-20%), drawn from r.
func randomLinks(sm *sim, r *rand.Rand) {
	for _, a := range sm.peers {
		for _, b := range sm.peers {
			if a != b {
				sm.net.SetConditions(a.name, b.name, netsim.Conditions{
					Latency: time.Duration(r.Int64N(int64(300 * time.Millisecond))),
					Jitter:  time.Duration(r.Int64N(int64(30 * time.Millisecond))),
					Loss:    r.Float64() * 0.2,
				})
			}
		}
	}
}

// checkLeave checks a game played by playLeaveGame.
func (sm *sim) checkLeave(seed uint64, lg leaveGame, cut [][]bool) (cutOff int, ok bool) {
	t := sm.t
	t.Helper()
	killed := map[int]bool{}
	for _, f := range lg.faults {
		if f.b < 0 {
			killed[f.a] = true
		}
	}
	hasCut := func(i int) bool {
		for _, c := range cut[i] {
			if c {
				return true
			}
		}
		return false
	}
	fail := func(format string, args ...any) {
		t.Errorf("game %d: "+format, append([]any{seed}, args...)...)
		ok = false
	}
	ok = true
	playing := []int{}
	for i, p := range sm.peers {
		for _, e := range p.events {
			if e.Kind == EventDesync {
				fail("%s: %v", p.name, e)
				break
			}
		}
		switch {
		case killed[i]:
		case errors.Is(p.err, ErrCutOff) && hasCut(i):
			cutOff++
		case p.err != nil:
			fail("%s: %v", p.name, p.err)
		default:
			playing = append(playing, i)
		}
	}
	for _, i := range playing {
		p := sm.peers[i]
		// The last 3 s of play (from 9 s: the faults end by 6 s, and the timeout is
		// 2 s) make ticks final: none stalled (a game of 8 peers over bad links with a
		// window of 1 runs slowly, but runs).
		if p.s.final < p.finalAt+10 {
			fail("%s stalled: final tick %d 3 s before the end, %d at the end (tick %d)", p.name, p.finalAt, p.s.final, p.s.Tick())
		}
		for _, j := range playing {
			if j <= i || cut[i][j] {
				continue
			}
			q := sm.peers[j]
			common := min(p.s.final, q.s.final)
			n := lg.players
			for tk := uint64(1); tk <= common; tk++ {
				a, b := p.g.log[int(tk-1)*n:][:n], q.g.log[int(tk-1)*n:][:n]
				if !sameInputs(a, b) || p.g.sums[tk-1] != q.g.sums[tk-1] {
					fail("tick %d: %s ran %v (sum %#x), %s ran %v (sum %#x)", tk, p.name, a, p.g.sums[tk-1], q.name, b, q.g.sums[tk-1])
					break
				}
			}
		}
	}
	return cutOff, ok
}

// TestTwoOfFourLeave: of four peers, peers 3 and 2 are killed 0 to 2 s apart, over links of
// random latency (0-300 ms), jitter and loss (0-20%), with windows of 1 to 20 and delays of 0
// to 5: the two left play the same game to the end.
func TestTwoOfFourLeave(t *testing.T) {
	games := 150
	if testing.Short() || raceEnabled {
		games = 8 // scripts/test.d/netplay-leave.sh plays the 150 without the race detector
	}
	for seed := range uint64(games) {
		r := rand.New(rand.NewPCG(seed, 24))
		lg := leaveGame{players: 4, window: 1 + r.IntN(20), delay: r.IntN(6)}
		at := 4*time.Second + time.Duration(r.IntN(1000))*time.Millisecond
		lg.faults = []leaveFault{{at: at, a: 3, b: -1}, {at: at + time.Duration(r.IntN(2001))*time.Millisecond, a: 2, b: -1}}
		if _, ok := playLeaveGame(t, seed, lg, r); !ok {
			t.Logf("game %d: window %d, delay %d, faults %v", seed, lg.window, lg.delay, lg.faults)
		}
	}
}

// TestCutLinkOfThree: of three peers, the link between peers 0 and 1 fails for good at 4 s
// while both still reach peer 2. Peer 1, the end with the higher handle, leaves the game
// (ErrCutOff); peers 0 and 2 play on in the same game, player 1 disconnected.
func TestCutLinkOfThree(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 3))
		lg := leaveGame{players: 3, window: 8, faults: []leaveFault{{at: 4 * time.Second, a: 0, b: 1}}}
		sm, cut := playLeaveGameSim(t, seed, lg, r)
		if _, ok := sm.checkLeave(seed, lg, cut); !ok {
			continue
		}
		if err := sm.peers[1].err; !errors.Is(err, ErrCutOff) {
			t.Errorf("game %d: peer 1 ended with %v, want ErrCutOff", seed, err)
		}
		for _, i := range []int{0, 2} {
			if p := sm.peers[i]; p.err != nil || !p.s.queues[1].gone || p.s.queues[0].gone || p.s.queues[2].gone {
				t.Errorf("game %d: %s: error %v, players gone %v %v %v; want player 1 alone gone", seed, p.name, p.err, p.s.queues[0].gone, p.s.queues[1].gone, p.s.queues[2].gone)
			}
		}
	}
}
