// Package netplay runs one deterministic game on several machines with rollback: each player's
// input is applied at once on the machine it comes from, the others' inputs are predicted until
// they arrive, and when a prediction proves wrong the game goes back to the last tick whose
// inputs were all right and plays the ticks since again with the real ones. It is the technique
// of GGPO and GGRS, for 2 to 8 players over any net.PacketConn (UDP by default).
//
// # Sessions
//
// Three kinds of session, run the same way (Advance, and the requests it returns):
//
//   - NewSession: a player's, with the players in the same order on every peer, some local
//     to this machine; it predicts the others' inputs and rolls back. With Config.Spectators
//     it also hosts spectators.
//   - NewSpectator: a spectator's, of a game hosted by a player's peer: it receives every
//     player's final inputs, adds none, and runs the game behind the players.
//   - NewSyncTest: a SyncTest, with no network at all; it rolls back every tick and compares
//     checksums, to catch a game's non-determinism before two machines disagree.
//
// With Config.Relay set, a player's session (or a spectator's) plays through a relay (package
// netplay/relay) instead of peer to peer: the relay decides each tick's inputs on its own clock
// and sends every player everyone's; the players still predict and roll back. A game whose
// state encodes (Snapshotter, Config.Snapshots) also shares it with a relay that keeps state
// snapshots, and starts from one when it joins a match late or comes back to it. See
// Config.Relay and docs/relay.md.
//
// # The model
//
// A game is a state advanced in fixed steps (ticks, counted from 1; tick 0 is the state the game
// starts in) by every player's input for that tick. A player's input is a small fixed-size value
// of a type I that the game defines (a bit set of buttons, a stick position), encoded to bytes by
// a Codec. Every peer runs the same simulation from the same inputs, so every peer reaches the
// same state; nothing else crosses the network.
//
// Each tick the game adds its local players' input (AddLocalInput) and calls Advance, which
// returns requests to carry out in order, as GGRS does, rather than calling the game back (here
// with 10 slots, tick 44 run while the input of tick 41 proved mispredicted):
//
//	Load{Tick: 40, Slot: 0}        go back to the state saved after tick 40
//	Advance{Tick: 41, Inputs: …}   run tick 41 with these inputs (each Confirmed, Predicted or Disconnected)
//	Save{Tick: 41, Slot: 1}        save the state after tick 41 in slot 1, and set Checksum
//	…
//	Advance{Tick: 44, Inputs: …}   the new tick
//	Save{Tick: 44, Slot: 4}
//
// The game keeps its saved states itself, in Slots() numbered slots (an array of its state
// type, say): it knows best how to copy its state, and no state crosses an interface or an
// allocation. The session asks for a save after every tick it runs and for a load only of a tick
// still held, so slot numbers are reused round-robin (tick mod Slots). A Save request is
// answered by writing the game's checksum into the request (reqs[i].Checksum = sum); the session
// reads it on the next call, and compares the checksums of confirmed ticks with the other peers'
// to detect a desync. The Run helper and the NewLoopGame adapter do all of this for a game that
// implements Game.
//
// # Prediction, delay and the window
//
// An input that has not arrived is predicted to be the player's last input seen: most inputs
// repeat from one tick to the next, so most predictions are right and most ticks roll nothing
// back. InputDelay schedules local input that many ticks later, which gives it time to arrive
// before it is needed (fewer and shorter rollbacks) at the cost of that much latency felt by the
// local player. PredictionWindow bounds how many ticks a peer may run past the last tick whose
// inputs it has all: beyond it Advance returns ErrPredictionThreshold and the game skips the tick,
// which bounds both the cost of a rollback and the slots held. Lockstep waits for every input
// (a window of 0): no rollback ever, at the cost of a stall whenever an input is late.
//
// # Time sync
//
// Peers that start at different times, or whose clocks run at slightly different rates, drift
// apart in ticks; the one ahead then predicts more and rolls back further. Each peer estimates
// how many ticks it runs ahead of each other peer, from the ticks it receives and half the round
// trip, and TimeScale recommends a slightly slower loop (down to MinTimeScale) while it is ahead.
// The loop applies it (Loop.SetTimeScale): the peer ahead runs a little slower until it is level,
// rather than freezing frames.
//
// # The protocol
//
// Peers first synchronise: several round trips of a random nonce, retried every 200 ms, so that
// a stale packet from an earlier game cannot pass for this one. Then each peer sends its local
// inputs, every one not yet acknowledged in each packet (compressed against the last
// acknowledged input), until the other acknowledges them; quality reports (round trip, ticks
// ahead) and keep-alives every 200 ms; and, every DesyncInterval confirmed ticks, a checksum.
// A peer unheard for DisconnectNotice raises EventInterrupted, and EventResumed when it is
// heard again; unheard for DisconnectTimeout, or once it says goodbye (Close), it is lost for
// good. Its players are disconnected (EventDisconnected) once every peer still heard has lost
// it too, and the game goes on with their input marked Disconnected after a tick the peers
// agree on, or ends, as Config.EndOnDisconnect says.
//
// # Peers leaving
//
// Every peer that keeps playing runs the same game, whichever peers vanish and in whatever
// order: the tick after which a vanished player's input stops is the least of the last ticks
// of it the remaining peers hold, and no peer makes a tick final (Stats.Confirmed) while a
// disconnection still being agreed could reach back before it. When the link between two peers
// fails while both still reach others, the two cannot both stay (a peer hearing both would
// have to play two games): the one with the higher handle leaves the game, its Advance
// returning an error wrapping ErrCutOff, and the others drop it as they drop a peer that
// vanished. docs/netplay.md gives the argument and the tests.
// Packets from an address that is not a peer, malformed packets and inputs for a handle that is
// not the sender's are dropped and counted (Stats). Everything is driven by the time the caller
// passes in (Poll, Advance): a session reads no clock, so tests run minutes of play on
// simulated time in milliseconds.
//
// # Determinism
//
// Rollback works only if the simulation is a pure function of its state and the inputs: no map
// iteration order, no clock, no goroutines, no randomness but a generator kept in the state, and
// care with floats (see docs/netplay.md). A SyncTest session, which needs no network, rolls back
// every tick and compares checksums, so that a game's hidden non-determinism is caught at the
// tick it happens, before it becomes a desync between two machines.
//
// A desync that happens anyway is reported (EventDesync) with the tick and both checksums; with
// Config.Record each peer writes a recording of its confirmed inputs and checksums (package
// replay), which ReplayGame plays back to find the first tick where two peers, or two builds,
// went apart.
package netplay
