package netplay

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netsim"
)

func TestTwoPeersNoConditions(t *testing.T) {
	sm := newSim(t, simConfig{players: 2, ticks: 600, seed: 1})
	sm.run()
	sm.check()
	a, b, c, d := sm.figures()
	t.Logf("spread median %d max %d, rollback median %d p99 %d; stats %+v", a, b, c, d, sm.peers[0].s.Stats())
}

// soakTicks returns how many ticks each soak game plays: ten minutes at 60 Hz, which takes
// a few seconds; a minute with -short or under the race detector, unless NETPLAY_SOAK=full.
func soakTicks() int {
	if os.Getenv("NETPLAY_SOAK") != "full" && (testing.Short() || raceEnabled) {
		return 60 * 60
	}
	return 10 * 60 * 60
}

// TestSoak plays games of 2 and 4 players under every preset of netsim, the peers started
// 500 ms apart with one clock 0.5% fast, and checks that they played the same game. With -v
// it prints, for each, how far apart the peers' ticks were (sampled every 10 ms after the
// first second), how far ahead of another the peers estimated they were (the time sync's
// PeerStats.TicksAhead), how deep the rollbacks went, the traffic, and the ticks skipped at the
// prediction window.
func TestSoak(t *testing.T) {
	ticks := soakTicks()
	t.Logf("%-8s %-17s %6s %6s %9s %6s %7s %7s %9s %9s %8s", "players", "preset", "apart", "", "estimated", "", "rollback", "", "bytes/s", "packets/s", "skipped")
	t.Logf("%-8s %-17s %6s %6s %9s %6s %7s %7s %9s %9s %8s", "", "", "median", "max", "median", "max", "median", "p99", "each way", "each way", "")
	for _, players := range []int{2, 4} {
		for i, preset := range netsim.PresetNames() {
			sm := newSim(t, simConfig{players: players, ticks: ticks, preset: preset, seed: uint64(100*players + i),
				start: []time.Duration{0, 500 * time.Millisecond}, ppm: []int64{5000}})
			sm.run()
			sm.check()
			med, mx, dmed, dp99 := sm.figures()
			st := sm.peers[0].s.Stats()
			secs := float64(ticks) / 60
			ways := float64(players - 1)
			emed, emax := sm.estimated()
			t.Logf("%-8d %-17s %6d %6d %9.1f %6.1f %7d %7d %9.0f %9.1f %8d", players, preset, med, mx, emed, emax, dmed, dp99,
				float64(st.BytesSent)/secs/ways, float64(st.PacketsSent)/secs/ways, st.Skipped)
			for _, p := range sm.peers {
				if st := p.s.Stats(); st.Dropped != 0 || st.SendErrors != 0 {
					t.Errorf("%d players, %s: %s dropped %d packets and failed to send %d", players, preset, p.name, st.Dropped, st.SendErrors)
				}
			}
			if mx > 2 && preset == "none" {
				t.Errorf("%d players, %s: the peers' ticks were up to %d apart", players, preset, mx)
			}
		}
	}
}

// kinds returns the kinds of events, in order, for the handle given (any handle if -1).
func kinds(events []Event, handle int) []EventKind {
	var out []EventKind
	for _, e := range events {
		if handle < 0 || e.Handle == handle || e.Kind == EventRunning {
			out = append(out, e.Kind)
		}
	}
	return out
}

// eventAt returns the first event of kind for handle that p took, and when; ok is false if
// there is none.
func (p *simPeer) eventAt(kind EventKind, handle int) (e Event, at time.Duration, ok bool) {
	for i, e := range p.events {
		if e.Kind == kind && e.Handle == handle {
			return e, p.eventTimes[i], true
		}
	}
	return Event{}, 0, false
}

