package relay

import (
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netsim"
)

// TestRelayLockstep: sessions in lockstep (Config.Lockstep, no prediction) play through a
// relay: no tick runs before the relay has confirmed its inputs, so nothing is ever rolled
// back, and every tick each player runs is final, with the same checksum everywhere. The
// relay's clock does not wait, so each session keeps its input delay at the round trip to
// the relay: their inputs arrive in time (with no delay, every one of them was replaced),
// when a link slows down mid-match too, and the delay comes back down when it recovers.
func TestRelayLockstep(t *testing.T) {
	sr := newSimRelay(t, 3, nil)
	link := func(name string, c netsim.Conditions) {
		sr.net.SetConditions(name, "relay", c)
		sr.net.SetConditions("relay", name, c)
	}
	link("a", netsim.Conditions{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02})
	link("b", netsim.Conditions{Latency: 45 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02})
	link("s", netsim.Conditions{Latency: 10 * time.Millisecond})
	lockstep := func(c *netplay.Config[byte]) { c.Lockstep = true }
	a := sr.player("a", "m", 0, 2, nil, lockstep)
	b := sr.player("b", "m", 1, 2, nil, lockstep)
	s := sr.player("s", "m", -1, 2, nil, nil)
	replaced := func() uint64 {
		st, err := sr.relay.MatchStats("m")
		if err != nil {
			return 0 // not created yet
		}
		return st.Replaced
	}
	// phase plays until end and checks the players' delays and how many inputs were
	// replaced in the meantime.
	phase := func(what string, end time.Duration, delayA, delayB [2]int, maxReplaced uint64) {
		t.Helper()
		before, tick := replaced(), a.s.Stats().Tick
		sr.run(end)
		for _, p := range sr.players {
			if p.err != nil {
				t.Fatalf("%s: %s: %v", what, p.name, p.err)
			}
		}
		n := replaced() - before
		t.Logf("%s: delays %d and %d, %d inputs replaced, ticks %d to %d", what, a.s.InputDelay(), b.s.InputDelay(), n, tick, a.s.Stats().Tick)
		for _, c := range []struct {
			p     *simPlayer
			delay [2]int
		}{{a, delayA}, {b, delayB}} {
			if d := c.p.s.InputDelay(); d < c.delay[0] || d > c.delay[1] {
				t.Errorf("%s: %s's input delay is %d, want %d to %d", what, c.p.name, d, c.delay[0], c.delay[1])
			}
		}
		if n > maxReplaced {
			t.Errorf("%s: %d inputs replaced, want at most %d", what, n, maxReplaced)
		}
	}
	// A round trip of 40 ± 10 ms at 60 Hz is 2.4 ± 0.6 ticks, 90 ± 20 ms 5.4 ± 1.2, 180 ± 20
	// ms 10.8 ± 1.2 (and up to a tick more: a player reads its packets once a tick); two
	// ticks more each. The match's clock waits for both players' first inputs (their delay's
	// zero inputs, sent before they run a tick), so the start costs few; when b's link slows,
	// what is replaced is the inputs sent before a round trip shows it. (Over 40 seeds: 0-7
	// and 0-25 replaced; 9-32 at the start when the clock started at once.)
	phase("start", 10*time.Second, [2]int{5, 6}, [2]int{7, 10}, 10)
	link("b", netsim.Conditions{Latency: 90 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02})
	phase("b's link slowed to 90 ms", 20*time.Second, [2]int{5, 6}, [2]int{13, 16}, 40)
	link("b", netsim.Conditions{Latency: 45 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02})
	// A delay the game sets is the least the session takes.
	if err := a.s.SetInputDelay(12); err != nil {
		t.Fatal(err)
	}
	phase("b's link back to 45 ms, a's delay set to 12", 30*time.Second, [2]int{12, 12}, [2]int{7, 10}, 10)
	if err := a.s.SetInputDelay(0); err != nil {
		t.Fatal(err)
	}
	phase("a's delay set to 0", 32*time.Second, [2]int{5, 6}, [2]int{7, 10}, 2)
	for _, p := range []*simPlayer{a, b} {
		ps := p.s.Stats()
		if ps.Rollbacks != 0 || p.ticks != ps.Tick {
			t.Errorf("%s rolled back in lockstep: %d rollbacks, %d ticks run for %d", p.name, ps.Rollbacks, p.ticks, ps.Tick)
		}
		if ps.Tick != ps.Confirmed {
			t.Errorf("%s ran tick %d with only %d confirmed", p.name, ps.Tick, ps.Confirmed)
		}
		if ps.Tick < 1800 {
			t.Errorf("%s ran %d ticks in 32 s at 60 Hz", p.name, ps.Tick)
		}
	}
	if n := sr.agree(); n < 3000 {
		t.Errorf("only %d checksums compared", n)
	}
	if st := s.s.Stats(); st.Tick < 1800 {
		t.Errorf("the spectator ran only %d ticks", st.Tick)
	}
}
