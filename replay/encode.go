package replay

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"unicode/utf8"

	"github.com/gameloop-go/gameloop"
)

// encoder writes a recording as a stream of chunks. Records are gathered into a chunk, and each
// chunk goes to the writer in one Write, whole, with its length and CRC in front: a program
// killed while recording leaves every chunk before the last intact.
//
// The tick of each record is stored as a delta from ran, the last tick the stream has said has
// run (by a checksum, progress or end record), which keeps the numbers small.
type encoder struct {
	w         io.Writer
	chunkSize int
	body      []byte // scratch for a record's body
	frame     []byte // the chunk being built, with room for its header in front
	ran       uint64 // the last tick a written record says has run
	written   int64  // bytes written to w
	err       error  // the first write error; every later call returns it
}

func newEncoder(w io.Writer, chunkSize int) *encoder {
	e := &encoder{w: w, chunkSize: chunkSize}
	e.frame = make([]byte, chunkHeaderSize, chunkHeaderSize+chunkSize+64)
	return e
}

// start writes the preamble, of version, and the header record.
func (e *encoder) start(version uint16, h Header) error {
	pre := make([]byte, 0, preambleSize)
	pre = append(pre, magic...)
	pre = binary.LittleEndian.AppendUint16(pre, version)
	if err := e.write(pre); err != nil {
		return err
	}
	e.frame = appendRecord(e.frame, kindHeader, appendHeader(nil, h))
	return nil
}

// payload returns the number of payload bytes in the chunk being built.
func (e *encoder) payload() int { return len(e.frame) - chunkHeaderSize }

// Upper bounds of the size of records, to know whether one fits in the chunk being built.
const (
	maxTickRecord     = 2 + binary.MaxVarintLen64
	maxChecksumRecord = maxTickRecord + 8
	maxRateRecord     = maxTickRecord + binary.MaxVarintLen64
	maxInputRecord    = 2 + 4*binary.MaxVarintLen64 + 1 + 3 + 1 + 5 + 1 + 16
)

// room writes out the chunk being built if a record of up to need bytes would not fit in it with
// the progress record that closes it; sofar is the number of ticks run, for that record. A record
// stores its tick as a delta from e.ran, which a flush changes: so room comes first, and the
// record's body is made after it.
func (e *encoder) room(need int, sofar uint64) error {
	if e.err != nil {
		return e.err
	}
	if e.payload() > 0 && e.payload()+need+maxTickRecord > e.chunkSize {
		return e.flush(sofar)
	}
	return nil
}

// input appends an input record; sofar is the number of ticks run.
func (e *encoder) input(in *gameloop.Input, sofar uint64) error {
	if err := e.room(maxInputRecord, sofar); err != nil {
		return err
	}
	e.body = appendInput(e.body[:0], in.Tick-e.ran, in)
	e.frame = appendRecord(e.frame, kindInput, e.body)
	return nil
}

// rate appends a tick rate record: from tick on, the loop runs at rate.
func (e *encoder) rate(tick uint64, rate int) error {
	if err := e.room(maxRateRecord, tick-1); err != nil {
		return err
	}
	e.body = appendRate(e.body[:0], tick-e.ran, rate)
	e.frame = appendRecord(e.frame, kindRate, e.body)
	return nil
}

// checksum appends a checksum record, which says that tick has run.
func (e *encoder) checksum(tick, sum uint64) error {
	if err := e.room(maxChecksumRecord, tick); err != nil {
		return err
	}
	e.body = appendChecksum(e.body[:0], tick-e.ran, sum)
	e.frame = appendRecord(e.frame, kindChecksum, e.body)
	e.ran = tick
	return nil
}

// flush closes the chunk being built with a progress record saying sofar ticks have run, and
// writes it out. It does nothing if the chunk is empty.
func (e *encoder) flush(sofar uint64) error {
	if e.err != nil {
		return e.err
	}
	if e.payload() == 0 {
		return nil
	}
	var body [binary.MaxVarintLen64]byte
	e.frame = appendRecord(e.frame, kindProgress, appendTick(body[:0], sofar-e.ran))
	e.ran = sofar
	return e.writeChunk()
}

// end closes the recording with an end record saying ticks ticks ran, and writes the last chunk.
func (e *encoder) end(ticks uint64) error {
	if e.err != nil {
		return e.err
	}
	var body [binary.MaxVarintLen64]byte
	e.frame = appendRecord(e.frame, kindEnd, appendTick(body[:0], ticks-e.ran))
	e.ran = ticks
	return e.writeChunk()
}

