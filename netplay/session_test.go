package netplay

import (
	"os"
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

// soakTicks returns how many ticks each soak game plays: a minute at 60 Hz by default, ten
// minutes with NETPLAY_SOAK=full, and ten seconds with -short.
func soakTicks() int {
	switch {
	case os.Getenv("NETPLAY_SOAK") == "full":
		return 10 * 60 * 60
	case testing.Short():
		return 10 * 60
	}
	return 60 * 60
}

// TestSoak plays games of 2 and 4 players under every preset of netsim, the peers started
// 500 ms apart with one clock 0.5% fast, and checks that they played the same game. With -v
// it prints, for each, how far apart the peers' ticks were (sampled every 10 ms after the
// first second) and how deep the rollbacks went.
func TestSoak(t *testing.T) {
	ticks := soakTicks()
	t.Logf("%-8s %-17s %6s %6s %7s %7s %9s %9s %8s", "players", "preset", "spread", "", "rollback", "", "bytes/s", "packets/s", "skipped")
	t.Logf("%-8s %-17s %6s %6s %7s %7s %9s %9s %8s", "", "", "median", "max", "median", "p99", "each way", "each way", "")
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
			t.Logf("%-8d %-17s %6d %6d %7d %7d %9.0f %9.1f %8d", players, preset, med, mx, dmed, dp99,
				float64(st.BytesSent)/secs/ways, float64(st.PacketsSent)/secs/ways, st.Skipped)
			if mx > 2 && preset == "none" {
				t.Errorf("%d players, %s: the peers' ticks were up to %d apart", players, preset, mx)
			}
		}
	}
}
