package netplay

// The protocol with each peer: the handshake, inputs and their acknowledgement, quality
// reports, keep-alives, checksum reports and disconnection, on top of package wire.

import (
	"fmt"
	"math"
	"net/netip"
	"slices"
	"time"

	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// receive handles every packet that has arrived.
func (s *Session[I]) receive() {
	// At most maxPacketsPerPoll: a flood arriving faster than it is read must not keep a
	// Poll from returning.
	for i := 0; i < maxPacketsPerPoll && s.tr.next(&s.pkt); i++ {
		s.stats.PacketsReceived++
		s.stats.BytesReceived += uint64(s.pkt.n)
		pr := s.peerOf(&s.pkt)
		if pr == nil {
			s.stats.Dropped++
			if s.pkt.n <= wire.MaxPacket && wire.Decode(s.pkt.buf[:s.pkt.n], &s.msg) == nil {
				switch s.msg.Kind {
				case wire.KindSpectate:
					if why, ok := s.spectatorRoom(); !ok {
						s.refuse(&s.pkt, &s.msg, why)
						break
					}
					if !s.validCookie(&s.pkt, &s.msg) {
						s.sendCookie(&s.pkt, &s.msg)
						break
					}
					if sp := s.admitSpectator(&s.pkt); sp != nil {
						s.stats.Dropped--
						s.handle(sp, &s.msg)
						continue
					}
					s.refuse(&s.pkt, &s.msg, wire.DroppedFull)
				case wire.KindSyncRequest:
					s.refuse(&s.pkt, &s.msg, 0)
				}
			}
			continue
		}
		if s.pkt.n > wire.MaxPacket || wire.Decode(s.pkt.buf[:s.pkt.n], &s.msg) != nil {
			s.stats.Dropped++
			continue
		}
		pr.stats.PacketsReceived++
		pr.stats.BytesReceived += uint64(s.pkt.n)
		if s.relay != nil {
			if !s.relayHandle(pr, &s.msg) {
				s.stats.Dropped++
			}
			continue
		}
		if !s.handle(pr, &s.msg) {
			s.stats.Dropped++
		}
	}
}

// refuse answers the handshake request m from p, which is not a peer's: this game is full. The
// answer, a Bye in the requester's handshake session (to a spectator, a Dropped saying why:
// why, wire.DroppedFull or wire.DroppedLate, or 0 for a host that takes none), is smaller than
// the request, so that a forged sender address gains an attacker nothing, and goes at most
// once every refusalInterval, so that a flood of requests costs little.
func (s *Session[I]) refuse(p *packet, m *wire.Message, why uint8) {
	if s.refusedAt != 0 && s.now-s.refusedAt < refusalInterval {
		return
	}
	s.refusedAt = max(s.now, 1)
	s.out = wire.Message{}
	s.out.Kind, s.out.Session = wire.KindBye, m.Session
	if m.Kind == wire.KindSpectate {
		s.out.Kind, s.out.Cutoff, s.out.DropFlags = wire.KindDropped, wire.NoTick, why
	}
	s.answer(p, &s.out)
}

// answer sends m to the sender of p, which is no peer's: a handshake's answer.
func (s *Session[I]) answer(p *packet, m *wire.Message) {
	b, err := wire.Append(s.sendBuf[:0], m)
	if err != nil {
		return
	}
	if s.tr.send(b, p.addr, netip.AddrPortFrom(p.ap.Addr().Unmap(), p.ap.Port())) != nil {
		s.stats.SendErrors++
		return
	}
	s.stats.PacketsSent++
	s.stats.BytesSent += uint64(len(b))
}

// peerOf returns the peer or spectator that sent p, or nil.
func (s *Session[I]) peerOf(p *packet) *peer {
	if pr := findPeer(s.peers, p); pr != nil || len(s.spectators) == 0 {
		return pr
	}
	return findPeer(s.spectators, p)
}

// findPeer returns the one of peers that sent p, or nil.
func findPeer(peers []*peer, p *packet) *peer {
	for _, pr := range peers {
		if p.ap.IsValid() {
			if pr.ap.IsValid() && netip.AddrPortFrom(p.ap.Addr().Unmap(), p.ap.Port()) == pr.ap {
				return pr
			}
			continue
		}
		if sameAddr(p.addr, pr.addr) {
			return pr
		}
	}
	return nil
}

// handle handles a message from pr; it reports false for one to drop.
func (s *Session[I]) handle(pr *peer, m *wire.Message) bool {
	if pr.spectator && m.Kind == wire.KindSpectate {
		m.Kind = wire.KindSyncRequest // a spectator's handshake is a player's, but for its kind
	}
	switch m.Kind {
	case wire.KindSyncRequest:
		if pr.session != 0 && m.Session != pr.theirNonce {
			return false // another session of that peer: a stale packet, or it restarted
		}
		pr.theirNonce = m.Session
		pr.lastHeard, pr.heardAt = s.awake, s.now
		s.out = wire.Message{}
		s.out.Kind, s.out.Nonce = wire.KindSyncReply, m.Nonce
		s.send(pr, &s.out)
		return true
	case wire.KindSyncReply:
		if pr.session != 0 && m.Session != pr.theirNonce || m.Nonce == 0 {
			return false
		}
		if pr.syncDone >= syncRoundTrips {
			return true // a late reply to a request sent again
		}
		// A reply to any request still unanswered: on a link whose round trip is longer
		// than the retry, the reply to a request comes after the next is sent.
		i := slices.Index(pr.syncNonces[:], m.Nonce)
		if i < 0 {
			// A reply to a request too old to be remembered, if it is from the peer's
			// session; else a stray.
			return pr.theirNonce != 0 && m.Session == pr.theirNonce
		}
		pr.syncNonces[i] = 0
		pr.theirNonce = m.Session
		pr.syncDone++
		pr.lastHeard, pr.heardAt = s.awake, s.now
		if pr.syncDone < syncRoundTrips {
			s.event(Event{Kind: EventSynchronizing, Handle: pr.first, Count: pr.syncDone, Total: syncRoundTrips})
			s.syncRequest(pr)
			return true
		}
		pr.session = wire.SessionID(pr.nonce, pr.theirNonce)
		pr.state = peerRunning
		if pr.spectator {
			return true // a spectator of this peer's: no event, nothing waits for it
		}
		s.event(Event{Kind: EventSynchronized, Handle: pr.first})
		if !s.running {
			s.running = true
			for _, p := range s.peers {
				if p.state == peerSyncing {
					s.running = false
				}
			}
			if s.running {
				s.event(Event{Kind: EventRunning})
			}
		}
		return true
	}
	if s.spectating && m.Kind == wire.KindCookie && pr.state == peerSyncing && m.Session == pr.nonce {
		pr.cookie = m.Cookie // the host's proof that this address is ours: ask again with it
		s.syncRequest(pr)
		return true
	}
	if m.Kind == wire.KindBye && pr.state == peerSyncing && m.Session == pr.nonce {
		// The answer to our handshake of a session whose players are all there.
		if s.endErr == nil {
			s.endErr = fmt.Errorf("%w: player %d's peer at %v", ErrRefused, pr.first, pr.addr)
		}
		return true
	}
	if s.spectating && m.Kind == wire.KindDropped {
		s.spectatorDropped(pr, m)
		return true
	}
	if pr.session == 0 && pr.theirNonce != 0 && m.Session == wire.SessionID(pr.nonce, pr.theirNonce) {
		// The peer has finished its handshake before this one: what it sends is sent
		// again once this one has too.
		return true
	}
	if pr.session != 0 && m.Session == pr.session && !pr.spectator && !s.spectating {
		if m.Kind == wire.KindDropped {
			s.noticed(pr, m)
			return true
		}
		if pr.state == peerGone && m.Kind != wire.KindBye {
			s.notice(pr) // it goes on as if in the game: tell it that it is not
		}
	}
	if pr.session == 0 || m.Session != pr.session || pr.state == peerGone {
		return false
	}
	s.heard(pr)
	if pr.spectator {
		return s.handleSpectator(pr, m)
	}
	if s.leaving || pr.kicked && m.Kind != wire.KindBye {
		return true // cut off, or kicked: nothing but that it is still there matters now
	}
	switch m.Kind {
	case wire.KindInput:
		return s.handleInput(pr, m)
	case wire.KindInputAck:
		s.ack(pr, m.AckTick)
	case wire.KindQualityReport:
		pr.aheadRemote = float64(m.TicksAhead)
		s.out = wire.Message{}
		s.out.Kind, s.out.PingSent = wire.KindQualityReply, m.PingSent
		s.send(pr, &s.out)
	case wire.KindQualityReply:
		return s.qualityReply(pr, m)
	case wire.KindChecksumReport:
		t := uint64(m.Tick)
		if s.cfg.DesyncInterval <= 0 || t == 0 || t%uint64(s.cfg.DesyncInterval) != 0 {
			return true
		}
		if q := s.queues[pr.first]; !s.spectating && q.gone && t > q.goneAfter {
			return true // past its players' cutoff: a game we no longer share
		}
		pr.theirSums[(t/uint64(s.cfg.DesyncInterval))%checksumHistory] = checksum{t, m.Sum}
		s.compareSums(pr)
	case wire.KindKeepAlive:
	case wire.KindBye:
		why := ReasonLeft
		if pr.kicked {
			why = "disconnected here"
		}
		s.lose(pr, why)
	case wire.KindKick:
		s.quit(fmt.Errorf("%w: by player %d's peer", ErrKicked, pr.first))
	}
	return true
}

// qualityReply takes the round trip a QualityReply measures; it reports false for one out of
// range (forged, or of a clock that went back).
func (s *Session[I]) qualityReply(pr *peer, m *wire.Message) bool {
	rtt := s.now - time.Duration(m.PingSent)
	if rtt < 0 || rtt > s.cfg.DisconnectTimeout {
		return false
	}
	pr.noteRTT(rtt)
	return true
}

// noteRTT averages a round trip measured into pr's.
func (pr *peer) noteRTT(rtt time.Duration) {
	pr.lastRTT = rtt
	if !pr.haveRTT {
		pr.rtt, pr.haveRTT = rtt, true
	} else {
		pr.rtt += (rtt - pr.rtt) / 8
	}
}

// heard notes that pr was heard from now.
func (s *Session[I]) heard(pr *peer) {
	pr.lastHeard, pr.heardAt = s.awake, s.now
	if pr.interrupted {
		pr.interrupted = false
		s.event(Event{Kind: EventResumed, Handle: pr.first})
	}
}

// ack notes that pr has our inputs up to tick.
func (s *Session[I]) ack(pr *peer, tick int64) {
	if tick > 0 && uint64(tick) > pr.acked && uint64(tick) <= s.localConfirmed() {
		pr.acked = uint64(tick)
	}
}

// handleInput takes the inputs, the acknowledgement and the players' status of an Input.
func (s *Session[I]) handleInput(pr *peer, m *wire.Message) bool {
	if m.Count > 0 && (m.Handles != pr.handles || m.InputSize != s.size) {
		return false // inputs for a handle that is not the sender's
	}
	if m.Players != 0 && m.Players != len(s.queues) {
		return false
	}
	s.ack(pr, m.AckTick)
	// How far the sender has the other players' inputs, the players it has dropped and
	// after which tick, and the peers it has lost or not heard lately (membership.go).
	for h := range m.Players {
		st := m.Status[h]
		q := s.queues[h]
		if s.spectating {
			if s.relay != nil {
				// A relay's late joins: a slot nobody has joined, and the first tick
				// of one joined late.
				if m.Joined[h] > 0 {
					s.joinedLate(h, uint64(m.Joined[h]), pr.recvd)
				}
				if st.Disconnected && st.LastTick == wire.NoTick && m.Joined[h] == 0 {
					s.vacate(h)
					continue
				}
			}
			s.hostStatus(h, st)
			continue
		}
		if q.local && st.Disconnected && s.endErr == nil {
			// It dropped this peer's players: the game goes on without them.
			s.quit(&DroppedError{By: pr.first, Cutoff: st.LastTick})
		}
		if q.local || pr.handles.Has(h) {
			continue
		}
		last := uint64(max(st.LastTick, 0))
		if !st.Disconnected {
			pr.reported[h] = max(pr.reported[h], last)
			continue
		}
		if !pr.dropped.Has(h) || last < pr.dropAfter[h] {
			pr.dropAfter[h] = last
		}
		pr.dropped |= 1 << h
		if q.gone && last < q.goneAfter {
			q.goneAfter = last
		}
	}
	pr.lostBy |= m.Lost
	if int16(m.Seq-pr.quietSeq) > 0 || pr.reportAt == 0 {
		pr.quiet, pr.quietSeq = m.Quiet, m.Seq
		for h := range s.queues {
			if (m.Quiet | m.Lost).Has(h) {
				pr.quietAt[h], pr.hearsSince[h] = s.now, 0
			} else if pr.hearsSince[h] == 0 {
				pr.hearsSince[h] = s.now
			}
		}
	}
	pr.reportAt = s.now
	if m.Kicked != 0 {
		s.kickedBy(pr, m.Kicked)
	}
	if m.Lost&s.local != 0 {
		s.lose(pr, "it lost this peer")
	}
	if m.Count == 0 {
		return true
	}
	start := uint64(m.StartTick)
	if start == 0 {
		return false // ticks count from 1: tick 0 has no input
	}
	end := start + uint64(m.Count) - 1
	if end > s.tick+ring/2 {
		return false // further ahead than any peer can run: not a peer's inputs
	}
	if end > pr.newest {
		pr.newest, pr.newestAt = end, s.now
	}
	c := pr.recvd
	if end <= c || start > c+1 {
		return true // nothing new, or a gap (it resends from our ack)
	}
	// The reference: the tick before the first, as we have it; zeros from a relay.
	ref := s.refBuf[:0]
	for h, q := range s.queues {
		if pr.handles.Has(h) {
			ref = append(ref, q.raw[((start-1)%ring)*uint64(s.size):][:s.size]...)
		}
	}
	if s.relay != nil {
		ref = s.relay.zeroRef
	}
	var err error
	s.unpacked, err = m.UnpackInputs(s.unpacked[:0], ref)
	if err != nil {
		return false
	}
	stride := pr.handles.Len() * s.size
	for t := c + 1; t <= end; t++ {
		tickBytes := s.unpacked[int(t-start)*stride:][:stride]
		k := 0
		for h, q := range s.queues {
			if !pr.handles.Has(h) {
				continue
			}
			raw := q.raw[(t%ring)*uint64(s.size):][:s.size]
			copy(raw, tickBytes[k*s.size:][:s.size])
			q.in[t%ring] = s.codec.Get(raw)
			if !q.gone || t <= q.goneAfter {
				q.confirmed = t
			}
			k++
		}
	}
	pr.recvd = end
	return true
}

// resendAfter is how long after it was first sent a tick not acknowledged by pr is taken
// for lost: a round trip and two ticks at 60 Hz (sooner would send more, later would leave a
// peer that lost packets in a row stalled longer); until a round trip is measured, at once.
func (pr *peer) resendAfter() time.Duration {
	if !pr.haveRTT {
		return 0
	}
	return pr.rtt + 2*time.Second/60
}

// quiet returns the players whose peer, not lost, has not been heard from for the notice.
func (s *Session[I]) quiet() wire.HandleSet {
	var q wire.HandleSet
	for _, pr := range s.peers {
		if pr.state == peerRunning && pr.interrupted {
			q |= pr.handles
		}
	}
	return q
}

// byeCopies is how many copies of a goodbye go at once: all are lost on a link that loses 20%
// of its packets once in 125.
const byeCopies = 3

// sayBye tells every peer still heard that this one is leaving, in
// byeCopies copies of it: a goodbye lost costs the others a timeout's wait, and a game that
// ends on the error may send no other.
func (s *Session[I]) sayBye() {
	for _, pr := range s.peers {
		if pr.state == peerRunning {
			for range byeCopies {
				s.out = wire.Message{}
				s.out.Kind = wire.KindBye
				s.send(pr, &s.out)
			}
		}
	}
}

// timers runs the protocol's timers: handshake retries, disconnection, quality reports,
// keep-alives and resends.
func (s *Session[I]) timers() {
	if s.leaving {
		// Cut off: only goodbyes, until the peers still heard stop answering (a goodbye
		// may be lost).
		for _, pr := range s.peers {
			if pr.state == peerRunning && s.now-pr.lastSent >= keepAliveInterval {
				if s.awake-pr.lastHeard >= s.cfg.DisconnectTimeout {
					s.lose(pr, fmt.Sprintf("unheard for %v", s.cfg.DisconnectTimeout))
					continue
				}
				s.out = wire.Message{}
				s.out.Kind = wire.KindBye
				s.send(pr, &s.out)
			}
		}
		return
	}
	for _, pr := range s.peers {
		switch pr.state {
		case peerSyncing:
			if !pr.syncStarted || s.now-pr.syncSentAt >= syncRetry {
				pr.syncStarted = true
				s.syncRequest(pr)
			}
			continue
		case peerGone:
			// Lost for its silence, or kicked: tell it, again and again for a timeout,
			// in case it is alive and hears us while we do not hear it.
			if (pr.timedOut || pr.kicked) && s.now-pr.lostAt < s.cfg.DisconnectTimeout {
				s.notice(pr)
			}
			continue
		}
		if !s.running {
			// Synchronized with pr but not yet with every peer: pr may be running
			// already, and would take this one for gone if it heard nothing.
			if s.now-pr.lastSent >= keepAliveInterval {
				s.out = wire.Message{}
				s.out.Kind = wire.KindKeepAlive
				s.send(pr, &s.out)
			}
			continue
		}
		silent := s.awake - pr.lastHeard
		if silent >= s.cfg.DisconnectTimeout {
			pr.timedOut = true
			s.lose(pr, fmt.Sprintf("unheard for %v", s.cfg.DisconnectTimeout))
			s.notice(pr)
			continue
		}
		if silent >= s.cfg.DisconnectNotice && !pr.interrupted {
			pr.interrupted = true
			s.event(Event{Kind: EventInterrupted, Handle: pr.first, Timeout: s.cfg.DisconnectTimeout - silent})
		}
		if s.now-pr.lastQuality >= qualityInterval {
			pr.lastQuality = s.now
			s.out = wire.Message{}
			s.out.Kind = wire.KindQualityReport
			s.out.TicksAhead = int32(math.Round(pr.aheadLocal))
			s.out.PingSent = int64(s.now)
			s.send(pr, &s.out)
			// The last checksum once more, in case the first was lost.
			if last := s.ourSums[(s.finalDone/uint64(max(s.cfg.DesyncInterval, 1)))%checksumHistory]; s.cfg.DesyncInterval > 0 && last.tick > pr.sumResent {
				pr.sumResent = last.tick
				s.sendChecksum(pr, last.tick, last.sum)
			}
		}
		// An Input at least every keepAliveInterval, even while nothing else moves (a
		// quality report keeps the peer from timing out, but only an Input carries what
		// this peer hears, which the membership agreement waits for).
		if s.now-pr.lastSent >= keepAliveInterval || s.now-pr.lastInput >= keepAliveInterval {
			s.sendInput(pr)
		}
	}
}

// timeSync updates each peer's ticks-ahead estimate and the recommended time scale. Advance
// calls it once a call, whether the tick runs or is skipped, so that the estimate is averaged
// over ticks of the loop.
func (s *Session[I]) timeSync() {
	if !s.running || s.spectating {
		return
	}
	worst := 0.0
	for _, pr := range s.peers {
		if pr.state != peerRunning || pr.newestAt == 0 && pr.newest == 0 {
			continue
		}
		// Where the peer is now: its newest tick, moved on by the time since it was sent
		// (half a round trip before it arrived).
		since := s.now - pr.newestAt + pr.rtt/2
		theirs := float64(pr.newest) + since.Seconds()*float64(s.cfg.TickRate)
		sample := float64(s.tick) - theirs
		if !pr.haveAhead {
			pr.aheadLocal, pr.haveAhead = sample, true
		} else {
			pr.aheadLocal += (sample - pr.aheadLocal) / aheadSamples
		}
		worst = max(worst, pr.advantage())
	}
	scale := 1.0
	if worst > aheadDeadZone {
		// In steps of a thousandth, so that a loop following it is not given a new scale
		// at every tick for a difference nobody would see.
		scale = max(MinTimeScale, math.Round((1-scalePerTick*(worst-aheadDeadZone))*1000)/1000)
	}
	s.timeScale = scale
}

// syncRequest sends pr a handshake request with a fresh nonce.
func (s *Session[I]) syncRequest(pr *peer) {
	pr.syncNonce = (pr.syncNonce*1664525 + 1013904223 ^ pr.nonce) | 1
	copy(pr.syncNonces[:], pr.syncNonces[1:])
	pr.syncNonces[len(pr.syncNonces)-1] = pr.syncNonce
	pr.syncSentAt = s.now
	s.out = wire.Message{}
	s.out.Kind, s.out.Nonce = wire.KindSyncRequest, pr.syncNonce
	if s.spectating {
		s.out.Kind, s.out.Cookie = wire.KindSpectate, pr.cookie
	}
	s.send(pr, &s.out)
}

// sendInputs sends every running peer the local inputs it has not acknowledged, or the
// acknowledgement of its inputs if that has moved on, or the players' status if that has.
func (s *Session[I]) sendInputs() {
	last := s.localConfirmed()
	for _, pr := range s.peers {
		if pr.state == peerRunning && !pr.kicked && (pr.acked < last || pr.lastAckSent != s.peerConfirmed(pr) || s.statusMoved(pr) || pr.lostSent != s.lost || pr.quietSent != s.quiet()) {
			s.sendInput(pr)
		}
	}
}

// statusMoved reports whether the players' status has changed since it was last sent to pr.
func (s *Session[I]) statusMoved(pr *peer) bool {
	for h, q := range s.queues {
		if last := pr.statusSent[h]; last.LastTick != int64(q.status()) || last.Disconnected != q.gone {
			return true
		}
	}
	return false
}

// peerConfirmed returns the last tick up to which we have the inputs of pr's players.
func (s *Session[I]) peerConfirmed(pr *peer) uint64 { return pr.recvd }

// sendInput sends pr our inputs it has not acknowledged, its acknowledgement and the players'
// status.
func (s *Session[I]) sendInput(pr *peer) {
	m := &s.out
	*m = wire.Message{}
	m.Kind = wire.KindInput
	m.Handles = s.local
	m.InputSize = s.size
	m.AckTick = wire.NoTick
	if c := s.peerConfirmed(pr); c > 0 {
		m.AckTick = int64(c)
	}
	pr.lastAckSent = s.peerConfirmed(pr)
	pr.lastInput = s.now
	if len(s.peers) > 1 {
		// The players' status is for a third peer's: between two peers it says nothing
		// the ack and the inputs do not.
		m.Players = len(s.queues)
		for h, q := range s.queues {
			m.Status[h] = wire.PlayerStatus{Disconnected: q.gone, LastTick: int64(q.status())}
			pr.statusSent[h] = m.Status[h]
		}
	}
	m.Lost, m.Quiet, m.Kicked = s.lost, s.quiet(), s.kicked
	pr.lostSent, pr.quietSent = m.Lost, m.Quiet
	last := s.localConfirmed()
	start := pr.acked + 1
	// The newest inputRedundancy ticks, each sent that many times so that a lost packet
	// costs nothing; every tick not acknowledged only once the oldest is overdue (lost in
	// more packets in a row, the peer drops the packets after the gap until it is filled).
	if last >= start+inputRedundancy && s.now-s.sentAt[start%ring] < pr.resendAfter() {
		start = last + 1 - inputRedundancy
	}
	m.StartTick = int64(start)
	if last >= start {
		ticks := min(last-start+1, wire.MaxTicksPerInput)
		stride := s.nlocal * s.size
		raw := s.rawBuf[:0]
		ref := s.refBuf[:0]
		for t := start - 1; t < start+ticks; t++ {
			for _, q := range s.queues {
				if q.local {
					b := q.raw[(t%ring)*uint64(s.size):][:s.size]
					if t == start-1 {
						ref = append(ref, b...)
					} else {
						raw = append(raw, b...)
					}
				}
			}
		}
		if _, err := m.PackInputs(ref[:stride], raw); err != nil {
			s.stats.SendErrors++
			return
		}
	}
	s.send(pr, m)
}

// sendChecksum sends pr our checksum of tick.
func (s *Session[I]) sendChecksum(pr *peer, tick, sum uint64) {
	if pr.state != peerRunning {
		return
	}
	s.out = wire.Message{}
	s.out.Kind, s.out.Tick, s.out.Sum = wire.KindChecksumReport, int64(tick), sum
	s.send(pr, &s.out)
}

// send sends m to pr, with its header filled in.
func (s *Session[I]) send(pr *peer, m *wire.Message) {
	switch m.Kind {
	case wire.KindSyncRequest, wire.KindSyncReply, wire.KindSpectate, wire.KindJoin:
		m.Session = pr.nonce
	default:
		m.Session = pr.session
	}
	pr.seq++
	m.Seq = pr.seq
	b, err := wire.Append(s.sendBuf[:0], m)
	if err != nil {
		s.stats.SendErrors++
		return
	}
	if err := s.tr.send(b, pr.addr, pr.ap); err != nil {
		s.stats.SendErrors++
		return
	}
	pr.lastSent = s.now
	s.stats.PacketsSent++
	s.stats.BytesSent += uint64(len(b))
	pr.stats.PacketsSent++
	pr.stats.BytesSent += uint64(len(b))
}