// TestPeerKilled: a peer that stops mid-game without a word is reported interrupted after
// the notice and disconnected within the timeout; the other goes on with its input marked
// Disconnected, or, with EndOnDisconnect, ends with an error naming the player.
func TestPeerKilled(t *testing.T) {
	for _, end := range []bool{false, true} {
		t.Run(fmt.Sprintf("EndOnDisconnect=%v", end), func(t *testing.T) {
			const killAt = 5 * time.Second
			sm := newSim(t, simConfig{players: 2, ticks: 600, preset: "poor", seed: 7,
				configure: func(h int, cfg *Config[testInput]) { cfg.EndOnDisconnect = end },
				at: func(now time.Duration, sm *sim) {
					if now == killAt {
						sm.peers[1].done = true
						if err := sm.peers[1].conn.Close(); err != nil {
							t.Fatal(err)
						}
					}
				}})
			sm.run()
			p := sm.peers[0]
			_, interruptedAt, ok := p.eventAt(EventInterrupted, 1)
			if !ok {
				t.Fatalf("no interruption reported: %v", p.events)
			}
			disc, disconnectedAt, ok := p.eventAt(EventDisconnected, 1)
			if !ok {
				t.Fatalf("no disconnection reported: %v", p.events)
			}
			t.Logf("killed at %v; %v at %v; %v at %v", killAt, EventInterrupted, interruptedAt, disc, disconnectedAt)
			if disc.Reason != "unheard for 2s" {
				t.Errorf("disconnected: %v", disc)
			}
			// The peer was last heard between 200 ms before the kill (packets are 200 ms
			// apart at most) and 150 ms after it (packets in flight: 100 +- 50 ms); the
			// session sees the silence at its next tick.
			tick := time.Second / 60
			lo, hi := killAt-200*time.Millisecond, killAt+150*time.Millisecond+tick
			if interruptedAt < lo+DefaultDisconnectNotice || interruptedAt > hi+DefaultDisconnectNotice {
				t.Errorf("interrupted at %v, for a peer killed at %v with a notice of %v", interruptedAt, killAt, DefaultDisconnectNotice)
			}
			if disconnectedAt < lo+DefaultDisconnectTimeout || disconnectedAt > hi+DefaultDisconnectTimeout {
				t.Errorf("disconnected at %v, for a peer killed at %v with a timeout of %v", disconnectedAt, killAt, DefaultDisconnectTimeout)
			}
			if end {
				if !errors.Is(p.err, ErrDisconnected) || !strings.Contains(p.err.Error(), "player 1") {
					t.Fatalf("Advance returned %v, want ErrDisconnected naming player 1", p.err)
				}
				t.Logf("Advance: %v", p.err)
				return
			}
			if p.err != nil {
				t.Fatal(p.err)
			}
			// What is no longer measured reads 0 (TicksAhead kept the last estimate).
			if ps := p.s.PeerStats(1); ps.Status != Disconnected || ps.TicksAhead != 0 || ps.Ping != 0 || ps.Interrupted {
				t.Errorf("PeerStats of the player gone: %+v, want Disconnected with no ping, ticks ahead or interruption", ps)
			}
			// The game went on, with player 1's input marked Disconnected after its last
			// confirmed tick.
			last := p.s.Tick()
			if last < disc.Tick+100 {
				t.Errorf("the game stopped at tick %d, player 1 disconnected after tick %d", last, disc.Tick)
			}
			for tick := uint64(1); tick <= last; tick++ {
				in := p.g.log[(tick-1)*2+1]
				if gone := tick > disc.Tick; gone != (in.Status == Disconnected) {
					t.Fatalf("tick %d ran with player 1's input %v, disconnected after tick %d", tick, in, disc.Tick)
				}
			}
		})
	}
}

