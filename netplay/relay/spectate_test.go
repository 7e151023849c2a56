package relay

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay"
)

// TestRelaySpectators: 1,000 spectators of one match through the relay, fed only confirmed
// inputs and 2 s late (a broadcast delay): every one of them runs the players' game (the
// same checksums), none is ever fed a tick less than 2 s old, and one that stops answering
// for 10 s is dropped without the players noticing (no more of their inputs replaced than
// the start's).
func TestRelaySpectators(t *testing.T) {
	spectators := 1000
	if testing.Short() || raceEnabled {
		spectators = 100
	}
	const delay = 120
	sr := newSimRelay(t, 3, &Options{OpenMatch: MatchConfig{SpectatorDelay: delay}, MaxSpectators: spectators})
	a := sr.player("a", "m", 0, 2, nil, nil)
	b := sr.player("b", "m", 1, 2, nil, nil)
	sr.run(500 * time.Millisecond) // the match exists: spectators join it
	specs := make([]*simPlayer, spectators)
	for i := range specs {
		specs[i] = sr.player(fmt.Sprintf("s%d", i), "m", -1, 2, nil, nil)
	}
	slow := specs[0]
	worst := uint64(0)
	for sr.now < 8*time.Second {
		sr.run(sr.now + 100*time.Millisecond)
		if sr.now > 2*time.Second && slow.frozen == 0 {
			slow.frozen = sr.now + 10*time.Second
		}
		confirmed := sr.relay.matchConfirmed("m")
		for _, s := range specs[1:] {
			if tick := s.s.Tick(); tick+delay > confirmed && tick > 0 {
				worst = max(worst, tick+delay-confirmed)
			}
		}
	}
	if worst > 0 {
		t.Errorf("a spectator ran a tick %d ticks sooner than the delay of %d allows", worst, delay)
	}
	st, err := sr.relay.MatchStats("m")
	if err != nil {
		t.Fatal(err)
	}
	if st.Spectators != spectators-1 {
		t.Errorf("%d spectators watching, want %d (all but the one that stopped answering)", st.Spectators, spectators-1)
	}
	if st.Replaced > 6 {
		t.Errorf("%d inputs replaced", st.Replaced)
	}
	if a.err != nil || b.err != nil {
		t.Fatalf("players: %v, %v", a.err, b.err)
	}
	for _, s := range specs[1:] {
		if s.err != nil || s.s.Stats().Confirmed+delay+30 < st.Confirmed {
			t.Fatalf("%s: %v, final tick %d, the relay at %d", s.name, s.err, s.s.Stats().Confirmed, st.Confirmed)
		}
	}
	sr.agree()
	// The slow one, back: the relay no longer knows it.
	sr.run(sr.now + 16*time.Second)
	var lost *netplay.HostLostError
	if !errors.As(slow.err, &lost) {
		t.Errorf("the spectator back after 10 s: %v, want a HostLostError", slow.err)
	}
}