func (e *encoder) writeChunk() error {
	payload := e.frame[chunkHeaderSize:]
	binary.LittleEndian.PutUint32(e.frame[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(e.frame[4:8], crc32.ChecksumIEEE(payload))
	err := e.write(e.frame)
	e.frame = e.frame[:chunkHeaderSize]
	return err
}

func (e *encoder) write(b []byte) error {
	n, err := e.w.Write(b)
	e.written += int64(n)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		e.err = fmt.Errorf("replay: writing at byte %d: %w", e.written, err)
	}
	return e.err
}

// Encode writes rec to w in the format NewRecorder writes, ending with an end record: a
// recording cut short comes out complete, as far as it goes. It reports a Recording that no
// Recorder could have made (ticks out of order, an input of an unknown kind, a bad header) as an
// error, before writing anything.
func (rec *Recording) Encode(w io.Writer) error {
	if err := rec.check(); err != nil {
		return err
	}
	e := newEncoder(w, defaultChunkSize)
	if err := e.start(rec.version(), rec.Header); err != nil {
		return err
	}
	// The records in the order a Recorder writes them: for each tick, its inputs, its player
	// inputs, then the change of tick rate that takes effect with it, then the checksum taken
	// after it.
	inputs, players, rates, checksums := rec.Inputs, rec.PlayerInputs, rec.RateChanges, rec.Checksums
	const never = math.MaxUint64
	for len(inputs)+len(players)+len(rates)+len(checksums) > 0 {
		inTick, playerTick, rateTick, sumTick := uint64(never), uint64(never), uint64(never), uint64(never)
		if len(inputs) > 0 {
			inTick = inputs[0].Tick
		}
		if len(players) > 0 {
			playerTick = players[0].Tick
		}
		if len(rates) > 0 {
			rateTick = rates[0].Tick
		}
		if len(checksums) > 0 {
			sumTick = checksums[0].Tick
		}
		var err error
		switch {
		case inTick <= playerTick && inTick <= rateTick && inTick <= sumTick:
			err = e.input(&inputs[0], inTick-1)
			inputs = inputs[1:]
		case playerTick <= rateTick && playerTick <= sumTick:
			err = e.playerInput(playerTick, playerTick-1, players[0].Player, players[0].Data)
			players = players[1:]
		case rateTick <= sumTick:
			err = e.rate(rateTick, rates[0].Rate)
			rates = rates[1:]
		default:
			err = e.checksum(sumTick, checksums[0].Sum)
			checksums = checksums[1:]
		}
		if err != nil {
			return err
		}
	}
	return e.end(rec.Ticks)
}

// TrailingInputs returns the number of inputs recorded after the last tick (rec.Ticks): the
// game received them, but the recording ended before the tick they preceded ran. They are the
// last of rec.Inputs; a replay delivers them after the last tick (Result.Trailing).
func (rec *Recording) TrailingInputs() int {
	n := 0
	for i := len(rec.Inputs) - 1; i >= 0 && rec.Inputs[i].Tick > rec.Ticks; i-- {
		n++
	}
	return n
}

// check reports what, if anything, makes rec impossible to encode.
func (rec *Recording) check() error {
	h := rec.Header
	switch {
	case h.TickRate <= 0 || h.TickRate > gameloop.MaxRate:
		return fmt.Errorf("replay: tick rate %d is not between 1 and %d", h.TickRate, gameloop.MaxRate)
	case h.ChecksumEvery < 0 || uint64(h.ChecksumEvery) > math.MaxInt32:
		return fmt.Errorf("replay: checksum interval %d is not between 0 and %d", h.ChecksumEvery, math.MaxInt32)
	case len(h.Name) > MaxNameLen || !utf8.ValidString(h.Name):
		return fmt.Errorf("replay: name %q is not UTF-8 of at most %d bytes", h.Name, MaxNameLen)
	case len(h.Meta) > MaxMetaLen:
		return fmt.Errorf("replay: %d bytes of metadata, over the limit of %d", len(h.Meta), MaxMetaLen)
	}
	var last uint64
	perTick := 0
	for i, in := range rec.Inputs {
		if in.Tick != last {
			perTick = 0
		}
		perTick++
		switch {
		case perTick > MaxInputsPerTick:
			return fmt.Errorf("replay: input %d is one more than the %d (MaxInputsPerTick) a recording holds for tick %d", i, MaxInputsPerTick, in.Tick)
		case in.Tick == 0 || in.Tick < last:
			return fmt.Errorf("replay: input %d is for tick %d, after one for tick %d", i, in.Tick, last)
		case in.Kind == 0 || in.Kind > maxInputKind:
			return fmt.Errorf("replay: input %d is of unknown kind %d", i, in.Kind)
		case in.Tick-1 > rec.Ticks:
			return fmt.Errorf("replay: input %d is for tick %d, beyond the recording's %d ticks", i, in.Tick, rec.Ticks)
		}
		last = in.Tick
	}
	last = 0
	for i, c := range rec.RateChanges {
		switch {
		case c.Tick <= last:
			return fmt.Errorf("replay: tick rate change %d is for tick %d, after one for tick %d", i, c.Tick, last)
		case c.Tick > rec.Ticks:
			return fmt.Errorf("replay: tick rate change %d is for tick %d, beyond the recording's %d ticks", i, c.Tick, rec.Ticks)
		case c.Rate <= 0 || c.Rate > gameloop.MaxRate:
			return fmt.Errorf("replay: tick rate change %d is to %d, not between 1 and %d", i, c.Rate, gameloop.MaxRate)
		}
		last = c.Tick
	}
	last = 0
	for i, c := range rec.Checksums {
		switch {
		case c.Tick <= last:
			return fmt.Errorf("replay: checksum %d is for tick %d, after one for tick %d", i, c.Tick, last)
		case c.Tick > rec.Ticks:
			return fmt.Errorf("replay: checksum %d is for tick %d, beyond the recording's %d ticks", i, c.Tick, rec.Ticks)
		}
		last = c.Tick
	}
	return rec.checkPlayerInputs()
}
