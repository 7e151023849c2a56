package relay

import (
	"errors"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay"
)

// TestRelayRejoin: a player whose address changes (a phone switching networks, a game
// restarted) joins again with its token from a new address, in a new session: the relay
// gives it the slot, it re-simulates the match from its first tick at up to 30 ticks an
// Advance, and plays on in the same game as the other player, who notices nothing. The old
// address is no longer heard.
func TestRelayRejoin(t *testing.T) {
	sr := tokenRelay(t)
	later := time.Now().Add(time.Hour)
	tokA := mustToken(t, testKey, "m", 0, later)
	a := sr.player("a", "m", 0, 2, tokA, nil)
	b := sr.player("b", "m", 1, 2, mustToken(t, testKey, "m", 1, later), nil)
	sr.run(4 * time.Second)
	a.frozen = 1 << 62 // its network is gone
	sr.run(sr.now + time.Second)
	a2 := sr.player("a2", "m", 0, 2, tokA, nil)
	most := 0
	for end := sr.now + 4*time.Second; sr.now < end; {
		before := a2.ticks
		sr.run(sr.now + time.Millisecond)
		most = max(most, int(a2.ticks-before))
	}
	if a2.err != nil || b.err != nil {
		t.Fatalf("a again: %v; b: %v", a2.err, b.err)
	}
	st, err := sr.relay.MatchStats("m")
	if err != nil {
		t.Fatal(err)
	}
	if c := a2.s.Stats().Confirmed; c+30 < st.Confirmed || st.Dropped != 0 {
		t.Fatalf("a again: final tick %d, the relay's %d, %d dropped", c, st.Confirmed, st.Dropped)
	}
	if most > 30+16+1 {
		t.Errorf("an Advance of the player catching up ran %d ticks", most)
	}
	if n := sr.agree(); n < 400 {
		t.Errorf("%d ticks compared", n)
	}
	if m := sr.relay.Metrics(); m.Players != 2 || len(sr.relay.addrs) != 2 {
		t.Errorf("%d players and %d addresses, want 2 and 2", m.Players, len(sr.relay.addrs))
	}
	var evs []netplay.Event
	for _, e := range b.s.Events(evs) {
		if e.Kind == netplay.EventDisconnected {
			t.Errorf("b saw %v", e)
		}
	}
	// The old session, back: the relay no longer knows its address.
	a.frozen = 0
	sr.run(sr.now + 10*time.Second)
	if !errors.Is(a.err, netplay.ErrDisconnected) {
		t.Errorf("the old session: %v, want it to give the relay up", a.err)
	}
}

// TestRelayStall: a player that stalls for 2.5 s (a background tab), less than the relay's
// timeout, catches up when it comes back (re-simulating the ticks it missed at up to 30 an
// Advance) and plays on in the same game; its inputs for the ticks it missed were its last
// ones, repeated.
func TestRelayStall(t *testing.T) {
	sr := newSimRelay(t, 8, nil)
	a := sr.player("a", "m", 0, 2, nil, nil)
	b := sr.player("b", "m", 1, 2, nil, nil)
	sr.run(2 * time.Second)
	a.frozen = sr.now + 2500*time.Millisecond
	sr.run(sr.now + 2500*time.Millisecond)
	behind := sr.relay.matchConfirmed("m") - a.s.Tick()
	most := 0
	for end := sr.now + 2*time.Second; sr.now < end; {
		before := a.ticks
		sr.run(sr.now + time.Millisecond)
		most = max(most, int(a.ticks-before))
	}
	st, err := sr.relay.MatchStats("m")
	if err != nil {
		t.Fatal(err)
	}
	if a.err != nil || b.err != nil || st.Dropped != 0 {
		t.Fatalf("a: %v; b: %v; %d dropped", a.err, b.err, st.Dropped)
	}
	if c := a.s.Stats().Confirmed; c+30 < st.Confirmed {
		t.Fatalf("a: final tick %d, the relay's %d", c, st.Confirmed)
	}
	if behind < 140 || most > 30+16+1 {
		t.Errorf("a came back %d ticks behind and ran at most %d in an Advance", behind, most)
	}
	if st.Replaced < 140 {
		t.Errorf("%d inputs replaced: a's for the ticks it missed should be", st.Replaced)
	}
	sr.agree()
}
