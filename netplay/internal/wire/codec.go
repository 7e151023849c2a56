package wire

import "math"

// A fault is one way a message can break the protocol, as the two errors it gives: ErrMalformed
// when Decode finds it in a packet, ErrInvalid when Append finds it in a message.
type fault struct{ malformed, invalid *Error }

func newFault(field, problem string) fault {
	return fault{
		malformed: &Error{Field: field, Problem: problem, Err: ErrMalformed},
		invalid:   &Error{Field: field, Problem: problem, Err: ErrInvalid},
	}
}

var (
	errShort       = &Error{Field: "header", Problem: "packet shorter than the header", Err: ErrMalformed}
	errLong        = &Error{Field: "packet", Problem: "longer than MaxPacket", Err: ErrMalformed}
	errMagic       = &Error{Field: "header.magic", Problem: "not this protocol's", Err: ErrMalformed}
	errVersion     = &Error{Field: "header.version", Problem: "not this version", Err: ErrVersion}
	errTrailing    = &Error{Field: "packet", Problem: "bytes after the message", Err: ErrMalformed}
	errTooLarge    = &Error{Field: "packet", Problem: "over MaxPacket bytes", Err: ErrTooLarge}
	errInputsShape = &Error{Field: "inputs", Problem: "reference empty or inputs not whole ticks of it", Err: ErrInvalid}
	errUnpackRef   = &Error{Field: "reference", Problem: "not one tick of every handle carried", Err: ErrInvalid}

	faultKind        = newFault("header.kind", "not a known kind")
	faultNonce       = newFault("Sync.Nonce", "truncated")
	faultStartTick   = newFault("Input.StartTick", "truncated or not 0 to MaxTick")
	faultLastInput   = newFault("Input.Count", "inputs past MaxTick")
	faultAckTick     = newFault("AckTick", "truncated or not NoTick to MaxTick")
	faultFixed       = newFault("Input", "truncated in Handles, InputSize, Count, Players or the disconnected set")
	faultInputSize   = newFault("Input.InputSize", "not 1 to MaxInputSize")
	faultTickBytes   = newFault("Input.Handles", "InputSize times handles over MaxTickBytes")
	faultNoHandles   = newFault("Input.Handles", "empty with Count above 0")
	faultCount       = newFault("Input.Count", "over MaxTicksPerInput")
	faultPlayers     = newFault("Input.Players", "over MaxPlayers")
	faultDisconnect  = newFault("Input.Status", "a disconnected player at or past Players")
	faultLastTick    = newFault("Input.Status.LastTick", "truncated or not NoTick to MaxTick")
	faultLost        = newFault("Input.Lost", "flagged but missing or empty")
	faultQuiet       = newFault("Input.Quiet", "flagged but missing or empty")
	faultKicked      = newFault("Input.Kicked", "flagged but missing or empty")
	faultJoined      = newFault("Input.Joined", "out of range, past Players, or flagged but missing or empty")
	faultInputsLen   = newFault("Input.InputsLen", "negative or over the Inputs array")
	faultInputs      = newFault("Input.Inputs", "do not decompress to Count ticks of every handle")
	faultAhead       = newFault("QualityReport.TicksAhead", "truncated or out of int32")
	faultPing        = newFault("PingSent", "truncated")
	faultTick        = newFault("ChecksumReport.Tick", "truncated or not 0 to MaxTick")
	faultSum         = newFault("ChecksumReport.Sum", "truncated")
	faultCutoff      = newFault("Dropped.Cutoff", "truncated, not NoTick to MaxTick, or unknown flags")
	faultCookie      = newFault("Cookie", "truncated")
	faultJoin        = newFault("Join", "truncated, or a slot, players, input size, tick rate, match or token out of range")
	faultWelcome     = newFault("Welcome", "truncated, or a slot, players or tick out of range")
	faultRefused     = newFault("Refused", "truncated, or an unknown reason")
	faultPlayerSum   = newFault("PlayerSum", "truncated, or a slot or tick out of range")
	faultSnapshotAsk = newFault("SnapshotAsk", "truncated, or a tick or slot out of range")
	faultSnapshot    = newFault("Snapshot", "truncated, or a tick, size, offset or piece out of range")
	faultSnapshotAck = newFault("SnapshotAck", "truncated, or a tick or offset out of range")
)

