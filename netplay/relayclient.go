package netplay

// A player's or spectator's session through a relay (Config.Relay): the relay is the one peer,
// holding every player's handle; it decides each tick's inputs on its own clock and sends
// every member the confirmed inputs of every player, its own included. A player still
// predicts and rolls back; an input of its own that reached the relay too late is replaced
// there by its last one, which the player learns as it learns the others' inputs, rolling
// back to what ran. Nothing is agreed between players: the relay decides.

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"time"

	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// ErrEnded: the relay ended the match (its owner ended it, or the relay shut down).
var ErrEnded = errors.New("netplay: the relay ended the match")

// Relay pace.
const (
	// relayCatchUp is the most ticks an Advance runs through a relay while it is behind the
	// relay's clock: a player back from a stall of seconds catches up by re-simulation at
	// that many ticks a call.
	relayCatchUp = 30
	// relayMargin is how many ticks before its deadline at the relay a player aims its
	// inputs to arrive: a tick for the relay's own lateness and the network's jitter.
	relayMargin = 2.0
	// relaySkipAhead is how many ticks past its aim a player may run before it skips ticks
	// rather than only slowing down.
	relaySkipAhead = 3.0
	// relayBehind is how many ticks behind its aim a player may run before it runs an extra
	// tick to catch up.
	relayBehind = 0.75
	// relayJump is how many ticks behind its average a player must find itself to take it
	// as a jump (back from a stall) rather than noise.
	relayJump = 5.0
)

// relayLink is what a session keeps of its relay, besides the peer (Session.peers[0]).
type relayLink[I comparable] struct {
	slot int // the local player's handle, or wire.SpectatorSlot
	// confirmed is the last tick whose inputs the relay has sent, in a row from tick 1;
	// newest the relay's last confirmed tick as it reported it, received at newestAt.
	confirmed uint64
	newest    uint64
	newestAt  time.Duration
	heardTick bool // a tick report has arrived: the relay's clock can be estimated
	// own holds the local player's input for each confirmed tick as the relay decided it
	// (its own, or its last one repeated where its own came too late), and ownRaw the same
	// encoded.
	own    [ring]I
	ownRaw []byte
	// snap is what this session keeps of state snapshots (snapshot.go).
	snap snapState
	// ahead is how many ticks this player runs past its aim, averaged.
	ahead     float64
	haveAhead bool
	// minDelay is the input delay the game asked for (Config.InputDelay, SetInputDelay): in
	// lockstep the session's own delay is at least that, and at least the round trip needs
	// (relayLockstepDelay).
	minDelay int
	// ran: this player has run a tick since it joined.
	ran bool
	// sums holds the checksums other players reported through the relay, not yet
	// compared, a few a player.
	sums [MaxPlayers][4]checksum
	// zeroRef is one tick of every player's input, zeros: the reference inputs are packed
	// against both ways.
	zeroRef []byte
}

// checkRelay checks a relayed session's Config.
func (cfg *Config[I]) checkRelay(bad func(string, any, string) error) error {
	locals := 0
	for h, p := range cfg.Players {
		if p.Addr != nil {
			return bad(fmt.Sprintf("Players[%d].Addr", h), p.Addr, "a relayed session's players have no address: the relay is the only one")
		}
		if p.Local {
			locals++
		}
	}
	switch {
	case len(cfg.Match) > wire.MaxMatch:
		return bad("Match", len(cfg.Match), fmt.Sprintf("a match name has at most %d bytes", wire.MaxMatch))
	case len(cfg.Token) > wire.MaxToken:
		return bad("Token", len(cfg.Token), fmt.Sprintf("a token has at most %d bytes", wire.MaxToken))
	case !cfg.spectate && locals != 1:
		return bad("Players", locals, "a relayed session has one local player (a slot of the match each)")
	case cfg.Spectators != 0:
		return bad("Spectators", cfg.Spectators, "a relayed match's spectators join the relay")
	case cfg.SparseSaving:
		return bad("SparseSaving", true, "not available through a relay")
	}
	return nil
}

