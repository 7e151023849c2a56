package replay_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/replay"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite the seed corpus in testdata/fuzz/FuzzDecode")

// FuzzDecode feeds the decoder arbitrary bytes. It must never panic; it must fail with a
// *FormatError at an offset within the data; and whatever it decodes must encode, and decode
// again to the same thing. Small recordings are also replayed, decoded and streamed (Play):
// the two must agree, and a replay that matched delivered every input, those after the last
// tick among them.
//
// Run it with scripts/test.d/fuzz-replay.sh, or for longer:
//
//	go test -run='^$' -fuzz=FuzzDecode -fuzztime=10m ./replay
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := replay.Decode(bytes.NewReader(data))
		decodeErr := err
		if err != nil {
			var fe *replay.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FormatError", err)
			}
			if fe.Offset < 0 || fe.Offset > int64(len(data)) {
				t.Fatalf("error %v: offset outside the %d bytes of data", err, len(data))
			}
			if !slices.ContainsFunc([]error{replay.ErrTruncated, replay.ErrCorrupt, replay.ErrVersion, replay.ErrNotRecording},
				func(kind error) bool { return errors.Is(err, kind) }) {
				t.Fatalf("error %v is of no known kind", err)
			}
			if rec != nil && rec.Complete && errors.Is(err, replay.ErrTruncated) {
				t.Fatalf("error %v, but the recording is complete", err)
			}
		} else if rec == nil || !rec.Complete {
			t.Fatalf("no error, but recording %+v", rec)
		}
		if rec == nil {
			return
		}
		var first, second bytes.Buffer
		if err := rec.Encode(&first); err != nil {
			t.Fatalf("a decoded recording does not encode: %v", err)
		}
		again, err := replay.Decode(bytes.NewReader(first.Bytes()))
		if err != nil || !again.Complete {
			t.Fatalf("a re-encoded recording does not decode: %v", err)
		}
		if err := again.Encode(&second); err != nil || !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Fatalf("encode, decode, encode changed the recording (%v)", err)
		}
		if rec.Ticks <= 500 {
			res, err := rec.Play(context.Background(), &counter{}, nil)
			if err != nil || res.Ticks > rec.Ticks || res.Inputs > len(rec.Inputs) {
				t.Fatalf("replay: %v, %v", res, err)
			}
			if res.Matched() && (res.Inputs != len(rec.Inputs) || res.Trailing != rec.TrailingInputs()) {
				t.Fatalf("replay: %v, of %d inputs with %d after the last tick: every input is delivered", res, len(rec.Inputs), rec.TrailingInputs())
			}
			// Streamed, the replay sees what the decoded one saw, up to the same damage.
			game := &counter{}
			streamed, serr := replay.Play(context.Background(), bytes.NewReader(data), game, nil)
			if serr == nil && err == nil && (streamed.Ticks != res.Ticks || streamed.Inputs != res.Inputs || streamed.Checked != res.Checked ||
				streamed.Trailing != res.Trailing || streamed.Recorded != res.Recorded) {
				t.Fatalf("streamed %v, decoded %v", streamed, res)
			}
			if serr != nil && err == nil && (decodeErr == nil || errors.Is(decodeErr, replay.ErrTruncated)) {
				t.Fatalf("a recording decodes (%v) and replays, but does not stream: %v", decodeErr, serr)
			}
		}
	})
}

// counter is a small deterministic game: its state is the input it saw and the ticks it ran.
type counter struct{ sum uint64 }

func (c *counter) Input(in *gameloop.Input) error {
	c.sum = c.sum*31 + uint64(in.Kind)<<16 + uint64(in.Key) + in.Tick
	return nil
}

func (c *counter) Update(u *gameloop.Update) error {
	c.sum = c.sum*31 + u.Tick
	return nil
}

func (c *counter) Checksum() uint64 { return c.sum }

