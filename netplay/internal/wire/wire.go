package wire

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// Version is the protocol version this package writes and the only one it reads. A change that
// an older peer would misread (a new kind, a new field) takes a new version; a peer then drops
// the other's packets with ErrVersion instead of misreading them.
const Version = 4

// The limits of a packet and of what it carries. Decode rejects a packet that exceeds any of
// them; Append refuses a message that does.
const (
	// MaxPacket is the largest packet, in bytes: 508, the UDP payload that no link on the
	// path fragments (576-byte minimum IPv4 datagram less the largest IP and UDP headers).
	MaxPacket = 508

	// HeaderSize is the size in bytes of the header every packet starts with.
	HeaderSize = 10

	// MaxPlayers is the most players (handles 0 to MaxPlayers-1) a session has.
	MaxPlayers = 8

	// MaxInputSize is the largest input of one player for one tick, in bytes.
	MaxInputSize = 64

	// MaxTickBytes is the most input bytes one Input message carries for one tick: the
	// input size times the number of handles it carries. It keeps one tick of every
	// carried handle within a packet even when the input does not compress at all.
	MaxTickBytes = 256

	// MaxTicksPerInput is the most ticks one Input message carries.
	MaxTicksPerInput = 128

	// MaxRawInputs is the most input bytes one Input message carries once decompressed:
	// MaxTicksPerInput ticks of MaxTickBytes.
	MaxRawInputs = MaxTicksPerInput * MaxTickBytes

	// MaxTick is the greatest tick the protocol carries: 2^40, which a session reaches after
	// 34 years at 1,000 ticks a second. A packet naming a later tick is malformed.
	MaxTick = 1 << 40

	// MaxMatch is the longest match name a Join carries, in bytes.
	MaxMatch = 64

	// MaxToken is the longest token a Join carries, in bytes.
	MaxToken = 96

	// AnySlot in a Join asks for the lowest free player slot; SpectatorSlot asks to watch.
	AnySlot       = 0xFE
	SpectatorSlot = 0xFF

	// MaxTickRate is the greatest TickRate a Join carries.
	MaxTickRate = 1000

	// MaxSnapshot is the largest state snapshot, in bytes: 64 MiB.
	MaxSnapshot = 1 << 26
	// MaxSnapshotChunk is the most bytes of a snapshot one Snapshot message carries.
	MaxSnapshotChunk = 448

	// NoTick stands for "no tick": an AckTick before any input arrived, a LastTick of a
	// player with no confirmed input yet.
	NoTick = -1
)

// Kind is the kind of a message, the fourth byte of every packet.
type Kind uint8

// The kinds of message. The zero Kind is not one: a packet of kind 0 is malformed.
const (
	// KindSyncRequest starts (and repeats) the handshake with a random Nonce.
	KindSyncRequest Kind = 1 + iota
	// KindSyncReply answers a SyncRequest with its Nonce.
	KindSyncReply
	// KindInput carries the sender's local players' inputs for Count ticks from StartTick,
	// acknowledges the receiver's inputs up to AckTick, and tells what the sender knows of
	// every player's connection (Status).
	KindInput
	// KindInputAck acknowledges the receiver's inputs up to AckTick.
	KindInputAck
	// KindQualityReport tells how many ticks the sender runs ahead of the receiver and
	// carries the sender's clock (PingSent) for the receiver to echo.
	KindQualityReport
	// KindQualityReply echoes a QualityReport's PingSent, so that its sender measures the
	// round trip.
	KindQualityReply
	// KindChecksumReport carries the sender's checksum (Sum) of its state after a confirmed
	// Tick, for desync detection.
	KindChecksumReport
	// KindKeepAlive carries nothing: it tells the receiver the sender is still there.
	KindKeepAlive
	// KindBye tells the receiver the sender is leaving the session on purpose.
	KindBye
	// KindKick tells the receiver to leave the session: the sender's game disconnects its
	// players by hand.
	KindKick
	// KindSpectate starts (and repeats) a spectator's handshake with a host, as
	// KindSyncRequest starts a player's; the host answers with a SyncReply once the
	// spectator's address is proven (it echoes the host's Cookie), and with a Cookie before.
	KindSpectate
	// KindDropped tells the receiver that the sender has lost its peer: Cutoff is the tick
	// after which the sender disconnected the receiver's players (NoTick while it has not),
	// and DropFlags says why (DroppedSilent, DroppedKicked; neither for a failed link).
	KindDropped
	// KindCookie answers a Spectate from an address not yet proven: the spectator sends its
	// Spectate again with this Cookie, which proves it receives what is sent to it.
	KindCookie
	// KindJoin asks a relay for a place in a match (Match) as player Slot (or AnySlot, or
	// SpectatorSlot), with the sender's Token, Nonce, Cookie (0 until the relay sent one) and
	// the shape of its game (Players, InputSize, TickRate), which must be the match's.
	KindJoin
	// KindWelcome is a relay's answer to a Join it takes: the Nonce echoed, the Slot given,
	// the match's Players, and Tick, the last tick the relay has confirmed. Its Session is
	// the one the player's packets carry from then on.
	KindWelcome
	// KindRefused is a relay's answer to a Join it does not take: the Nonce echoed and the
	// Reason.
	KindRefused
	// KindPlayerSum is a relay passing on player Slot's checksum (Sum) of its state after
	// confirmed Tick, for desync detection.
	KindPlayerSum
	// KindSnapshotAsk is a relay asking its players for their state after Tick: player Slot
	// to send it (KindSnapshot), the others their checksum of it (KindChecksumReport), to
	// check it by.
	KindSnapshotAsk
	// KindSnapshot carries a piece of a state snapshot, the state after Tick, whose checksum
	// is Sum and encoding Size bytes: Inputs[:InputsLen] are its bytes from Offset, a
	// multiple of MaxSnapshotChunk, MaxSnapshotChunk of them but for the last piece.
	KindSnapshot
	// KindSnapshotAck acknowledges the bytes of the snapshot of Tick received in a row, up
	// to Offset. From the player a relay asked to share its state after Tick, an
	// acknowledgement of none of it (Offset 0) says that it cannot.
	KindSnapshotAck

	kindEnd // one past the last kind
)

