package netplay

// Who is still in the game, and the tick after which a player who is not stops: the agreement
// that keeps every peer that still hears another in the same game when peers vanish or links
// between them fail.
//
// Terms. A peer loses another when it stops hearing it for good: unheard for the timeout, it
// said it was leaving (Bye), or it reports having lost this peer (a link cut one way is cut
// both ways). A lost peer's packets are ignored from then on, so a loss is never undone. A
// peer drops a player (marks it disconnected after a tick) only when every peer it still hears
// has lost that player's peer too, as those peers report themselves (Input.Lost): a peer that
// crashed is lost by everyone within the timeout's spread, and only then does anyone drop it.
//
// The cutoff. A peer that drops player X proposes the last tick of X's input it has; every
// peer takes the least tick proposed that reaches it (its own included), and reports it. So
// every peer ends at T = the least proposal. T is never below a tick some peer has already
// made final:
//
//   - a tick is final here only once it is at or below what every peer not dropped reports
//     having of X (reported), a peer lost but not yet dropped counting with what it last
//     reported; each proposal is its proposer's input of X when it dropped X, at least what
//     it ever reported having;
//   - once X is dropped here, ticks count as final only up to our cutoff for X, and still no
//     further than the others report having of X, until every
//     peer not dropped has reported dropping X too (settled): by then every proposal made by
//     a peer we still count has reached us, and a dropped peer's proposals reach us inside
//     the reports that told us it was lost (a peer reports its losses after taking what the
//     lost peer sent, and ignores it from then on).
//
// So a final tick never runs again with X's input turned Disconnected, and every peer that
// keeps playing runs every tick after T with X disconnected: the same game.
//
// Cut links. If a peer loses one that a peer it still hears does not lose (and is not about to:
// it reports hearing it lately, Input.Quiet), a link between the two is cut while both are
// alive: they cannot both stay, or the one in the middle would have to play two games. Of the
// two ends, the one with the higher handle leaves: its session ends (ErrCutOff) and it says
// goodbye, so the peers that hear it lose it at once; then everyone drops it as above, and the
// game goes on among the peers that all hear each other. Every cut link costs the game one of
// its two ends, the one with the higher handle, whatever side of the cut it is on.