// Append appends the packet of m to dst and returns the extended slice. Only the fields of
// m.Kind are written; the others are ignored. It returns an error wrapping ErrInvalid, and dst
// unchanged, if a field is out of its range (see Message), and one wrapping ErrTooLarge if the
// packet would pass MaxPacket bytes. It allocates nothing when dst has room for MaxPacket more
// bytes.
func Append(dst []byte, m *Message) ([]byte, error) {
	start := len(dst)
	if !m.Kind.Valid() {
		return dst, faultKind.invalid
	}
	dst = append(dst, magic0, magic1, Version, byte(m.Kind))
	dst = le.AppendUint32(dst, m.Session)
	dst = le.AppendUint16(dst, m.Seq)
	var f *fault
	switch m.Kind {
	case KindSyncRequest, KindSyncReply:
		dst = le.AppendUint32(dst, m.Nonce)
	case KindSpectate:
		dst = le.AppendUint32(dst, m.Nonce)
		dst = le.AppendUint32(dst, m.Cookie)
	case KindCookie:
		dst = le.AppendUint32(dst, m.Cookie)
	case KindDropped:
		if m.Cutoff < NoTick || m.Cutoff > MaxTick || m.DropFlags&^dropFlagsAll != 0 {
			f = &faultCutoff
		} else {
			dst = appendUvarint(dst, uint64(m.Cutoff+1))
			dst = append(dst, m.DropFlags)
		}
	case KindInput:
		if f = checkInput(m); f == nil {
			dst = appendUvarint(dst, uint64(m.StartTick))
			dst = appendUvarint(dst, uint64(m.AckTick+1))
			var disconnected byte
			for i := range m.Players {
				if m.Status[i].Disconnected {
					disconnected |= 1 << i
				}
			}
			players := byte(m.Players)
			if m.Lost != 0 {
				players |= lostFollows
			}
			if m.Quiet != 0 {
				players |= quietFollows
			}
			if m.Kicked != 0 {
				players |= kickedFollows
			}
			var joined HandleSet
			for i := range m.Players {
				if m.Joined[i] != 0 {
					joined |= 1 << i
				}
			}
			if joined != 0 {
				players |= joinedFollows
			}
			dst = append(dst, byte(m.Handles), byte(m.InputSize), byte(m.Count), players, disconnected)
			for i := range m.Players {
				dst = appendUvarint(dst, uint64(m.Status[i].LastTick+1))
			}
			if m.Lost != 0 {
				dst = append(dst, byte(m.Lost))
			}
			if m.Quiet != 0 {
				dst = append(dst, byte(m.Quiet))
			}
			if m.Kicked != 0 {
				dst = append(dst, byte(m.Kicked))
			}
			if joined != 0 {
				dst = append(dst, byte(joined))
				for i := range m.Players {
					if m.Joined[i] != 0 {
						dst = appendUvarint(dst, uint64(m.Joined[i]))
					}
				}
			}
			dst = append(dst, m.Inputs[:m.InputsLen]...)
		}
	case KindInputAck:
		if m.AckTick < NoTick || m.AckTick > MaxTick {
			f = &faultAckTick
		} else {
			dst = appendUvarint(dst, uint64(m.AckTick+1))
		}
	case KindQualityReport:
		dst = appendUvarint(dst, zigzag(int64(m.TicksAhead)))
		dst = le.AppendUint64(dst, uint64(m.PingSent))
	case KindQualityReply:
		dst = le.AppendUint64(dst, uint64(m.PingSent))
	case KindChecksumReport:
		if m.Tick < 0 || m.Tick > MaxTick {
			f = &faultTick
		} else {
			dst = appendUvarint(dst, uint64(m.Tick))
			dst = le.AppendUint64(dst, m.Sum)
		}
	case KindJoin:
		if !validJoin(m) {
			f = &faultJoin
		} else {
			dst = le.AppendUint32(dst, m.Nonce)
			dst = le.AppendUint32(dst, m.Cookie)
			dst = append(dst, byte(m.Slot), byte(m.Players), byte(m.InputSize))
			dst = appendUvarint(dst, uint64(m.TickRate))
			dst = append(dst, byte(m.MatchLen))
			dst = append(dst, m.Match[:m.MatchLen]...)
			dst = append(dst, byte(m.TokenLen))
			dst = append(dst, m.Token[:m.TokenLen]...)
			dst = append(dst, m.JoinFlags)
		}
	case KindWelcome:
		if !validWelcome(m) {
			f = &faultWelcome
		} else {
			dst = le.AppendUint32(dst, m.Nonce)
			dst = append(dst, byte(m.Slot), byte(m.Players))
			dst = appendUvarint(dst, uint64(m.Tick))
		}
	case KindRefused:
		if m.Reason == 0 || m.Reason >= refusedEnd {
			f = &faultRefused
		} else {
			dst = le.AppendUint32(dst, m.Nonce)
			dst = append(dst, m.Reason)
		}
	case KindPlayerSum:
		if m.Slot < 0 || m.Slot >= MaxPlayers || m.Tick < 0 || m.Tick > MaxTick {
			f = &faultPlayerSum
		} else {
			dst = append(dst, byte(m.Slot))
			dst = appendUvarint(dst, uint64(m.Tick))
			dst = le.AppendUint64(dst, m.Sum)
		}
	case KindSnapshotAsk:
		if m.Tick < 1 || m.Tick > MaxTick || m.Slot < 0 || m.Slot >= MaxPlayers {
			f = &faultSnapshotAsk
		} else {
			dst = appendUvarint(dst, uint64(m.Tick))
			dst = append(dst, byte(m.Slot))
		}
	case KindSnapshot:
		if !validSnapshot(m) {
			f = &faultSnapshot
		} else {
			dst = appendUvarint(dst, uint64(m.Tick))
			dst = le.AppendUint64(dst, m.Sum)
			dst = appendUvarint(dst, uint64(m.Size))
			dst = appendUvarint(dst, uint64(m.Offset))
			dst = append(dst, m.Inputs[:m.InputsLen]...)
		}
	case KindSnapshotAck:
		if m.Tick < 1 || m.Tick > MaxTick || m.Offset < 0 || m.Offset > MaxSnapshot {
			f = &faultSnapshotAck
		} else {
			dst = appendUvarint(dst, uint64(m.Tick))
			dst = appendUvarint(dst, uint64(m.Offset))
		}
	case KindKeepAlive, KindBye, KindKick:
	}
	if f != nil {
		return dst[:start], f.invalid
	}
	if len(dst)-start > MaxPacket {
		return dst[:start], errTooLarge
	}
	return dst, nil
}

