package replay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"unicode/utf8"

	"github.com/gameloop-go/gameloop"
)

// Header is what a recording says about itself.
type Header struct {
	// TickRate is the loop's ticks per second when the recording began; a replay starts at it
	// (and changes it as Recording.RateChanges say).
	TickRate int
	// ChecksumEvery is how many ticks apart the recorder took checksums (RecordOptions).
	ChecksumEvery int
	// Name identifies the game (RecordOptions.Name); it may be empty.
	Name string
	// Meta is what the game stored to start a replay in the same state (RecordOptions.Meta).
	Meta []byte
}

// RateChange is a change of the loop's tick rate: from Tick on, the ticks ran at Rate ticks per
// second, each with a step of 1/Rate seconds.
type RateChange struct {
	Tick uint64
	Rate int
}

// Checksum is the game's checksum after the update of a tick.
type Checksum struct {
	Tick uint64
	Sum  uint64
}

// Recording is a decoded recording.
type Recording struct {
	Header
	// Inputs are the inputs in the order they were delivered, each with the Tick it preceded.
	Inputs []gameloop.Input
	// RateChanges are the changes of the tick rate (Loop.SetTickRate) during the recording,
	// by increasing tick; Header.TickRate is the rate until the first.
	RateChanges []RateChange
	// Checksums are the game's checksums, by increasing tick.
	Checksums []Checksum
	// PlayerInputs are the players' inputs (a networked game's, see PlayerInput), by
	// increasing tick, and within a tick by increasing player; each holds until the
	// player's next.
	PlayerInputs []PlayerInput
	// Ticks is the number of ticks the recording covers. For a recording cut short it is the
	// last tick the whole chunks account for.
	Ticks uint64
	// Complete reports whether the recording ends with its end record, as Recorder.Close
	// writes it; a recording cut short by a crash does not.
	Complete bool

	cut error // why Decode found the recording incomplete
}

// Decode reads a whole recording from r.
//
// A recording cut short, as by a crash while recording, gives a *FormatError wrapping
// ErrTruncated along with a Recording of everything up to its last whole chunk, which can be
// replayed. Any other problem gives a *FormatError wrapping ErrNotRecording, ErrVersion or
// ErrCorrupt (or the reader's own error), saying what is wrong and at which byte; the Recording
// then holds what was read before it, or is nil if the header could not be read.
//
// Decode reads r incrementally and checks every length against its limit before using it, so a
// length field that promises more than the data holds costs nothing (and no chunk more than
// MaxChunkSize). What it returns holds every input as a gameloop.Input of 64 bytes: up to 13
// times the size of the 5-byte records that store the smallest inputs (measured: 12 times for a
// recording of key presses, 60 bytes an input). To replay a recording of any size in bounded
// memory, use Play or Open, which stream it.
func Decode(r io.Reader) (*Recording, error) {
	d := decoder{r: r}
	err := d.decode()
	if d.rec != nil && !d.rec.Complete {
		d.rec.cut = err
		d.rec.Ticks = d.known()
	}
	return d.rec, err
}

// known returns the last tick that the records read so far say has run. Every record still to
// come is for a later tick, or (a checksum) for this one: see FORMAT.md's order.
func (d *decoder) known() uint64 { return max(d.ran, d.minRan) }

// decoder holds the state of Decode.
type decoder struct {
	r       io.Reader
	off     int64        // bytes read from r
	payload bytes.Buffer // the chunk being read
	rec     *Recording

	ran          uint64 // the last tick a checksum, progress or end record said had run
	minRan       uint64 // the last tick that must have run, by the inputs and rate changes read
	lastInput    uint64 // the tick of the last input, 0 before the first
	tickInputs   int    // the number of inputs read for lastInput, at most MaxInputsPerTick
	lastRate     uint64 // the tick of the last change of tick rate, 0 before the first
	lastChecksum uint64 // the tick of the last checksum, 0 before the first
	ended        bool   // the end record has been read
	failed       error  // what reading the first chunk found, for a Stream to report later

	version uint16      // the recording's version
	players playerOrder // the order of the player inputs read
}

func (d *decoder) errorf(off int64, kind error, format string, args ...any) error {
	return &FormatError{Offset: off, Err: kind, Detail: fmt.Sprintf(format, args...)}
}