import (
	"errors"
	"fmt"
	"math"

	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// ErrCutOff: this peer lost a peer that the other peers still hear (a link between two live
// peers failed), and left the game to them, as the end of the cut link with the higher
// handle does. The error that wraps it names the peer lost.
var ErrCutOff = errors.New("netplay: cut off from the game")

// ReasonLeft is the Reason of an EventDisconnected for a player whose peer said it was
// leaving (it closed its session), and of a HostLostError for a host that did; the other
// reasons ("unheard for 2s", "it lost this peer") are for a peer that stopped answering.
const ReasonLeft = "it left"

// lose notes that pr will never be heard again, for the reason why.
func (s *Session[I]) lose(pr *peer, why string) {
	if pr.state == peerGone {
		return
	}
	pr.state = peerGone
	pr.interrupted = false
	pr.lostAt, pr.lostWhy = s.now, why
	pr.left = why == ReasonLeft || pr.kicked
	pr.stats.Status = Disconnected
	s.lost |= pr.handles
	if s.spectating {
		s.spectatorLost(why)
	}
}

// membership drops the players of every peer that all the peers still heard have lost, and
// leaves the game if a link to a peer with a lower handle is cut while others still hear it.
// Poll calls it after taking what has arrived.
func (s *Session[I]) membership() {
	if s.leaving {
		return
	}
	for _, pr := range s.peers {
		if pr.state != peerGone || s.queues[pr.first].gone {
			continue
		}
		all, heard := true, false
		for _, k := range s.peers {
			if k.state != peerRunning || k.lostBy.Has(pr.first) {
				continue
			}
			all = false
			if s.hears(k, pr) {
				heard = true
			}
		}
		switch {
		case pr.left && !all:
			// It said goodbye to every peer, or was kicked: the others lose it too, on
			// hearing that or once it is unheard for the timeout, however late. Not a
			// cut link.
		case all:
			for h, q := range s.queues {
				if pr.handles.Has(h) && !q.gone {
					s.disconnectPlayer(h, pr.lostWhy)
				}
			}
			// Tell it, with the cutoff, in case it is alive and still hears us.
			pr.noticeAt = 0
			s.notice(pr)
		case heard && pr.first < s.first:
			s.leave(pr)
			return
		}
	}
}

// hears reports whether peer k hears pr, which we lost, while we do not: the link between pr
// and us failed, pr being alive. Either k's reports had pr heard all along since we last heard
// it, up to one sent well after we lost pr (a peer that crashed or stalled goes quiet at k
// too), or k has heard pr steadily for a timeout since we lost it: pr came back from a stall
// and stays, so that our notices do not reach it.
func (s *Session[I]) hears(k, pr *peer) bool {
	h := pr.first
	if k.quiet.Has(h) || k.hearsSince[h] == 0 {
		return false
	}
	if k.reportAt >= pr.lostAt+s.cfg.DisconnectNotice && k.quietAt[h] < pr.heardAt {
		return true
	}
	return s.now-max(k.hearsSince[h], pr.lostAt) >= s.cfg.DisconnectTimeout
}

// silentToAll reports whether pr, lost for being unheard, went quiet at every peer we still
// hear too since we last heard it: it stalled, or its network did, and no link failed.
func (s *Session[I]) silentToAll(pr *peer) bool {
	if !pr.timedOut {
		return false
	}
	for _, k := range s.peers {
		if k.state == peerRunning && !k.lostBy.Has(pr.first) && k.quietAt[pr.first] < pr.heardAt {
			return false
		}
	}
	return true
}

// notice tells pr, a peer we lost, that we did (KindDropped): with the tick after which we
// dropped its players once we have, and why. It goes at once, and then at most once every
// keepAliveInterval, in answer to what pr still sends.
func (s *Session[I]) notice(pr *peer) {
	if pr.session == 0 || pr.left && !pr.kicked || s.leaving {
		return // it left, or we are leaving: nothing to tell
	}
	if pr.noticeAt != 0 && s.now-pr.noticeAt < keepAliveInterval {
		return
	}
	pr.noticeAt = max(s.now, 1)
	s.out = wire.Message{}
	s.out.Kind, s.out.Cutoff = wire.KindDropped, wire.NoTick
	if q := s.queues[pr.first]; q.gone {
		s.out.Cutoff = int64(q.goneAfter)
	}
	if pr.kicked {
		s.out.DropFlags |= wire.DroppedKicked
	}
	if s.silentToAll(pr) {
		s.out.DropFlags |= wire.DroppedSilent
	}
	s.send(pr, &s.out)
}

// noticed takes pr's notice that it lost this peer: a kick, a drop (its players went on
// without ours), or a link that failed towards it, which fails both ways. A notice from a
// peer kicked is ignored.
func (s *Session[I]) noticed(pr *peer, m *wire.Message) {
	if s.leaving || pr.kicked {
		return // a peer disconnected by hand has no say
	}
	switch {
	case m.DropFlags&wire.DroppedKicked != 0:
		s.quit(fmt.Errorf("%w: by player %d's peer", ErrKicked, pr.first))
	case m.DropFlags&wire.DroppedSilent != 0 || m.Cutoff != wire.NoTick:
		s.quit(&DroppedError{By: pr.first, Cutoff: m.Cutoff, Silent: m.DropFlags&wire.DroppedSilent != 0})
	default:
		s.lose(pr, "it lost this peer")
	}
}

// kickedBy takes pr's report that it disconnected the players of set by hand: their peers
// are lost here too, and this peer leaves if they are its own.
func (s *Session[I]) kickedBy(pr *peer, set wire.HandleSet) {
	if set&s.local != 0 {
		s.quit(fmt.Errorf("%w: by player %d's peer", ErrKicked, pr.first))
		return
	}
	for _, x := range s.peers {
		if x != pr && x.handles&set != 0 && !x.kicked {
			x.kicked = true
			s.kicked |= x.handles
			s.lose(x, fmt.Sprintf("disconnected by player %d's peer", pr.first))
		}
	}
}

// quit ends this peer's part in the game with err (the first error stays): Advance returns
// it from now on, and the peers still heard are told goodbye until they stop being.
func (s *Session[I]) quit(err error) {
	if s.endErr == nil {
		s.endErr = err
	}
	if !s.leaving {
		s.leaving = true
		s.sayBye()
	}
}

// leave ends this peer's part in the game, cut off from pr: Advance returns ErrCutOff from
// now on, and the peers still heard are told goodbye until they stop being.
func (s *Session[I]) leave(pr *peer) {
	s.quit(fmt.Errorf("%w: lost player %d's peer (%s), which the others still hear", ErrCutOff, pr.first, pr.lostWhy))
}

// disconnectPlayer marks handle h disconnected after the least tick proposed: the last of its
// input here, or less as a peer reported.
func (s *Session[I]) disconnectPlayer(h int, why string) {
	q := s.queues[h]
	last := q.confirmed
	for _, pr := range s.peers {
		if pr.dropped.Has(h) {
			last = min(last, pr.dropAfter[h])
		}
	}
	q.gone, q.goneAfter = true, last
	s.event(Event{Kind: EventDisconnected, Handle: h, Tick: last, Reason: why})
	if s.cfg.EndOnDisconnect && s.endErr == nil {
		s.endErr = fmt.Errorf("%w: player %d (%s), after tick %d", ErrDisconnected, h, why, last)
	}
}

// droppedPeer reports whether pr's players are dropped here.
func (s *Session[I]) droppedPeer(pr *peer) bool { return s.queues[pr.first].gone }

// settled reports whether the cutoff of dropped player h is final: every peer not dropped has
// reported dropping h, so every proposal that can lower it has arrived.
func (s *Session[I]) settled(h int) bool {
	for _, pr := range s.peers {
		if !pr.handles.Has(h) && !s.droppedPeer(pr) && !pr.dropped.Has(h) {
			return false
		}
	}
	return true
}

// reported returns the least tick up to which the peers not dropped, other than its own,
// report having remote player h's input (MaxUint64 if there are none): a peer lost but not
// yet dropped counts with what it last reported, a peer that reports h dropped with its cutoff.
func (s *Session[I]) reported(h int) uint64 {
	c := uint64(math.MaxUint64)
	for _, pr := range s.peers {
		if pr.handles.Has(h) || s.droppedPeer(pr) {
			continue
		}
		v := pr.reported[h]
		if pr.dropped.Has(h) {
			v = min(v, pr.dropAfter[h])
		}
		c = min(c, v)
	}
	return c
}

// confirmed returns the last tick whose inputs are all known and final: no later change can
// make a tick up to it run again. A remote player's input counts as known only as far as
// every peer not dropped reports having it too, and a dropped player's only up to its cutoff
// until that is settled (see the top of this file).
func (s *Session[I]) confirmed() uint64 {
	if s.relay != nil && !s.spectating {
		return s.relay.confirmed // the relay decides
	}
	c := s.known()
	// And our own players' input only as far as every peer not dropped has it: no peer then
	// makes final a tick past the cutoff the others may agree for its players.
	for _, pr := range s.peers {
		if s.nlocal > 0 && !s.droppedPeer(pr) {
			c = min(c, pr.acked)
		}
	}
	return c
}

// known returns the last tick whose inputs are all known here and can no longer change: that
// of confirmed but for the peers' acknowledgements of our own input. The prediction window
// counts from it (limit).
func (s *Session[I]) known() uint64 {
	c := uint64(math.MaxUint64)
	for h, q := range s.queues {
		if q.gone {
			if !s.settled(h) {
				// A proposal still to come is at least what its proposer reported.
				c = min(c, q.goneAfter, s.reported(h))
			}
			continue
		}
		c = min(c, q.confirmed)
		if !q.local {
			c = min(c, s.reported(h))
		}
	}
	return c
}

// limit returns the tick the prediction window counts from: the last tick whose inputs are
// all known here, held back to depth - window past the last final tick, so that a rollback
// to the cutoff of a player dropped later stays within the depth kept.
func (s *Session[I]) limit() uint64 {
	if s.relay != nil && !s.spectating {
		return s.relay.confirmed
	}
	c := uint64(math.MaxUint64)
	for _, q := range s.queues {
		if !q.gone {
			c = min(c, q.confirmed)
		}
	}
	if final, extra := s.known(), uint64(s.depth-s.window); final <= math.MaxUint64-extra {
		c = min(c, final+extra)
	}
	return c
}
