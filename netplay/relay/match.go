package relay

import (
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netplay/internal/authority"
	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// Relay pace.
const (
	// keepAlive is the longest the relay goes without sending a member anything.
	keepAlive = 200 * time.Millisecond
	// byeCopies is how many copies of a goodbye or a drop notice go at once.
	byeCopies = 3
	// joinWait is how long a match nobody has joined (or all who joined have left before it
	// started) waits before it ends.
	joinWait = time.Minute
)

// Why a match ended, or a player was dropped.
const (
	reasonOwner    = "owner"
	reasonShutdown = "shutdown"
	reasonEmpty    = "empty"
)

// member is a player or spectator of a match, at one address.
type member struct {
	match   *match
	key     addrKey
	addr    net.Addr
	slot    int // the player's slot, or wire.SpectatorSlot
	nonce   uint32
	session uint32
	seq     uint16
	bucket  bucket // the reader's: packets it may send
	// snapshots: its session takes state snapshots (wire.JoinSnapshots); start is the tick
	// it starts after (0, or the snapshot's it downloads, down, until it has it all).
	snapshots bool
	start     uint64

	// Guarded by the match's mutex.
	acked    uint64 // the last tick it has, as it acknowledged
	heard    time.Duration
	lastSent time.Duration
	dropped  bool // a player dropped: told so when it speaks
	toldAt   time.Duration
	down     *snapDownload
}

// match is one relayed match: its authority, members and pool match.
type match struct {
	r    *Relay
	name string
	cfg  MatchConfig
	pm   *gameloop.Match

	mu         sync.Mutex
	auth       *authority.Match
	players    []*member // by slot; nil until joined
	joined     int
	spectators []*member
	ended      bool
	size       int // one tick of every player's input
	zeroRef    []byte
	tickBuf    []byte
	raw        []byte // the ticks one packet carries
	out        wire.Message
	gone       wire.HandleSet // the slots whose drop has been handled
	rec        *recording     // nil unless the relay records
	created    time.Duration
	// State snapshots (snapshot.go): those checked that a member may start from, the round
	// gathering the next,
	// the tick from which the next round may open, and whose turn it is to share.
	snaps    []*snapshot // oldest first
	round    snapRound
	nextSnap uint64
	turn     int
	specTurn int // the spectator whose snapshot goes first in the next update
}

// newMatch returns a match of cfg, checked.
func newMatch(r *Relay, name string, cfg MatchConfig) (*match, error) {
	switch {
	case cfg.Players < 1 || cfg.Players > wire.MaxPlayers:
		return nil, fmt.Errorf("relay: MatchConfig.Players = %d: want 1 to %d", cfg.Players, wire.MaxPlayers)
	case cfg.InputSize < 1 || cfg.InputSize > 32:
		return nil, fmt.Errorf("relay: MatchConfig.InputSize = %d: want 1 to 32", cfg.InputSize)
	case cfg.SpectatorDelay < 0:
		return nil, fmt.Errorf("relay: MatchConfig.SpectatorDelay = %d: negative", cfg.SpectatorDelay)
	case cfg.MinPlayers < 0 || cfg.MinPlayers > cfg.Players:
		return nil, fmt.Errorf("relay: MatchConfig.MinPlayers = %d: want 0 to Players, %d", cfg.MinPlayers, cfg.Players)
	case cfg.SnapshotEvery < 0:
		return nil, fmt.Errorf("relay: MatchConfig.SnapshotEvery = %d: negative", cfg.SnapshotEvery)
	case cfg.MaxSnapshot < 0 || cfg.MaxSnapshot > MaxSnapshot:
		return nil, fmt.Errorf("relay: MatchConfig.MaxSnapshot = %d: want 0 (the default) to %d", cfg.MaxSnapshot, MaxSnapshot)
	}
	if cfg.MaxSnapshot == 0 {
		cfg.MaxSnapshot = DefaultMaxSnapshot
	}
	if cfg.MinPlayers == 0 {
		cfg.MinPlayers = cfg.Players
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	auth, err := authority.New(authority.Config{Slots: cfg.Players, InputSize: cfg.InputSize, TickRate: cfg.TickRate,
		Window: cfg.Window, Timeout: cfg.Timeout, History: cfg.History, StartGrace: startGrace})
	if err != nil {
		return nil, fmt.Errorf("relay: MatchConfig: %w", err)
	}
	cfg.Window, cfg.Timeout, cfg.History = auth.Config().Window, auth.Config().Timeout, auth.Config().History
	if cfg.SpectatorDelay >= cfg.History {
		return nil, fmt.Errorf("relay: MatchConfig.SpectatorDelay = %d: want less than History, %d", cfg.SpectatorDelay, cfg.History)
	}
	if cfg.SnapshotEvery > cfg.History/2 {
		return nil, fmt.Errorf("relay: MatchConfig.SnapshotEvery = %d: want at most half of History, %d: a player starts from the snapshot with the ticks since", cfg.SnapshotEvery, cfg.History)
	}
	size := cfg.Players * cfg.InputSize
	return &match{r: r, name: name, cfg: cfg, auth: auth, created: r.now(), players: make([]*member, cfg.Players), size: size,
		zeroRef: make([]byte, size), tickBuf: make([]byte, size), raw: make([]byte, 0, wire.MaxTicksPerInput*size)}, nil
}

// Update runs the match's tick on the pool.
func (mt *match) Update(*gameloop.Update) error {
	mt.update(mt.r.now(), mt.pm.Due())
	return nil
}

// Input takes nothing: players' packets reach the match from the relay's reader.
func (mt *match) Input(*gameloop.Input) error { return nil }

// admit takes a player or spectator joining at k, or says why not (a wire.Refused reason).
func (mt *match) admit(now time.Duration, k addrKey, addr net.Addr, slot int, nonce uint32, players, size, rate int, flags uint8, tokens bool) uint8 {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	r := mt.r
	switch {
	case mt.ended:
		return wire.RefusedEnded
	case players != mt.cfg.Players || size != mt.cfg.InputSize || rate != mt.cfg.TickRate:
		return wire.RefusedShape
	}
	if slot == wire.SpectatorSlot {
		for _, sp := range mt.spectators {
			if sp.key == k {
				sp.nonce = nonce
				mt.welcome(sp)
				return 0
			}
		}
		if len(mt.spectators) >= r.opts.MaxSpectators {
			return wire.RefusedFull
		}
		snaps := flags&wire.JoinSnapshots != 0
		if mt.auth.Oldest() > 1 && mt.startFrom(snaps, true) == nil {
			return wire.RefusedLate // neither the start nor a snapshot to start from
		}
		sp := mt.newMember(now, k, addr, slot, nonce)
		sp.snapshots = snaps
		if mt.auth.Started() {
			mt.startSnapshot(sp, now)
		}
		mt.spectators = append(mt.spectators, sp)
		r.m.spectatorsJoined.Add(1)
		mt.welcome(sp)
		return 0
	}
	if slot == wire.AnySlot {
		slot = -1
		for s, p := range mt.players {
			if p != nil && p.key == k {
				slot = s // a join whose welcome was lost
				break
			}
		}
		for s, p := range mt.players {
			if slot < 0 && p == nil && !mt.auth.Dropped().Has(s) {
				slot = s
			}
		}
		if slot < 0 {
			return wire.RefusedFull
		}
	}
	if slot >= mt.cfg.Players {
		return wire.RefusedSlot
	}
	if mt.auth.Dropped().Has(slot) {
		return wire.RefusedLate
	}
	if p := mt.players[slot]; p != nil {
		switch {
		case p.key == k:
			// Its welcome was lost, or it asked for a slot before its session (RelaySlot,
			// whose join offers to take a snapshot, which the session's own join settles).
			if reason := mt.rejoined(p, flags&wire.JoinSnapshots != 0, now); reason != 0 {
				return reason
			}
			p.nonce = nonce
			mt.welcome(p)
			return 0
		case !tokens:
			return wire.RefusedSlot
		}
		// The token's holder, at a new address: it takes the slot over (a phone that
		// changed networks, a game restarted), and is sent the match from the latest
		// snapshot if it takes them, else from its start. One that could start from
		// neither is refused, and the slot's address keeps it.
		if mt.auth.Oldest() > 1 && mt.startFrom(flags&wire.JoinSnapshots != 0, false) == nil {
			return wire.RefusedLate // neither the match's start nor a snapshot to start from
		}
		r.mu.Lock()
		if r.addrs[p.key] == p {
			delete(r.addrs, p.key)
		}
		r.mu.Unlock()
		r.m.rejoins.Add(1)
		mt.auth.Heard(now, slot)
		np := mt.newMember(now, k, addr, slot, nonce)
		np.snapshots = flags&wire.JoinSnapshots != 0
		mt.startSnapshot(np, now)
		mt.players[slot] = np
		mt.welcome(np)
		return 0
	}
	started := mt.auth.Started()
	if started {
		// A late join, where the match takes them: into a slot nobody has had, while the
		// match keeps its first tick (the joining player re-simulates from it) or the
		// ticks since its snapshot, for a player that takes snapshots.
		fromSnap := mt.startFrom(flags&wire.JoinSnapshots != 0, false) != nil
		if !mt.auth.Vacant().Has(slot) || mt.auth.Oldest() > 1 && !fromSnap {
			return wire.RefusedLate
		}
		if _, err := mt.auth.Join(now, slot); err != nil {
			return wire.RefusedLate
		}
		r.m.lateJoins.Add(1)
	}
	p := mt.newMember(now, k, addr, slot, nonce)
	p.snapshots = flags&wire.JoinSnapshots != 0
	if started {
		mt.startSnapshot(p, now)
	}
	mt.players[slot] = p
	mt.joined++
	r.m.playersJoined.Add(1)
	mt.welcome(p)
	return 0
}

// rejoined settles, for player p joining again from its address, whether it starts from the
// match's snapshot, as its join now says it can (snaps) or not: one that cannot, set to start
// from a snapshot, starts from the match's first tick while the match keeps it, and is refused
// as late if not.
func (mt *match) rejoined(p *member, snaps bool, now time.Duration) uint8 {
	switch {
	case snaps == p.snapshots:
	case snaps:
		p.snapshots = true
		if p.start == 0 && p.acked == 0 && mt.auth.Oldest() > 1 {
			mt.startSnapshot(p, now)
		}
	case p.start > 0 && mt.auth.Oldest() > 1:
		return wire.RefusedLate
	default:
		p.snapshots = false
		if p.start > 0 {
			p.start, p.acked, p.down = 0, 0, nil
		}
	}
	return 0
}

// newMember returns a member at k, registered with the relay's addresses.
func (mt *match) newMember(now time.Duration, k addrKey, addr net.Addr, slot int, nonce uint32) *member {
	r := mt.r
	mb := &member{match: mt, key: k, addr: addr, slot: slot, nonce: nonce, heard: now,
		bucket: bucketFull(r.opts.PacketRate, now)}
	for mb.session == 0 {
		mb.session = uint32(r.rng.Uint64())
	}
	r.mu.Lock()
	if old := r.addrs[k]; old != nil && old != mb {
		old.match.forgetMember(old)
	}
	r.addrs[k] = mb
	r.mu.Unlock()
	return mb
}

// forgetMember removes mb, whose address another match's member took, from its match. Called
// with the relay's mutex held: it takes the match's only if free, and otherwise leaves the
// member to time out.
func (mt *match) forgetMember(mb *member) {
	if !mt.mu.TryLock() {
		return
	}
	defer mt.mu.Unlock()
	for i, sp := range mt.spectators {
		if sp == mb {
			mt.spectators = append(mt.spectators[:i], mt.spectators[i+1:]...)
			return
		}
	}
}

// welcome answers mb's join.
func (mt *match) welcome(mb *member) {
	m := &mt.out
	*m = wire.Message{}
	m.Kind, m.Nonce, m.Slot, m.Players, m.Tick = wire.KindWelcome, mb.nonce, mb.slot, mt.cfg.Players, int64(mb.start)
	mt.r.sendTo(m, mb.addr, mb.key.ap, mb)
}

// receive handles a message from member mb, which arrived at now; the ticks its inputs let the
// match confirm go to every member in s.
func (mt *match) receive(now time.Duration, mb *member, m *wire.Message, s *sender) {
	r := mt.r
	if m.Session != mb.session {
		r.m.refuse(refusedSession)
		return
	}
	mt.mu.Lock()
	defer mt.mu.Unlock()
	if mt.ended {
		return
	}
	mb.heard = now
	spectator := mb.slot == wire.SpectatorSlot
	if !spectator {
		if mb.dropped || mt.players[mb.slot] != mb {
			mt.tellDropped(now, mb)
			return
		}
		mt.auth.Heard(now, mb.slot)
	}
	switch m.Kind {
	case wire.KindInput:
		if m.AckTick > 0 {
			mb.acked = max(mb.acked, min(uint64(m.AckTick), mt.auth.Confirmed()))
		}
		if m.Count == 0 {
			return
		}
		if spectator {
			r.m.refuse(refusedSpectatorInput)
			return
		}
		if m.Handles != 1<<mb.slot || m.InputSize != mt.cfg.InputSize || m.StartTick == 0 {
			r.m.refuse(refusedOtherSlot)
			return
		}
		raw, err := m.UnpackInputs(mt.raw[:0], mt.zeroRef[:mt.cfg.InputSize])
		if err != nil {
			r.m.refuse(refusedMalformed)
			return
		}
		for i := range m.Count {
			t := uint64(m.StartTick) + uint64(i)
			// A copy of an input already there, or one too late (its tick confirmed
			// with the last input again), changes nothing.
			mt.auth.Input(now, mb.slot, t, raw[i*mt.cfg.InputSize:][:mt.cfg.InputSize])
		}
		// A tick whose inputs are all in is confirmed now, and sent, rather than at its
		// deadline: the players learn each other's inputs a hop after they were sent.
		if mt.cfg.AtDeadline {
			return
		}
		if n := mt.auth.ConfirmReady(); n > 0 {
			r.m.ticks.Add(uint64(n))
			s.confirmed = true
			mt.sendAll(s, now)
		}
	case wire.KindQualityReport:
		mt.out = wire.Message{}
		mt.out.Kind, mt.out.PingSent = wire.KindQualityReply, m.PingSent
		mt.sendLocked(&mt.out, mb)
	case wire.KindChecksumReport:
		if spectator {
			return
		}
		mt.snapSum(mb.slot, uint64(m.Tick), m.Sum, now)
		if mt.rec != nil && !mt.rec.sum(uint64(m.Tick), m.Sum) {
			r.m.desyncs.Add(1)
		}
		mt.out = wire.Message{}
		mt.out.Kind, mt.out.Slot, mt.out.Tick, mt.out.Sum = wire.KindPlayerSum, mb.slot, m.Tick, m.Sum
		for _, p := range mt.players {
			if p != nil && p != mb && !p.dropped {
				mt.sendLocked(&mt.out, p)
			}
		}
		for _, sp := range mt.spectators {
			mt.sendLocked(&mt.out, sp)
		}
	case wire.KindBye:
		if spectator {
			mt.removeSpectator(mb)
			return
		}
		if err := mt.auth.Drop(mb.slot); err == nil {
			r.m.drop(dropLeft)
		}
		mb.dropped, mb.down = true, nil
		mt.gone |= 1 << mb.slot
		r.forget(mt, []addrKey{mb.key}, false)
	case wire.KindSnapshot:
		if spectator {
			r.m.refuse(refusedKind)
			return
		}
		mt.snapPiece(mb, m, now)
	case wire.KindSnapshotAck:
		mt.snapAcked(mb, m, now)
	case wire.KindKeepAlive, wire.KindQualityReply, wire.KindInputAck:
	default:
		r.m.refuse(refusedKind)
	}
}

// tellDropped tells a dropped player so, at most once a keep-alive interval.
func (mt *match) tellDropped(now time.Duration, mb *member) {
	if mb.toldAt != 0 && now-mb.toldAt < keepAlive {
		return
	}
	mb.toldAt = max(now, 1)
	cut, _ := mt.auth.Cutoff(mb.slot)
	mt.out = wire.Message{}
	mt.out.Kind, mt.out.Cutoff = wire.KindDropped, int64(cut)
	mt.sendLocked(&mt.out, mb)
}

// removeSpectator removes spectator sp.
func (mt *match) removeSpectator(sp *member) {
	for i, p := range mt.spectators {
		if p == sp {
			mt.spectators = append(mt.spectators[:i], mt.spectators[i+1:]...)
			mt.r.forget(mt, []addrKey{sp.key}, false)
			return
		}
	}
}

// update runs the match as of now, due being when the update was due: it starts the match once
// every player is there, confirms the ticks due, drops the players unheard, and sends every
// member what it has not acknowledged (after the match's mutex is released), noting how late
// after due that went.
func (mt *match) update(now, due time.Duration) {
	r := mt.r
	s := r.sender()
	mt.mu.Lock()
	ticked := mt.updateLocked(s, now, due)
	mt.mu.Unlock()
	r.release(s)
	if ticked {
		r.m.lateness.observe(r.now() - due)
	}
}

// updateLocked is update with the match's mutex held; it reports whether the match ran.
func (mt *match) updateLocked(s *sender, now, due time.Duration) bool {
	if mt.ended {
		return false
	}
	r := mt.r
	if !mt.auth.Started() {
		if mt.joined < mt.cfg.MinPlayers {
			mt.waitingRoom(s, now)
			return false
		}
		var vacant wire.HandleSet
		for slot, p := range mt.players {
			if p == nil {
				vacant |= 1 << slot
			}
		}
		if err := mt.auth.StartVacant(due, vacant); err != nil {
			panic(err) // not started, checked above
		}
		for _, p := range mt.players {
			mt.sendTicks(s, p, now)
		}
		return true
	}
	before := mt.auth.Stats()
	n := mt.auth.Advance(now)
	after := mt.auth.Stats()
	r.m.replaced.Add(after.Replaced - before.Replaced)
	r.m.ticks.Add(uint64(n))
	if after.TimedOut > before.TimedOut {
		r.m.dropN(dropTimeout, after.TimedOut-before.TimedOut)
	}
	if dropped := mt.auth.Dropped(); dropped != mt.gone {
		for slot, p := range mt.players {
			if dropped.Has(slot) && !mt.gone.Has(slot) && p != nil {
				p.dropped, p.down = true, nil
				cut, _ := mt.auth.Cutoff(slot)
				for range byeCopies {
					mt.out = wire.Message{}
					mt.out.Kind, mt.out.Cutoff, mt.out.DropFlags = wire.KindDropped, int64(cut), wire.DroppedSilent
					mt.queue(s, &mt.out, p, now)
				}
			}
		}
		mt.gone = dropped
	}
	for i := 0; i < len(mt.spectators); i++ {
		if sp := mt.spectators[i]; now-sp.heard > mt.cfg.Timeout {
			mt.removeSpectator(sp)
			r.m.drop(dropSpectator)
			i--
		}
	}
	if n > 0 {
		mt.sendAll(s, now)
	} else {
		// The ticks confirmed early went out as they were (each packet carries every tick
		// not acknowledged, so one lost costs nothing once the next goes): a keep-alive only.
		for _, p := range mt.players {
			if p != nil && !p.dropped && now-p.lastSent >= keepAlive {
				mt.sendTicks(s, p, now)
			}
		}
		for _, sp := range mt.spectators {
			if now-sp.lastSent >= keepAlive {
				mt.sendTicks(s, sp, now)
			}
		}
	}
	mt.snapRounds(s, now)
	if mt.rec != nil {
		mt.rec.write(mt, false)
	}
	if (mt.auth.Dropped() | mt.auth.Vacant()).Len() == mt.cfg.Players {
		mt.endLocked(s, reasonEmpty) // every player gone, or never there
	}
	return n > 0
}

// sendAll queues for every player and spectator the confirmed ticks it does not have.
func (mt *match) sendAll(s *sender, now time.Duration) {
	for _, p := range mt.players {
		if p != nil && !p.dropped {
			mt.sendTicks(s, p, now)
		}
	}
	for _, sp := range mt.spectators {
		mt.sendTicks(s, sp, now)
	}
}

// waitingRoom keeps the players of a match not started yet: a keep-alive for each, a slot
// freed when its player goes unheard for the timeout, and the match ended once it has had no
// player for joinWait.
func (mt *match) waitingRoom(s *sender, now time.Duration) {
	for slot, p := range mt.players {
		switch {
		case p == nil:
		case now-p.heard > mt.cfg.Timeout:
			mt.players[slot] = nil
			mt.joined--
			mt.r.forget(mt, []addrKey{p.key}, false)
			mt.r.m.drop(dropTimeout)
		case now-p.lastSent >= keepAlive:
			mt.out = wire.Message{}
			mt.out.Kind = wire.KindKeepAlive
			mt.queue(s, &mt.out, p, now)
		}
	}
	if mt.joined == 0 && now-mt.created > joinWait {
		mt.endLocked(s, reasonEmpty)
	}
}

// sendTicks queues for mb the confirmed ticks it has not acknowledged, as many as a packet
// holds, with every player's status and, for a player, how far the relay has its inputs.
func (mt *match) sendTicks(s *sender, mb *member, now time.Duration) {
	if mb == nil {
		return
	}
	m := &mt.out
	*m = wire.Message{}
	m.Kind = wire.KindInput
	n := mt.cfg.Players
	m.Handles = wire.HandleSet(1<<n - 1)
	m.InputSize = mt.cfg.InputSize
	m.Players = n
	confirmed := mt.auth.Confirmed()
	// A player's status: the relay's clock (the last tick due, which players aim their inputs
	// by: the ticks confirmed may run ahead of it), or its cutoff once dropped.
	// A slot nobody has joined: disconnected, with no tick; one joined late: the first tick
	// of its own input.
	clock := int64(mt.auth.Due(now))
	vacant := mt.auth.Vacant()
	for h := range n {
		switch cut, ok := mt.auth.Cutoff(h); {
		case ok:
			m.Status[h] = wire.PlayerStatus{Disconnected: true, LastTick: int64(cut)}
		case vacant.Has(h):
			m.Status[h] = wire.PlayerStatus{Disconnected: true, LastTick: wire.NoTick}
		default:
			m.Status[h] = wire.PlayerStatus{LastTick: clock}
		}
		if j := mt.auth.Joined(h); j > 1 {
			m.Joined[h] = int64(j)
		}
	}
	m.AckTick = wire.NoTick
	last := confirmed
	if mb.slot == wire.SpectatorSlot {
		last -= min(last, uint64(mt.cfg.SpectatorDelay))
	} else if have := mt.auth.Have(mb.slot); have > 0 {
		m.AckTick = int64(have)
	}
	start := mb.acked + 1
	m.StartTick = int64(start)
	if last >= start {
		if start < mt.auth.Oldest() {
			mt.tooFarBehind(s, mb, now)
			return
		}
		ticks := min(last-start+1, wire.MaxTicksPerInput)
		raw := mt.raw[:0]
		for t := start; t < start+ticks; t++ {
			mt.auth.Tick(t, mt.tickBuf)
			raw = append(raw, mt.tickBuf...)
		}
		if _, err := m.PackInputs(mt.zeroRef, raw); err != nil {
			mt.r.m.sendErrors.Add(1)
			return
		}
	}
	mt.queue(s, m, mb, now)
}

// tooFarBehind drops mb, which needs ticks the match no longer keeps.
func (mt *match) tooFarBehind(s *sender, mb *member, now time.Duration) {
	mt.dropMember(s, mb, now, dropBehind)
}

// dropMember drops mb, a player or a spectator, telling it so, for why (dropBehind,
// dropSnapshot); a spectator dropped as behind is counted as dropSpectator.
func (mt *match) dropMember(s *sender, mb *member, now time.Duration, why int) {
	mt.out = wire.Message{}
	mt.out.Kind, mt.out.Cutoff, mt.out.DropFlags = wire.KindDropped, wire.NoTick, wire.DroppedLate
	mt.queue(s, &mt.out, mb, now)
	mb.down = nil
	if mb.slot == wire.SpectatorSlot {
		mt.removeSpectator(mb)
		if why == dropBehind {
			why = dropSpectator
		}
		mt.r.m.drop(why)
		return
	}
	if err := mt.auth.Drop(mb.slot); err == nil {
		mt.r.m.drop(why)
	}
	mb.dropped = true
}

// queue queues m for mb in s, with mb's session and sequence number.
func (mt *match) queue(s *sender, m *wire.Message, mb *member, now time.Duration) {
	m.Session = mb.session
	mb.seq++
	m.Seq = mb.seq
	mb.lastSent = now
	s.add(m, mb.addr, mb.key.ap)
}

// sendLocked sends m to mb at once, from the reader.
func (mt *match) sendLocked(m *wire.Message, mb *member) {
	mt.r.sendTo(m, mb.addr, mb.key.ap, mb)
}

// drop drops player slot at the owner's word.
func (mt *match) drop(slot int) error {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	if slot < 0 || slot >= mt.cfg.Players {
		return fmt.Errorf("relay: Drop: slot %d of a match of %d players", slot, mt.cfg.Players)
	}
	if !mt.auth.Dropped().Has(slot) {
		if err := mt.auth.Drop(slot); err != nil {
			return err
		}
		mt.r.m.drop(dropOwner)
	}
	return nil
}

// end ends the match: every member is told, its addresses freed, its pool match stopped.
func (mt *match) end(why string) {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	if mt.ended {
		return
	}
	s := mt.r.sender()
	defer mt.r.release(s)
	mt.endLocked(s, why)
}

func (mt *match) endLocked(s *sender, why string) {
	mt.ended = true
	now := mt.r.now()
	var keys []addrKey
	for _, mb := range append(mt.players[:len(mt.players):len(mt.players)], mt.spectators...) {
		if mb == nil {
			continue
		}
		keys = append(keys, mb.key)
		for range byeCopies {
			mt.out = wire.Message{}
			mt.out.Kind = wire.KindBye
			mt.queue(s, &mt.out, mb, now)
		}
	}
	mt.r.forget(mt, keys, true)
	mt.r.m.matchesEnded.Add(1)
	if mt.rec != nil {
		if err := mt.rec.close(mt); err != nil {
			mt.r.m.recordErrors.Add(1)
		}
	}
	if mt.pm != nil {
		mt.pm.Stop()
	}
	_ = why
}

// stats returns what the match has done.
func (mt *match) stats() MatchStats {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	st := mt.auth.Stats()
	ms := MatchStats{Started: mt.auth.Started(), Confirmed: st.Confirmed, Joined: mt.joined,
		Dropped: mt.auth.Dropped().Len(), Spectators: len(mt.spectators), Replaced: st.Replaced}
	if sn := mt.latest(); sn != nil {
		ms.Snapshot, ms.SnapshotBytes = sn.tick, len(sn.data)
	}
	return ms
}

// sender collects a match update's packets and sends them together: with one sendmmsg over a
// netplay.UDPConn on Linux.
type sender struct {
	r         *Relay
	confirmed bool           // ticks were confirmed early: what it sends is their forwarding
	batch     *netplay.Batch // over a UDPConn
	buf       []byte
	pkt       [][]byte
	to        []net.Addr
	ap        []netip.AddrPort
}

// sendBatch is how many packets a sender sends with one system call, over a UDPConn.
const sendBatch = 64

func (r *Relay) newSender() *sender {
	s := &sender{r: r, buf: make([]byte, 0, 16*wire.MaxPacket)}
	if r.udp != nil {
		s.batch, _ = netplay.NewBatch(sendBatch)
	}
	return s
}

// sender returns a sender for one update.
func (r *Relay) sender() *sender {
	s := r.batches.Get().(*sender)
	s.confirmed = false
	return s
}

// release sends what s holds and returns it to the pool: s is not to be used after.
func (r *Relay) release(s *sender) {
	s.flush()
	r.batches.Put(s)
}

// add encodes m for addr and sends it with the rest.
func (s *sender) add(m *wire.Message, addr net.Addr, ap netip.AddrPort) {
	if s.batch != nil {
		b, err := wire.Append(s.buf[:0], m)
		if err != nil {
			s.r.m.sendErrors.Add(1)
			return
		}
		if !s.batch.Add(b, ap) {
			s.flush()
			s.batch.Add(b, ap)
		}
		s.r.m.bytesOut.Add(uint64(len(b)))
		return
	}
	if len(s.buf)+wire.MaxPacket > cap(s.buf) {
		s.flush()
	}
	start := len(s.buf)
	b, err := wire.Append(s.buf, m)
	if err != nil {
		s.r.m.sendErrors.Add(1)
		return
	}
	s.buf = b
	s.pkt = append(s.pkt, b[start:])
	s.to = append(s.to, addr)
	s.ap = append(s.ap, ap)
}

// flush sends the packets held.
func (s *sender) flush() {
	if s.batch != nil {
		n := s.batch.Queued()
		if n == 0 {
			return
		}
		sent, _ := s.r.udp.WriteBatch(s.batch)
		s.r.m.packetsOut.Add(uint64(sent))
		s.r.m.sendErrors.Add(uint64(n - sent))
		return
	}
	for i, p := range s.pkt {
		s.r.write(p, s.to[i], s.ap[i])
	}
	s.buf, s.pkt, s.to, s.ap = s.buf[:0], s.pkt[:0], s.to[:0], s.ap[:0]
}