func (d *decoder) decode() error {
	if err := d.preamble(); err != nil {
		return err
	}
	for {
		more, err := d.chunk()
		if err != nil || !more {
			return err
		}
	}
}

// readFull reads len(b) bytes into b, returning how many it read; a short read at the end of the
// data is not an error here, as the caller knows what a short read means.
func (d *decoder) readFull(b []byte) (int, error) {
	n, err := io.ReadFull(d.r, b)
	d.off += int64(n)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = nil
	}
	if err != nil {
		return n, &FormatError{Offset: d.off, Err: err, Detail: "reading the recording"}
	}
	return n, nil
}

func (d *decoder) preamble() error {
	var pre [preambleSize]byte
	n, err := d.readFull(pre[:])
	if err != nil {
		return err
	}
	for i := 0; i < min(n, len(magic)); i++ {
		if pre[i] != magic[i] {
			return d.errorf(int64(i), ErrNotRecording, "byte 0x%02x where the magic %q has 0x%02x", pre[i], magic, magic[i])
		}
	}
	if n < preambleSize {
		return d.errorf(int64(n), ErrTruncated, "the data ends after %d of the %d bytes of magic and version", n, preambleSize)
	}
	d.version = binary.LittleEndian.Uint16(pre[len(magic):])
	if d.version < 1 || d.version > Version {
		return d.errorf(int64(len(magic)), ErrVersion, "version %d; this package reads versions 1 to %d", d.version, Version)
	}
	return nil
}

// chunk reads one chunk and its records; more is false at the end of the data.
func (d *decoder) chunk() (more bool, err error) {
	start := d.off
	var hdr [chunkHeaderSize]byte
	n, err := d.readFull(hdr[:])
	switch {
	case err != nil:
		return false, err
	case n == 0 && d.ended:
		return false, nil
	case d.ended:
		return false, d.errorf(start, ErrCorrupt, "data after the end record")
	case n == 0 && d.rec == nil:
		return false, d.errorf(start, ErrTruncated, "no chunk after the version: the recording has no header")
	case n == 0:
		return false, d.errorf(start, ErrTruncated, "the data ends after tick %d without an end record; everything before this byte is whole", d.ran)
	case n < chunkHeaderSize:
		return false, d.errorf(start, ErrTruncated, "chunk header cut short: the data ends after %d of its %d bytes", n, chunkHeaderSize)
	}
	length := binary.LittleEndian.Uint32(hdr[0:4])
	stored := binary.LittleEndian.Uint32(hdr[4:8])
	if length == 0 {
		return false, d.errorf(start, ErrCorrupt, "chunk of length 0")
	}
	if length > MaxChunkSize {
		return false, d.errorf(start, ErrCorrupt, "chunk length %d is over the limit of %d", length, MaxChunkSize)
	}
	// bytes.Buffer grows as the data comes, so a length that promises more than the data holds
	// costs no more than the data.
	d.payload.Reset()
	got, err := d.payload.ReadFrom(io.LimitReader(d.r, int64(length)))
	d.off += got
	if err != nil {
		return false, &FormatError{Offset: d.off, Err: err, Detail: "reading the recording"}
	}
	if got < int64(length) {
		return false, d.errorf(start, ErrTruncated, "chunk of %d bytes cut short: the data ends after %d of them, at byte %d", length, got, d.off)
	}
	payload := d.payload.Bytes()
	if sum := crc32.ChecksumIEEE(payload); sum != stored {
		return false, d.errorf(start+4, ErrCorrupt, "chunk CRC is %08x, but its %d bytes sum to %08x", stored, length, sum)
	}
	base := start + chunkHeaderSize
	for pos := 0; pos < len(payload); {
		next, err := d.record(payload, pos, base)
		if err != nil {
			return false, err
		}
		if d.ended && next < len(payload) {
			return false, d.errorf(base+int64(next), ErrCorrupt, "record after the end record")
		}
		pos = next
	}
	return true, nil
}

