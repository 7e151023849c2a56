package relay

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netsim"
)

// faultGames is how many games TestRelayFaults plays: a short form in the suite, 1,000 by hand
// (go test -run TestRelayFaults ./netplay/relay -fault-games 1000).
var faultGames = flag.Int("fault-games", 100, "games TestRelayFaults plays")

// A fault befalls a player: what, from when, for how long.
type fault struct {
	kind     string // "kill", "leave", "stall", "cut", "cut-in", "cut-out", "flap"
	player   int
	at, long time.Duration
}

// faultGame is one seeded game of the campaign: its players, links and faults.
type faultGame struct {
	seed    uint64
	players int
	faults  []fault
	conds   []netsim.Conditions
	// joinAt is when each player joins: 0 for most; for a few, later, into a match that
	// starts without them (MatchConfig.MinPlayers).
	joinAt []time.Duration
	// snapEvery is the match's MatchConfig.SnapshotEvery, its players' sessions taking
	// snapshots; 0 for none.
	snapEvery int
	// lockstep says which players' sessions run in lockstep (Config.Lockstep).
	lockstep []bool
}

// minPlayers is how many of the game's players join at the start.
func (g faultGame) minPlayers() int {
	n := 0
	for _, at := range g.joinAt {
		if at == 0 {
			n++
		}
	}
	return n
}

func newFaultGame(seed uint64) faultGame {
	r := rand.New(rand.NewPCG(seed, 77))
	g := faultGame{seed: seed, players: 2 + r.IntN(7)}
	for range g.players {
		g.conds = append(g.conds, netsim.Conditions{
			Latency: time.Duration(r.IntN(60)) * time.Millisecond,
			Jitter:  time.Duration(r.IntN(10)) * time.Millisecond,
			Loss:    float64(r.IntN(6)) / 100,
		})
	}
	kinds := []string{"kill", "leave", "stall", "stall", "cut", "cut-in", "cut-out", "flap"}
	for range r.IntN(4) {
		g.faults = append(g.faults, fault{kind: kinds[r.IntN(len(kinds))], player: r.IntN(g.players),
			at: time.Duration(2000+r.IntN(12000)) * time.Millisecond, long: time.Duration(200+r.IntN(6000)) * time.Millisecond})
	}
	// A third of the games take players late: up to all but one, joining 1 to 15 s in.
	g.joinAt = make([]time.Duration, g.players)
	if r.IntN(3) == 0 {
		for range 1 + r.IntN(g.players-1) {
			g.joinAt[r.IntN(g.players)] = time.Duration(1000+r.IntN(14000)) * time.Millisecond
		}
		if g.minPlayers() == 0 {
			g.joinAt[0] = 0
		}
	}
	// Half the games gather state snapshots, every 1 to 4 s: the late and returning
	// players start from them.
	if r.IntN(2) == 0 {
		g.snapEvery = 60 + r.IntN(181)
	}
	// A fifth of the games have players in lockstep, about half of them each.
	g.lockstep = make([]bool, g.players)
	if r.IntN(5) == 0 {
		for h := range g.lockstep {
			g.lockstep[h] = r.IntN(2) == 0
		}
	}
	return g
}

func (g faultGame) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d, %d players", g.seed, g.players)
	if g.snapEvery > 0 {
		fmt.Fprintf(&b, ", a snapshot every %d ticks", g.snapEvery)
	}
	for h, at := range g.joinAt {
		if at > 0 {
			fmt.Fprintf(&b, "; player %d joins at %v", h, at)
		}
	}
	for h, lockstep := range g.lockstep {
		if lockstep {
			fmt.Fprintf(&b, "; player %d in lockstep", h)
		}
	}
	for _, f := range g.faults {
		fmt.Fprintf(&b, "; %s player %d at %v for %v", f.kind, f.player, f.at, f.long)
	}
	return b.String()
}