// newRelayLink sets a session up for its relay: one peer, the relay, for every remote player.
func (s *Session[I]) newRelayLink(nonce uint32) {
	rl := &relayLink[I]{slot: wire.SpectatorSlot, minDelay: s.delay}
	n := len(s.queues)
	rl.ownRaw = make([]byte, ring*s.size)
	rl.zeroRef = make([]byte, n*s.size)
	for t := range rl.own {
		rl.own[t] = s.decoded
	}
	pr := &peer{addr: s.cfg.Relay, ap: udpAddrPort(s.cfg.Relay), first: -1, nonce: nonce}
	pr.stats.Status = Confirmed
	for h, q := range s.queues {
		if q.local {
			rl.slot = h
			continue
		}
		q.peer = 0
		pr.handles |= 1 << h
	}
	s.peers = []*peer{pr}
	s.relay = rl
}

// relayHandle handles a message from the relay; it reports false for one to drop.
func (s *Session[I]) relayHandle(pr *peer, m *wire.Message) bool {
	rl := s.relay
	if pr.state == peerSyncing {
		switch {
		case m.Kind == wire.KindCookie && m.Session == pr.nonce:
			pr.cookie = m.Cookie // the relay's proof that this address is ours: ask again with it
			s.joinRTT(pr)
			s.join(pr)
		case m.Kind == wire.KindRefused && m.Nonce == pr.nonce:
			if s.endErr == nil {
				s.endErr = fmt.Errorf("%w: the relay at %v refused to let this %s join match %q: %s",
					ErrRefused, pr.addr, s.memberName(), s.cfg.Match, refusedWhy(m.Reason))
			}
		case m.Kind == wire.KindWelcome && m.Nonce == pr.nonce && m.Session != 0:
			if m.Slot != rl.slot || m.Players != len(s.queues) {
				return false
			}
			if m.Tick > 0 && (!s.cfg.Snapshots || s.cfg.Record != nil) {
				return false // a snapshot it did not ask for
			}
			pr.session, pr.state = m.Session, peerRunning
			if m.Tick > 0 {
				s.startFrom(uint64(m.Tick)) // the state after it comes next
			}
			s.joinRTT(pr)
			s.heard(pr)
			s.event(Event{Kind: EventSynchronized, Handle: -1})
		default:
			return false
		}
		return true
	}
	if m.Session != pr.session || pr.state == peerGone {
		return false
	}
	s.heard(pr)
	switch m.Kind {
	case wire.KindInput:
		if s.spectating {
			if !s.running {
				s.running = true
				s.event(Event{Kind: EventRunning})
			}
			return s.handleInput(pr, m)
		}
		return s.relayInput(pr, m)
	case wire.KindQualityReply:
		return s.qualityReply(pr, m)
	case wire.KindPlayerSum:
		s.relaySum(m.Slot, uint64(m.Tick), m.Sum)
	case wire.KindDropped:
		if s.spectating {
			s.spectatorDropped(pr, m)
			break
		}
		pr.state = peerGone
		s.quit(&DroppedError{By: -1, Cutoff: m.Cutoff, Silent: m.DropFlags&wire.DroppedSilent != 0})
	case wire.KindBye:
		pr.state = peerGone
		if s.spectating {
			s.spectatorLost("the relay ended the match")
			break
		}
		if s.endErr == nil {
			s.endErr = fmt.Errorf("%w %q", ErrEnded, s.cfg.Match)
		}
	case wire.KindSnapshotAsk:
		if !s.spectating {
			s.snapAsk(m)
		}
	case wire.KindSnapshot:
		s.snapPiece(m)
	case wire.KindSnapshotAck:
		s.snapAcked(m)
	case wire.KindKeepAlive:
	default:
		return false
	}
	return true
}

// joinRTT takes the round trip of the last join as a first measure of the relay's: the time
// sync aims by it from the first tick.
func (s *Session[I]) joinRTT(pr *peer) {
	if rtt := s.now - pr.syncSentAt; rtt >= 0 && rtt < syncRetry {
		pr.noteRTT(rtt)
	}
}

// memberName says what this session is to the relay, for errors.
func (s *Session[I]) memberName() string {
	if s.spectating {
		return "spectator"
	}
	return fmt.Sprintf("player (slot %d)", s.relay.slot)
}

