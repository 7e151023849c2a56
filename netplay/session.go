package netplay

import (
	"net"
	"time"
)

// Session is a rollback session between peers over a net.PacketConn: see the package
// documentation for the model. Make one with NewSession on every peer, with the same players in
// the same order; then, every tick, add the local players' input and Advance, carrying out the
// requests returned (Run does it for a Game; NewLoopGame does all of it from a loop's Update).
//
// A session reads no clock: the time is passed to Poll and Advance, as durations since any
// origin that does not go backwards (Loop.Clock().Now(), say). Its methods must be called from
// one goroutine; in steady state Poll, AddLocalInput and Advance allocate nothing.
//
// If the conn has a method TryReadFrom(p []byte) (n int, addr net.Addr, ok bool) that returns
// at once (the in-memory Conn of package netsim has), the session polls it from Poll and starts
// no goroutine, so that a test on simulated time is deterministic. Otherwise one goroutine reads
// the conn into a fixed ring of buffers, and packets that arrive while the ring is full are
// dropped (and counted) as a full socket buffer would drop them. Close stops it.
type Session[I comparable] struct {
	players []Player
}

// NewSession returns a session of cfg's players over conn, which it reads and writes until
// Close (closing conn too). The handshake starts at the first Poll or Advance.
func NewSession[I comparable](conn net.PacketConn, cfg Config[I]) (*Session[I], error) {
	panic("not yet")
}

// Poll receives what has arrived, runs the protocol's timers (resends, handshake retries,
// quality reports, keep-alives, disconnection) as of now, and sends what is due. Advance polls
// too; call Poll between ticks when the game cannot advance (a paused menu), or more often than
// the tick rate for a lower latency.
func (s *Session[I]) Poll(now time.Duration) {}

// AddLocalInput sets the input of the local player handle for the next tick Advance runs
// (InputDelay ticks later in game time). Calling it again before Advance replaces it; a local
// player with no input added for a tick repeats its last one.
func (s *Session[I]) AddLocalInput(handle int, in I) error { return nil }

// Advance polls (see Poll) and runs the next tick: it returns the requests the game must carry
// out, in order, before the next call: a rollback if a prediction proved wrong (a Load, then
// Advance and Save for each tick played again), then Advance and Save for the new tick. The
// slice and the Inputs it holds are the session's memory, valid until the next call.
//
// It returns ErrNotSynchronized until every peer is synchronized, and ErrPredictionThreshold
// when the new tick would run too far ahead of the inputs received; the game skips the tick
// then, and nothing advances. Once a remote player is disconnected and Config.EndOnDisconnect
// is set, it returns an error wrapping ErrDisconnected; after Close, ErrClosed.
func (s *Session[I]) Advance(now time.Duration) ([]Request[I], error) { return nil, nil }

// Events appends to dst the events that have happened since the last call and returns the
// extended slice.
func (s *Session[I]) Events(dst []Event) []Event { return dst }

// TimeScale returns the time scale the session recommends for the loop: 1, or down to
// MinTimeScale while this peer runs ahead of the others, in proportion to how far.
func (s *Session[I]) TimeScale() float64 { return 1 }

// Slots returns the number of state slots the game needs for Save and Load requests:
// PredictionWindow + 2.
func (s *Session[I]) Slots() int { return 0 }

// Tick returns the last tick run.
func (s *Session[I]) Tick() uint64 { return 0 }

// Stats returns what the session has done so far.
func (s *Session[I]) Stats() Stats { return Stats{} }

// PeerStats returns what is known of the connection to the peer of remote player handle.
func (s *Session[I]) PeerStats(handle int) PeerStats { return PeerStats{} }

// Close tells the peers this one is leaving, ends the recording, if any, stops the reader
// goroutine, if any, and closes the conn.
func (s *Session[I]) Close() error { return nil }