// TestOutage: a link cut for less than the disconnect timeout interrupts the game (both
// peers report it and stall at the prediction window), which resumes once the link is back,
// still in sync.
func TestOutage(t *testing.T) {
	const cutAt, cutFor = 4 * time.Second, 1500 * time.Millisecond
	sm := newSim(t, simConfig{players: 2, ticks: 600, preset: "mobile", seed: 9,
		at: func(now time.Duration, sm *sim) {
			switch now {
			case cutAt:
				sm.net.Cut("peer0", "peer1", true)
			case cutAt + cutFor:
				sm.net.Cut("peer0", "peer1", false)
			}
		}})
	sm.run()
	sm.check()
	for h, p := range sm.peers {
		other := 1 - h
		got := kinds(p.events, other)
		got = slices.DeleteFunc(got, func(k EventKind) bool { return k == EventSynchronizing })
		want := []EventKind{EventSynchronized, EventRunning, EventInterrupted, EventResumed}
		if !slices.Equal(got, want) {
			t.Errorf("%s: events %v, want %v", p.name, got, want)
		}
		_, at, _ := p.eventAt(EventResumed, other)
		t.Logf("%s: resumed at %v, tick %d", p.name, at, p.s.Tick())
	}
}

// TestNoAllocationsPerTick: in steady state, a tick of every peer (input, the session's
// Advance with its rollbacks, the requests carried out, the packets sent and received)
// allocates nothing.
func TestNoAllocationsPerTick(t *testing.T) {
	for _, players := range []int{2, 4} {
		sm := newSim(t, simConfig{players: players, ticks: 60 * 60, preset: "poor", seed: 3})
		now := time.Duration(0)
		for ; now < 20*time.Second; now += time.Millisecond {
			sm.step(now)
		}
		allocs := testing.AllocsPerRun(200, func() {
			for range 17 {
				sm.step(now)
				now += time.Millisecond
			}
		})
		st := sm.peers[0].s.Stats()
		if allocs != 0 {
			t.Errorf("%d players: %v allocations a tick", players, allocs)
		}
		if st.Rollbacks == 0 || st.PacketsReceived == 0 {
			t.Errorf("%d players: no rollbacks or no packets: %+v", players, st)
		}
	}
}

// TestPeerKilledOfFour: when one of four peers is killed, the three others agree on the last
// tick of its input, whichever of them heard from it last, go back to it if they ran past it
// with inputs the others lack, and go on in sync; on every bad link, over several games.
func TestPeerKilledOfFour(t *testing.T) {
	for _, preset := range []string{"poor", "terrible", "mobile", "intercontinental"} {
		for seed := range uint64(5) {
			sm := newSim(t, simConfig{players: 4, ticks: 1800, preset: preset, seed: 100 + seed,
				at: func(now time.Duration, sm *sim) {
					if now == 10*time.Second {
						sm.peers[3].done = true
						if err := sm.peers[3].conn.Close(); err != nil {
							t.Fatal(err)
						}
					}
				}})
			sm.run()
			sm.check()
			var last []uint64
			for _, p := range sm.peers[:3] {
				e, _, ok := p.eventAt(EventDisconnected, 3)
				if !ok {
					t.Fatalf("%s, seed %d: %s reported no disconnection of player 3: %v", preset, seed, p.name, p.events)
				}
				last = append(last, p.s.queues[3].goneAfter)
				if e.Tick < last[len(last)-1] {
					t.Errorf("%s, seed %d: %s: %v, then its input stopped after tick %d", preset, seed, p.name, e, last[len(last)-1])
				}
			}
			if last[0] != last[1] || last[1] != last[2] {
				t.Errorf("%s, seed %d: player 3's input stops after ticks %v", preset, seed, last)
			}
		}
	}
}