// refusedWhy says in words why a relay refused a join.
func refusedWhy(reason uint8) string {
	switch reason {
	case wire.RefusedToken:
		return "its token is not valid (malformed, forged, or made with a key the relay does not have)"
	case wire.RefusedExpired:
		return "its token has expired"
	case wire.RefusedNoMatch:
		return "there is no such match"
	case wire.RefusedSlot:
		return "the slot is taken, or not the token's"
	case wire.RefusedShape:
		return "the game's players, input size or tick rate are not the match's"
	case wire.RefusedFull:
		return "the relay or the match has no room"
	case wire.RefusedLate:
		return "the match has begun and takes no more players, or is past the ticks the relay keeps"
	case wire.RefusedEnded:
		return "the match has ended"
	}
	return fmt.Sprintf("reason %d", reason)
}

// join sends the relay a join request.
func (s *Session[I]) join(pr *peer) {
	pr.syncSentAt = s.now
	m := &s.out
	*m = wire.Message{}
	m.Kind, m.Nonce, m.Cookie = wire.KindJoin, pr.nonce, pr.cookie
	m.Slot, m.Players, m.InputSize, m.TickRate = s.relay.slot, len(s.queues), s.size, s.cfg.TickRate
	if s.cfg.Snapshots && s.cfg.Record == nil {
		m.JoinFlags = wire.JoinSnapshots // a recording starts from the first tick
	}
	m.SetMatch(s.cfg.Match)
	m.SetToken(s.cfg.Token)
	s.send(pr, m)
}

// relayInput takes the confirmed inputs the relay sent, every player's, with what it says of
// each player and how far it has this player's inputs.
func (s *Session[I]) relayInput(pr *peer, m *wire.Message) bool {
	rl := s.relay
	n := len(s.queues)
	all := wire.HandleSet(1<<n - 1)
	if m.Players != n || m.Count > 0 && (m.Handles != all || m.InputSize != s.size) {
		return false
	}
	if !s.running {
		s.running = true
		s.event(Event{Kind: EventRunning})
	}
	s.ack(pr, m.AckTick)
	for h := range n {
		st := m.Status[h]
		if m.Joined[h] > 0 {
			s.joinedLate(h, uint64(m.Joined[h]), rl.confirmed)
		}
		if !st.Disconnected {
			continue
		}
		if st.LastTick == wire.NoTick && m.Joined[h] == 0 {
			if h == rl.slot {
				return false // our slot is ours since the welcome
			}
			s.vacate(h)
			continue
		}
		last := uint64(max(st.LastTick, 0))
		if h == rl.slot {
			pr.state = peerGone
			s.quit(&DroppedError{By: -1, Cutoff: st.LastTick})
			return true
		}
		if q := s.queues[h]; !q.gone || q.vacant {
			q.gone, q.goneAfter, q.vacant = true, last, false
			q.confirmed = min(q.confirmed, last)
			s.event(Event{Kind: EventDisconnected, Handle: h, Tick: last, Reason: "the relay dropped it"})
		}
	}
	if now := uint64(max(m.Status[rl.slot].LastTick, 0)); now > rl.newest || !rl.heardTick {
		rl.newest, rl.newestAt, rl.heardTick = now, s.now, true
	}
	if m.Count == 0 {
		return true
	}
	start := uint64(m.StartTick)
	end := start + uint64(m.Count) - 1
	if start == 0 {
		return false
	}
	if end <= rl.confirmed || start > rl.confirmed+1 {
		return true // nothing new, or a gap (the relay sends again from our acknowledgement)
	}
	// No further than half the ring past the tick run: the ring holds the ticks a rollback
	// goes back to. The rest comes again.
	end = min(end, s.tick+ring/2)
	var err error
	s.unpacked, err = m.UnpackInputs(s.unpacked[:0], rl.zeroRef)
	if err != nil {
		return false
	}
	stride := n * s.size
	for t := rl.confirmed + 1; t <= end; t++ {
		tick := s.unpacked[int(t-start)*stride:][:stride]
		for h, q := range s.queues {
			src := tick[h*s.size:][:s.size]
			if q.local {
				raw := rl.ownRaw[(t%ring)*uint64(s.size):][:s.size]
				copy(raw, src)
				rl.own[t%ring] = s.codec.Get(raw)
				continue
			}
			raw := q.raw[(t%ring)*uint64(s.size):][:s.size]
			copy(raw, src)
			q.in[t%ring] = s.codec.Get(raw)
			if !q.gone || t <= q.goneAfter {
				q.confirmed = t
			}
		}
	}
	rl.confirmed = end
	pr.recvd = end
	return true
}

