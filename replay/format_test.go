package replay_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/replay"
)

// The bytes of a recording, written by hand from FORMAT.md, to check the decoder against the
// specification rather than against the encoder.
const (
	magic    = "\x89GLRP\r\n\x1a"
	preamble = magic + "\x01\x00"
)

// chunk frames payload as a chunk: length, CRC-32 (IEEE), payload.
func chunk(payload ...[]byte) []byte {
	p := bytes.Join(payload, nil)
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(p)))
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(p))
	return append(out, p...)
}

// rec makes a record: kind, body length, body.
func rec(kind byte, body ...byte) []byte {
	return append(binary.AppendUvarint([]byte{kind}, uint64(len(body))), body...)
}

var (
	header60 = rec(1, 60, 1, 0, 0)                  // tick rate 60, checksum every tick, no name or meta
	end0     = rec(5, 0)                            // end after 0 ticks
	press    = rec(2, 1, 1, 1, byte(gameloop.KeyA)) // before tick ran+1: KeyPress, mask {key}, key A
)

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// TestDecodeGamepadsHandWritten decodes version 3's gamepad inputs, every field set, as
// FORMAT.md lays them out.
func TestDecodeGamepadsHandWritten(t *testing.T) {
	data := cat([]byte(magic+"\x03\x00"),
		chunk(header60,
			rec(2, 1, byte(gameloop.GamepadConnect), 0x80, 0x08, 5),                                             // gamepad 5
			rec(2, 1, byte(gameloop.GamepadPress), 0x80, 0x18, 5, byte(gameloop.GamepadNorth)),                  // gamepad, button
			rec(2, 1, byte(gameloop.GamepadMove), 0x80, 0x68, 5, byte(gameloop.GamepadLeftY), 0xfd, 0xff, 0x03), // gamepad, axis, -32767
			rec(5, 1)))
	got := decode(t, data)
	want := []gameloop.Input{
		{Kind: gameloop.GamepadConnect, Gamepad: 5, Tick: 1},
		{Kind: gameloop.GamepadPress, Gamepad: 5, PadButton: gameloop.GamepadNorth, Tick: 1},
		{Kind: gameloop.GamepadMove, Gamepad: 5, Axis: gameloop.GamepadLeftY, AxisValue: -gameloop.AxisMax, Tick: 1},
	}
	if !reflect.DeepEqual(got.Inputs, want) || got.Ticks != 1 || !got.Complete {
		t.Fatalf("got %+v\nwant inputs %+v", got, want)
	}
	// Encode writes it back in version 3, and the same without the gamepad inputs in version 1.
	var buf bytes.Buffer
	if err := got.Encode(&buf); err != nil || buf.Bytes()[8] != 3 {
		t.Fatalf("Encode: %v, version %d", err, buf.Bytes()[8])
	}
	if again := decode(t, buf.Bytes()); !reflect.DeepEqual(again, got) {
		t.Fatalf("encoded and decoded: %+v\nwant %+v", again, got)
	}
	got.Inputs = []gameloop.Input{{Kind: gameloop.KeyPress, Key: gameloop.KeyA, Tick: 1}}
	buf.Reset()
	if err := got.Encode(&buf); err != nil || buf.Bytes()[8] != 1 {
		t.Fatalf("Encode without gamepads: %v, version %d", err, buf.Bytes()[8])
	}
}