// TestTimeSync: peers started 500 ms apart, or with one clock 0.5% fast, or both, converge
// and stay within two ticks of each other; the fast one runs its loop a little slower, at the
// rate of the slow one.
func TestTimeSync(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start []time.Duration
		ppm   []int64
	}{
		{"500ms apart", []time.Duration{0, 500 * time.Millisecond}, nil},
		{"0.5% fast", nil, []int64{0, 5000}},
		{"0.5% slow", nil, []int64{0, -5000}},
		{"both", []time.Duration{500 * time.Millisecond, 0}, []int64{5000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sm := newSim(t, simConfig{players: 2, ticks: 60 * 60, seed: 13, start: tc.start, ppm: tc.ppm})
			var scales [2]float64
			var n int
			sm.cfg.at = func(now time.Duration, sm *sim) {
				if sm.running != 0 && now > sm.running+time.Second {
					for h, p := range sm.peers {
						scales[h] += p.s.TimeScale()
					}
					n++
				}
			}
			sm.run()
			sm.check()
			med, mx, _, _ := sm.figures()
			t.Logf("ticks apart: median %d, max %d; mean time scale %.4f and %.4f; estimates %.2f and %.2f",
				med, mx, scales[0]/float64(n), scales[1]/float64(n), sm.peers[0].s.PeerStats(1).TicksAhead, sm.peers[1].s.PeerStats(0).TicksAhead)
			if mx > 2 {
				t.Errorf("the peers' ticks were up to %d apart", mx)
			}
			// Each peer's loop runs, on average, at the rate of the slowest clock: the time
			// scale of peer h is that rate over its own.
			rate := func(h int) float64 {
				if h < len(tc.ppm) {
					return 1 + float64(tc.ppm[h])/1e6
				}
				return 1
			}
			slowest := min(rate(0), rate(1))
			for h := range sm.peers {
				want, got := slowest/rate(h), scales[h]/float64(n)
				if got > want+0.001 || got < want-0.002 {
					t.Errorf("peer %d: mean time scale %.4f, want about %.4f", h, got, want)
				}
			}
		})
	}
}

// TestSoakSettings plays two minutes between two peers under the slower presets with several
// input delays and prediction windows, and prints, with -v, what each costs: the share of
// the loop's ticks skipped (stalls at the window), and how deep the rollbacks went.
func TestSoakSettings(t *testing.T) {
	if testing.Short() {
		t.Skip("a table of figures")
	}
	t.Logf("%-17s %5s %6s %8s %8s %8s", "preset", "delay", "window", "skipped", "rollback", "")
	t.Logf("%-17s %5s %6s %8s %8s %8s", "", "", "", "", "median", "p99")
	for _, preset := range []string{"poor", "mobile", "intercontinental", "terrible"} {
		for _, set := range [][2]int{{0, 8}, {2, 8}, {4, 8}, {2, 12}, {8, 12}} {
			sm := newSim(t, simConfig{players: 2, ticks: 2 * 60 * 60, preset: preset, seed: 42, delay: set[0], window: set[1]})
			sm.run()
			sm.check()
			_, _, dmed, dp99 := sm.figures()
			var skipped float64
			for _, p := range sm.peers {
				skipped += float64(p.s.Stats().Skipped) / float64(sm.cfg.ticks) / 2
			}
			t.Logf("%-17s %5d %6d %7.1f%% %8d %8d", preset, set[0], set[1], 100*skipped, dmed, dp99)
		}
	}
}

// TestLockstep: with Lockstep, no tick runs before every input for it has arrived: nothing is
// ever predicted or rolled back, and the peers stay in sync.
func TestLockstep(t *testing.T) {
	sm := newSim(t, simConfig{players: 3, ticks: 1200, preset: "mobile", seed: 23, delay: 2,
		configure: func(h int, cfg *Config[testInput]) { cfg.Lockstep = true }})
	sm.run()
	sm.check()
	for _, p := range sm.peers {
		st := p.s.Stats()
		if st.Rollbacks != 0 || p.s.Slots() != 2 {
			t.Errorf("%s: %d rollbacks, %d slots", p.name, st.Rollbacks, p.s.Slots())
		}
		for i, in := range p.g.log[:int(p.s.Tick())*3] {
			if in.Status != Confirmed {
				t.Fatalf("%s: tick %d ran with %v", p.name, i/3+1, in)
			}
		}
		t.Logf("%s: %d ticks, %d skipped", p.name, st.Tick, st.Skipped)
	}
}