// vacate takes what the relay says of slot h: nobody has joined it. Its inputs are
// Disconnected until someone does (joinedLate).
func (s *Session[I]) vacate(h int) {
	if q := s.queues[h]; !q.gone && q.joinedAt == 0 {
		q.gone, q.goneAfter, q.vacant = true, 0, true
		q.confirmed = 0
	}
}

// joinedLate takes what the relay says of slot h: a player joined it late, its own input
// counting from tick first. have is the last tick of inputs received in a row: the slot's
// among them, stored whatever its status.
func (s *Session[I]) joinedLate(h int, first, have uint64) {
	q := s.queues[h]
	if q.joinedAt != 0 {
		return
	}
	q.joinedAt = first
	if q.vacant {
		q.gone, q.goneAfter, q.vacant = false, 0, false
		if !q.local {
			q.confirmed = have
		}
	}
	s.event(Event{Kind: EventJoined, Handle: h, Tick: first})
}

// relaySum takes player slot's checksum of tick, as the relay passed it on, and compares it
// with ours once we have it.
func (s *Session[I]) relaySum(slot int, tick, sum uint64) {
	if s.cfg.DesyncInterval <= 0 || slot >= len(s.queues) || s.queues[slot].local || tick == 0 || tick%uint64(s.cfg.DesyncInterval) != 0 {
		return
	}
	sums := &s.relay.sums[slot]
	copy(sums[1:], sums[:])
	sums[0] = checksum{tick, sum}
	s.relayCompare()
}

// relayCompare compares the checksums other players reported with ours for the same ticks.
func (s *Session[I]) relayCompare() {
	pr := s.peers[0]
	for h := range s.queues {
		for i := range s.relay.sums[h] {
			theirs := &s.relay.sums[h][i]
			if theirs.tick == 0 || theirs.tick > s.finalDone {
				continue
			}
			ours := s.ourSums[(theirs.tick/uint64(s.cfg.DesyncInterval))%checksumHistory]
			if ours.tick == theirs.tick && ours.sum != theirs.sum && theirs.tick > pr.desynced {
				pr.desynced = theirs.tick
				s.event(Event{Kind: EventDesync, Handle: h, Tick: theirs.tick, Local: ours.sum, Remote: theirs.sum})
			}
			*theirs = checksum{}
		}
	}
}

// relayTimers runs a relayed session's timers: the join, the relay's silence, quality
// reports and keep-alives.
func (s *Session[I]) relayTimers() {
	pr := s.peers[0]
	switch pr.state {
	case peerSyncing:
		if s.endErr == nil && (!pr.syncStarted || s.now-pr.syncSentAt >= syncRetry) {
			pr.syncStarted = true
			s.join(pr)
		}
		return
	case peerGone:
		return
	}
	silent := s.awake - pr.lastHeard
	if silent >= s.cfg.DisconnectTimeout {
		pr.state = peerGone
		why := fmt.Sprintf("the relay: unheard for %v", s.cfg.DisconnectTimeout)
		if s.spectating {
			s.spectatorLost(why)
		} else if s.endErr == nil {
			s.endErr = &HostLostError{Reason: why}
		}
		return
	}
	if silent >= s.cfg.DisconnectNotice && !pr.interrupted {
		pr.interrupted = true
		s.event(Event{Kind: EventInterrupted, Handle: -1, Timeout: s.cfg.DisconnectTimeout - silent})
	}
	if s.now-pr.lastQuality >= qualityInterval {
		pr.lastQuality = s.now
		s.out = wire.Message{}
		s.out.Kind = wire.KindQualityReport
		s.out.TicksAhead = int32(math.Round(s.relay.ahead))
		s.out.PingSent = int64(s.now)
		s.send(pr, &s.out)
	}
	if s.now-pr.lastSent >= keepAliveInterval || s.now-pr.lastInput >= keepAliveInterval || pr.lastAckSent != pr.recvd {
		s.relaySend(pr)
	}
	s.snapTimers(pr)
}

