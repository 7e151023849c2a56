package replay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/gameloop-go/gameloop"
)

// The layout of a recording; FORMAT.md is the specification.
const (
	// magic opens every recording. Like PNG's signature, its first byte has the high bit set and
	// it holds a CR LF and a ^Z, so that a file mangled by a text-mode transfer is recognised as
	// such rather than misread.
	magic = "\x89GLRP\r\n\x1a"

	// Version is the newest version of the format, which Decode reads along with versions 1
	// and 2. Version 2 adds player input records (see PlayerInput), version 3 gamepad inputs
	// (gameloop.GamepadConnect to gameloop.GamepadMove); each version holds all the one before
	// it holds. NewRecorder writes version 3, since a gamepad may be connected at any time;
	// Encode writes the first version that holds what the Recording has, so that older readers
	// read what they can.
	Version = 3

	// versionGamepads is the first version of the format that holds gamepad inputs.
	versionGamepads = 3

	preambleSize    = len(magic) + 2 // magic, then the version as a little-endian uint16
	chunkHeaderSize = 8              // payload length and CRC-32, both little-endian uint32

	// MaxChunkSize is the largest chunk payload a reader accepts, in bytes. A reader never
	// allocates more than this for one chunk, whatever its length field says.
	MaxChunkSize = 1 << 16

	// maxRecordBody is the largest body of one record. The largest record, a header with a
	// name of MaxNameLen bytes and MaxMetaLen bytes of metadata, is below it.
	maxRecordBody = 1024

	// MaxNameLen is the longest game name a recording's header holds, in bytes.
	MaxNameLen = 256

	// MaxMetaLen is the most game-defined bytes a recording's header holds.
	MaxMetaLen = 512

	// MaxInputsPerTick is the most inputs a recording holds for one tick. A replay holds a
	// tick's inputs until the tick runs, so this bounds what a recording, hostile or not, can
	// make it hold (each input is a 64-byte gameloop.Input). A reader reports more as corrupt
	// (a *FormatError wrapping ErrCorrupt); a Recorder fed more fails rather than write a
	// recording no reader takes.
	MaxInputsPerTick = 1 << 16

	// defaultChunkSize is the payload size at which a Recorder starts a new chunk.
	defaultChunkSize = 4096
)

// The kinds of record.
const (
	kindHeader   byte = 1 // first record of the first chunk: tick rate, checksum interval, name, metadata
	kindInput    byte = 2 // one input and the tick it precedes
	kindChecksum byte = 3 // the game's checksum after a tick
	kindProgress byte = 4 // the number of ticks run so far; closes every chunk but the last
	kindEnd      byte = 5 // the number of ticks run in all; the last record of a recording
	kindRate     byte = 6 // the tick rate changed: the ticks from this one on run at a new rate
)

var kindNames = [...]string{
	kindHeader: "header", kindInput: "input", kindChecksum: "checksum", kindProgress: "progress", kindEnd: "end",
	kindRate: "tick rate", kindPlayerInput: "player input",
}

func kindName(k byte) string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("unknown kind %d", k)
}

// The bits of an input record's field mask: which fields of the Input are stored. A field that is
// zero is left out; Repeat and Focused are stored as their bit alone.
const (
	fieldKey uint64 = 1 << iota
	fieldRepeat
	fieldMods
	fieldRune
	fieldButton
	fieldX
	fieldY
	fieldWidth
	fieldHeight
	fieldFocused
	// Version 3 on.
	fieldGamepad
	fieldPadButton
	fieldAxis
	fieldAxisValue

	fieldAllV1 = fieldFocused<<1 - 1
	fieldAll   = fieldAxisValue<<1 - 1
)

// maxInputKindV1 is the highest gameloop.InputKind that versions 1 and 2 of the format store,
// maxInputKind the highest of version 3. A kind added to gameloop later needs a new version,
// so that an old reader reports it plainly.
const (
	maxInputKindV1 = gameloop.Close
	maxInputKind   = gameloop.GamepadMove
)

// Errors that a *FormatError wraps, to test with errors.Is.
var (
	// ErrNotRecording: the data does not start with the magic of a recording.
	ErrNotRecording = errors.New("not a gameloop recording")
	// ErrVersion: the recording is of a version this package does not read.
	ErrVersion = errors.New("unsupported version")
	// ErrTruncated: the recording ends early, as when the recording program was killed. What
	// came before the cut, up to the last whole chunk, is still good.
	ErrTruncated = errors.New("recording cut short")
	// ErrCorrupt: the recording is damaged or was not written by a Recorder: a chunk whose
	// CRC does not match, a length over its limit, an unknown kind, a value out of range.
	ErrCorrupt = errors.New("corrupt recording")
)

