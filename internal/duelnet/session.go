package duelnet

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/gameloop-go/gameloop/internal/duel"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/replay"
)

// RecordName is the name in a recording's header; StartMeta's text is its start.
const RecordName = "duel"

// startPrefix begins a recording's start (StartMeta).
const startPrefix = "duel-start/1 seed="

// StartMeta returns what decides the game's start, for a recording's header.
func StartMeta(seed uint64) []byte {
	return []byte(startPrefix + strconv.FormatUint(seed, 10))
}

// ParseStart returns the seed a recording's header gives, checking that it is a duel's.
func ParseStart(h replay.Header) (uint64, error) {
	meta := string(h.Meta)
	if h.Name != RecordName || !strings.HasPrefix(meta, startPrefix) {
		return 0, fmt.Errorf("not a recording of duel: its header says %q, %q", h.Name, meta)
	}
	seed, err := strconv.ParseUint(meta[len(startPrefix):], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("the recording's start %q: %w", meta, err)
	}
	return seed, nil
}

// Settings are a player's settings of its session: the input delay and prediction window in
// ticks (0 plays in lockstep), the game's seed, and where to record (nil: nowhere).
type Settings struct {
	Delay, Window int
	Seed          uint64
	Record        io.Writer
}

// Config returns the session's configuration of player local (0 or 1) playing with the other
// player at peer.
func Config(local int, peer net.Addr, s Settings) netplay.Config[duel.Input] {
	players := make([]netplay.Player, 2)
	players[local] = netplay.Player{Local: true}
	players[1-local] = netplay.Player{Addr: peer}
	return netplay.Config[duel.Input]{
		Players:          players,
		Codec:            duel.Codec{},
		TickRate:         duel.TickRate,
		InputDelay:       s.Delay,
		PredictionWindow: s.Window,
		Lockstep:         s.Window == 0,
		DesyncInterval:   duel.SyncEvery,
		Record:           s.Record,
		RecordName:       RecordName,
		RecordMeta:       StartMeta(s.Seed),
	}
}

// SettleTicks bounds the other player's input delay and prediction window together, whatever
// its settings: see Settled.
const SettleTicks = netplay.MaxInputDelay + netplay.MaxPredictionWindow + 1

// Settled reports whether the other player of local's session has every input of local up to
// tick, and so has the tick final too: it has once an input of its own for SettleTicks ticks
// later has arrived, since it adds its input its delay ahead of the tick it runs, and runs no
// more than its window past the inputs it has. A player that leaves sooner could leave the
// other without its last inputs, which would then be marked disconnected there: another game.
func Settled(s *netplay.Session[duel.Input], local int, tick uint64) bool {
	return s.PeerStats(1-local).Confirmed >= tick+SettleTicks
}

// Final tracks the ticks of a player's session that become final: every input up to them has
// arrived, and any wrong prediction before them has been played again. It takes the checksums
// the status line shows, one each duel.SyncEvery ticks, and that of the tick Want, once final.
type Final struct {
	// Want is the tick whose checksum to take (0: none).
	Want uint64
	// Tick is the last tick final so far.
	Tick uint64
	// WantSum is Want's checksum, once Tick >= Want.
	WantSum uint64
}

// Update takes the checksums of the ticks that have become final since the last call, given the
// session's stats after its requests are carried out: every tick up to the last whose inputs
// have all arrived is final then (a tick whose prediction was right is not played again: its
// first state was the right one). checksum returns a final tick's checksum, if still held
// (Session.Checksum keeps the last few hundred); each multiple of duel.SyncEvery that it holds
// goes to status.Synced and SyncSum.
func (f *Final) Update(st netplay.Stats, checksum func(tick uint64) (uint64, bool), status *duel.Status) error {
	final := min(st.Confirmed, st.Tick)
	if final <= f.Tick {
		return nil
	}
	for t := (f.Tick/duel.SyncEvery + 1) * duel.SyncEvery; t <= final; t += duel.SyncEvery {
		if sum, ok := checksum(t); ok {
			status.Synced, status.SyncSum = t, sum
		}
	}
	if f.Want > f.Tick && f.Want <= final {
		sum, ok := checksum(f.Want)
		if !ok {
			return fmt.Errorf("tick %d became final after its state was dropped (at tick %d)", f.Want, st.Tick)
		}
		f.WantSum = sum
	}
	f.Tick = final
	return nil
}

// Done reports whether tick Want is final, its checksum taken.
func (f *Final) Done() bool { return f.Want > 0 && f.Tick >= f.Want }

// Line returns what a run that plays to tick Want prints once it is final:
// "tick N checksum HEX".
func (f *Final) Line() string { return fmt.Sprintf("tick %d checksum %016x", f.Want, f.WantSum) }

// ShowSession sets the session's figures on the status line of player local: the round trip
// and the ticks ahead of the other player, and the last rollback. The round trip and the
// ticks ahead read "-" while noPeer (before the other player answers, and once it has gone,
// nothing measures them) and until the first round trip has been measured.
func ShowSession(st *duel.Status, s *netplay.Session[duel.Input], local int, noPeer bool) {
	ps := s.PeerStats(1 - local)
	st.Ping, st.Ahead = ps.Ping, ps.TicksAhead
	stats := s.Stats()
	st.Rollback, st.Behind = stats.LastRollback, stats.Behind
	st.NoPeer = noPeer || ps.Ping == 0
}

// SideName returns "the left" or "the right": player's paddle.
func SideName(player int) string {
	if player == 0 {
		return "the left"
	}
	return "the right"
}

// Message returns what the message row of player local says of a player's session event, and
// false for an event it does not show (a desync, which has a message of its own: see
// DesyncMessage).
func Message(e *netplay.Event, local int) (string, bool) {
	switch e.Kind {
	case netplay.EventSynchronizing:
		return fmt.Sprintf("synchronizing with the other player: %d of %d", e.Count, e.Total), true
	case netplay.EventRunning:
		return "playing: " + SideName(local) + " paddle is yours", true
	case netplay.EventSynchronized:
		if e.Handle < 0 {
			return "joined the match at the relay: waiting for the other player", true
		}
	case netplay.EventInterrupted:
		if e.Handle < 0 {
			return fmt.Sprintf("the relay is not heard from: giving it up in %v", e.Timeout.Round(100*time.Millisecond)), true
		}
		return fmt.Sprintf("the other player is not heard from: disconnecting in %v", e.Timeout.Round(100*time.Millisecond)), true
	case netplay.EventResumed:
		if e.Handle < 0 {
			return "the relay is back", true
		}
		return "the other player is back", true
	case netplay.EventDisconnected:
		if e.Reason != netplay.ReasonLeft {
			// Its machine or the network between failed.
			return fmt.Sprintf("the other player was lost after tick %d (%s)", e.Tick, e.Reason), true
		}
		return fmt.Sprintf("the other player left after tick %d", e.Tick), true
	}
	return "", false
}

// DesyncMessage returns what the message row says of a desync: short enough for an 80-column
// terminal.
func DesyncMessage(e *netplay.Event) string {
	return fmt.Sprintf("DESYNC at tick %d: checksum %#016x here, %#016x there", e.Tick, e.Local, e.Remote)
}