// relaySend sends the relay this player's inputs it does not have yet (none from a
// spectator), and the acknowledgement of the ticks received.
func (s *Session[I]) relaySend(pr *peer) {
	if s.spectating {
		s.sendInput(pr) // an acknowledgement only: a spectator has no local player
		return
	}
	rl := s.relay
	m := &s.out
	*m = wire.Message{}
	m.Kind = wire.KindInput
	m.Handles = 1 << rl.slot
	m.InputSize = s.size
	m.AckTick = wire.NoTick
	if pr.recvd > 0 {
		m.AckTick = int64(pr.recvd)
	}
	pr.lastAckSent = pr.recvd
	pr.lastInput = s.now
	q := s.queues[rl.slot]
	last := q.confirmed
	// The relay has decided every tick up to the last it confirmed: inputs for them are moot.
	start := max(pr.acked, rl.confirmed) + 1
	if last >= start+inputRedundancy && s.now-s.sentAt[start%ring] < pr.resendAfter() {
		start = last + 1 - inputRedundancy
	}
	m.StartTick = int64(start)
	if last >= start {
		ticks := min(last-start+1, wire.MaxTicksPerInput)
		raw := s.rawBuf[:0]
		for t := start; t < start+ticks; t++ {
			raw = append(raw, q.raw[(t%ring)*uint64(s.size):][:s.size]...)
		}
		if _, err := m.PackInputs(rl.zeroRef[:s.size], raw); err != nil {
			s.stats.SendErrors++
			return
		}
	}
	s.send(pr, m)
}

// relayAim returns how many ticks past its aim this player runs: its next tick against the
// relay's clock as estimated from the last tick it reported, half a round trip, and the time
// since; the aim is that the input scheduled now (InputDelay ticks on) arrive relayMargin
// ticks before the relay confirms its tick.
func (s *Session[I]) relayAim() float64 {
	rl, pr := s.relay, s.peers[0]
	rate := float64(s.cfg.TickRate)
	oneWay := (pr.rtt / 2).Seconds() * rate
	relayNow := float64(rl.newest) + (s.now-rl.newestAt).Seconds()*rate + oneWay
	aim := relayNow + oneWay + relayMargin - float64(s.delay)
	return float64(s.tick+1) - aim
}

// relayTimeSync updates how far ahead of its aim this player runs, averaged, and the time
// scale it recommends (slower while ahead), and returns how many ticks this Advance should
// run: 1, 0 while far ahead, more while behind (to catch up, relayCatchUp at the most).
func (s *Session[I]) relayTimeSync() int {
	rl := s.relay
	if !rl.heardTick {
		return 1
	}
	if s.cfg.Lockstep {
		s.relayLockstepDelay()
	}
	sample := s.relayAim()
	switch {
	case !rl.haveAhead:
		rl.ahead, rl.haveAhead = sample, true // where it starts, which may be ticks off
	case sample < rl.ahead-relayJump:
		rl.ahead = sample // back from a stall: ticks behind at once
	default:
		rl.ahead += (sample - rl.ahead) / aheadSamples
	}
	ticks := 1
	switch {
	case rl.ahead > relaySkipAhead:
		ticks = 0
		rl.ahead--
	case rl.ahead < -relayBehind:
		// Behind the aim: inputs would miss their deadline. An extra tick now (more while
		// far behind) rather than a faster loop: the relay's clock does not wait.
		extra := min(int(-rl.ahead+0.5), relayCatchUp-1)
		ticks += extra
		rl.ahead += float64(extra)
	}
	scale := 1.0
	if rl.ahead > aheadDeadZone {
		scale = max(MinTimeScale, math.Round((1-scalePerTick*(rl.ahead-aheadDeadZone))*1000)/1000)
	}
	s.timeScale = scale
	return ticks
}

