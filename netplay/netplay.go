package netplay

import (
	"errors"
	"fmt"
	"github.com/gameloop-go/gameloop/netplay/internal/wire"
	"io"
	"net"
	"time"
)

// Defaults for the zero fields of a Config.
const (
	DefaultTickRate         = 60
	DefaultPredictionWindow = 8
	// DefaultRelayPredictionWindow is the prediction window of a session through a relay:
	// a player runs a whole round trip to the relay ahead of the inputs it confirms (its own
	// go there and come back with the others'), twice as far as a peer runs ahead of another.
	DefaultRelayPredictionWindow = 16
	DefaultDisconnectTimeout     = 2 * time.Second
	DefaultDisconnectNotice      = 500 * time.Millisecond
	// DefaultRelayTimeout is the DisconnectTimeout of a session through a relay: longer than
	// the relay's own (5 s by default), so that the relay decides whether a player that went
	// unheard is dropped, and tells it when it comes back.
	DefaultRelayTimeout = 8 * time.Second
	// DefaultDesyncInterval is how many ticks apart peers compare the checksums of confirmed
	// ticks when Config.DesyncInterval is 0: once a second at 60 Hz.
	DefaultDesyncInterval = 60
)

// Limits on Config values.
const (
	// MaxPlayers is the most players a session holds.
	MaxPlayers = 8
	// MaxInputSize is the largest encoded input of one player, in bytes: one tick of every
	// local player's input must fit in a packet that no link fragments.
	MaxInputSize = 32
	// MaxInputDelay is the largest InputDelay.
	MaxInputDelay = 30
	// MaxPredictionWindow is the largest PredictionWindow.
	MaxPredictionWindow = 60
	// MaxMatch is the longest name of a relayed match (Config.Match), in bytes.
	MaxMatch = wire.MaxMatch
	// MaxToken is the longest token (Config.Token), in bytes.
	MaxToken = wire.MaxToken
	// MinTimeScale is the slowest time scale TimeScale recommends: a peer ahead runs at no less
	// than 90% speed while it lets the others catch up.
	MinTimeScale = 0.9
)

// Errors Advance returns; test with errors.Is.
var (
	// ErrPredictionThreshold: the local tick would run more than PredictionWindow ticks past
	// the last tick whose inputs have all arrived (in lockstep, past it at all). Skip this
	// tick: carry out no request, and call Advance again at the next.
	ErrPredictionThreshold = errors.New("netplay: prediction threshold reached, skip this tick")
	// ErrNotSynchronized: the peers are still synchronising; no tick can run yet.
	ErrNotSynchronized = errors.New("netplay: not synchronized yet")
	// ErrDisconnected: a remote player was disconnected and Config.EndOnDisconnect is set.
	// The error that wraps it names the player.
	ErrDisconnected = errors.New("netplay: player disconnected")
	// ErrClosed: the session was closed.
	ErrClosed = errors.New("netplay: session closed")
	// ErrKicked: a remote peer disconnected this one's players by hand
	// (Session.DisconnectPlayer); this peer has left the game.
	ErrKicked = errors.New("netplay: disconnected by another peer")
	// ErrDropped: the other peers dropped this one's players (they stopped hearing it, for
	// a stall of seconds or a network that failed it, and went on without it); this peer has
	// left the game. The error that wraps it is a *DroppedError, which says who told it and
	// after which tick.
	ErrDropped = errors.New("netplay: dropped by the other peers")
	// ErrRefused: a remote player's peer answered the handshake with a refusal: its session
	// does not have this peer among its players (its game is full, or it waits for
	// someone else). The error that wraps it names the player and the address.
	ErrRefused = errors.New("netplay: refused: the peer's game has no place for this one")
)

// DroppedError is the error Advance returns once this peer learns that the others dropped its
// players: it never makes final a tick they ran without them. It wraps ErrDropped.
type DroppedError struct {
	// By is the first handle of the peer that said so; -1 for a relay.
	By int
	// Cutoff is the last tick of this peer's input that peer kept, after which it runs this
	// peer's players as Disconnected; -1 when it had lost this peer but not yet agreed the
	// tick with the others.
	Cutoff int64
	// Silent reports that every peer stopped hearing this one: this one stalled (a
	// background tab, a paused process) or its network did, rather than one link failing.
	Silent bool
}

