package relay

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// Refusal reasons past the wire's (a join refused is counted under its wire.Refused reason).
const (
	refusedRate           = 9 + iota // over the packet rate
	refusedMalformed                 // not a packet of the protocol
	refusedStranger                  // not a join, from an address not admitted
	refusedSession                   // another session's packet
	refusedSpectatorInput            // a spectator sending inputs
	refusedOtherSlot                 // inputs for another slot, or of the wrong size
	refusedKind                      // a kind a member does not send
	refusedSnapshot                  // a snapshot's piece too large, or of another snapshot
	refusedEnd
)

var refusedNames = [refusedEnd]string{"", "token", "expired", "no_match", "slot", "shape", "full", "late", "ended",
	"rate", "malformed", "stranger", "session", "spectator_input", "other_slot", "kind", "snapshot"}

// Why players are dropped.
const (
	dropTimeout   = iota // unheard for the match's timeout
	dropLeft             // said goodbye
	dropOwner            // dropped through the API
	dropBehind           // fell behind the ticks kept
	dropSpectator        // a spectator unheard, or fallen behind
	dropSnapshot         // a player or spectator whose snapshot download stalled
	dropEnd
)

var dropNames = [dropEnd]string{"timeout", "left", "owner", "behind", "spectator", "snapshot"}

// latencyBuckets are the upper bounds of the tick lateness histogram: 10 µs, then each a
// quarter more than the one before, to 1.4 s; one more bucket takes what is later.
var latencyBuckets = func() (b [54]time.Duration) {
	d := 10 * time.Microsecond
	for i := range b {
		b[i] = d
		d += d / 4
	}
	return b
}()

// metrics are a relay's counters, updated from any goroutine.
type metrics struct {
	packetsIn, packetsOut, bytesIn, bytesOut   atomic.Uint64
	readErrors, sendErrors                     atomic.Uint64
	cookies, desyncs, recordErrors             atomic.Uint64
	matchesStarted, matchesEnded               atomic.Uint64
	playersJoined, spectatorsJoined, rejoins   atomic.Uint64
	lateJoins                                  atomic.Uint64
	snapshots, snapshotsFailed, snapshotStarts atomic.Uint64
	ticks, replaced                            atomic.Uint64
	refused                                    [refusedEnd]atomic.Uint64
	drops                                      [dropEnd]atomic.Uint64
	lateness, forward                          histogram
}

func (m *metrics) refuse(reason int) {
	if reason > 0 && reason < refusedEnd {
		m.refused[reason].Add(1)
	}
}

func (m *metrics) drop(why int)            { m.drops[why].Add(1) }
func (m *metrics) dropN(why int, n uint64) { m.drops[why].Add(n) }

// histogram counts durations in latencyBuckets, and their sum and the greatest.
type histogram struct {
	counts [len(latencyBuckets) + 1]atomic.Uint64
	sum    atomic.Int64
	most   atomic.Int64
}

func (h *histogram) observe(d time.Duration) {
	d = max(d, 0)
	i := 0
	for i < len(latencyBuckets) && d > latencyBuckets[i] {
		i++
	}
	h.counts[i].Add(1)
	h.sum.Add(int64(d))
	for {
		m := h.most.Load()
		if int64(d) <= m || h.most.CompareAndSwap(m, int64(d)) {
			break
		}
	}
}

// snapshot returns the histogram's counts.
func (h *histogram) snapshot() Lateness {
	var l Lateness
	for i := range h.counts {
		l.Counts[i] = h.counts[i].Load()
		l.Count += l.Counts[i]
	}
	l.Sum = time.Duration(h.sum.Load())
	l.Max = time.Duration(h.most.Load())
	return l
}

// Lateness is a histogram of durations: how late the relay sent ticks after their deadline,
// or how long it took to forward them.
type Lateness struct {
	// Count is how many updates were measured; Sum their lateness together; Max the
	// greatest ever (not only of the updates counted, for a difference of two).
	Count uint64
	Sum   time.Duration
	Max   time.Duration
	// Counts are the updates in each bucket: up to LatenessBounds[i], and past the last.
	Counts [len(latencyBuckets) + 1]uint64
}

// LatenessBounds are the upper bounds of Lateness's buckets: 10 µs, then each a quarter
// more, to 1.4 s.
func LatenessBounds() []time.Duration { return latencyBuckets[:] }

// Sub returns the updates counted in l and not in earlier: those of the time between.
func (l Lateness) Sub(earlier Lateness) Lateness {
	d := Lateness{Count: l.Count - earlier.Count, Sum: l.Sum - earlier.Sum, Max: l.Max}
	for i := range l.Counts {
		d.Counts[i] = l.Counts[i] - earlier.Counts[i]
	}
	return d
}

