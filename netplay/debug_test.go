package netplay

import (
	"testing"
	"time"
)

func TestDebugSpread(t *testing.T) {
	var sm *sim
	sm = newSim(t, simConfig{players: 2, ticks: 3600, preset: "intercontinental", seed: 204,
		start: []time.Duration{0, 500 * time.Millisecond}, ppm: []int64{5000},
		at: func(now time.Duration, s *sim) {
			if now%(100*time.Millisecond) == 0 && now < 20*time.Second {
				a, b := s.peers[0], s.peers[1]
				t.Logf("%v: ticks %d %d adv %.2f %.2f scale %.3f %.3f skipped %d %d conf %d %d", now, a.s.Tick(), b.s.Tick(),
					a.s.PeerStats(1).TicksAhead, b.s.PeerStats(0).TicksAhead, a.s.TimeScale(), b.s.TimeScale(), a.s.Stats().Skipped, b.s.Stats().Skipped, a.s.queues[1].confirmed, b.s.queues[0].confirmed)
			}
		}})
	sm.run()
}