// TestRelayFaults plays seeded games of 2 to 8 players through a relay on lossy links, with
// players killed, leaving, stalled for up to 6 s, and links cut both ways, one way, or
// flapping; in a third of the games some players join late, into a match that started
// without them (and some of those are killed, or leave, before they join). Whatever befalls
// them: every two players agree on the checksum of every tick both
// made final (one source of inputs: no two can run different games), no desync is reported,
// a player nothing befell is never dropped, and every player still there at the end has
// caught up with the relay or has been told it was dropped (or, cut off from the relay for
// longer than its timeout, has given the relay up).
func TestRelayFaults(t *testing.T) {
	games := *faultGames
	if testing.Short() || raceEnabled {
		games = 10
	}
	var total tally
	for i := range games {
		g := newFaultGame(uint64(i))
		total.add(playFaultGame(t, g))
	}
	t.Logf("%d games, %d ticks confirmed by the relay: %d players told they were dropped, %d gave the relay up, %d told the match ended; %d faulted players caught up; %d joined late; %d state snapshots taken (%d rounds gave none), %d started from (%d members dropped, their download stalled); %d players in lockstep; %d inputs replaced",
		games, total.ticks, total.told, total.gaveUp, total.ended, total.caught, total.late, total.snaps, total.snapFailed, total.snapStarts, total.snapDrops, total.lockstep, total.replaced)
}

// tally is what the campaign's games came to.
type tally struct {
	told, gaveUp, ended, caught, late, lockstep               int
	ticks, replaced, snaps, snapStarts, snapFailed, snapDrops uint64
}

func (a *tally) add(b tally) {
	a.snaps += b.snaps
	a.snapFailed += b.snapFailed
	a.snapStarts += b.snapStarts
	a.late += b.late
	a.lockstep += b.lockstep
	a.snapDrops += b.snapDrops
	a.told += b.told
	a.gaveUp += b.gaveUp
	a.ended += b.ended
	a.caught += b.caught
	a.ticks += b.ticks
	a.replaced += b.replaced
}

