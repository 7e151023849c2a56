package netplay

// State snapshots through a relay (Config.Snapshots): a player the relay asks shares its state
// after a confirmed tick, in pieces, and the others their checksum of it, which the relay
// checks the state by; a player joining late, or coming back from a new address, is welcomed
// with the tick of the latest such state, downloads it, loads it (a Restore request) and
// plays on from there, its checksum checked against the sharer's.

import (
	"errors"
	"fmt"
	"time"

	"github.com/gameloop-go/gameloop/netplay/internal/pieces"
	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// ErrSnapshot: the state snapshot this session started from did not load as the player who
// shared it saved it: the checksum the game gave on Restore, or on the Save after it, is not
// the sharer's. The game's encoding (Snapshotter) does not give back the state it encoded.
var ErrSnapshot = errors.New("netplay: the state snapshot loaded does not have the sharer's checksum")

// Snapshot transfer pace.
const (
	// snapWindow is how many pieces of a snapshot may be in flight, unacknowledged.
	snapWindow = 64
	// snapResend is the least time without an acknowledgement's progress before the
	// pieces in flight are sent again.
	snapResend = 100 * time.Millisecond
	// snapRate is the most pieces a second a player sends: half the packets a relay takes
	// from an address by default (relay.DefaultPacketRate), 134 KB a second.
	snapRate = 300
)

// snapUpload is a snapshot this player sends the relay.
type snapUpload struct {
	tick, sum uint64
	send      *pieces.Sender
	credit    float64       // the pieces it may send now, at snapRate
	sentAt    time.Duration // when credit was last counted
}

// snapDownload is the snapshot this player starts from.
type snapDownload struct {
	tick, sum uint64
	asm       *pieces.Assembly // nil until the first piece, which says the size
	ackDue    bool
	restored  bool // the Restore request has been issued
}

// ready reports whether the snapshot has all arrived, or is restored already.
func (d *snapDownload) ready() bool { return d.restored || d.asm != nil && d.asm.Done() }

// snapState is what a relayed session keeps of snapshots.
type snapState struct {
	// The relay's last ask: the tick, whether this player is to share its state (else its
	// checksum), and whether that was done (or could not be).
	askTick  uint64
	askShare bool
	askDone  bool
	declined bool // this player, to share, could not: told the relay so
	// The snapshot this session started from, once loaded: its tick and size, for pieces of
	// it that still come (the relay did not get the last acknowledgement), which are
	// acknowledged whole again.
	doneTick   uint64
	doneSize   int64
	doneAckDue bool
	up         *snapUpload
	down       *snapDownload
	buf        []byte // the memory a Snapshot request's Data appends to
}

// snapAsk takes the relay's ask for the state after m.Tick.
func (s *Session[I]) snapAsk(m *wire.Message) {
	sn := &s.relay.snap
	t := uint64(m.Tick)
	switch {
	case t != sn.askTick:
		sn.askTick, sn.askShare, sn.askDone, sn.declined = t, m.Slot == s.relay.slot && s.cfg.Snapshots, false, false
		if up := sn.up; up != nil && up.tick != t {
			sn.buf, sn.up = up.send.Data[:0], nil // the relay has moved on from it
		}
	case !sn.askShare:
		sn.askDone = false // asked again: our checksum was lost
	case sn.declined:
		s.snapDecline(t) // asked again: our answer was lost
	}
}

// snapDecline tells the relay that this player, asked to share its state after tick t, cannot:
// an acknowledgement of none of it, which the relay takes as the sharer's no (it asks the
// next player in turn).
func (s *Session[I]) snapDecline(t uint64) {
	s.relay.snap.declined = true
	s.out = wire.Message{}
	s.out.Kind, s.out.Tick, s.out.Offset = wire.KindSnapshotAck, int64(t), 0
	s.send(s.peers[0], &s.out)
}

// snapAnswer answers the relay's ask once its tick is final here: a checksum report, or, for
// the sharer, a Snapshot request prepended to the requests being built (called from
// advanceRelay with s.reqs empty).
func (s *Session[I]) snapAnswer(building bool) {
	sn := &s.relay.snap
	t := sn.askTick
	if t == 0 || sn.askDone || s.finalDone < t || sn.askShare != building {
		return
	}
	sn.askDone = true
	if s.savedTick[t%ring] != t {
		// Not run here (before the snapshot this session started from).
		if sn.askShare {
			s.snapDecline(t)
		}
		return
	}
	if !sn.askShare {
		s.out = wire.Message{}
		s.out.Kind, s.out.Tick, s.out.Sum = wire.KindChecksumReport, int64(t), s.sums[t%ring]
		s.send(s.peers[0], &s.out)
		return
	}
	switch {
	case sn.up != nil:
		return // one is on its way: the relay asks again
	case s.tick >= t+uint64(s.slots):
		s.snapDecline(t) // its slot saved a later state since
		return
	}
	s.reqs = append(s.reqs, Request[I]{Kind: Snapshot, Tick: t, Slot: int(t % uint64(s.slots)), Data: sn.buf[:0]})
}

// snapTaken takes the state a Snapshot request encoded and starts sending it.
func (s *Session[I]) snapTaken(r *Request[I]) {
	sn := &s.relay.snap
	if len(r.Data) == 0 || len(r.Data) > wire.MaxSnapshot {
		s.stats.SnapshotsFailed++
		return
	}
	sn.up = &snapUpload{tick: r.Tick, sum: s.sums[r.Tick%ring], send: pieces.NewSender(r.Data, s.now), sentAt: s.now, credit: 1}
	sn.buf = nil // the upload owns it
}

// snapAcked takes the relay's acknowledgement of the snapshot being sent.
func (s *Session[I]) snapAcked(m *wire.Message) {
	up := s.relay.snap.up
	if up == nil || uint64(m.Tick) != up.tick {
		return
	}
	if up.send.Ack(m.Offset, s.now) {
		s.relay.snap.buf = up.send.Data[:0] // the memory of the next one
		s.relay.snap.up = nil
		s.stats.SnapshotsShared++
	}
}

// snapPiece takes a piece of the snapshot this session starts from.
func (s *Session[I]) snapPiece(m *wire.Message) {
	sn := &s.relay.snap
	d := sn.down
	switch {
	case d == nil:
		if sn.doneTick != 0 && uint64(m.Tick) == sn.doneTick {
			sn.doneAckDue = true // our acknowledgement of the last piece was lost
		}
		return
	case uint64(m.Tick) != d.tick:
		return
	case d.restored:
		d.ackDue = true
		return
	}
	if d.asm == nil {
		d.sum = m.Sum
		d.asm = pieces.NewAssembly(m.Size)
	}
	if m.Size != int64(len(d.asm.Data)) || m.Sum != d.sum {
		return // another snapshot's piece: not ours
	}
	d.asm.Add(m.Offset, m.Inputs[:m.InputsLen])
	d.ackDue = true
}

// snapTimers sends what snapshots need as of now: the pieces of the one being shared (up to
// the window's worth past the relay's acknowledgement, at snapRate, again from it after
// snapResend without progress), the acknowledgement of the one being received, and the
// checksum the relay asked.
func (s *Session[I]) snapTimers(pr *peer) {
	sn := &s.relay.snap
	s.snapAnswer(false)
	if d := sn.down; d != nil && d.ackDue && d.asm != nil {
		d.ackDue = false
		s.out = wire.Message{}
		s.out.Kind, s.out.Tick, s.out.Offset = wire.KindSnapshotAck, int64(d.tick), d.asm.InRow
		s.send(pr, &s.out)
	}
	if sn.doneAckDue {
		sn.doneAckDue = false
		s.out = wire.Message{}
		s.out.Kind, s.out.Tick, s.out.Offset = wire.KindSnapshotAck, int64(sn.doneTick), sn.doneSize
		s.send(pr, &s.out)
	}
	up := sn.up
	if up == nil {
		return
	}
	up.credit = min(up.credit+(s.now-up.sentAt).Seconds()*snapRate, snapWindow)
	up.sentAt = s.now
	resend := max(snapResend, pr.resendAfter())
	for ; up.credit >= 1; up.credit-- {
		offset, piece, ok := up.send.Piece(s.now, resend, snapWindow)
		if !ok {
			break
		}
		m := &s.out
		*m = wire.Message{}
		m.Kind, m.Tick, m.Sum, m.Size, m.Offset = wire.KindSnapshot, int64(up.tick), up.sum, int64(len(up.send.Data)), offset
		m.InputsLen = copy(m.Inputs[:], piece)
		s.send(pr, m)
	}
}

// startFrom sets a joining session to start after tick t, whose state the relay sends next:
// nothing at or before t runs here, and the game waits (ErrNotSynchronized) until the state
// has arrived and is restored.
func (s *Session[I]) startFrom(t uint64) {
	rl := s.relay
	rl.snap.down = &snapDownload{tick: t}
	rl.confirmed = t
	s.peers[0].recvd = t
	s.tick, s.final, s.finalDone, s.floor = t, t, t, t
	for _, q := range s.queues {
		q.confirmed = t
		if q.local {
			q.confirmed = t + uint64(s.delay) // the ticks within the delay: the zero input
			for k := t + 1; k <= q.confirmed; k++ {
				clear(q.raw[(k%ring)*uint64(s.size):][:s.size])
				q.in[k%ring] = s.decoded
			}
		}
	}
}

// snapRestore issues, once the snapshot this session starts from has all arrived, the requests
// that load it (a Restore, then a Save of its tick), and reports whether the session may run
// on: false while the snapshot is still on its way.
func (s *Session[I]) snapRestore() bool {
	d := s.relay.snap.down
	switch {
	case d == nil || d.restored:
		return true
	case !d.ready():
		return false
	}
	d.restored = true
	s.reqs = append(s.reqs, Request[I]{Kind: Restore, Tick: d.tick, Data: d.asm.Data},
		Request[I]{Kind: Save, Tick: d.tick, Slot: int(d.tick % uint64(s.slots))})
	return true
}

// restoreTaken checks the checksum the game gave on loading the snapshot (and on saving it
// after) against the sharer's.
func (s *Session[I]) restoreTaken(r *Request[I]) {
	d := s.relay.snap.down
	if d == nil || !d.restored || r.Tick != d.tick {
		return
	}
	if r.Checksum != d.sum && s.endErr == nil {
		s.endErr = fmt.Errorf("%w: tick %d's state loaded with checksum %#016x, shared with %#016x", ErrSnapshot, d.tick, r.Checksum, d.sum)
	}
	if r.Kind == Save {
		sn := &s.relay.snap
		sn.doneTick, sn.doneSize = d.tick, int64(len(d.asm.Data))
		sn.down = nil // done: the memory goes
		s.stats.SnapshotsLoaded++
	}
}