// seedCorpus returns the seeds of FuzzDecode by name: good recordings, and ones truncated,
// bit-flipped, with oversized lengths, of other versions, or with unknown kinds.
func seedCorpus(t testing.TB) map[string][]byte {
	t.Helper()
	// A session of the counter game: 120 ticks at 30 and then 45 Hz, inputs of every kind, a
	// checksum every third tick, a chunk every 10 ticks.
	var buf bytes.Buffer
	r, err := replay.NewRecorder(&buf, 30, &replay.RecordOptions{Name: "counter", Meta: []byte("seed=1"), ChecksumEvery: 3, FlushEvery: 10})
	if err != nil {
		t.Fatal(err)
	}
	game := &counter{}
	for tick := uint64(1); tick <= 120; tick++ {
		if tick%7 == 0 {
			for k := range int(tick % 3) {
				in := gameloop.Input{Kind: gameloop.InputKind(1 + (int(tick)+k)%int(gameloop.GamepadMove)),
					Key: gameloop.Key(tick), Rune: rune(tick), X: float64(tick) / 3, Y: -1, Width: int(tick), Height: 2,
					Focused: tick%2 == 0, Repeat: tick%3 == 0, Mods: gameloop.ModShift, Button: gameloop.MouseRight,
					Gamepad: gameloop.GamepadID(tick % 4), PadButton: gameloop.GamepadStart, Axis: gameloop.GamepadRightY,
					AxisValue: -int16(tick) * 200, Tick: tick}
				if err := r.Input(&in); err != nil {
					t.Fatal(err)
				}
				_ = game.Input(&in)
			}
		}
		// The tick rate goes from 30 to 45 at tick 61.
		u := &gameloop.Update{Tick: tick, Seconds: 1.0 / 30}
		if tick > 60 {
			u.Seconds = 1.0 / 45
		}
		_ = game.Update(u)
		if err := r.Tick(u, game.Checksum); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	session := buf.Bytes()
	chunks := chunkOffsets(session)

	seeds := map[string][]byte{
		"valid-session": session,
		"valid-minimal": cat([]byte(preamble), chunk(header60), chunk(end0)),
		"valid-hand":    cat([]byte(preamble), chunk(header60, press, rec(3, 1, 1, 2, 3, 4, 5, 6, 7, 8), rec(4, 0)), chunk(rec(2, 2, byte(gameloop.Resize), 0x80, 0x03, 0xa0, 0x01, 48), rec(6, 2, 120), rec(5, 2))),
		"rate-zero":     cat([]byte(preamble), chunk(header60, rec(6, 1, 0)), chunk(end0)),
		"empty":         {},
		"bad-magic":     []byte("GIF89a, not a recording"),
		"wrong-version": cat([]byte(magic), []byte{4, 0}, session[10:]),
		"magic-only":    []byte(magic),

		"oversized-chunk-length":       cat([]byte(preamble), []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}),
		"oversized-chunk-length-lying": cat([]byte(preamble), binary.LittleEndian.AppendUint32(nil, replay.MaxChunkSize), []byte{0, 0, 0, 0}, header60),
		"oversized-record-length":      cat([]byte(preamble), chunk(header60, []byte{2, 0xff, 0xff, 0xff, 0xff, 0x0f, 1})),
		"oversized-record-length-u64":  cat([]byte(preamble), chunk(header60, []byte{2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})),
		"oversized-name-length":        cat([]byte(preamble), chunk(rec(1, 60, 1, 0xff, 0xff, 0xff, 0xff, 0x0f))),
		"oversized-meta-length":        cat([]byte(preamble), chunk(rec(1, 60, 1, 0, 0xff, 0xff, 0x03))),
		"oversized-tick-delta":         cat([]byte(preamble), chunk(header60, rec(4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), rec(2, 1, 1, 0))),
		"oversized-end-tick":           cat([]byte(preamble), chunk(header60, rec(5, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01))),

		"unknown-record-kind": cat([]byte(preamble), chunk(header60, rec(0x7f, 1, 2, 3)), chunk(end0)),
		"unknown-input-kind":  cat([]byte(preamble), chunk(header60, rec(2, 1, 200, 0)), chunk(end0)),
		"unknown-input-field": cat([]byte(preamble), chunk(header60, rec(2, 1, 1, 0x80, 0x40)), chunk(end0)),
		"data-after-end":      cat(session, chunk(end0)),
		"two-headers":         cat([]byte(preamble), chunk(header60, header60), chunk(end0)),
		"header-not-first":    cat([]byte(preamble), chunk(press, header60), chunk(end0)),
	}
	// Cut short: inside the preamble, inside a chunk header, inside a payload, and at a chunk
	// boundary, as a crash leaves it.
	for i, n := range []int{5, chunks[1] + 3, chunks[1] + 8 + 5, chunks[len(chunks)/2], len(session) - 1} {
		seeds["truncated-"+strconv.Itoa(i)] = session[:n]
	}
	// Bit flips: in the version, a chunk length, a CRC, a record kind, a tick, a checksum.
	for i, at := range []int{8, chunks[1], chunks[1] + 5, chunks[1] + 8, chunks[2] + 10, len(session) - 4} {
		flipped := bytes.Clone(session)
		flipped[at] ^= 1 << (i % 8)
		seeds["bitflip-"+strconv.Itoa(i)] = flipped
	}
	return seeds
}

// chunkOffsets returns where each chunk of a well-formed recording starts.
func chunkOffsets(data []byte) []int {
	var offsets []int
	for at := 10; at+8 <= len(data); at += 8 + int(binary.LittleEndian.Uint32(data[at:])) {
		offsets = append(offsets, at)
	}
	return offsets
}