var kindNames = [...]string{"Kind(0)", "SyncRequest", "SyncReply", "Input", "InputAck",
	"QualityReport", "QualityReply", "ChecksumReport", "KeepAlive", "Bye", "Kick", "Spectate",
	"Dropped", "Cookie", "Join", "Welcome", "Refused", "PlayerSum", "SnapshotAsk", "Snapshot",
	"SnapshotAck"}

// String returns the kind's name, as "Input", or "Kind(N)" for a value that is not a kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + itoa(int(k)) + ")"
}

// Valid reports whether k is one of the kinds above.
func (k Kind) Valid() bool { return k >= KindSyncRequest && k < kindEnd }

// Header is what every packet starts with, after the protocol's magic and version.
type Header struct {
	// Kind says which of Message's fields the packet carries.
	Kind Kind
	// Session identifies the session (connection) between two peers, agreed during the
	// handshake from both peers' nonces (see SessionID): a receiver drops packets whose
	// Session is not the one it agreed, such as a stray packet of an earlier game from the
	// same address. Sync messages carry the session the sender proposes, or 0 before it
	// knows one; the wire does not interpret it.
	Session uint32
	// Seq is the sender's sequence number, counting packets sent to this receiver and
	// wrapping at 2^16; a receiver may use it to drop reordered duplicates of old packets.
	Seq uint16
}

// HandleSet is a set of player handles, bit h for handle h (0 to MaxPlayers-1).
type HandleSet uint8

// Has reports whether handle h is in the set.
func (s HandleSet) Has(h int) bool { return h >= 0 && h < MaxPlayers && s&(1<<h) != 0 }

// Len returns how many handles are in the set.
func (s HandleSet) Len() int { return bits.OnesCount8(uint8(s)) }

// PlayerStatus is what a peer knows of one player's connection, carried in Input messages so
// that every peer comes to agree on when a disconnected player's input stops: the least
// LastTick that any peer reports for a disconnected player.
type PlayerStatus struct {
	// Disconnected is set once the sender considers the player gone.
	Disconnected bool
	// LastTick is the last tick of the player's input the sender has confirmed, NoTick if
	// none; NoTick to MaxTick.
	LastTick int64
}