// relayLockstepDelay sets the input delay of a player in lockstep through a relay. Such a
// player runs a tick only once the relay has confirmed it, which is half a round trip after
// the relay's clock passed it at best; an input it schedules then must travel half a round
// trip more and arrive relayMargin ticks before its tick's deadline. Peer to peer, lockstep
// only waits for late inputs; through a relay, whose clock does not wait, they would be
// replaced, every one of them with a delay shorter than the round trip. So the delay is the
// round trip and the margin, in ticks, rounded up, or the game's own if longer, and at most
// MaxInputDelay. The round trip is the average or the last measured, whichever is longer,
// so that a link slowing down costs a round trip measured (every 200 ms) of late inputs, not
// the seconds the average takes; the delay grows at once and shrinks once two ticks too
// long, so that jitter does not move it back and forth. A change of delay needs no
// agreement (see SetInputDelay).
func (s *Session[I]) relayLockstepDelay() {
	rl, pr := s.relay, s.peers[0]
	rtt := max(pr.rtt, pr.lastRTT)
	need := int(math.Ceil(rtt.Seconds()*float64(s.cfg.TickRate) + relayMargin))
	need = min(max(need, rl.minDelay), MaxInputDelay)
	if need > s.delay || need < s.delay-1 {
		s.delay = need
	}
	if q := s.queues[rl.slot]; !rl.ran && q.confirmed < s.tick+uint64(s.delay) {
		// Nothing run yet: the ticks the delay now covers have the zero input, sent at once,
		// so that the relay, whose first ticks wait for every player's first input, has this
		// player's before it runs one (it runs none before they are confirmed).
		for t := q.confirmed + 1; t <= s.tick+uint64(s.delay); t++ {
			clear(q.raw[(t%ring)*uint64(s.size):][:s.size])
			q.in[t%ring] = s.decoded
			s.sentAt[t%ring] = s.now
		}
		q.confirmed = s.tick + uint64(s.delay)
	}
}

// advanceRelay is Advance for a player through a relay: a rollback if an input the relay sent
// proved a prediction wrong (or replaced one of this player's own), then the next tick, or
// several while this player is behind the relay's clock, or none while far ahead of it.
func (s *Session[I]) advanceRelay() ([]Request[I], error) {
	if d := s.relay.snap.down; d != nil && !d.ready() {
		s.relaySend(s.peers[0])
		return nil, ErrNotSynchronized // the state to start from is on its way
	}
	ticks := s.relayTimeSync()
	limit := s.limit() + uint64(s.window)
	if ticks == 0 || s.tick+1 > limit {
		s.relaySend(s.peers[0])
		s.stats.Skipped++
		return nil, ErrPredictionThreshold
	}
	s.reqs = s.reqs[:0]
	// First the snapshot this player shares (its slot is not saved over below), or the one
	// it starts from.
	s.snapAnswer(true)
	s.snapRestore()
	if s.tick == 0 {
		s.reqs = append(s.reqs, Request[I]{Kind: Save, Tick: 0, Slot: 0})
	}
	used := s.rollback()
	for range ticks {
		next := s.tick + 1
		if next > limit {
			break
		}
		if at := next + uint64(s.delay); at > s.relay.confirmed {
			s.addLocalInputs(at)
		}
		s.relay.ran = true
		used = s.advanceRequest(next, used)
		s.tick = next
	}
	s.relaySend(s.peers[0])
	s.final = min(s.confirmed(), s.tick)
	return s.reqs, nil
}

// RelaySlot asks the relay at relay for a free slot of match, before a session is made:
// the lowest slot nobody has joined, on an open relay, or the slot token names. It returns
// the slot, which is then this address's at the relay: make the session over the same conn,
// with that slot's player Local (a match's first player plays the left paddle, say). players,
// inputSize and tickRate are the game's (a Codec's Size, Config.TickRate): they must be the
// match's. It waits for the relay's answer, asking again every 200 ms, until ctx ends; a
// refusal is an error wrapping ErrRefused that says why. It reads conn itself (with read
// deadlines) and leaves nothing reading it when it returns.
func RelaySlot(ctx context.Context, conn net.PacketConn, relay net.Addr, match string, token []byte, players, inputSize, tickRate int) (int, error) {
	if relay == nil {
		return 0, errors.New("netplay: RelaySlot: relay is nil")
	}
	slot, _, err := FindRelay(ctx, conn, []net.Addr{relay}, match, token, players, inputSize, tickRate)
	return slot, err
}

