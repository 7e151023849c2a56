// Package wire is the datagram protocol of rollback netplay: the messages two peers of a
// session exchange, their encoding (Append) and decoding (Decode), and the compression of
// inputs. It is pure: no state machine, no sockets, no clock. The session (package netplay)
// decides what to send and when.
//
// A Message is a fixed-size value with the fields of every kind; a caller keeps one and reuses
// it, so that neither Append nor Decode allocates. Decode checks every length and range before
// use and never sizes anything by what a packet claims: a hostile or corrupt packet costs a
// returned error (wrapping ErrMalformed or ErrVersion), never a panic or an allocation.
//
// # Format, version 4
//
// Every packet is one datagram of at most MaxPacket (508) bytes. Integers are little-endian;
// a uvarint is LEB128 as encoding/binary writes it, in its shortest form (a longer form of the
// same value is malformed, so every packet Decode accepts is the one Append writes, byte for
// byte); a varint is a uvarint of the zig-zagged value. A tick is stored as a uvarint of the
// tick, or of the tick+1 where NoTick (-1) is allowed; ticks greater than MaxTick (2^40) are
// malformed.
//
//	packet  = magic:2 version:1 kind:1 session:uint32 seq:uint16 body
//	magic   = E7 4E
//	version = 04
//
// A packet with another magic is malformed; another version gives ErrVersion. The body of each
// kind, which must end the packet exactly:
//
//	1 SyncRequest    nonce:uint32
//	2 SyncReply      nonce:uint32                the request's, echoed
//	3 Input          start:uvarint ack+1:uvarint handles:byte size:byte count:byte
//	                 players:byte disconnected:byte (last+1:uvarint)×players
//	                 [lost:byte] [quiet:byte] [kicked:byte] [joined:byte first+:uvarint...] inputs:rest
//	4 InputAck       ack+1:uvarint
//	5 QualityReport  ticksAhead:varint (int32) pingSent:int64
//	6 QualityReply   pingSent:int64               the report's, echoed
//	7 ChecksumReport tick:uvarint sum:uint64
//	8 KeepAlive      (empty)
//	9 Bye            (empty)
//	10 Kick          (empty)
//	11 Spectate      nonce:uint32 cookie:uint32  a spectator's handshake request, cookie 0 or the host's
//	12 Dropped       cutoff+1:uvarint flags:byte the sender lost the receiver; flags: 1 silent, 2 kicked, 4 full, 8 late
//	13 Cookie        cookie:uint32               the host's (or relay's) answer to a Spectate (Join) from an address not yet proven
//	14 Join          nonce:uint32 cookie:uint32 slot:byte players:byte size:byte rate:uvarint
//	                 matchLen:byte match tokenLen:byte token flags:byte
//	                                             a player's (or spectator's) request to a relay; flags: 1 takes snapshots
//	15 Welcome       nonce:uint32 slot:byte players:byte tick:uvarint
//	                                             the relay's answer: the Join's nonce, the slot given, and the tick
//	                                             the player starts after (0, or a snapshot's that follows)
//	16 Refused       nonce:uint32 reason:byte    the relay's refusal: 1 token, 2 expired, 3 no match, 4 slot,
//	                                             5 shape, 6 full, 7 late, 8 ended
//	17 PlayerSum     slot:byte tick:uvarint sum:uint64
//	                                             a player's checksum, passed on by the relay
//	18 SnapshotAsk   tick:uvarint slot:byte      a relay asking for the state after tick: slot to send it, the others its checksum
//	19 Snapshot      tick:uvarint sum:uint64 size:uvarint offset:uvarint piece:rest
//	                                             a piece of the state after tick (checksum sum, size bytes in all, 1 to 2^26),
//	                                             from offset, a multiple of 448, 448 bytes or the rest
//	20 SnapshotAck   tick:uvarint offset:uvarint the snapshot's bytes received in a row
//
// Any other kind is malformed.
//
// In an Input, handles is the set of player handles whose inputs it carries (bit h for handle
// h); size is one input's bytes, 1 to 64 (MaxInputSize), and size times the number of handles
// is at most 256 (MaxTickBytes); count is the number of ticks carried, 0 to 128
// (MaxTicksPerInput), from tick start, the last of them at most MaxTick; handles is not empty
// if count is not 0. players (0 to 8) is the number of players whose connection status
// follows: bit i of disconnected says player i is disconnected (bits from players on must be
// 0), and last is the last tick of player i's input the sender has confirmed. The players byte's
// top four bits are flags: bit 7 says a lost byte follows the statuses, bit 6 a quiet byte,
// bit 5 a kicked byte (the sets of players whose peer the sender has lost, has not heard from
// for a while, and disconnected by hand), bit 4 a joined byte (the set of players that joined
// a relay's match after its start, none at or past players) followed by, for each of them in
// order, the first tick of its own input (1 to MaxTick); a set that follows is not empty. A
// relay reports a slot nobody has joined as disconnected with last+1 = 0. inputs, the rest
// of the packet, are count ticks of input compressed as below, and must decompress to exactly
// count × handles × size bytes.
//
// # Input compression
//
// The inputs are laid out tick after tick, each tick the input of every handle carried in
// increasing order of handle. Each tick is XORed with the tick before it, the first with the
// reference: the inputs of the tick before start as the receiver has them (inputs are final
// values, so the sender's copy is the same; a receiver that lacks that tick, a packet before
// having been lost, cannot decode the packet and drops it), or zeros when there is none. A repeated input thus becomes zeros. The XORed bytes are then
// written as a sequence of tokens:
//
//	00-7F         c+1 literal bytes follow (1 to 128)
//	80-FE         c-7F zero bytes (1 to 127)
//	FF uvarint    128+uvarint zero bytes
//
// The encoder writes runs of two or more zeros (and a zero ending the data) as zero tokens and
// everything else as literals, so incompressible inputs grow by a byte in 128, and a tick of
// every handle fits in a packet whatever it holds. A decoder accepts any sequence of tokens
// that adds up to the expected length.
//
// # Limits
//
// Ticks are int64 in the API and at most MaxTick (2^40) on the wire: 34 years of play at
// 1,000 ticks a second. Sequence numbers are 16 bits and wrap. The largest Input, eight
// players' statuses at MaxTick and incompressible inputs, leaves 433 bytes for inputs: one
// tick of MaxTickBytes always fits; PackInputs packs as many ticks as fit.
package wire