// record decodes the record at payload[pos:] and returns where the next one starts; base is
// the offset of payload in the stream.
func (d *decoder) record(payload []byte, pos int, base int64) (int, error) {
	at := base + int64(pos)
	kind := payload[pos]
	length, n := binary.Uvarint(payload[pos+1:])
	switch {
	case n == 0:
		return 0, d.errorf(at+1, ErrCorrupt, "%s record's length runs past the end of its chunk", kindName(kind))
	case n < 0 || length > maxRecordBody:
		return 0, d.errorf(at+1, ErrCorrupt, "%s record's length is over the limit of %d", kindName(kind), maxRecordBody)
	}
	bodyAt := pos + 1 + n
	if length > uint64(len(payload)-bodyAt) {
		return 0, d.errorf(at+1, ErrCorrupt, "%s record of %d bytes runs past the end of its chunk, %d bytes on", kindName(kind), length, len(payload)-bodyAt)
	}
	f := fields{b: payload[bodyAt : bodyAt+int(length)], base: base + int64(bodyAt), kind: kind}
	if d.rec == nil && kind != kindHeader {
		return 0, d.errorf(at, ErrCorrupt, "the first record is a %s record, not the header", kindName(kind))
	}
	var err error
	switch kind {
	case kindHeader:
		err = d.header(&f, at)
	case kindInput:
		err = d.input(&f)
	case kindChecksum:
		err = d.checksum(&f)
	case kindProgress, kindEnd:
		err = d.progress(&f)
	case kindRate:
		err = d.rate(&f)
	case kindPlayerInput:
		err = d.playerInput(&f, at)
	default:
		return 0, d.errorf(at, ErrCorrupt, "record of %s (%d bytes)", kindName(kind), length)
	}
	if err == nil && len(f.b) > f.pos {
		err = d.errorf(f.at(), ErrCorrupt, "%d bytes left over at the end of a %s record", len(f.b)-f.pos, kindName(kind))
	}
	if err != nil {
		return 0, err
	}
	if kind == kindEnd {
		d.ended = true
		d.rec.Complete = true
		d.rec.Ticks = d.ran
	}
	return bodyAt + int(length), nil
}

func (d *decoder) header(f *fields, at int64) error {
	if d.rec != nil {
		return d.errorf(at, ErrCorrupt, "a second header record")
	}
	rateAt := f.at()
	rate, err := f.uvarint("tick rate")
	if err != nil {
		return err
	}
	if rate == 0 || rate > gameloop.MaxRate {
		return d.errorf(rateAt, ErrCorrupt, "tick rate %d is not between 1 and %d", rate, gameloop.MaxRate)
	}
	everyAt := f.at()
	every, err := f.uvarint("checksum interval")
	if err != nil {
		return err
	}
	if every > math.MaxInt32 {
		return d.errorf(everyAt, ErrCorrupt, "checksum interval %d is over the limit of %d", every, math.MaxInt32)
	}
	nameAt := f.at()
	nameLen, err := f.uvarint("name length")
	if err != nil {
		return err
	}
	if nameLen > MaxNameLen {
		return d.errorf(nameAt, ErrCorrupt, "name length %d is over the limit of %d", nameLen, MaxNameLen)
	}
	name, err := f.bytes(int(nameLen), "name")
	if err != nil {
		return err
	}
	if !utf8.Valid(name) {
		return d.errorf(nameAt, ErrCorrupt, "name %q is not UTF-8", name)
	}
	metaAt := f.at()
	metaLen, err := f.uvarint("metadata length")
	if err != nil {
		return err
	}
	if metaLen > MaxMetaLen {
		return d.errorf(metaAt, ErrCorrupt, "metadata length %d is over the limit of %d", metaLen, MaxMetaLen)
	}
	meta, err := f.bytes(int(metaLen), "metadata")
	if err != nil {
		return err
	}
	h := Header{TickRate: int(rate), ChecksumEvery: int(every), Name: string(name)}
	if len(meta) > 0 {
		h.Meta = bytes.Clone(meta)
	}
	d.rec = &Recording{Header: h}
	return nil
}

// tick reads a tick stored as a delta from the last tick known to have run.
func (d *decoder) tick(f *fields) (uint64, error) {
	at := f.at()
	delta, err := f.uvarint("tick")
	if err != nil {
		return 0, err
	}
	if delta > math.MaxUint64-d.ran {
		return 0, d.errorf(at, ErrCorrupt, "tick %d after %d overflows", delta, d.ran)
	}
	return d.ran + delta, nil
}