// TestFormatExampleGamepads decodes the example of version 3 in FORMAT.md, byte for byte, and
// checks a Recorder writes it.
func TestFormatExampleGamepads(t *testing.T) {
	const example = `
89 47 4C 52 50 0D 0A 1A 03 00
09 00 00 00 09 8B B5 CF 01 04 3C 01 00 00 04 01 00
12 00 00 00 84 EC 1E F9 02 03 01 0B 00 02 08 01 0F 80 60 01 FF FF 01 05 01 01`
	data := formatExample(t, example)
	want := []gameloop.Input{
		{Kind: gameloop.GamepadConnect, Tick: 1},
		{Kind: gameloop.GamepadMove, Axis: gameloop.GamepadLeftX, AxisValue: gameloop.QuantizeAxis(-0.5), Tick: 1},
	}
	if got := decode(t, data); !reflect.DeepEqual(got.Inputs, want) || got.Ticks != 1 {
		t.Fatalf("got %+v", got)
	}
	var buf bytes.Buffer
	r, err := replay.NewRecorder(&buf, 60, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = errors.Join(r.Input(&want[0]), r.Input(&want[1]), r.Tick(&gameloop.Update{Tick: 1, Seconds: 1.0 / 60}, nil), r.Close())
	if err != nil || !bytes.Equal(buf.Bytes(), data) {
		t.Fatalf("the Recorder wrote (%v)\n% X\nwant\n% X", err, buf.Bytes(), data)
	}
}

func TestDecodeHandWritten(t *testing.T) {
	data := cat([]byte(preamble),
		chunk(header60, press, rec(3, 1, 1, 2, 3, 4, 5, 6, 7, 8), rec(4, 0)),
		chunk(rec(2, 2, byte(gameloop.Resize), 0x80, 0x03, 0xa0, 0x01, 48), rec(6, 2, 120), rec(5, 2)))
	got, err := replay.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	want := &replay.Recording{
		Header: replay.Header{TickRate: 60, ChecksumEvery: 1},
		Inputs: []gameloop.Input{
			{Kind: gameloop.KeyPress, Key: gameloop.KeyA, Tick: 1},
			{Kind: gameloop.Resize, Width: 80, Height: 24, Tick: 3},
		},
		RateChanges: []replay.RateChange{{Tick: 3, Rate: 120}},
		Checksums:   []replay.Checksum{{Tick: 1, Sum: 0x0807060504030201}},
		Ticks:       3,
		Complete:    true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

// TestDecodeErrors checks that each kind of bad data is reported as what it is, at the byte
// where it is.
func TestDecodeErrors(t *testing.T) {
	good := cat([]byte(preamble), chunk(header60, press, rec(4, 1)), chunk(end0))
	flipped := bytes.Clone(good)
	flipped[len(preamble)+8+3] ^= 0x10 // a bit of the first chunk's payload
	huge := cat([]byte(preamble), []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})
	lying := cat([]byte(preamble), binary.LittleEndian.AppendUint32(nil, replay.MaxChunkSize), []byte{0, 0, 0, 0, 1, 2, 3})
	hdr := int64(len(preamble))           // the first chunk's header
	body := hdr + 8                       // the first chunk's first record
	second := body + int64(len(header60)) // its second record
	tests := []struct {
		name   string
		data   []byte
		err    error
		offset int64
		detail string
	}{
		{"empty", nil, replay.ErrTruncated, 0, "ends after 0 of the 10 bytes"},
		{"text", []byte("hello, world"), replay.ErrNotRecording, 0, "magic"},
		{"CRLF mangled", []byte("\x89GLRP\n\x1a\x01\x00"), replay.ErrNotRecording, 5, "magic"},
		{"magic only", []byte(magic), replay.ErrTruncated, 8, "ends after 8 of the 10"},
		{"version 4", []byte(magic + "\x04\x00"), replay.ErrVersion, 8, "version 4"},
		{"version 0x100", []byte(magic + "\x00\x01"), replay.ErrVersion, 8, "version 256"},
		{"no header", []byte(preamble), replay.ErrTruncated, hdr, "no header"},
		{"chunk header cut", cat([]byte(preamble), []byte{5, 0, 0}), replay.ErrTruncated, hdr, "3 of its 8"},
		{"huge chunk length", huge, replay.ErrCorrupt, hdr, "chunk length 4294967295 is over the limit of 65536"},
		{"lying chunk length", lying, replay.ErrTruncated, hdr, "ends after 3 of them"},
		{"empty chunk", cat([]byte(preamble), chunk()), replay.ErrCorrupt, hdr, "length 0"},
		{"bit flipped", flipped, replay.ErrCorrupt, hdr + 4, "CRC"},
		{"payload cut", good[:len(good)-2], replay.ErrTruncated, int64(len(good) - 11), "ends after 1 of them"},
		{"no end", good[:len(good)-11], replay.ErrTruncated, int64(len(good) - 11), "without an end record"},
		{"end chunk header cut", good[:len(good)-5], replay.ErrTruncated, int64(len(good) - 11), "6 of its 8"},
		{"after end", cat(good, chunk(end0)), replay.ErrCorrupt, int64(len(good)), "after the end record"},
		{"record after end", cat([]byte(preamble), chunk(header60, end0, end0)), replay.ErrCorrupt, second + 3, "after the end record"},
		{"first not header", cat([]byte(preamble), chunk(end0)), replay.ErrCorrupt, body, "not the header"},
		{"two headers", cat([]byte(preamble), chunk(header60, header60)), replay.ErrCorrupt, second, "second header"},
		{"unknown kind", cat([]byte(preamble), chunk(header60, rec(9, 1, 2))), replay.ErrCorrupt, second, "unknown kind 9"},
		{"kind 0", cat([]byte(preamble), chunk(header60, rec(0))), replay.ErrCorrupt, second, "unknown kind 0"},
		{"huge record length", cat([]byte(preamble), chunk(header60, []byte{2, 0xff, 0xff, 0xff, 0xff, 0x0f})), replay.ErrCorrupt, second + 1, "over the limit of 1024"},
		{"record length overflow", cat([]byte(preamble), chunk(header60, []byte{2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})), replay.ErrCorrupt, second + 1, "over the limit"},
		{"record past chunk", cat([]byte(preamble), chunk(header60, []byte{2, 50, 1})), replay.ErrCorrupt, second + 1, "runs past the end of its chunk"},
		{"record length cut", cat([]byte(preamble), chunk(header60, []byte{2, 0x80})), replay.ErrCorrupt, second + 1, "runs past the end"},
		{"tick rate 0", cat([]byte(preamble), chunk(rec(1, 0, 1, 0, 0))), replay.ErrCorrupt, body + 2, "tick rate 0"},
		{"huge name", cat([]byte(preamble), chunk(rec(1, 60, 1, 0xff, 0x7f))), replay.ErrCorrupt, body + 4, "name length 16383 is over the limit of 256"},
		{"name not UTF-8", cat([]byte(preamble), chunk(rec(1, 60, 1, 1, 0xff, 0))), replay.ErrCorrupt, body + 4, "not UTF-8"},
		{"huge meta", cat([]byte(preamble), chunk(rec(1, 60, 1, 0, 0xff, 0x7f))), replay.ErrCorrupt, body + 5, "metadata length 16383"},
		{"header cut", cat([]byte(preamble), chunk(rec(1, 60, 1))), replay.ErrCorrupt, body + 4, "ends inside its name length"},
		{"header left over", cat([]byte(preamble), chunk(rec(1, 60, 1, 0, 0, 9))), replay.ErrCorrupt, body + 6, "1 bytes left over"},
		{"unknown input kind", cat([]byte(preamble), chunk(header60, rec(2, 1, 99, 0))), replay.ErrCorrupt, second + 3, "unknown input kind 99"},
		{"input kind 0", cat([]byte(preamble), chunk(header60, rec(2, 1, 0, 0))), replay.ErrCorrupt, second + 3, "unknown input kind 0"},
		{"gamepad in version 1", cat([]byte(preamble), chunk(header60, rec(2, 1, byte(gameloop.GamepadConnect), 0))), replay.ErrCorrupt, second + 3, "unknown input kind 11 in a recording of version 1"},
		{"gamepad in version 2", cat([]byte(magic+"\x02\x00"), chunk(header60, rec(2, 1, byte(gameloop.GamepadPress), 0))), replay.ErrCorrupt, second + 3, "unknown input kind 13 in a recording of version 2"},
		{"gamepad field in version 1", cat([]byte(preamble), chunk(header60, rec(2, 1, 1, 0x80, 0x08, 3))), replay.ErrCorrupt, second + 4, "unknown input fields 0x400 in a recording of version 1"},
		{"input kind 16", cat([]byte(magic+"\x03\x00"), chunk(header60, rec(2, 1, 16, 0))), replay.ErrCorrupt, second + 3, "unknown input kind 16 in a recording of version 3"},
		{"unknown field in version 3", cat([]byte(magic+"\x03\x00"), chunk(header60, rec(2, 1, 1, 0x80, 0x80, 0x01))), replay.ErrCorrupt, second + 4, "unknown input fields 0x4000"},
		{"axis value over int16", cat([]byte(magic+"\x03\x00"), chunk(header60, rec(2, 1, byte(gameloop.GamepadMove), 0x80, 0x40, 0x80, 0x80, 0x04))), replay.ErrCorrupt, second + 6, "axis value"},
		{"unknown field", cat([]byte(preamble), chunk(header60, rec(2, 1, 1, 0x80, 0x10))), replay.ErrCorrupt, second + 4, "unknown input fields 0x800"},
		{"input at tick 0", cat([]byte(preamble), chunk(header60, rec(2, 0, 1, 0))), replay.ErrCorrupt, second + 2, "tick 0, which has already run"},
		{"input for a run tick", cat([]byte(preamble), chunk(header60, rec(4, 5), rec(2, 0, 1, 0))), replay.ErrCorrupt, second + 5, "tick 5, which has already run"},
		{"input cut", cat([]byte(preamble), chunk(header60, rec(2, 1, 1, 1))), replay.ErrCorrupt, second + 5, "ends inside its key"},
		{"huge key", cat([]byte(preamble), chunk(header60, rec(2, 1, 1, 1, 0xff, 0xff, 0x04))), replay.ErrCorrupt, second + 5, "key 81919"},
		{"huge rune", cat([]byte(preamble), chunk(header60, rec(2, 1, 3, 8, 0xff, 0xff, 0xff, 0xff, 0x7f))), replay.ErrCorrupt, second + 5, "rune is not between"},
		{"tick overflow", cat([]byte(preamble), chunk(header60, rec(4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), rec(4, 1))), replay.ErrCorrupt, second + 14, "overflows"},
		{"checksum at tick 0", cat([]byte(preamble), chunk(header60, rec(3, 0, 1, 2, 3, 4, 5, 6, 7, 8))), replay.ErrCorrupt, second + 2, "checksum for tick 0, before any tick ran"},
		{"checksum twice", cat([]byte(preamble), chunk(header60, rec(3, 1, 1, 2, 3, 4, 5, 6, 7, 8), rec(3, 0, 1, 2, 3, 4, 5, 6, 7, 8))), replay.ErrCorrupt, second + 13, "checksum for tick 1 after one for tick 1"},
		{"rate for a run tick", cat([]byte(preamble), chunk(header60, rec(4, 5), rec(6, 0, 30))), replay.ErrCorrupt, second + 5, "tick rate change for tick 5, which has already run"},
		{"rate 0", cat([]byte(preamble), chunk(header60, rec(6, 1, 0))), replay.ErrCorrupt, second + 3, "tick rate 0 is not between"},
		{"rate twice", cat([]byte(preamble), chunk(header60, rec(6, 1, 30), rec(6, 1, 40))), replay.ErrCorrupt, second + 6, "tick rate change for tick 1 after one for tick 1"},
		{"input after its rate", cat([]byte(preamble), chunk(header60, rec(6, 2, 30), rec(2, 2, 1, 0))), replay.ErrCorrupt, second + 6, "input for tick 2 after the tick rate changed for tick 2"},
		{"rate behind input", cat([]byte(preamble), chunk(header60, rec(2, 3, 1, 0), rec(6, 2, 30))), replay.ErrCorrupt, second + 7, "tick rate change for tick 2 after an input for tick 3"},
		{"end before its rate", cat([]byte(preamble), chunk(header60, rec(6, 3, 30), rec(5, 2))), replay.ErrCorrupt, second + 6, "end record says tick 2 has run, but an input or a tick rate change says tick 3 has"},
		{"progress behind input", cat([]byte(preamble), chunk(header60, rec(2, 5, 1, 0), rec(4, 3))), replay.ErrCorrupt, second + 7, "tick 3 has run, but an input or a tick rate change says tick 4 has"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := replay.Decode(bytes.NewReader(tt.data))
			var fe *replay.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v, want a *FormatError", err)
			}
			if !errors.Is(err, tt.err) || fe.Offset != tt.offset || !strings.Contains(fe.Detail, tt.detail) {
				t.Fatalf("error %q (offset %d), want %v at byte %d saying %q", err, fe.Offset, tt.err, tt.offset, tt.detail)
			}
			if !strings.Contains(err.Error(), "at byte") {
				t.Fatalf("error %q does not say where", err)
			}
		})
	}
}