// validJoin reports whether a Join's fields are in range, and the bytes past its match name
// and token zero (so that a decoded Join is written back byte for byte).
func validJoin(m *Message) bool {
	switch {
	case m.Slot < 0 || m.Slot >= MaxPlayers && m.Slot != AnySlot && m.Slot != SpectatorSlot,
		m.Players < 1 || m.Players > MaxPlayers,
		m.InputSize < 1 || m.InputSize > MaxInputSize,
		m.TickRate < 1 || m.TickRate > MaxTickRate,
		m.MatchLen < 0 || m.MatchLen > MaxMatch,
		m.TokenLen < 0 || m.TokenLen > MaxToken,
		m.JoinFlags&^joinFlagsAll != 0:
		return false
	}
	return true
}

// validSnapshot reports whether a Snapshot's fields are in range: a piece at a multiple of
// MaxSnapshotChunk, as long as a whole one or the rest of the snapshot.
func validSnapshot(m *Message) bool {
	if m.Tick < 1 || m.Tick > MaxTick || m.Size < 1 || m.Size > MaxSnapshot ||
		m.Offset < 0 || m.Offset >= m.Size || m.Offset%MaxSnapshotChunk != 0 {
		return false
	}
	return int64(m.InputsLen) == min(MaxSnapshotChunk, m.Size-m.Offset)
}

// validWelcome reports whether a Welcome's fields are in range.
func validWelcome(m *Message) bool {
	return (m.Slot >= 0 && m.Slot < MaxPlayers || m.Slot == SpectatorSlot) &&
		m.Players >= 1 && m.Players <= MaxPlayers && m.Tick >= 0 && m.Tick <= MaxTick
}

