package netplay

import "testing"

// TestExtremeSettings: three peers at the largest window and input delay, under the
// terrible preset, stay in sync and drop nothing.
func TestExtremeSettings(t *testing.T) {
	sm := newSim(t, simConfig{players: 3, ticks: 3600, preset: "terrible", seed: 31,
		delay: MaxInputDelay, window: MaxPredictionWindow})
	sm.run()
	sm.check()
	for _, p := range sm.peers {
		st := p.s.Stats()
		if st.Dropped != 0 || p.s.Slots() != 2*MaxPredictionWindow+2 {
			t.Errorf("%s: %d dropped, %d slots", p.name, st.Dropped, p.s.Slots())
		}
		t.Logf("%s: %+v", p.name, st)
	}
}