// TestSeedCorpus checks that the seed corpus checked in holds the seeds seedCorpus makes; run
// with -update-corpus to write them.
func TestSeedCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzDecode")
	seeds := seedCorpus(t)
	if *updateCorpus {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range seeds {
		file := "go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\n"
		path := filepath.Join(dir, name)
		if *updateCorpus {
			if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -run TestSeedCorpus -update-corpus ./replay)", err)
		}
		if string(got) != file {
			t.Errorf("%s differs from the seed seedCorpus makes (run go test -run TestSeedCorpus -update-corpus ./replay)", path)
		}
	}
	// Other files may be there: inputs that once failed, which `go test -fuzz` writes there and
	// which stay as regression tests.
}

// FuzzRecord drives a Recorder with arbitrary calls (ticks, inputs with arbitrary fields,
// flushes) and checks that the recording decodes to exactly what was recorded, and that every
// cut of it decodes to a prefix.
func FuzzRecord(f *testing.F) {
	f.Add([]byte{0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 0, 2, 0, 1, 10, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0x80, 0}, uint16(60), uint8(3), uint8(1))
	f.Add(bytes.Repeat([]byte{0}, 300), uint16(1), uint8(0), uint8(7))
	f.Fuzz(func(t *testing.T, script []byte, rateSeed uint16, flushEvery, checksumEvery uint8) {
		tickRate := int(rateSeed)%gameloop.MaxRate + 1
		var buf bytes.Buffer
		r, err := replay.NewRecorder(&buf, tickRate, &replay.RecordOptions{FlushEvery: int(flushEvery), ChecksumEvery: int(checksumEvery)})
		if err != nil {
			t.Fatal(err)
		}
		every := max(uint64(checksumEvery), 1)
		want := &replay.Recording{Header: replay.Header{TickRate: tickRate, ChecksumEvery: int(every)}, Complete: true}
		var tick uint64
		sum := func() uint64 { return tick * 0x9e3779b97f4a7c15 }
		rate, recordedRate := tickRate, tickRate
		for len(script) > 0 {
			op := script[0]
			script = script[1:]
			switch op % 4 {
			case 0:
				tick++
				if err := r.Tick(&gameloop.Update{Tick: tick, Seconds: 1 / float64(rate)}, sum); err != nil {
					t.Fatal(err)
				}
				if rate != recordedRate {
					want.RateChanges = append(want.RateChanges, replay.RateChange{Tick: tick, Rate: rate})
					recordedRate = rate
				}
				if tick%every == 0 {
					want.Checksums = append(want.Checksums, replay.Checksum{Tick: tick, Sum: sum()})
				}
			case 1:
				var b [24]byte
				script = script[copy(b[:], script):]
				in := gameloop.Input{
					Kind: gameloop.InputKind(1 + b[0]%byte(gameloop.Close)), Key: gameloop.Key(binary.LittleEndian.Uint16(b[1:])),
					Repeat: b[3]&1 != 0, Focused: b[3]&2 != 0, Mods: gameloop.Mods(b[4]), Rune: rune(int32(binary.LittleEndian.Uint32(b[5:]))),
					Button: gameloop.MouseButton(b[9]), X: math.Float64frombits(binary.LittleEndian.Uint64(b[10:])),
					Width: int(int16(binary.LittleEndian.Uint16(b[18:]))) << (b[20] % 48), Height: int(int8(b[21])), Tick: tick + 1,
				}
				if err := r.Input(&in); err != nil {
					t.Fatal(err)
				}
				want.Inputs = append(want.Inputs, in)
			case 2:
				if err := r.Flush(); err != nil {
					t.Fatal(err)
				}
			case 3:
				// Loop.SetTickRate: the next ticks' step changes.
				var b [3]byte
				script = script[copy(b[:], script):]
				rate = int(b[0]) | int(b[1])<<8 | int(b[2]%16)<<16
				rate = rate%gameloop.MaxRate + 1
			}
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		want.Ticks = tick
		data := buf.Bytes()
		got, err := replay.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if !sameRecording(got, want) || got.Ticks != tick || !got.Complete || len(got.RateChanges) != len(want.RateChanges) {
			t.Fatalf("decoded %+v\nrecorded %+v", got, want)
		}
		for _, n := range []int{len(data) / 3, len(data) / 2, len(data) - 1} {
			cut, err := replay.Decode(bytes.NewReader(data[:n]))
			if !errors.Is(err, replay.ErrTruncated) {
				t.Fatalf("cut at %d of %d: error %v", n, len(data), err)
			}
			if cut != nil && (cut.Ticks > tick || len(cut.Inputs) > len(want.Inputs) || len(cut.Checksums) > len(want.Checksums)) {
				t.Fatalf("cut at %d of %d: more than the whole", n, len(data))
			}
		}
	})
}