// Message is one decoded packet: the header and the fields of every kind, of which only those
// of the header's Kind are meaningful (Decode zeroes the others). It is a value of fixed size
// (under 1 KiB) with no pointers, meant to be kept and reused: Append and Decode allocate
// nothing.
type Message struct {
	Header

	// Nonce is the handshake's random number (SyncRequest), echoed by the SyncReply.
	Nonce uint32

	// StartTick is the tick of the first input an Input carries, 0 to MaxTick; the inputs
	// are those of ticks StartTick to StartTick+Count-1, which must not pass MaxTick.
	StartTick int64
	// AckTick (Input, InputAck) is the last tick of the receiver's inputs the sender has
	// (all ticks up to it), NoTick if none; NoTick to MaxTick.
	AckTick int64
	// Handles is the set of player handles whose inputs an Input carries: the sender's
	// local players. Not empty when Count > 0.
	Handles HandleSet
	// InputSize is the size in bytes of one player's input for one tick, 1 to
	// MaxInputSize; InputSize times Handles.Len() is at most MaxTickBytes.
	InputSize int
	// Count is the number of ticks an Input carries, 0 to MaxTicksPerInput. An Input with
	// no ticks still acknowledges and reports Status.
	Count int
	// Players is the number of players whose Status an Input carries, 0 to MaxPlayers.
	Players int
	// Status (Input) is what the sender knows of each player's connection, for handles 0
	// to Players-1; the entries from Players on are zero.
	Status [MaxPlayers]PlayerStatus
	// Lost (Input) is the set of players whose peer the sender has lost: unheard for its
	// disconnect timeout, gone, or cut off from it. A peer never hears from a peer it lost
	// again, so the set only grows.
	Lost HandleSet
	// Quiet (Input) is the set of players whose peer the sender has not heard from for a
	// while (its disconnect notice) but has not lost yet.
	Quiet HandleSet
	// Kicked (Input) is the set of players whose peer the sender disconnected by hand: every
	// peer loses it too.
	Kicked HandleSet
	// Joined (Input, from a relay) is, for each player that joined its match after the start,
	// the first tick of its own input, 1 to MaxTick; 0 for a player there from the start, and
	// for the entries from Players on. A relay reports a slot nobody has joined yet as
	// Disconnected with LastTick NoTick.
	Joined [MaxPlayers]int64
	// Inputs[:InputsLen] (Input) are the inputs, compressed as CompressInputs does; they
	// decompress to Count*Handles.Len()*InputSize bytes. Set them with PackInputs and read
	// them with UnpackInputs. In a Snapshot, they are the piece of the snapshot it carries.
	Inputs    [MaxPacket]byte
	InputsLen int

	// Size (Snapshot) is the snapshot's length in bytes, 1 to MaxSnapshot; Offset
	// (Snapshot) where the piece carried starts, and (SnapshotAck) how many bytes of it
	// have arrived in a row, 0 to Size.
	Size, Offset int64

	// TicksAhead (QualityReport) is how many ticks the sender estimates it runs ahead of
	// the receiver; negative when behind.
	TicksAhead int32
	// PingSent (QualityReport, QualityReply) is the sender's clock when it sent the report,
	// in nanoseconds on a clock of its own choosing; the reply echoes it unchanged.
	PingSent int64

	// Tick (ChecksumReport, PlayerSum) is the confirmed tick after which Sum was taken, 0 to
	// MaxTick; (Welcome) the tick after which the player starts: 0, or that of the state
	// snapshot the relay sends it next; (SnapshotAsk, Snapshot, SnapshotAck) the tick whose
	// state the snapshot is, 1 to MaxTick.
	Tick int64
	// Sum (ChecksumReport, PlayerSum, Snapshot) is the game's checksum of its state after
	// Tick.
	Sum uint64

	// Cutoff (Dropped) is the tick after which the sender disconnected the receiver's
	// players, NoTick while it has not; NoTick to MaxTick.
	Cutoff int64
	// DropFlags (Dropped) says why the sender lost the receiver.
	DropFlags uint8

	// Cookie (Spectate, Cookie, Join) proves a spectator's or a joining player's address:
	// the host's or relay's Cookie, echoed by the next Spectate or Join; 0 in one that has
	// none yet.
	Cookie uint32

	// Slot (Join, Welcome, PlayerSum) is a player's slot, 0 to MaxPlayers-1; in a Join also
	// AnySlot or SpectatorSlot, and in a Welcome SpectatorSlot.
	Slot int
	// TickRate (Join) is the game's ticks a second, 1 to MaxTickRate.
	TickRate int
	// Match[:MatchLen] (Join) is the name of the match, 0 to MaxMatch bytes; the bytes from
	// MatchLen on are zero.
	Match    [MaxMatch]byte
	MatchLen int
	// Token[:TokenLen] (Join) admits the sender to the slot, 0 to MaxToken bytes (0 where
	// the relay takes any player); the bytes from TokenLen on are zero.
	Token    [MaxToken]byte
	TokenLen int
	// Reason (Refused) says why a relay refused a Join: one of the Refused reasons.
	Reason uint8
	// JoinFlags (Join) are what the joining session can do: JoinSnapshots.
	JoinFlags uint8
}