// Quantile returns the upper bound of the bucket holding the q-th quantile of the updates
// counted (q 0 to 1), or Max if less: within a quarter of the true value; 0 if none.
func (l Lateness) Quantile(q float64) time.Duration {
	if l.Count == 0 {
		return 0
	}
	rank := uint64(q*float64(l.Count-1)) + 1
	var cum uint64
	for i, c := range l.Counts {
		cum += c
		if cum >= rank {
			if i < len(latencyBuckets) {
				return min(latencyBuckets[i], l.Max)
			}
			return l.Max
		}
	}
	return l.Max
}

// Metrics is a snapshot of what a relay has done.
type Metrics struct {
	// Matches, Players and Spectators are running now (players joined and not dropped).
	Matches, Players, Spectators int
	// PacketsIn, PacketsOut, BytesIn and BytesOut count all traffic (payload only).
	PacketsIn, PacketsOut, BytesIn, BytesOut uint64
	// Ticks counts the ticks confirmed, Replaced the inputs that did not arrive in time (a
	// player and a tick each: its last input repeated).
	Ticks, Replaced uint64
	// Refused counts what the relay refused, by reason: "token", "expired", "no_match",
	// "slot", "shape", "full", "late", "ended" (joins), "rate" (over the packet rate),
	// "malformed", "stranger" (not a join, from an address not admitted), "session" (of
	// another session), "spectator_input", "other_slot" (inputs for another player's slot),
	// "kind" and "snapshot" (a state snapshot too large, or pieces of another).
	Refused map[string]uint64
	// Dropped counts the players dropped, by reason: "timeout", "left", "owner", "behind"
	// (fallen behind the ticks kept), spectators dropped ("spectator"), and players and
	// spectators whose download of a state snapshot stalled ("snapshot").
	Dropped map[string]uint64
	// Cookies counts the cookies sent to unproven addresses.
	Cookies uint64
	// PlayersJoined counts the players admitted to a slot, LateJoins those of them that
	// joined a match already running (MatchConfig.MinPlayers), Rejoins the players that
	// came back from a new address with their token, SpectatorsJoined the spectators.
	PlayersJoined, LateJoins, Rejoins, SpectatorsJoined uint64
	// Snapshots counts the state snapshots gathered and checked, SnapshotsFailed the
	// rounds that gave none (no state in time, too large, contradicted), SnapshotStarts
	// the players that started from one.
	Snapshots, SnapshotsFailed, SnapshotStarts uint64
	// Lateness is how late each match update that confirmed ticks at their deadline (an
	// input missing until then, or MatchConfig.AtDeadline) sent them after it.
	Lateness Lateness
	// Forward is how long the relay took to send the ticks that the inputs of a batch of
	// packets confirmed before their deadlines, from reading the packets: its own share of
	// an input's way from one player to another.
	Forward Lateness
}

// Metrics returns a snapshot of the relay's counters.
func (r *Relay) Metrics() Metrics {
	mt := Metrics{Refused: map[string]uint64{}, Dropped: map[string]uint64{}}
	r.mu.Lock()
	all := make([]*match, 0, len(r.matches))
	for _, m := range r.matches {
		all = append(all, m)
	}
	r.mu.Unlock()
	for _, m := range all {
		st := m.stats()
		mt.Matches++
		mt.Players += st.Joined - st.Dropped
		mt.Spectators += st.Spectators
	}
	m := &r.m
	mt.PacketsIn, mt.PacketsOut = m.packetsIn.Load(), m.packetsOut.Load()
	mt.BytesIn, mt.BytesOut = m.bytesIn.Load(), m.bytesOut.Load()
	mt.Ticks, mt.Replaced = m.ticks.Load(), m.replaced.Load()
	mt.Cookies = m.cookies.Load()
	mt.PlayersJoined, mt.LateJoins = m.playersJoined.Load(), m.lateJoins.Load()
	mt.Rejoins, mt.SpectatorsJoined = m.rejoins.Load(), m.spectatorsJoined.Load()
	mt.Snapshots, mt.SnapshotsFailed, mt.SnapshotStarts = m.snapshots.Load(), m.snapshotsFailed.Load(), m.snapshotStarts.Load()
	mt.Lateness = m.lateness.snapshot()
	mt.Forward = m.forward.snapshot()
	for i := 1; i < refusedEnd; i++ {
		mt.Refused[refusedNames[i]] = m.refused[i].Load()
	}
	for i := range dropEnd {
		mt.Dropped[dropNames[i]] = m.drops[i].Load()
	}
	return mt
}