func (e *DroppedError) Error() string {
	msg := fmt.Sprintf("%v: player %d's peer", ErrDropped, e.By)
	if e.By < 0 {
		msg = fmt.Sprintf("%v: the relay", ErrDropped)
	}
	if e.Cutoff >= 0 {
		msg += fmt.Sprintf(" dropped this one's players after tick %d", e.Cutoff)
	} else {
		msg += " lost this one"
	}
	switch {
	case e.Silent && e.By < 0:
		msg += " (it stopped hearing this one)"
	case e.Silent:
		msg += " (every peer stopped hearing it)"
	}
	return msg
}

// Unwrap returns ErrDropped.
func (e *DroppedError) Unwrap() error { return ErrDropped }

// Status is how sure an input given to the game is.
type Status uint8

const (
	// Confirmed: the player's real input for the tick.
	Confirmed Status = iota
	// Predicted: the input has not arrived; this is the player's last input seen, and the
	// tick will be played again if the real one differs.
	Predicted
	// Disconnected: the player has left the game, or (in a relayed match that takes late
	// joins) has not joined it yet; the input is the zero value of I. A game may let a bot
	// play for the player.
	Disconnected
)

// String returns the status's name.
func (s Status) String() string {
	switch s {
	case Confirmed:
		return "confirmed"
	case Predicted:
		return "predicted"
	case Disconnected:
		return "disconnected"
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// PlayerInput is one player's input for a tick and how sure it is.
type PlayerInput[I comparable] struct {
	Input  I
	Status Status
}

// Player is one player of a session. Its handle is its index in Config.Players: every peer
// must list the same players in the same order, each marking its own as Local.
type Player struct {
	// Local marks a player whose input this machine adds with AddLocalInput.
	Local bool
	// Addr is where a remote player's peer listens; nil for a local player. Several remote
	// players may share an address (two players on one machine).
	Addr net.Addr
}

// Codec encodes a game's input type I to its fixed number of bytes and back. Both methods are
// called every tick and must not allocate. Every byte pattern of Size bytes must decode to
// some input: Get must not fail or panic on bytes a peer sent.
type Codec[I comparable] interface {
	// Size is the length of every encoded input, 1 to MaxInputSize bytes.
	Size() int
	// Put encodes in into dst, which has length Size.
	Put(dst []byte, in I)
	// Get decodes src, which has length Size.
	Get(src []byte) I
}

// Config describes a session. Zero fields take the defaults given; NewSession reports a bad
// value with an error that names the field.
type Config[I comparable] struct {
	// Players are the players, 2 to MaxPlayers, at least one of them local, in the same order
	// on every peer.
	Players []Player

	// Codec encodes inputs; required.
	Codec Codec[I]

	// TickRate is the game's ticks per second, used to turn round-trip times into ticks.
	// 0 means DefaultTickRate.
	TickRate int

	// InputDelay is how many ticks after it is added a local input takes effect, 0 to
	// MaxInputDelay. 0 (the default) makes the game feel the most responsive and rolls back
	// the most; each tick of delay gives remote inputs that much longer to arrive before they
	// are needed, at the cost of that much latency felt (docs/netplay.md has measurements).
	InputDelay int

	// PredictionWindow is how many ticks a peer may run ahead of the last tick whose inputs it
	// has all, 1 to MaxPredictionWindow. 0 means DefaultPredictionWindow. It bounds the
	// rollbacks: a tick costs at most the window's ticks run again (through a relay, 0 means
	// DefaultRelayPredictionWindow, and the window must cover the round trip to the relay
	// and a tick or two more: see docs/relay.md). With three peers or more
	// a peer also runs at most twice the window past what the others report having of each
	// player's input, so that when a peer vanishes, the others can go back to the last tick
	// of its input they all have (rollbacks then reach twice the window, and Slots is twice
	// the window + 2).
	PredictionWindow int

	// Lockstep waits for every input before running a tick: no prediction, no rollback (a
	// prediction window of 0). PredictionWindow must then be 0. Through a relay, whose clock
	// does not wait for late inputs but replaces them, a player runs a tick only once the
	// relay has confirmed it, and its inputs need an input delay of the round trip to the
	// relay to arrive in time: the session takes that delay itself (the round trip, averaged,
	// and two ticks, at most MaxInputDelay; InputDelay reports it), or InputDelay where that
	// is longer.
	Lockstep bool

	// DisconnectTimeout is how long a peer may go unheard before its players are
	// disconnected. 0 means DefaultDisconnectTimeout (DefaultRelayTimeout through a relay,
	// for the relay itself).
	DisconnectTimeout time.Duration

	// DisconnectNotice is how long a peer may go unheard before EventInterrupted is raised.
	// 0 means DefaultDisconnectNotice, or half the timeout if that is shorter; it must be
	// less than DisconnectTimeout.
	DisconnectNotice time.Duration

	// DesyncInterval is how many ticks apart peers send each other the checksum of a confirmed
	// tick (every tick whose number is a multiple of it). 0 means DefaultDesyncInterval; a
	// negative value turns desync detection off.
	DesyncInterval int

	// EndOnDisconnect makes Advance return an error wrapping ErrDisconnected once a remote
	// player is disconnected. By default the game goes on, with that player's input marked
	// Disconnected.
	EndOnDisconnect bool

	// Record, if set, receives a recording (package replay) of the confirmed inputs of every
	// player, as player-input records, and the checksum of every confirmed tick: replayed
	// into a ReplayGame, it reproduces the game as this peer played it, desync included.
	// Close the session to end the recording; it does not close Record.
	Record io.Writer

	// RecordName and RecordMeta go in the recording's header (replay.RecordOptions).
	RecordName string
	RecordMeta []byte

	// Spectators is how many spectators this peer accepts, 0 (the default) to
	// MaxSpectators: each gets the final inputs of every player and runs the game behind
	// them (NewSpectator), joining within the first SpectatorHistory seconds of the game.
	// The inputs are kept for them from the start, SpectatorHistory seconds of every
	// player's, allocated when the session is made (72 KB for two players of 1-byte inputs
	// at 60 Hz). A spectator costs this peer a packet a tick; one that stops answering is
	// dropped after DisconnectTimeout, and nothing it does reaches the players.
	Spectators int

	// spectate makes the session a spectator's (NewSpectator).
	spectate bool

	// SparseSaving makes the session ask the game to save only the states a rollback can
	// go back to, instead of the state after every tick it runs: the state after the last
	// final tick (and the states whose checksums the peers compare, one every
	// DesyncInterval ticks). A rollback then goes back to that state and plays every tick
	// since again: fewer saves, more steps. Choose it for a game whose Save costs more than
	// its Step. Slots is 3. Record cannot be used with it (a recording holds every tick's
	// checksum), and Checksum knows only the ticks saved.
	SparseSaving bool

	// Predict, if set, predicts a remote player's input for a tick whose input has not
	// arrived, from the player's last input received (by default the last input itself is
	// the prediction: buttons held stay held). A game whose inputs change in a known way
	// does better with its own: a stick let go, a button pressed for one tick only. The
	// closer the prediction, the fewer ticks roll back; a wrong one costs a rollback, never
	// a desync. It is called for every player not heard yet at every tick run, and must not
	// allocate or depend on anything but its argument.
	Predict func(last I) I

	// Rand is the source of the handshake's nonces. nil means crypto/rand.
	Rand io.Reader

	// Relay, if set, plays the game through a relay (package netplay/relay) at this address
	// instead of peer to peer: the relay decides which input of each player counts for each
	// tick, on its own clock, and sends every player everyone's; players need not reach each
	// other, and no player can drop another. The session has one local player (its handle
	// is its slot in the match) and the others have no Addr; the game runs as it does peer
	// to peer (prediction, rollback, input delay, checksums and desync reports), but for
	// three things: an input of this player's that reaches the relay after its tick's
	// deadline is replaced there by its last one, and the game rolls back to what ran; a
	// player behind the relay's clock (back from a stall) catches up at up to 30 ticks an
	// Advance; and only the relay drops players (DisconnectPlayer fails). Spectators join
	// the relay, not a player (NewSpectator with Relay set). SparseSaving is not available.
	// docs/relay.md says when to choose a relay.
	Relay net.Addr
	// Match is the name of the relayed match, at most 64 bytes, and Token what admits this
	// player to its slot of it (made by whoever created the match, with a key the relay
	// holds: relay.MakeToken); nil for a relay that takes any player.
	Match string
	Token []byte

	// Snapshots says the game can encode its state and load it back (Run: the Game also
	// implements Snapshotter), for a relay that keeps state snapshots
	// (relay.MatchConfig.SnapshotEvery): when the relay asks, this player shares its state
	// after a confirmed tick (a Snapshot request, at most once every few seconds), and,
	// joining late or coming back from a new address, starts from the state another player
	// shared (a Restore request, checked against the sharer's checksum) instead of
	// re-simulating the match from its first tick; so does a spectator (NewSpectator), which
	// shares nothing. Through a relay only; a session with Record starts from the first tick
	// all the same (its recording must replay).
	Snapshots bool
}

// RequestKind says what a Request asks of the game.
type RequestKind uint8

const (
	// Save: save the game's state after Tick into Slot, and set Checksum.
	Save RequestKind = iota + 1
	// Load: go back to the state saved in Slot, the state after Tick.
	Load
	// Advance: run Tick with Inputs, one per player, by handle.
	Advance
	// Snapshot: encode the state saved in Slot, the state after Tick, into Data (through a
	// relay, with Config.Snapshots: Run calls the game's AppendSnapshot).
	Snapshot
	// Restore: make the state encoded in Data, the state after Tick, the game's, and set
	// Checksum to its checksum (Run calls the game's LoadSnapshot). A Save of Tick follows.
	Restore
)

// String returns the kind's name.
func (k RequestKind) String() string {
	switch k {
	case Save:
		return "save"
	case Load:
		return "load"
	case Advance:
		return "advance"
	case Snapshot:
		return "snapshot"
	case Restore:
		return "restore"
	}
	return fmt.Sprintf("RequestKind(%d)", uint8(k))
}

// Request is one thing Advance asks the game to do; see the package documentation.
type Request[I comparable] struct {
	Kind RequestKind
	// Tick is the tick to run (Advance) or whose state to save or load.
	Tick uint64
	// Slot is where to save the state or load it from: 0 to Slots()-1.
	Slot int
	// Inputs are every player's input for Tick, by handle (Advance). They are the session's
	// memory, valid until the next call of Advance: copy what you keep.
	Inputs []PlayerInput[I]
	// Checksum is set by the game on a Save request: the checksum of the state saved; and on
	// a Restore, the checksum of the state loaded.
	Checksum uint64
	// Data is a state's encoding: set by the game on a Snapshot request (the session's
	// memory to append to is passed in, empty), given to it on a Restore (valid until the
	// next call of Advance).
	Data []byte
}

// Snapshotter is a Game whose state can be encoded and loaded back, for a relay that keeps state
// snapshots (Config.Snapshots): Run carries out Snapshot and Restore requests with it.
type Snapshotter interface {
	// AppendSnapshot appends the encoding of the state saved in slot to dst and returns
	// the extended slice. Loaded with LoadSnapshot on any machine, it must give a state of
	// the same checksum, which runs on exactly as this one does.
	AppendSnapshot(dst []byte, slot int) []byte
	// LoadSnapshot makes the state encoded in data the game's current state and returns its
	// checksum, as Save would; an error for data it cannot decode.
	LoadSnapshot(data []byte) (checksum uint64, err error)
}

// Game is a rollback-ready game, as Run and NewLoopGame drive it.
type Game[I comparable] interface {
	// LocalInput returns the input of the local player handle for the next tick.
	LocalInput(handle int) I
	// Step runs tick with every player's input, by handle.
	Step(tick uint64, inputs []PlayerInput[I]) error
	// Save saves the state into slot (0 to Slots()-1) and returns its checksum.
	Save(slot int) (checksum uint64)
	// Load goes back to the state saved in slot.
	Load(slot int)
}

// Run carries out reqs in order on g: Step for Advance, Save (writing the checksum into the
// request) and Load; for Snapshot and Restore, g's Snapshotter methods. The first error of
// Step or LoadSnapshot is returned, wrapped with its tick, and an error for a Snapshot or
// Restore request to a game that is not a Snapshotter.
func Run[I comparable](reqs []Request[I], g Game[I]) error {
	for i := range reqs {
		r := &reqs[i]
		switch r.Kind {
		case Save:
			r.Checksum = g.Save(r.Slot)
		case Load:
			g.Load(r.Slot)
		case Snapshot, Restore:
			sn, ok := g.(Snapshotter)
			if !ok {
				return fmt.Errorf("netplay: a %v request for tick %d, and the game (%T) is not a Snapshotter: set Config.Snapshots only for one", r.Kind, r.Tick, g)
			}
			if r.Kind == Snapshot {
				r.Data = sn.AppendSnapshot(r.Data[:0], r.Slot)
				continue
			}
			sum, err := sn.LoadSnapshot(r.Data)
			if err != nil {
				return fmt.Errorf("netplay: restoring the state after tick %d: %w", r.Tick, err)
			}
			r.Checksum = sum
		case Advance:
			if err := g.Step(r.Tick, r.Inputs); err != nil {
				return fmt.Errorf("netplay: tick %d: %w", r.Tick, err)
			}
		}
	}
	return nil
}

// EventKind says what an Event reports.
type EventKind uint8

const (
	// EventSynchronizing: the handshake with Handle's peer is under way, Count of Total round
	// trips done.
	EventSynchronizing EventKind = iota + 1
	// EventSynchronized: the handshake with Handle's peer is done.
	EventSynchronized
	// EventRunning: every peer is synchronized; ticks run from now on.
	EventRunning
	// EventInterrupted: Handle's peer has not been heard from for DisconnectNotice; it will be
	// disconnected in Timeout unless it is heard again.
	EventInterrupted
	// EventResumed: Handle's peer, interrupted, is heard again.
	EventResumed
	// EventDisconnected: Handle's player is disconnected (unheard for DisconnectTimeout, or
	// it said it was leaving); its inputs after Tick are marked Disconnected.
	EventDisconnected
	// EventDesync: the checksum of confirmed tick Tick differs: Local here, Remote at Handle's
	// peer.
	EventDesync
	// EventJoined: a player joined a relayed match after its start (into a slot nobody had:
	// relay.MatchConfig.MinPlayers); its own input counts from Tick, the ticks before
	// marked Disconnected. A player that joins late is told of itself too.
	EventJoined
)

// String returns the kind's name.
func (k EventKind) String() string {
	switch k {
	case EventSynchronizing:
		return "synchronizing"
	case EventSynchronized:
		return "synchronized"
	case EventRunning:
		return "running"
	case EventInterrupted:
		return "interrupted"
	case EventResumed:
		return "resumed"
	case EventDisconnected:
		return "disconnected"
	case EventDesync:
		return "desync"
	case EventJoined:
		return "joined"
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is something a game may show its players: see EventKind for which fields each kind sets.
type Event struct {
	Kind   EventKind
	Handle int // the remote player concerned
	// Tick: EventDesync, the tick whose checksums differ; EventDisconnected, the last tick of
	// the player's input as proposed here (with three peers or more, they may then agree on
	// an earlier one, which PeerStats reports); EventJoined, the first tick of the player's
	// own input.
	Tick uint64
	// Local and Remote are the two checksums of EventDesync.
	Local, Remote uint64
	// Count and Total are the progress of EventSynchronizing.
	Count, Total int
	// Timeout is the time left before disconnection, for EventInterrupted.
	Timeout time.Duration
	// Reason says why a player was disconnected (EventDisconnected): "unheard for 2s", "it
	// left", or "it lost this peer" (the link failed the other way).
	Reason string
}

// String describes the event in words, such as "player 1: desync at tick 600: checksum
// 0x1f2e3d4c5b6a7988 here, 0x0123456789abcdef there".
func (e Event) String() string {
	switch e.Kind {
	case EventSynchronizing:
		return fmt.Sprintf("player %d: synchronizing (%d/%d)", e.Handle, e.Count, e.Total)
	case EventSynchronized:
		return fmt.Sprintf("player %d: synchronized", e.Handle)
	case EventRunning:
		return "all players synchronized: running"
	case EventInterrupted:
		return fmt.Sprintf("player %d: network interrupted, disconnecting in %v", e.Handle, e.Timeout)
	case EventResumed:
		return fmt.Sprintf("player %d: network resumed", e.Handle)
	case EventDisconnected:
		return fmt.Sprintf("player %d: disconnected after tick %d (%s)", e.Handle, e.Tick, e.Reason)
	case EventDesync:
		return fmt.Sprintf("player %d: desync at tick %d: checksum %#016x here, %#016x there", e.Handle, e.Tick, e.Local, e.Remote)
	case EventJoined:
		return fmt.Sprintf("player %d: joined, from tick %d", e.Handle, e.Tick)
	}
	return e.Kind.String()
}

// Stats is what a session has done so far.
type Stats struct {
	// Tick is the last tick run; Confirmed the last tick that is final: its inputs have all
	// arrived (with three peers or more, at every peer), none that arrived since it ran
	// proved a prediction wrong, and no disconnection still being agreed can reach back
	// before it, so that it will not run again.
	Tick, Confirmed uint64
	// Rollbacks counts the rollbacks; LastRollback and MaxRollback are the depth, in ticks
	// played again, of the last and the deepest.
	Rollbacks                 uint64
	LastRollback, MaxRollback int
	// Skipped counts the calls of Advance that returned ErrPredictionThreshold.
	Skipped uint64
	// Through a relay that keeps state snapshots (Config.Snapshots): SnapshotsShared counts
	// the states this player sent the relay whole, SnapshotsLoaded those it started from
	// (0 or 1), SnapshotsFailed the states the game encoded empty or over wire's 64 MiB.
	SnapshotsShared, SnapshotsLoaded, SnapshotsFailed uint64
	// TimeScale is the time scale recommended now.
	TimeScale float64
	// Dropped counts the packets dropped: from an address that is no peer's, malformed, of
	// another game (a wrong nonce), or carrying input for a handle that is not the sender's.
	Dropped uint64
	// BytesSent, BytesReceived, PacketsSent and PacketsReceived count all traffic, payload
	// only (UDP and IP headers excluded).
	BytesSent, BytesReceived     uint64
	PacketsSent, PacketsReceived uint64
	// SendErrors counts the packets the conn failed to send (a full socket buffer, say): they
	// count as lost, and the protocol sends their content again. Over a UDPConn, whose
	// packets go out together at the end of each call, they are counted in PacketsSent too.
	SendErrors uint64
	// Spectators is how many spectators this peer serves now (Config.Spectators), and
	// SpectatorsHave the least tick up to which every one of them has acknowledged the
	// inputs: a host that ends its match at tick N and wants its spectators to see it to the
	// end waits for SpectatorsHave to reach N before it closes.
	Spectators     int
	SpectatorsHave uint64
	// Behind is, for a spectator, how many ticks it has received but not run yet.
	Behind uint64
	// ReadErrors counts the errors the conn returned on reading (a conn polled with
	// TryReadFrom has none). A few in a row are waited out; a closed conn, or one that keeps
	// failing, makes Advance return the error.
	ReadErrors uint64
}

// PeerStats is what is known of the connection to one remote player's peer.
type PeerStats struct {
	// Ping is the round-trip time, averaged.
	Ping time.Duration
	// TicksAhead is how many ticks this peer runs ahead of that one, averaged: negative when
	// behind.
	TicksAhead float64
	// Confirmed is the last tick whose input from that player has arrived.
	Confirmed uint64
	// Status is Confirmed while the peer is connected, Disconnected once it is lost (its
	// players may be disconnected a little later, once the others have lost it too). Ping
	// and TicksAhead are 0 then: no longer measured.
	Status Status
	// Interrupted reports whether the peer is unheard for over DisconnectNotice.
	Interrupted bool
	// BytesSent, BytesReceived, PacketsSent and PacketsReceived count the traffic with that
	// peer (payload only).
	BytesSent, BytesReceived     uint64
	PacketsSent, PacketsReceived uint64
}