func (d *decoder) input(f *fields) error {
	at := f.at()
	tick, err := d.tick(f)
	if err != nil {
		return err
	}
	switch {
	case tick == d.ran:
		return d.errorf(at, ErrCorrupt, "input for tick %d, which has already run", tick)
	case tick < d.lastInput:
		return d.errorf(at, ErrCorrupt, "input for tick %d after one for tick %d", tick, d.lastInput)
	case tick <= d.lastRate:
		return d.errorf(at, ErrCorrupt, "input for tick %d after the tick rate changed for tick %d", tick, d.lastRate)
	case tick == d.lastInput && d.tickInputs >= MaxInputsPerTick:
		return d.errorf(at, ErrCorrupt, "more than %d inputs for tick %d (MaxInputsPerTick)", MaxInputsPerTick, tick)
	}
	in := gameloop.Input{Tick: tick}
	kindAt := f.at()
	kind, err := f.byte("input kind")
	if err != nil {
		return err
	}
	maxKind, allFields := maxInputKindV1, fieldAllV1
	if d.version >= versionGamepads {
		maxKind, allFields = maxInputKind, fieldAll
	}
	if kind == 0 || gameloop.InputKind(kind) > maxKind {
		return d.errorf(kindAt, ErrCorrupt, "unknown input kind %d in a recording of version %d", kind, d.version)
	}
	in.Kind = gameloop.InputKind(kind)
	maskAt := f.at()
	mask, err := f.uvarint("field mask")
	if err != nil {
		return err
	}
	if mask&^allFields != 0 {
		return d.errorf(maskAt, ErrCorrupt, "unknown input fields %#x in a recording of version %d", mask&^allFields, d.version)
	}
	in.Repeat = mask&fieldRepeat != 0
	in.Focused = mask&fieldFocused != 0
	if mask&fieldKey != 0 {
		keyAt := f.at()
		key, err := f.uvarint("key")
		if err != nil {
			return err
		}
		if key > math.MaxUint16 {
			return d.errorf(keyAt, ErrCorrupt, "key %d is over the limit of %d", key, math.MaxUint16)
		}
		in.Key = gameloop.Key(key)
	}
	if mask&fieldMods != 0 {
		mods, err := f.byte("modifiers")
		if err != nil {
			return err
		}
		in.Mods = gameloop.Mods(mods)
	}
	if mask&fieldRune != 0 {
		r, err := f.varintIn("rune", math.MinInt32, math.MaxInt32)
		if err != nil {
			return err
		}
		in.Rune = rune(r)
	}
	if mask&fieldButton != 0 {
		b, err := f.byte("mouse button")
		if err != nil {
			return err
		}
		in.Button = gameloop.MouseButton(b)
	}
	if mask&fieldX != 0 {
		if in.X, err = f.float("x"); err != nil {
			return err
		}
	}
	if mask&fieldY != 0 {
		if in.Y, err = f.float("y"); err != nil {
			return err
		}
	}
	if mask&fieldWidth != 0 {
		w, err := f.varintIn("width", math.MinInt, math.MaxInt)
		if err != nil {
			return err
		}
		in.Width = int(w)
	}
	if mask&fieldHeight != 0 {
		h, err := f.varintIn("height", math.MinInt, math.MaxInt)
		if err != nil {
			return err
		}
		in.Height = int(h)
	}
	if mask&fieldGamepad != 0 {
		g, err := f.byte("gamepad")
		if err != nil {
			return err
		}
		in.Gamepad = gameloop.GamepadID(g)
	}
	if mask&fieldPadButton != 0 {
		b, err := f.byte("gamepad button")
		if err != nil {
			return err
		}
		in.PadButton = gameloop.GamepadButton(b)
	}
	if mask&fieldAxis != 0 {
		a, err := f.byte("gamepad axis")
		if err != nil {
			return err
		}
		in.Axis = gameloop.GamepadAxis(a)
	}
	if mask&fieldAxisValue != 0 {
		v, err := f.varintIn("axis value", math.MinInt16, math.MaxInt16)
		if err != nil {
			return err
		}
		in.AxisValue = int16(v)
	}
	if tick != d.lastInput {
		d.tickInputs = 0
	}
	d.tickInputs++
	d.lastInput = tick
	d.minRan = max(d.minRan, tick-1)
	d.rec.Inputs = append(d.rec.Inputs, in)
	return nil
}

