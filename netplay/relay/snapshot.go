package relay

import (
	"time"

	"github.com/gameloop-go/gameloop/netplay/internal/pieces"
	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// State snapshots (MatchConfig.SnapshotEvery): every so many ticks the relay asks one player
// (in turn, among those whose sessions take snapshots) for its state after a tick, and the
// others for their checksum of it; a state whose checksum more players gave than gave another
// (one besides its sharer at least) becomes the match's snapshot, which a player joining late or coming back starts
// from instead of the match's first tick.

// Snapshot pace.
const (
	// DefaultMaxSnapshot is the largest state snapshot a match takes by default, in bytes.
	DefaultMaxSnapshot = 1 << 20
	// MaxSnapshot is the largest MatchConfig.MaxSnapshot: 64 MiB, what the protocol carries.
	MaxSnapshot = wire.MaxSnapshot
	// snapRoundTimeout is how long a round waits for the next piece of its state, or a
	// checksum, before it gives up.
	snapRoundTimeout = 5 * time.Second
	// snapRoundPace is the fewest pieces a second a round's sharer must send, on average, once
	// it has said the size: a round lasts snapRoundTimeout and a second for every
	// snapRoundPace pieces at the most, so that a sharer trickling pieces out cannot keep
	// the match from taking snapshots. A session sends 300 a second.
	snapRoundPace = 150
	// snapDownloadTimeout and snapDownloadTries: a member that acknowledges nothing new of
	// the snapshot it downloads for that long, while what was in flight went again that many
	// times, is dropped (relay_dropped_total{reason="snapshot"}): it would hold the
	// snapshot, and its share of the pieces sent, for as long as it stayed.
	snapDownloadTimeout = 10 * time.Second
	snapDownloadTries   = 5
	// snapWindow is how many pieces of a snapshot may be in flight to one member.
	snapWindow = 64
	// snapBudget is the most pieces a match sends its members in one update, players first,
	// then spectators in turn: 57 KB a tick, 3.4 MB a second at 60 Hz, however many start
	// from a snapshot at once.
	snapBudget = 128
	// snapResend is the least time without an acknowledgement's progress before the
	// pieces in flight are sent again.
	snapResend = 100 * time.Millisecond
)

// snapshot is a match's checked state snapshot: the state after tick. It is never changed:
// members downloading it hold it while a newer one replaces it.
type snapshot struct {
	tick, sum uint64
	data      []byte
}

// snapRound is a snapshot being gathered: the sharer's pieces and the others' checksums.
type snapRound struct {
	open     bool
	tick     uint64
	sharer   int
	opened   time.Duration
	progress time.Duration // when it opened, or last had a new piece or checksum
	askedAt  time.Duration
	sum      uint64
	asm      *pieces.Assembly // nil until the first piece, which says the size
	sums     [wire.MaxPlayers]uint64
	got      wire.HandleSet // the slots whose checksum of tick arrived
}

// deadline returns when the round gives up as of now, however it progresses.
func (rd *snapRound) deadline() time.Duration {
	d := rd.opened + snapRoundTimeout
	if rd.asm != nil {
		n := (int64(len(rd.asm.Data)) + wire.MaxSnapshotChunk - 1) / wire.MaxSnapshotChunk
		d += time.Duration(n) * time.Second / snapRoundPace
	}
	return d
}

// snapDownload is a snapshot being sent to a member, which starts from it.
type snapDownload struct {
	snap *snapshot
	send *pieces.Sender
}

// active returns the slots with a player, not dropped.
func (mt *match) active() wire.HandleSet {
	return wire.HandleSet(1<<mt.cfg.Players-1) &^ mt.auth.Dropped() &^ mt.auth.Vacant()
}

// snapRounds runs the match's snapshot rounds as of now: opens one when due, asks again who has
// not answered, gives up one too long, and sends the snapshots being downloaded.
func (mt *match) snapRounds(s *sender, now time.Duration) {
	if mt.cfg.SnapshotEvery == 0 || !mt.auth.Started() {
		return
	}
	rd := &mt.round
	if rd.open {
		mt.checkRound() // players gone since may have settled it
	}
	active := mt.active()
	switch {
	case !rd.open && mt.auth.Confirmed() >= mt.nextSnap:
		mt.openRound(now, active)
	case rd.open && (now-rd.progress > snapRoundTimeout || now > rd.deadline() || !active.Has(rd.sharer)):
		mt.r.m.snapshotsFailed.Add(1)
		mt.closeRound(uint64(mt.cfg.TickRate)) // another sharer in a second
	}
	if rd.open && now-rd.askedAt >= keepAlive {
		rd.askedAt = now
		for slot, p := range mt.players {
			if p == nil || !active.Has(slot) || rd.got.Has(slot) || slot == rd.sharer && rd.asm != nil {
				continue
			}
			mt.out = wire.Message{}
			mt.out.Kind, mt.out.Tick, mt.out.Slot = wire.KindSnapshotAsk, int64(rd.tick), rd.sharer
			mt.queue(s, &mt.out, p, now)
		}
	}
	budget := snapBudget
	for _, p := range mt.players {
		switch {
		case p == nil || p.down == nil || p.dropped:
		case p.down.send.Stalled(now, snapDownloadTimeout, snapDownloadTries):
			mt.dropMember(s, p, now, dropSnapshot)
		default:
			budget -= mt.sendSnapshot(s, p, now, budget)
		}
	}
	for i := 0; i < len(mt.spectators); i++ {
		if sp := mt.spectators[i]; sp.down != nil && sp.down.send.Stalled(now, snapDownloadTimeout, snapDownloadTries) {
			mt.dropMember(s, sp, now, dropSnapshot)
			i--
		}
	}
	n := len(mt.spectators)
	for i := range n {
		if budget == 0 {
			mt.specTurn = (mt.specTurn + i) % n // the next update starts there
			return
		}
		if sp := mt.spectators[(mt.specTurn+i)%n]; sp.down != nil {
			budget -= mt.sendSnapshot(s, sp, now, budget)
		}
	}
}

// openRound asks for the state after the next tick, of the next player in turn whose session
// takes snapshots; with none, it tries again SnapshotEvery ticks on.
func (mt *match) openRound(now time.Duration, active wire.HandleSet) {
	rd := &mt.round
	n := mt.cfg.Players
	for i := range n {
		slot := (mt.turn + i) % n
		if p := mt.players[slot]; p != nil && active.Has(slot) && p.snapshots && p.down == nil {
			*rd = snapRound{open: true, tick: mt.auth.Confirmed() + 1, sharer: slot, opened: now, progress: now}
			mt.turn = slot + 1
			return
		}
	}
	mt.nextSnap = mt.auth.Confirmed() + uint64(mt.cfg.SnapshotEvery)
}

// closeRound ends the round and sets the next one after wait ticks.
func (mt *match) closeRound(wait uint64) {
	mt.round = snapRound{}
	mt.nextSnap = mt.auth.Confirmed() + wait
}

// snapPiece takes a piece of the round's state from its sharer mb, which arrived at now.
func (mt *match) snapPiece(mb *member, m *wire.Message, now time.Duration) {
	rd := &mt.round
	if sn := mt.latest(); sn != nil && uint64(m.Tick) == sn.tick && (!rd.open || rd.tick != sn.tick) {
		mt.ackPiece(mb, sn.tick, int64(len(sn.data))) // taken: its acknowledgement was lost
		return
	}
	if !rd.open || mb.slot != rd.sharer || uint64(m.Tick) != rd.tick {
		return
	}
	if rd.asm == nil {
		if m.Size > int64(mt.cfg.MaxSnapshot) {
			mt.r.m.snapshotsFailed.Add(1)
			mt.r.m.refuse(refusedSnapshot)
			mt.closeRound(uint64(mt.cfg.TickRate))
			return
		}
		rd.sum = m.Sum
		rd.asm = pieces.NewAssembly(m.Size)
	}
	if m.Size != int64(len(rd.asm.Data)) || m.Sum != rd.sum {
		mt.r.m.refuse(refusedSnapshot)
		return
	}
	if rd.asm.Add(m.Offset, m.Inputs[:m.InputsLen]) {
		rd.progress = now
	}
	mt.ackPiece(mb, rd.tick, rd.asm.InRow)
	mt.checkRound()
}

// ackPiece acknowledges to mb the bytes of the snapshot of tick received in a row.
func (mt *match) ackPiece(mb *member, tick uint64, inRow int64) {
	mt.out = wire.Message{}
	mt.out.Kind, mt.out.Tick, mt.out.Offset = wire.KindSnapshotAck, int64(tick), inRow
	mt.sendLocked(&mt.out, mb)
}

// snapSum takes player slot's checksum of tick, which arrived at now, for the round asking
// for it.
func (mt *match) snapSum(slot int, tick, sum uint64, now time.Duration) {
	rd := &mt.round
	if !rd.open || tick != rd.tick || slot == rd.sharer || rd.got.Has(slot) {
		return
	}
	rd.sums[slot] = sum
	rd.got |= 1 << slot
	rd.progress = now
	mt.checkRound()
}

// checkRound makes the round's state the match's snapshot once it has all arrived and its
// checksum is the one more players gave than gave another, the sharer's own and at least one
// other's among them (a player alone in its match needs none): a player whose game went its own
// way (or lies) cannot have its state taken, nor keep the others' from being. A round every
// other player answered without that gives none.
func (mt *match) checkRound() {
	rd := &mt.round
	if rd.asm == nil || !rd.asm.Done() {
		return
	}
	others := mt.active() &^ (1 << rd.sharer)
	agree, disagree := 1, 0
	for slot := range mt.cfg.Players {
		switch {
		case !rd.got.Has(slot):
		case rd.sums[slot] == rd.sum:
			agree++
		default:
			disagree++
		}
	}
	switch {
	case others == 0 || agree >= 2 && agree > disagree:
		mt.keep(&snapshot{tick: rd.tick, sum: rd.sum, data: rd.asm.Data})
		mt.r.m.snapshots.Add(1)
		mt.closeRound(uint64(mt.cfg.SnapshotEvery))
	case others&^rd.got == 0:
		mt.r.m.snapshotsFailed.Add(1)
		mt.closeRound(uint64(mt.cfg.SnapshotEvery))
	}
}

// latest returns the match's latest snapshot, nil if none.
func (mt *match) latest() *snapshot {
	if len(mt.snaps) == 0 {
		return nil
	}
	return mt.snaps[len(mt.snaps)-1]
}

// keep adds sn to the match's snapshots, and lets go of those no member can start from any
// more: all but the latest that spectators, fed SpectatorDelay ticks behind, may start from
// (and those after it), and those whose next tick the match no longer keeps.
func (mt *match) keep(sn *snapshot) {
	mt.snaps = append(mt.snaps, sn)
	seen := mt.auth.Confirmed() - min(mt.auth.Confirmed(), uint64(mt.cfg.SpectatorDelay))
	first := 0
	for i, old := range mt.snaps {
		if old.tick <= seen || old.tick+1 < mt.auth.Oldest() {
			first = i
		}
	}
	if mt.snaps[first].tick+1 < mt.auth.Oldest() {
		first++
	}
	mt.snaps = append(mt.snaps[:0], mt.snaps[first:]...)
	clear(mt.snaps[len(mt.snaps):cap(mt.snaps)])
}

// startFrom returns the snapshot a member joining now, a spectator or not, that takes
// snapshots (snaps) can start from: the latest whose next tick the match keeps, no later, for
// a spectator, than the ticks spectators are fed; nil if none.
func (mt *match) startFrom(snaps, spectator bool) *snapshot {
	if !snaps {
		return nil
	}
	seen := mt.auth.Confirmed()
	if spectator {
		seen -= min(seen, uint64(mt.cfg.SpectatorDelay))
	}
	for i := len(mt.snaps) - 1; i >= 0; i-- {
		if sn := mt.snaps[i]; sn.tick <= seen && sn.tick+1 >= mt.auth.Oldest() {
			return sn
		}
	}
	return nil
}

// startSnapshot sets member mb, joining late or again with a session that takes snapshots,
// to start from the snapshot startFrom gives, and reports whether there was one.
func (mt *match) startSnapshot(mb *member, now time.Duration) bool {
	sn := mt.startFrom(mb.snapshots, mb.slot == wire.SpectatorSlot)
	if sn == nil {
		return false
	}
	mb.start, mb.acked = sn.tick, sn.tick
	mb.down = &snapDownload{snap: sn, send: pieces.NewSender(sn.data, now)}
	mt.r.m.snapshotStarts.Add(1)
	return true
}

// snapAcked takes member mb's acknowledgement of the snapshot it downloads, or, from the
// round's sharer, of none of the state it was asked for: it cannot share it (its saved state
// of the tick gone before the tick was final there), and the next player in turn is asked a
// second later.
func (mt *match) snapAcked(mb *member, m *wire.Message, now time.Duration) {
	if rd := &mt.round; rd.open && mb.slot == rd.sharer && uint64(m.Tick) == rd.tick && m.Offset == 0 && rd.asm == nil {
		mt.r.m.snapshotsFailed.Add(1)
		mt.closeRound(uint64(mt.cfg.TickRate))
		return
	}
	d := mb.down
	if d == nil || uint64(m.Tick) != d.snap.tick {
		return
	}
	if d.send.Ack(m.Offset, now) {
		mb.down = nil
	}
}

// sendSnapshot queues for mb the pieces of its snapshot past its acknowledgement, a window's
// worth (again from the acknowledgement after snapResend without progress), budget at the
// most, and returns how many.
func (mt *match) sendSnapshot(s *sender, mb *member, now time.Duration, budget int) int {
	d := mb.down
	for sent := 0; ; sent++ {
		if sent == budget {
			return sent
		}
		offset, piece, ok := d.send.Piece(now, snapResend, snapWindow)
		if !ok {
			return sent
		}
		m := &mt.out
		*m = wire.Message{}
		m.Kind, m.Tick, m.Sum, m.Size, m.Offset = wire.KindSnapshot, int64(d.snap.tick), d.snap.sum, int64(len(d.snap.data)), offset
		m.InputsLen = copy(m.Inputs[:], piece)
		mt.queue(s, m, mb, now)
	}
}