// TestDecodeReaderError checks that an error of the reader is passed on, wrapped with where.
func TestDecodeReaderError(t *testing.T) {
	broken := errors.New("disk on fire")
	r := io.MultiReader(bytes.NewReader([]byte(preamble)), &failingReader{broken})
	_, err := replay.Decode(r)
	var fe *replay.FormatError
	if !errors.Is(err, broken) || !errors.As(err, &fe) || fe.Offset != int64(len(preamble)) {
		t.Fatalf("error %v, want %v at byte %d", err, broken, len(preamble))
	}
}

type failingReader struct{ err error }

func (r *failingReader) Read([]byte) (int, error) { return 0, r.err }

// TestRoundTrip checks that every field of every kind of input survives a recording, -0 and
// NaN included, as do the header's fields.
func TestRoundTrip(t *testing.T) {
	nan := math.Float64frombits(0x7ff8_dead_beef_0001)
	inputs := []gameloop.Input{
		{Kind: gameloop.KeyPress, Key: gameloop.KeyLast, Repeat: true, Mods: gameloop.ModShift | gameloop.ModSuper},
		{Kind: gameloop.KeyRelease, Key: 65535},
		{Kind: gameloop.Char, Rune: '€', Mods: gameloop.ModAlt},
		{Kind: gameloop.Char, Rune: -1},
		{Kind: gameloop.MousePress, Button: gameloop.Mouse5, X: 1.5, Y: -2.25, Mods: gameloop.ModControl},
		{Kind: gameloop.MouseRelease, Button: gameloop.MouseLeft, X: math.Copysign(0, -1), Y: math.Inf(-1)},
		{Kind: gameloop.CursorMove, X: nan, Y: math.MaxFloat64},
		{Kind: gameloop.Scroll, X: 0, Y: -math.SmallestNonzeroFloat64},
		{Kind: gameloop.Resize, Width: math.MaxInt, Height: math.MinInt},
		{Kind: gameloop.Focus, Focused: true},
		{Kind: gameloop.Focus},
		{Kind: gameloop.Close},
		// Every field at once, meaningful or not for the kind: a backend may set them.
		{Kind: gameloop.KeyPress, Key: 7, Repeat: true, Mods: 255, Rune: 'x', Button: 255, X: 1, Y: 2, Width: 3, Height: 4, Focused: true},
	}
	var buf bytes.Buffer
	opts := &replay.RecordOptions{Name: "round trip ✓", Meta: []byte{0, 1, 2, 255}, ChecksumEvery: 2}
	r, err := replay.NewRecorder(&buf, 1000, opts)
	if err != nil {
		t.Fatal(err)
	}
	var tick uint64
	for i := range inputs {
		// Inputs before every few ticks, several before some.
		if i%3 != 1 {
			tick++
			if err := r.Tick(&gameloop.Update{Tick: tick}, func() uint64 { return tick * 0x9e3779b97f4a7c15 }); err != nil {
				t.Fatal(err)
			}
		}
		inputs[i].Tick = tick + 1
		if err := r.Input(&inputs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Tick(&gameloop.Update{Tick: tick + 1}, nil); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	got := decode(t, buf.Bytes())
	if got.Name != opts.Name || !bytes.Equal(got.Meta, opts.Meta) || got.TickRate != 1000 || got.ChecksumEvery != 2 {
		t.Errorf("header %+v", got.Header)
	}
	if got.Ticks != tick+1 || !got.Complete {
		t.Errorf("%d ticks, complete %v; want %d, true", got.Ticks, got.Complete, tick+1)
	}
	if len(got.Inputs) != len(inputs) {
		t.Fatalf("%d inputs, want %d", len(got.Inputs), len(inputs))
	}
	for i := range inputs {
		g, w := got.Inputs[i], inputs[i]
		// Floats by their bits: NaN is not equal to itself, and -0 is equal to 0.
		if math.Float64bits(g.X) != math.Float64bits(w.X) || math.Float64bits(g.Y) != math.Float64bits(w.Y) {
			t.Errorf("input %d: x, y %v, %v, want %v, %v", i, g.X, g.Y, w.X, w.Y)
		}
		g.X, g.Y, w.X, w.Y = 0, 0, 0, 0
		if g != w {
			t.Errorf("input %d: %+v, want %+v", i, g, w)
		}
	}
	for _, c := range got.Checksums {
		if c.Tick%2 != 0 || c.Sum != c.Tick*0x9e3779b97f4a7c15 {
			t.Errorf("checksum %+v", c)
		}
	}
	if len(got.Checksums) != int(tick/2) {
		t.Errorf("%d checksums, want %d", len(got.Checksums), tick/2)
	}

	// Encode writes the same recording out again.
	var again bytes.Buffer
	if err := got.Encode(&again); err != nil {
		t.Fatal(err)
	}
	if again2 := decode(t, again.Bytes()); !sameRecording(again2, got) {
		t.Fatalf("re-encoded: %+v\nwant %+v", again2, got)
	}
}

// sameRecording compares recordings, floats by their bits.
func sameRecording(a, b *replay.Recording) bool {
	var x, y bytes.Buffer
	return a.Encode(&x) == nil && b.Encode(&y) == nil && bytes.Equal(x.Bytes(), y.Bytes())
}

// TestTruncatedAtEveryByte cuts a recording at every length, as a crash may: each prefix must
// decode to an error wrapping ErrTruncated and a recording of the whole chunks in it, whose
// input is a prefix of the whole recording's, and which replays.
func TestTruncatedAtEveryByte(t *testing.T) {
	data, _ := record(t, session{cfg: gameloop.Config{MaxFPS: 60}, ticks: 300, inputs: 40, seed: 3,
		options: &replay.RecordOptions{FlushEvery: 20}})
	whole := decode(t, data)
	lastTicks := uint64(0)
	firstChunkEnd := 10 + 8 + int(binary.LittleEndian.Uint32(data[10:]))
	for n := range len(data) {
		got, err := replay.Decode(bytes.NewReader(data[:n]))
		if !errors.Is(err, replay.ErrTruncated) {
			t.Fatalf("cut at %d: error %v, want ErrTruncated", n, err)
		}
		if n < firstChunkEnd { // not even the header: nothing to replay
			if got != nil {
				t.Fatalf("cut at %d, before the end of the first chunk at %d: a recording", n, firstChunkEnd)
			}
			continue
		}
		if got == nil {
			t.Fatalf("cut at %d: no recording", n)
		}
		if got.Complete || got.Ticks < lastTicks || got.Ticks > whole.Ticks {
			t.Fatalf("cut at %d: complete %v, %d ticks (before: %d)", n, got.Complete, got.Ticks, lastTicks)
		}
		lastTicks = got.Ticks
		if len(got.Inputs) > len(whole.Inputs) || !slices.Equal(got.Inputs, whole.Inputs[:len(got.Inputs)]) {
			t.Fatalf("cut at %d: inputs are not a prefix of the whole recording's", n)
		}
		if n%97 == 0 {
			res, err := replay.Play(t.Context(), bytes.NewReader(data[:n]), newBounce(), nil)
			if err != nil || !res.Matched() || res.Cut == nil || res.Ticks != got.Ticks {
				t.Fatalf("cut at %d: replay %v, %v", n, res, err)
			}
		}
	}
	if lastTicks < 280 {
		t.Fatalf("the longest cut recording has %d ticks; chunks every 20 ticks should give at least 280", lastTicks)
	}
}

// TestDecodeMemory checks that a chunk length that promises more than the data holds does not
// make the decoder allocate what it promises.
func TestDecodeMemory(t *testing.T) {
	lying := cat([]byte(preamble), binary.LittleEndian.AppendUint32(nil, replay.MaxChunkSize), []byte{0, 0, 0, 0}, header60)
	const runs = 50
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		if _, err := replay.Decode(bytes.NewReader(lying)); !errors.Is(err, replay.ErrTruncated) {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > replay.MaxChunkSize/4 {
		t.Fatalf("%d bytes allocated per decode of %d bytes claiming a chunk of %d", per, len(lying), replay.MaxChunkSize)
	}
}

// TestFormatCoversInput fails when gameloop.Input gains a field or gameloop an input kind that
// the format does not store: a recording would silently lose it. Store it, in a new version of
// the format (FORMAT.md), and update this test.
func TestFormatCoversInput(t *testing.T) {
	var fields []string
	typ := reflect.TypeFor[gameloop.Input]()
	for i := range typ.NumField() {
		fields = append(fields, typ.Field(i).Name)
	}
	want := []string{"Kind", "Key", "Repeat", "Mods", "Rune", "Button", "X", "Y", "Width", "Height", "Focused",
		"Gamepad", "PadButton", "Axis", "AxisValue", "Tick"}
	if !slices.Equal(fields, want) {
		t.Errorf("gameloop.Input has fields %v; the format stores %v", fields, want)
	}
	if s := (gameloop.GamepadMove + 1).String(); s != "InputKind(16)" {
		t.Errorf("gameloop has an input kind after GamepadMove, %s, that the format does not store", s)
	}
}

// TestFormatExample decodes the example in FORMAT.md, byte for byte.
func TestFormatExample(t *testing.T) {
	const example = `
89 47 4C 52 50 0D 0A 1A 01 00
09 00 00 00 09 8B B5 CF 01 04 3C 01 00 00 04 01 00
14 00 00 00 33 2B 0B C0 02 04 01 01 01 17 03 09 01 88 77 66 55 44 33 22 11 05 01 00`
	data := formatExample(t, example)
	got := decode(t, data)
	want := &replay.Recording{
		Header:    replay.Header{TickRate: 60, ChecksumEvery: 1},
		Inputs:    []gameloop.Input{{Kind: gameloop.KeyPress, Key: gameloop.KeyA, Tick: 1}},
		Checksums: []replay.Checksum{{Tick: 1, Sum: 0x1122334455667788}},
		Ticks:     1,
		Complete:  true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

// formatExample returns the bytes of example, written as hexadecimal bytes, and fails the test
// unless FORMAT.md holds it as written.
func formatExample(t *testing.T, example string) []byte {
	t.Helper()
	var data []byte
	for _, h := range strings.Fields(example) {
		b, err := strconv.ParseUint(h, 16, 8)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, byte(b))
	}
	spec, err := os.ReadFile("FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(spec), strings.TrimSpace(example)) {
		t.Fatal("FORMAT.md does not hold the example")
	}
	return data
}