// checkInput checks the fields of an Input message, in range and consistent, and that its
// inputs decompress to Count ticks of every handle carried.
func checkInput(m *Message) *fault {
	switch {
	case m.StartTick < 0 || m.StartTick > MaxTick:
		return &faultStartTick
	case m.AckTick < NoTick || m.AckTick > MaxTick:
		return &faultAckTick
	case m.InputSize < 1 || m.InputSize > MaxInputSize:
		return &faultInputSize
	case m.InputSize*m.Handles.Len() > MaxTickBytes:
		return &faultTickBytes
	case m.Count < 0 || m.Count > MaxTicksPerInput:
		return &faultCount
	case m.Count > 0 && m.Handles == 0:
		return &faultNoHandles
	case m.Count > 0 && m.StartTick+int64(m.Count)-1 > MaxTick:
		return &faultLastInput
	case m.Players < 0 || m.Players > MaxPlayers:
		return &faultPlayers
	case m.InputsLen < 0 || m.InputsLen > len(m.Inputs):
		return &faultInputsLen
	}
	for i := range m.Players {
		if t := m.Status[i].LastTick; t < NoTick || t > MaxTick {
			return &faultLastTick
		}
		if t := m.Joined[i]; t < 0 || t > MaxTick {
			return &faultJoined
		}
	}
	for i := m.Players; i < MaxPlayers; i++ {
		if m.Joined[i] != 0 {
			return &faultJoined
		}
	}
	want := m.Count * m.Handles.Len() * m.InputSize
	if n, ok := expandedLen(m.Inputs[:m.InputsLen], want); !ok || n != want {
		return &faultInputs
	}
	return nil
}