// FindRelay is RelaySlot for a relay that is one of candidates, not known which: a member of
// a room of netplay/rtc's lobby that a relay joined with the players, say. It asks each, and
// returns the slot the first to answer gave, and its address (the session's Config.Relay).
// The other candidates are sent a join they drop. Its join offers to start from the match's
// state snapshot, where the relay keeps one (Config.Snapshots): the session's own join says
// whether it does, and a session that does not is refused if the match no longer keeps its
// first tick.
func FindRelay(ctx context.Context, conn net.PacketConn, candidates []net.Addr, match string, token []byte, players, inputSize, tickRate int) (slot int, relay net.Addr, err error) {
	switch {
	case conn == nil || len(candidates) == 0:
		return 0, nil, errors.New("netplay: FindRelay: no conn, or no candidate")
	case len(match) > wire.MaxMatch:
		return 0, nil, fmt.Errorf("netplay: FindRelay: a match name of %d bytes, at most %d", len(match), wire.MaxMatch)
	case len(token) > wire.MaxToken:
		return 0, nil, fmt.Errorf("netplay: FindRelay: a token of %d bytes, at most %d", len(token), wire.MaxToken)
	case players < 1 || players > MaxPlayers || inputSize < 1 || inputSize > MaxInputSize || tickRate < 1 || tickRate > 1000:
		return 0, nil, fmt.Errorf("netplay: FindRelay: %d players, inputs of %d bytes, %d ticks a second: out of range", players, inputSize, tickRate)
	}
	var nb [4]byte
	if _, err := rand.Read(nb[:]); err != nil {
		return 0, nil, fmt.Errorf("netplay: FindRelay: %w", err)
	}
	nonce := binary.LittleEndian.Uint32(nb[:]) | 1
	cookies := make([]uint32, len(candidates)) // each candidate's cookie, once it sent one
	var out, in wire.Message
	defer conn.SetReadDeadline(time.Time{})
	buf := make([]byte, readBufSize)
	send := func(i int) error {
		out = wire.Message{}
		out.Kind, out.Session, out.Nonce, out.Cookie = wire.KindJoin, nonce, nonce, cookies[i]
		out.Slot, out.Players, out.InputSize, out.TickRate = wire.AnySlot, players, inputSize, tickRate
		out.JoinFlags = wire.JoinSnapshots // offered: the session's own join settles it
		out.SetMatch(match)
		out.SetToken(token)
		pkt, err := wire.Append(nil, &out)
		if err != nil {
			return fmt.Errorf("netplay: FindRelay: %w", err)
		}
		if _, err := conn.WriteTo(pkt, candidates[i]); err != nil {
			return fmt.Errorf("netplay: FindRelay: %w", err)
		}
		return nil
	}
	for {
		for i := range candidates {
			if err := send(i); err != nil {
				return 0, nil, err
			}
		}
		retry := time.Now().Add(syncRetry)
		for time.Now().Before(retry) {
			if err := ctx.Err(); err != nil {
				return 0, nil, fmt.Errorf("netplay: FindRelay: no answer from a relay at %v: %w", candidates, err)
			}
			conn.SetReadDeadline(retry)
			n, from, err := conn.ReadFrom(buf)
			if err != nil {
				if isTimeout(err) {
					break
				}
				return 0, nil, fmt.Errorf("netplay: FindRelay: %w", err)
			}
			i := slices.IndexFunc(candidates, func(a net.Addr) bool {
				return sameAddr(a, from) || udpAddrPort(a).IsValid() && udpAddrPort(a) == udpAddrPort(from)
			})
			if i < 0 || wire.Decode(buf[:n], &in) != nil {
				continue
			}
			switch {
			case in.Kind == wire.KindCookie && in.Session == nonce:
				cookies[i] = in.Cookie
				if err := send(i); err != nil { // at once, with it
					return 0, nil, err
				}
			case in.Kind == wire.KindRefused && in.Nonce == nonce:
				return 0, nil, fmt.Errorf("%w: the relay at %v has no slot of match %q for this player: %s", ErrRefused, candidates[i], match, refusedWhy(in.Reason))
			case in.Kind == wire.KindWelcome && in.Nonce == nonce && in.Slot < players:
				return in.Slot, candidates[i], nil
			}
		}
	}
}
