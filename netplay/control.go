package netplay

import (
	"fmt"

	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// What a game may change or ask of a running session besides its ticks: the input delay, a
// player disconnected by hand, the players' handles, the checksums of final ticks.

// SetInputDelay changes the input delay, 0 to MaxInputDelay, from the next call of Advance
// (GGPO's set_frame_delay). A longer delay leaves ticks without a local input: the local
// players' last input is repeated for them, so that the tick the next input lands on follows
// the last one scheduled with no gap. A shorter delay finds its ticks already scheduled: the
// local inputs added until the game catches up with them (as many ticks as the delay shrank)
// are dropped, and the ticks keep the inputs scheduled before. Either way the peers see a
// player's inputs as they were scheduled: a change of delay needs no agreement. In lockstep
// through a relay, delay is the least the session takes: it keeps its own at least the round
// trip to the relay (see Config.Lockstep).
func (s *Session[I]) SetInputDelay(delay int) error {
	if delay < 0 || delay > MaxInputDelay {
		return fmt.Errorf("netplay: SetInputDelay(%d): the delay must be 0 to %d", delay, MaxInputDelay)
	}
	s.delay = delay
	if s.relay != nil && s.cfg.Lockstep {
		s.relay.minDelay = delay
		if s.relay.heardTick {
			s.relayLockstepDelay()
		}
	}
	return nil
}

// InputDelay returns the input delay now: in lockstep through a relay, the one the session
// chose (see Config.Lockstep).
func (s *Session[I]) InputDelay() int { return s.delay }

// DisconnectPlayer disconnects remote player handle by hand (GGRS's disconnect_player), with
// every other player on its machine: this peer tells that one to leave the game (its Advance
// returns an error wrapping ErrKicked, and it says goodbye to every peer) and stops taking its
// inputs. The players are then dropped as when a peer leaves: every peer marks their input
// Disconnected after the same tick (see the package documentation). A peer that does not
// answer is lost at the disconnect timeout, as one that vanished.
func (s *Session[I]) DisconnectPlayer(handle int) error {
	if handle < 0 || handle >= len(s.queues) || s.queues[handle].local {
		return fmt.Errorf("netplay: DisconnectPlayer(%d): not a remote player's handle", handle)
	}
	if s.relay != nil {
		return fmt.Errorf("netplay: DisconnectPlayer(%d): through a relay, only the relay drops players (relay.Relay.Drop)", handle)
	}
	pr := s.peers[s.queues[handle].peer]
	if pr.state != peerRunning || pr.kicked {
		return nil // gone, or going
	}
	pr.kicked = true
	s.kicked |= pr.handles
	defer s.flush()
	s.kick(pr)
	// Lost at once, whether it obeys or not: every peer loses it on hearing of the kick, and
	// it is answered that it was kicked whatever it sends.
	s.lose(pr, "disconnected here")
	return nil
}

// kick tells pr to leave the game.
func (s *Session[I]) kick(pr *peer) {
	s.out = wire.Message{}
	s.out.Kind = wire.KindKick
	s.send(pr, &s.out)
}

// LocalHandles returns the handles of the players local to this machine, in increasing order.
func (s *Session[I]) LocalHandles() []int {
	var hs []int
	for h, q := range s.queues {
		if q.local {
			hs = append(hs, h)
		}
	}
	return hs
}

// RemoteHandles returns the handles of the players on other machines, in increasing order.
func (s *Session[I]) RemoteHandles() []int {
	var hs []int
	for h, q := range s.queues {
		if !q.local {
			hs = append(hs, h)
		}
	}
	return hs
}

// Checksum returns the checksum of the game's state after final tick (at or before
// Stats().Confirmed: it will not run again) as the game gave it on its Save request, and true;
// or false for a tick not final yet, too old to be held (the last few hundred are), or, with
// Config.SparseSaving, not saved.
func (s *Session[I]) Checksum(tick uint64) (uint64, bool) {
	s.takeChecksums()
	if tick > min(s.final, s.tick) || s.tick >= tick+ring-1 || s.savedTick[tick%ring] != tick {
		return 0, false
	}
	return s.sums[tick%ring], true
}