func (d *decoder) rate(f *fields) error {
	at := f.at()
	tick, err := d.tick(f)
	if err != nil {
		return err
	}
	switch {
	case tick == d.ran:
		return d.errorf(at, ErrCorrupt, "tick rate change for tick %d, which has already run", tick)
	case tick < d.lastInput:
		return d.errorf(at, ErrCorrupt, "tick rate change for tick %d after an input for tick %d", tick, d.lastInput)
	case tick <= d.lastRate:
		return d.errorf(at, ErrCorrupt, "tick rate change for tick %d after one for tick %d", tick, d.lastRate)
	}
	rateAt := f.at()
	rate, err := f.uvarint("tick rate")
	if err != nil {
		return err
	}
	if rate == 0 || rate > gameloop.MaxRate {
		return d.errorf(rateAt, ErrCorrupt, "tick rate %d is not between 1 and %d", rate, gameloop.MaxRate)
	}
	d.lastRate = tick
	d.minRan = max(d.minRan, tick) // the change is seen in the step of the tick, as it runs
	d.rec.RateChanges = append(d.rec.RateChanges, RateChange{Tick: tick, Rate: int(rate)})
	return nil
}

func (d *decoder) checksum(f *fields) error {
	at := f.at()
	tick, err := d.tick(f)
	if err != nil {
		return err
	}
	if err := d.ranTo(tick, at, "checksum"); err != nil {
		return err
	}
	switch {
	case tick == 0:
		return d.errorf(at, ErrCorrupt, "checksum for tick 0, before any tick ran")
	case tick <= d.lastChecksum:
		return d.errorf(at, ErrCorrupt, "checksum for tick %d after one for tick %d", tick, d.lastChecksum)
	}
	sum, err := f.uint64("checksum")
	if err != nil {
		return err
	}
	d.lastChecksum = tick
	d.rec.Checksums = append(d.rec.Checksums, Checksum{Tick: tick, Sum: sum})
	return nil
}

func (d *decoder) progress(f *fields) error {
	at := f.at()
	tick, err := d.tick(f)
	if err != nil {
		return err
	}
	return d.ranTo(tick, at, kindName(f.kind))
}

// ranTo records that tick has run, as a checksum, progress or end record says. An input for a
// tick t is delivered once t-1 has run, and a change of rate for t is seen as t runs, so no such
// record can say less than that.
func (d *decoder) ranTo(tick uint64, at int64, what string) error {
	if tick < d.minRan {
		return d.errorf(at, ErrCorrupt, "%s record says tick %d has run, but an input or a tick rate change says tick %d has", what, tick, d.minRan)
	}
	d.ran = tick
	return nil
}

// fields reads the values of one record's body, knowing where in the stream it is.
type fields struct {
	b    []byte
	pos  int
	base int64 // the offset of b in the stream
	kind byte
}

func (f *fields) at() int64 { return f.base + int64(f.pos) }

func (f *fields) short(what string) error {
	return &FormatError{Offset: f.at(), Err: ErrCorrupt,
		Detail: fmt.Sprintf("%s record ends inside its %s", kindName(f.kind), what)}
}

func (f *fields) uvarint(what string) (uint64, error) {
	v, n := binary.Uvarint(f.b[f.pos:])
	if n == 0 {
		return 0, f.short(what)
	}
	if n < 0 {
		return 0, &FormatError{Offset: f.at(), Err: ErrCorrupt, Detail: fmt.Sprintf("%s overflows 64 bits", what)}
	}
	f.pos += n
	return v, nil
}

func (f *fields) varintIn(what string, lo, hi int64) (int64, error) {
	at := f.at()
	v, n := binary.Varint(f.b[f.pos:])
	if n == 0 {
		return 0, f.short(what)
	}
	if n < 0 || v < lo || v > hi {
		return 0, &FormatError{Offset: at, Err: ErrCorrupt, Detail: fmt.Sprintf("%s is not between %d and %d", what, lo, hi)}
	}
	f.pos += n
	return v, nil
}

func (f *fields) byte(what string) (byte, error) {
	b, err := f.bytes(1, what)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

func (f *fields) uint64(what string) (uint64, error) {
	b, err := f.bytes(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

func (f *fields) float(what string) (float64, error) {
	v, err := f.uint64(what)
	return math.Float64frombits(v), err
}

func (f *fields) bytes(n int, what string) ([]byte, error) {
	if n > len(f.b)-f.pos {
		return nil, f.short(what)
	}
	b := f.b[f.pos : f.pos+n]
	f.pos += n
	return b, nil
}