// FormatError reports a problem with a recording's bytes and where it is.
type FormatError struct {
	// Offset is the position in the stream of the first byte at fault, counting from 0.
	Offset int64
	// Err is ErrNotRecording, ErrVersion, ErrTruncated or ErrCorrupt, or an error of the
	// underlying reader.
	Err error
	// Detail says what is wrong, such as "chunk length 4294967295 is over the limit of 65536".
	Detail string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("replay: %v at byte %d: %s", e.Err, e.Offset, e.Detail)
}

// Unwrap returns Err.
func (e *FormatError) Unwrap() error { return e.Err }

// appendRecord appends a record of kind with body to dst.
func appendRecord(dst []byte, kind byte, body []byte) []byte {
	dst = append(dst, kind)
	dst = binary.AppendUvarint(dst, uint64(len(body)))
	return append(dst, body...)
}

// appendHeader appends the body of a header record.
func appendHeader(dst []byte, h Header) []byte {
	dst = binary.AppendUvarint(dst, uint64(h.TickRate))
	dst = binary.AppendUvarint(dst, uint64(h.ChecksumEvery))
	dst = binary.AppendUvarint(dst, uint64(len(h.Name)))
	dst = append(dst, h.Name...)
	dst = binary.AppendUvarint(dst, uint64(len(h.Meta)))
	return append(dst, h.Meta...)
}

// appendInput appends the body of an input record: the tick as a delta from the previous
// record's, the kind, the field mask and the fields it names.
func appendInput(dst []byte, tickDelta uint64, in *gameloop.Input) []byte {
	dst = binary.AppendUvarint(dst, tickDelta)
	dst = append(dst, byte(in.Kind))
	var mask uint64
	set := func(bit uint64, present bool) {
		if present {
			mask |= bit
		}
	}
	set(fieldKey, in.Key != 0)
	set(fieldRepeat, in.Repeat)
	set(fieldMods, in.Mods != 0)
	set(fieldRune, in.Rune != 0)
	set(fieldButton, in.Button != 0)
	// By their bits, so that -0 and the payload of a NaN survive the trip.
	set(fieldX, math.Float64bits(in.X) != 0)
	set(fieldY, math.Float64bits(in.Y) != 0)
	set(fieldWidth, in.Width != 0)
	set(fieldHeight, in.Height != 0)
	set(fieldFocused, in.Focused)
	set(fieldGamepad, in.Gamepad != 0)
	set(fieldPadButton, in.PadButton != 0)
	set(fieldAxis, in.Axis != 0)
	set(fieldAxisValue, in.AxisValue != 0)
	dst = binary.AppendUvarint(dst, mask)
	if mask&fieldKey != 0 {
		dst = binary.AppendUvarint(dst, uint64(in.Key))
	}
	if mask&fieldMods != 0 {
		dst = append(dst, byte(in.Mods))
	}
	if mask&fieldRune != 0 {
		dst = binary.AppendVarint(dst, int64(in.Rune))
	}
	if mask&fieldButton != 0 {
		dst = append(dst, byte(in.Button))
	}
	if mask&fieldX != 0 {
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(in.X))
	}
	if mask&fieldY != 0 {
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(in.Y))
	}
	if mask&fieldWidth != 0 {
		dst = binary.AppendVarint(dst, int64(in.Width))
	}
	if mask&fieldHeight != 0 {
		dst = binary.AppendVarint(dst, int64(in.Height))
	}
	if mask&fieldGamepad != 0 {
		dst = append(dst, byte(in.Gamepad))
	}
	if mask&fieldPadButton != 0 {
		dst = append(dst, byte(in.PadButton))
	}
	if mask&fieldAxis != 0 {
		dst = append(dst, byte(in.Axis))
	}
	if mask&fieldAxisValue != 0 {
		dst = binary.AppendVarint(dst, int64(in.AxisValue))
	}
	return dst
}

// appendChecksum appends the body of a checksum record.
func appendChecksum(dst []byte, tickDelta, sum uint64) []byte {
	dst = binary.AppendUvarint(dst, tickDelta)
	return binary.LittleEndian.AppendUint64(dst, sum)
}

// appendRate appends the body of a tick rate record.
func appendRate(dst []byte, tickDelta uint64, rate int) []byte {
	dst = binary.AppendUvarint(dst, tickDelta)
	return binary.AppendUvarint(dst, uint64(rate))
}

// appendTick appends the body of a progress or end record.
func appendTick(dst []byte, tickDelta uint64) []byte {
	return binary.AppendUvarint(dst, tickDelta)
}