// WriteMetrics writes the relay's metrics to w in Prometheus' text format, every name prefixed
// relay_: relay_matches, relay_players, relay_spectators (now), relay_packets_in_total and
// _out_total, relay_bytes_in_total and _out_total, relay_ticks_total,
// relay_inputs_replaced_total, relay_players_joined_total, relay_late_joins_total,
// relay_rejoins_total, relay_spectators_joined_total, relay_snapshots_total,
// relay_snapshot_failures_total, relay_snapshot_starts_total, relay_refused_total{reason},
// relay_dropped_total{reason}, relay_cookies_total, relay_matches_started_total,
// relay_matches_ended_total, relay_send_errors_total, relay_desyncs_total,
// relay_record_errors_total, relay_tick_lateness_seconds (a histogram of how late after a
// tick's deadline the ticks confirmed at it were sent) and relay_forward_seconds (of how long
// the ticks confirmed early took to go out, from the packets that completed them).
func (r *Relay) WriteMetrics(w io.Writer) error {
	s := r.Metrics()
	m := &r.m
	var err error
	p := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	gauge := func(name, help string, v int) {
		p("# HELP relay_%s %s\n# TYPE relay_%s gauge\nrelay_%s %d\n", name, help, name, name, v)
	}
	counter := func(name, help string, v uint64) {
		p("# HELP relay_%s %s\n# TYPE relay_%s counter\nrelay_%s %d\n", name, help, name, name, v)
	}
	gauge("matches", "Matches running.", s.Matches)
	gauge("players", "Players in the matches running, not dropped.", s.Players)
	gauge("spectators", "Spectators of the matches running.", s.Spectators)
	counter("packets_in_total", "Packets received.", s.PacketsIn)
	counter("packets_out_total", "Packets sent.", s.PacketsOut)
	counter("bytes_in_total", "Bytes received (payload).", s.BytesIn)
	counter("bytes_out_total", "Bytes sent (payload).", s.BytesOut)
	counter("ticks_total", "Ticks confirmed.", s.Ticks)
	counter("inputs_replaced_total", "Inputs that did not arrive by their tick's deadline, replaced by the player's last.", s.Replaced)
	counter("cookies_total", "Cookies sent to addresses not yet proven.", s.Cookies)
	counter("players_joined_total", "Players admitted to a slot.", s.PlayersJoined)
	counter("late_joins_total", "Players admitted to a match already running.", s.LateJoins)
	counter("rejoins_total", "Players back from a new address with their token.", s.Rejoins)
	counter("spectators_joined_total", "Spectators admitted.", s.SpectatorsJoined)
	counter("snapshots_total", "State snapshots gathered and checked.", s.Snapshots)
	counter("snapshot_failures_total", "Snapshot rounds that gave none: no state in time, too large, or contradicted.", s.SnapshotsFailed)
	counter("snapshot_starts_total", "Players that started from a state snapshot.", s.SnapshotStarts)
	counter("matches_started_total", "Matches created.", m.matchesStarted.Load())
	counter("matches_ended_total", "Matches ended.", m.matchesEnded.Load())
	counter("send_errors_total", "Packets the socket failed to send.", m.sendErrors.Load())
	counter("desyncs_total", "Ticks two players of a recorded match reported different checksums of.", m.desyncs.Load())
	counter("record_errors_total", "Recordings that could not be made or written.", m.recordErrors.Load())
	p("# HELP relay_refused_total Packets refused, by reason.\n# TYPE relay_refused_total counter\n")
	for i := 1; i < refusedEnd; i++ {
		p("relay_refused_total{reason=%q} %d\n", refusedNames[i], s.Refused[refusedNames[i]])
	}
	p("# HELP relay_dropped_total Players (and spectators) dropped, by reason.\n# TYPE relay_dropped_total counter\n")
	for i := range dropEnd {
		p("relay_dropped_total{reason=%q} %d\n", dropNames[i], s.Dropped[dropNames[i]])
	}
	p("# HELP relay_tick_lateness_seconds How late each match update began.\n# TYPE relay_tick_lateness_seconds histogram\n")
	var cum uint64
	for i, b := range latencyBuckets {
		cum += s.Lateness.Counts[i]
		if i%3 == 0 || i == len(latencyBuckets)-1 { // 18 of them, each about twice the last
			p("relay_tick_lateness_seconds_bucket{le=\"%g\"} %d\n", b.Seconds(), cum)
		}
	}
	cum += s.Lateness.Counts[len(latencyBuckets)]
	p("relay_tick_lateness_seconds_bucket{le=\"+Inf\"} %d\n", cum)
	p("relay_tick_lateness_seconds_sum %g\nrelay_tick_lateness_seconds_count %d\n", s.Lateness.Sum.Seconds(), cum)
	p("# HELP relay_forward_seconds How long the relay took to send the ticks a batch of packets confirmed early.\n# TYPE relay_forward_seconds histogram\n")
	cum = 0
	for i, b := range latencyBuckets {
		cum += s.Forward.Counts[i]
		if i%3 == 0 || i == len(latencyBuckets)-1 {
			p("relay_forward_seconds_bucket{le=\"%g\"} %d\n", b.Seconds(), cum)
		}
	}
	cum += s.Forward.Counts[len(latencyBuckets)]
	p("relay_forward_seconds_bucket{le=\"+Inf\"} %d\n", cum)
	p("relay_forward_seconds_sum %g\nrelay_forward_seconds_count %d\n", s.Forward.Sum.Seconds(), cum)
	return err
}

var _ = wire.MaxPlayers