// JoinFlags of a Join.
const (
	// JoinSnapshots: the joining player can start from a state snapshot (its game encodes
	// and decodes its state), which the relay then sends it after its Welcome.
	JoinSnapshots uint8 = 1 << iota
	joinFlagsAll        = JoinSnapshots
)

// Reasons of a Refused message.
const (
	RefusedToken   uint8 = 1 + iota // the token is malformed, forged or made with an unknown key
	RefusedExpired                  // the token has expired
	RefusedNoMatch                  // no such match
	RefusedSlot                     // the slot is taken, or not the token's
	RefusedShape                    // the game's shape (players, input size, tick rate) is not the match's
	RefusedFull                     // the relay or the match has no room
	RefusedLate                     // the match has begun and takes no late player, or is past its history
	RefusedEnded                    // the match has ended
	refusedEnd
)

// SetMatch sets Match and MatchLen to name, cut to MaxMatch bytes.
func (m *Message) SetMatch(name string) {
	m.Match = [MaxMatch]byte{}
	m.MatchLen = copy(m.Match[:], name)
}

// SetToken sets Token and TokenLen to tok; it reports false, setting none, if tok is longer
// than MaxToken.
func (m *Message) SetToken(tok []byte) bool {
	m.Token = [MaxToken]byte{}
	if len(tok) > MaxToken {
		m.TokenLen = 0
		return false
	}
	m.TokenLen = copy(m.Token[:], tok)
	return true
}

// DropFlags of a Dropped message. Neither set: the link from the receiver failed while others
// still hear it (the receiver loses the sender in turn).
const (
	// DroppedSilent: every peer the sender hears stopped hearing the receiver too (it
	// stalled, or its network did): the receiver leaves the game.
	DroppedSilent uint8 = 1 << iota
	// DroppedKicked: a peer disconnected the receiver's players by hand.
	DroppedKicked
	// DroppedFull: a host refuses a spectator: it has all the spectators it takes.
	DroppedFull
	// DroppedLate: a host refuses or drops a spectator: it is past (or the spectator has
	// fallen behind) the ticks it keeps for spectators.
	DroppedLate

	dropFlagsAll = DroppedSilent | DroppedKicked | DroppedFull | DroppedLate
)

// Errors. Every error Decode returns wraps ErrMalformed or ErrVersion; every error Append
// returns wraps ErrInvalid or ErrTooLarge. Test with errors.Is. The errors Decode and Append
// return are preallocated values (*Error), so that a flood of bad packets costs no allocation.
var (
	// ErrMalformed: the packet is not a well-formed packet of this protocol: a wrong magic,
	// an unknown kind, a field out of its range, a length that does not add up.
	ErrMalformed = errors.New("wire: malformed packet")
	// ErrVersion: the packet is of another version of the protocol.
	ErrVersion = errors.New("wire: unsupported protocol version")
	// ErrInvalid: the message given to Append (or to PackInputs) breaks a rule of the
	// protocol: a field out of its range.
	ErrInvalid = errors.New("wire: invalid message")
	// ErrTooLarge: the message would not fit in MaxPacket bytes.
	ErrTooLarge = errors.New("wire: message too large for a packet")
)

// Error is the error Decode and Append return: which field is at fault and why. It wraps one of
// the sentinel errors above.
type Error struct {
	Field   string // as "Input.AckTick"
	Problem string // as "beyond MaxTick"
	Err     error  // ErrMalformed, ErrVersion, ErrInvalid or ErrTooLarge
}

func (e *Error) Error() string { return e.Err.Error() + ": " + e.Field + ": " + e.Problem }

// Unwrap returns the sentinel error e wraps.
func (e *Error) Unwrap() error { return e.Err }

// magic starts every packet: a byte with the high bit set (not ASCII text) and 'N'.
const magic0, magic1 = 0xE7, 'N'

// SessionID returns the session id two peers agree on from the nonces each chose for the
// handshake: the same whichever order they are given in, never 0 (so that 0 can mean "none
// yet"), and different for almost every pair of nonces.
func SessionID(nonceA, nonceB uint32) uint32 {
	lo, hi := nonceA, nonceB
	if lo > hi {
		lo, hi = hi, lo
	}
	x := uint64(hi)<<32 | uint64(lo)
	// A 64-bit finaliser (splitmix64's) so that neighbouring nonces give unrelated ids.
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	id := uint32(x) ^ uint32(x>>32)
	if id == 0 {
		id = 1
	}
	return id
}

// itoa formats a small non-negative integer without fmt.
func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return string(b[i:])
}

var le = binary.LittleEndian