// Decode reads the packet pkt into m, overwriting all of it: the fields of the packet's kind
// are set and the others zeroed. It returns an error wrapping ErrVersion for a packet of
// another version and one wrapping ErrMalformed for anything else that is not a valid packet:
// every length and range is checked before use, and what a packet claims is never allocated
// (Decode allocates nothing, whatever pkt holds). Of an Input, Decode checks that the
// compressed inputs decompress to exactly Count ticks of every handle carried, so that
// UnpackInputs can fail only on the caller's reference. A packet Append wrote decodes to the
// message it was written from, and a packet Decode accepts is written back by Append byte for
// byte. Decode keeps no reference to pkt.
func Decode(pkt []byte, m *Message) error {
	*m = Message{}
	if len(pkt) > MaxPacket {
		return errLong
	}
	if len(pkt) < HeaderSize {
		return errShort
	}
	if pkt[0] != magic0 || pkt[1] != magic1 {
		return errMagic
	}
	if pkt[2] != Version {
		return errVersion
	}
	m.Kind = Kind(pkt[3])
	if !m.Kind.Valid() {
		m.Kind = 0
		return faultKind.malformed
	}
	m.Session = le.Uint32(pkt[4:])
	m.Seq = le.Uint16(pkt[8:])
	r := reader{b: pkt[HeaderSize:]}
	switch m.Kind {
	case KindSyncRequest, KindSyncReply, KindSpectate:
		v, ok := r.uint32()
		if !ok {
			return faultNonce.malformed
		}
		m.Nonce = v
		if m.Kind == KindSpectate {
			if m.Cookie, ok = r.uint32(); !ok {
				return faultCookie.malformed
			}
		}
	case KindCookie:
		v, ok := r.uint32()
		if !ok {
			return faultCookie.malformed
		}
		m.Cookie = v
	case KindDropped:
		t, ok := r.tick(NoTick)
		if !ok || len(r.b) == 0 || r.b[0]&^dropFlagsAll != 0 {
			return faultCutoff.malformed
		}
		m.Cutoff, m.DropFlags, r.b = t, r.b[0], r.b[1:]
	case KindInput:
		if err := decodeInput(&r, m); err != nil {
			return err
		}
	case KindInputAck:
		t, ok := r.tick(NoTick)
		if !ok {
			return faultAckTick.malformed
		}
		m.AckTick = t
	case KindQualityReport:
		v, ok := r.uvarint()
		if !ok {
			return faultAhead.malformed
		}
		a := unzigzag(v)
		if a < math.MinInt32 || a > math.MaxInt32 {
			return faultAhead.malformed
		}
		m.TicksAhead = int32(a)
		p, ok := r.uint64()
		if !ok {
			return faultPing.malformed
		}
		m.PingSent = int64(p)
	case KindQualityReply:
		p, ok := r.uint64()
		if !ok {
			return faultPing.malformed
		}
		m.PingSent = int64(p)
	case KindChecksumReport:
		t, ok := r.tick(0)
		if !ok {
			return faultTick.malformed
		}
		m.Tick = t
		s, ok := r.uint64()
		if !ok {
			return faultSum.malformed
		}
		m.Sum = s
	case KindJoin:
		if !decodeJoin(&r, m) {
			return faultJoin.malformed
		}
	case KindWelcome:
		nonce, ok := r.uint32()
		if !ok || len(r.b) < 2 {
			return faultWelcome.malformed
		}
		m.Nonce, m.Slot, m.Players, r.b = nonce, int(r.b[0]), int(r.b[1]), r.b[2:]
		if m.Tick, ok = r.tick(0); !ok || !validWelcome(m) {
			return faultWelcome.malformed
		}
	case KindRefused:
		nonce, ok := r.uint32()
		if !ok || len(r.b) < 1 || r.b[0] == 0 || r.b[0] >= refusedEnd {
			return faultRefused.malformed
		}
		m.Nonce, m.Reason, r.b = nonce, r.b[0], r.b[1:]
	case KindPlayerSum:
		if len(r.b) < 1 || r.b[0] >= MaxPlayers {
			return faultPlayerSum.malformed
		}
		m.Slot, r.b = int(r.b[0]), r.b[1:]
		var ok bool
		if m.Tick, ok = r.tick(0); !ok {
			return faultPlayerSum.malformed
		}
		if m.Sum, ok = r.uint64(); !ok {
			return faultPlayerSum.malformed
		}
	case KindSnapshotAsk:
		var ok bool
		if m.Tick, ok = r.tick(0); !ok || m.Tick == 0 || len(r.b) < 1 || r.b[0] >= MaxPlayers {
			return faultSnapshotAsk.malformed
		}
		m.Slot, r.b = int(r.b[0]), r.b[1:]
	case KindSnapshot:
		var ok bool
		var size, offset uint64
		if m.Tick, ok = r.tick(0); !ok {
			return faultSnapshot.malformed
		}
		if m.Sum, ok = r.uint64(); !ok {
			return faultSnapshot.malformed
		}
		if size, ok = r.uvarint(); !ok || size > MaxSnapshot {
			return faultSnapshot.malformed
		}
		if offset, ok = r.uvarint(); !ok || offset > MaxSnapshot {
			return faultSnapshot.malformed
		}
		m.Size, m.Offset = int64(size), int64(offset)
		m.InputsLen = copy(m.Inputs[:], r.b)
		r.b = r.b[m.InputsLen:]
		if !validSnapshot(m) {
			return faultSnapshot.malformed
		}
	case KindSnapshotAck:
		var ok bool
		var offset uint64
		if m.Tick, ok = r.tick(0); !ok || m.Tick == 0 {
			return faultSnapshotAck.malformed
		}
		if offset, ok = r.uvarint(); !ok || offset > MaxSnapshot {
			return faultSnapshotAck.malformed
		}
		m.Offset = int64(offset)
	case KindKeepAlive, KindBye, KindKick:
	}
	if len(r.b) != 0 {
		return errTrailing
	}
	return nil
}

// Flags in an Input's players byte: the Lost, Quiet and Kicked sets, and the Joined ticks,
// follow the statuses.
const (
	lostFollows   = 0x80
	quietFollows  = 0x40
	kickedFollows = 0x20
	joinedFollows = 0x10
)

// decodeJoin reads a Join's body into m, reporting false for a malformed one.
func decodeJoin(r *reader, m *Message) bool {
	var ok bool
	if m.Nonce, ok = r.uint32(); !ok {
		return false
	}
	if m.Cookie, ok = r.uint32(); !ok || len(r.b) < 3 {
		return false
	}
	m.Slot, m.Players, m.InputSize, r.b = int(r.b[0]), int(r.b[1]), int(r.b[2]), r.b[3:]
	rate, ok := r.uvarint()
	if !ok || rate > MaxTickRate || len(r.b) < 1 {
		return false
	}
	m.TickRate = int(rate)
	n := int(r.b[0])
	if n > MaxMatch || len(r.b) < 1+n+1 {
		return false
	}
	m.MatchLen = copy(m.Match[:], r.b[1:1+n])
	r.b = r.b[1+n:]
	n = int(r.b[0])
	if n > MaxToken || len(r.b) < 1+n+1 {
		return false
	}
	m.TokenLen = copy(m.Token[:], r.b[1:1+n])
	m.JoinFlags = r.b[1+n]
	r.b = r.b[2+n:]
	return validJoin(m)
}