func playFaultGame(t *testing.T, g faultGame) (res tally) {
	t.Helper()
	sr := newSimRelay(t, g.seed, &Options{OpenMatch: MatchConfig{MinPlayers: g.minPlayers(), SnapshotEvery: g.snapEvery}})
	sr.about = g.String() + ": "
	name := fmt.Sprintf("m%d", g.seed)
	for h := range g.players {
		pn := fmt.Sprintf("p%d", h)
		sr.net.SetConditions(pn, "relay", g.conds[h])
		sr.net.SetConditions("relay", pn, g.conds[h])
		edit := func(c *netplay.Config[byte]) { c.Lockstep = g.lockstep[h] }
		var p *simPlayer
		if g.snapEvery > 0 {
			p, _ = sr.snapPlayer(pn, name, h, g.players, nil, edit)
		} else {
			p = sr.player(pn, name, h, g.players, nil, edit)
		}
		if g.lockstep[h] {
			res.lockstep++
		}
		if g.joinAt[h] > 0 {
			p.frozen = 1 << 62 // no call of its session, and no join, until then
		}
	}
	faulted := make([]bool, g.players)
	gone := make([]bool, g.players) // killed or left: no longer plays
	type event struct {
		at time.Duration
		do func()
	}
	var events []event
	for h, at := range g.joinAt {
		if at == 0 {
			continue
		}
		events = append(events, event{at, func() {
			if _, err := sr.relay.MatchStats(name); err != nil || gone[h] {
				// The match ended (every player in it gone), or this one was killed
				// first: it never joins (an open relay would start a new match).
				gone[h] = true
				return
			}
			sr.players[h].frozen = 0
		}})
	}
	for _, f := range g.faults {
		p := sr.players[f.player]
		pn := p.name
		faulted[f.player] = true
		switch f.kind {
		case "kill":
			events = append(events, event{f.at, func() { p.frozen = 1 << 62; gone[f.player] = true }})
		case "leave":
			events = append(events, event{f.at, func() {
				if p.err == nil {
					p.s.Close()
				}
				p.frozen = 1 << 62
				gone[f.player] = true
			}})
		case "stall":
			events = append(events, event{f.at, func() {
				if p.frozen < 1<<62 { // not killed, left, nor yet to join
					p.frozen = max(p.frozen, sr.now+f.long)
				}
			}})
		case "cut":
			events = append(events, event{f.at, func() { sr.net.Cut(pn, "relay", true) }}, event{f.at + f.long, func() { sr.net.Cut(pn, "relay", false) }})
		case "cut-in":
			events = append(events, event{f.at, func() { sr.net.CutOneWay("relay", pn, true) }}, event{f.at + f.long, func() { sr.net.CutOneWay("relay", pn, false) }})
		case "cut-out":
			events = append(events, event{f.at, func() { sr.net.CutOneWay(pn, "relay", true) }}, event{f.at + f.long, func() { sr.net.CutOneWay(pn, "relay", false) }})
		case "flap":
			for k := time.Duration(0); k < f.long; k += 400 * time.Millisecond {
				events = append(events, event{f.at + k, func() { sr.net.Cut(pn, "relay", true) }}, event{f.at + k + 200*time.Millisecond, func() { sr.net.Cut(pn, "relay", false) }})
			}
		}
	}
	const end = 25 * time.Second // every fault over by 20.2 s: 4.8 s to settle
	var last MatchStats
	for step := 100 * time.Millisecond; sr.now < end; {
		until := min(sr.now+step, end)
		sr.run(until)
		if st, err := sr.relay.MatchStats(name); err == nil {
			last = st
		}
		for i := 0; i < len(events); i++ {
			if events[i].at <= sr.now {
				events[i].do()
				events = append(events[:i], events[i+1:]...)
				i--
			}
		}
	}
	st, err := sr.relay.MatchStats(name)
	if err != nil {
		// Ended: only once every player was dropped.
		st = last
		for h, p := range sr.players {
			if p.err == nil && !gone[h] {
				t.Fatalf("%v: %v, but player %d plays on at tick %d", g, err, h, p.s.Tick())
			}
		}
	}
	var evs []netplay.Event
	for h, p := range sr.players {
		evs = p.s.Events(evs[:0])
		for _, e := range evs {
			if e.Kind == netplay.EventDesync {
				t.Fatalf("%v: player %d: %v", g, h, e)
			}
		}
		if gone[h] {
			continue
		}
		if g.joinAt[h] > 0 && p.s.Tick() > 0 {
			res.late++
		}
		switch {
		case p.err == nil:
			if c := p.s.Stats().Confirmed; c+30 < st.Confirmed && st.Started {
				t.Fatalf("%v: player %d still there but behind: final tick %d, the relay's %d", g, h, c, st.Confirmed)
			}
			if faulted[h] {
				res.caught++
			}
		case !faulted[h]:
			t.Fatalf("%v: player %d, which nothing befell, ended: %v", g, h, p.err)
		case errors.Is(p.err, netplay.ErrDropped):
			res.told++
		case errors.Is(p.err, netplay.ErrDisconnected):
			res.gaveUp++
		case errors.Is(p.err, netplay.ErrEnded):
			res.ended++
		default:
			t.Fatalf("%v: player %d ended with %v", g, h, p.err)
		}
	}
	if !st.Started || err == nil && st.Confirmed < 600 {
		t.Fatalf("%v: the match ran %d ticks (started %v)", g, st.Confirmed, st.Started)
	}
	played := 0
	for _, p := range sr.players {
		if len(p.sums) > 0 {
			played++
		}
	}
	if n := sr.agree(); n == 0 && played > 1 {
		t.Fatalf("%v: no tick compared", g)
	}
	res.ticks, res.replaced = st.Confirmed, st.Replaced
	m := sr.relay.Metrics()
	res.snaps, res.snapStarts, res.snapFailed = m.Snapshots, m.SnapshotStarts, m.SnapshotsFailed
	res.snapDrops = m.Dropped["snapshot"]
	return res
}