func decodeInput(r *reader, m *Message) error {
	var ok bool
	if m.StartTick, ok = r.tick(0); !ok {
		return faultStartTick.malformed
	}
	if m.AckTick, ok = r.tick(NoTick); !ok {
		return faultAckTick.malformed
	}
	if len(r.b) < 5 {
		return faultFixed.malformed
	}
	handles, size, count, players, disconnected := r.b[0], r.b[1], r.b[2], r.b[3], r.b[4]
	r.b = r.b[5:]
	flags := players & (lostFollows | quietFollows | kickedFollows | joinedFollows)
	players &^= flags
	m.Handles, m.InputSize, m.Count, m.Players = HandleSet(handles), int(size), int(count), int(players)
	for i := range min(m.Players, MaxPlayers) {
		if t, ok := r.tick(NoTick); !ok {
			return faultLastTick.malformed
		} else {
			m.Status[i] = PlayerStatus{Disconnected: disconnected&(1<<i) != 0, LastTick: t}
		}
	}
	// A set that follows is not empty: an empty one is written as no set at all.
	if flags&lostFollows != 0 {
		if len(r.b) == 0 || r.b[0] == 0 {
			return faultLost.malformed
		}
		m.Lost, r.b = HandleSet(r.b[0]), r.b[1:]
	}
	if flags&quietFollows != 0 {
		if len(r.b) == 0 || r.b[0] == 0 {
			return faultQuiet.malformed
		}
		m.Quiet, r.b = HandleSet(r.b[0]), r.b[1:]
	}
	if flags&kickedFollows != 0 {
		if len(r.b) == 0 || r.b[0] == 0 {
			return faultKicked.malformed
		}
		m.Kicked, r.b = HandleSet(r.b[0]), r.b[1:]
	}
	if flags&joinedFollows != 0 {
		if len(r.b) == 0 || r.b[0] == 0 || m.Players < MaxPlayers && r.b[0]>>m.Players != 0 {
			return faultJoined.malformed
		}
		joined := HandleSet(r.b[0])
		r.b = r.b[1:]
		for i := range m.Players {
			if !joined.Has(i) {
				continue
			}
			t, ok := r.tick(0)
			if !ok || t == 0 {
				return faultJoined.malformed
			}
			m.Joined[i] = t
		}
	}
	m.InputsLen = copy(m.Inputs[:], r.b)
	r.b = r.b[m.InputsLen:]
	if f := checkInput(m); f != nil {
		return f.malformed
	}
	if m.Players < MaxPlayers && disconnected>>m.Players != 0 {
		return faultDisconnect.malformed
	}
	return nil
}

// PackInputs compresses into m the inputs of as many whole ticks from the start of inputs as
// fit in the packet, at most MaxTicksPerInput, and sets Count and Inputs; it returns the
// number of ticks packed. inputs holds tick after tick, each tick the input of every handle in
// m.Handles in increasing order of handle, InputSize bytes each; ref is the tick before the
// first (StartTick-1) as the receiver has it: the last input it acknowledged, or zeros if it
// has none (see CompressInputs). Set every other field of the Input first: the room left for
// inputs depends on them. PackInputs makes m an Input. At least one tick always fits. It
// returns an error wrapping ErrInvalid, with Count 0 and no inputs, if a field is out of its
// range, ref is not one tick of every handle carried, or inputs not whole ticks. It allocates
// nothing.
func (m *Message) PackInputs(ref, inputs []byte) (int, error) {
	m.Kind, m.Count, m.InputsLen = KindInput, 0, 0
	if f := checkInput(m); f != nil {
		return 0, f.invalid
	}
	stride := m.Handles.Len() * m.InputSize
	if stride == 0 || len(ref) != stride || len(inputs)%stride != 0 {
		return 0, errInputsShape
	}
	// The room for inputs: MaxPacket less the header and the Input's other fields (the
	// count is one byte, whatever its value).
	var scratch [HeaderSize + 2*10 + 5 + MaxPlayers*10 + 2]byte
	fixed, err := Append(scratch[:0], m)
	if err != nil {
		return 0, err
	}
	room := MaxPacket - len(fixed)
	ticks := min(len(inputs)/stride, MaxTicksPerInput)
	if m.StartTick+int64(ticks)-1 > MaxTick {
		ticks = int(MaxTick - m.StartTick + 1)
	}
	// A try that does not fit fills the room with the bytes of as many ticks as fit and says
	// how many bytes that is: the ticks they hold, which a second try packs (a tick fewer if
	// the last one's bytes come out a little longer when they end the data).
	out, consumed, ok := compress(m.Inputs[:0], room, ref, inputs[:ticks*stride])
	for ticks = consumed / stride; !ok && ticks > 0; ticks-- {
		if out, _, ok = compress(m.Inputs[:0], room, ref, inputs[:ticks*stride]); ok {
			break
		}
	}
	if !ok {
		out = m.Inputs[:0]
	}
	m.Count, m.InputsLen = ticks, len(out)
	clear(m.Inputs[len(out):]) // what a longer try left, so that m equals its decoded packet
	return ticks, nil
}

// UnpackInputs decompresses m's inputs, appends them to dst (Count ticks of every handle in
// Handles, laid out as PackInputs takes them) and returns the extended slice. ref is the tick
// before StartTick of the handles carried, as the caller has it (zeros if StartTick is 0 or
// the caller has acknowledged none). It returns an error wrapping ErrInvalid if ref is not one
// tick of every handle, and one wrapping ErrMalformed if the inputs do not decompress (which
// cannot happen to a message Decode accepted). It allocates only if dst lacks the room.
func (m *Message) UnpackInputs(dst, ref []byte) ([]byte, error) {
	stride := m.Handles.Len() * m.InputSize
	if m.Count == 0 {
		return dst, nil
	}
	if stride == 0 || len(ref) != stride {
		return dst, errUnpackRef
	}
	start, need := len(dst), m.Count*stride
	if cap(dst)-start < need {
		grown := make([]byte, start, start+need)
		copy(grown, dst)
		dst = grown
	}
	dst = dst[:start+need]
	if err := DecompressInputs(dst[start:], ref, m.Inputs[:m.InputsLen]); err != nil {
		return dst[:start], err
	}
	return dst, nil
}

// reader reads fields from the front of b; each method reports false, consuming nothing
// useful, if b is too short or the field invalid.
type reader struct{ b []byte }

func (r *reader) uint32() (uint32, bool) {
	if len(r.b) < 4 {
		return 0, false
	}
	v := le.Uint32(r.b)
	r.b = r.b[4:]
	return v, true
}

func (r *reader) uint64() (uint64, bool) {
	if len(r.b) < 8 {
		return 0, false
	}
	v := le.Uint64(r.b)
	r.b = r.b[8:]
	return v, true
}

// uvarint reads a uvarint in its shortest form: a longer encoding of the same value (a last
// byte of 0) is refused, so that every accepted packet is the one Append writes.
func (r *reader) uvarint() (uint64, bool) {
	v, n := uvarint(r.b)
	if n <= 0 {
		return 0, false
	}
	r.b = r.b[n:]
	return v, true
}

// tick reads a tick stored as a uvarint of tick-low (low is 0 or NoTick), and checks it is
// low to MaxTick.
func (r *reader) tick(low int64) (int64, bool) {
	v, ok := r.uvarint()
	if !ok || v > uint64(MaxTick-low) {
		return 0, false
	}
	return int64(v) + low, true
}

// uvarint decodes a canonical uvarint from the front of b: the value and the bytes it took,
// or n <= 0 if b ends inside it, it overflows 64 bits or it is not in its shortest form.
func uvarint(b []byte) (v uint64, n int) {
	var shift uint
	for i, c := range b {
		if i == 10 {
			return 0, -1
		}
		if c < 0x80 {
			if i == 9 && c > 1 || i > 0 && c == 0 {
				return 0, -1
			}
			return v | uint64(c)<<shift, i + 1
		}
		v |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}

func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }
