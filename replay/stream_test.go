package replay_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/replay"
)

// manyInputs returns a valid recording of ticks ticks with perTick key presses before each, in
// the smallest records the format has (5 bytes each), and no checksums.
func manyInputs(t testing.TB, ticks, perTick int) []byte {
	t.Helper()
	var buf bytes.Buffer
	rec, err := replay.NewRecorder(&buf, 60, &replay.RecordOptions{Name: "inputs"})
	if err != nil {
		t.Fatal(err)
	}
	for tick := uint64(1); tick <= uint64(ticks); tick++ {
		for range perTick {
			if err := rec.Input(&gameloop.Input{Kind: gameloop.KeyPress, Tick: tick}); err != nil {
				t.Fatal(err)
			}
		}
		if err := rec.Tick(&gameloop.Update{Tick: tick, Seconds: 1.0 / 60}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// inputCounter counts the inputs delivered to it.
type inputCounter struct{ inputs, ticks uint64 }

func (g *inputCounter) Input(*gameloop.Input) error     { g.inputs++; return nil }
func (g *inputCounter) Update(u *gameloop.Update) error { g.ticks = u.Tick; return nil }

// heapPeak runs f while sampling the live heap after every tick f's game reports, and returns
// the most live heap seen above what was live before.
func heapPeak(f func(sample func())) uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, uint64(0)
	f(func() {
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > base {
			peak = max(peak, ms.HeapAlloc-base)
		}
	})
	return peak
}

type sampling struct {
	inputCounter
	sample func()
	every  uint64 // ticks between samples; 0 means 50
}

func (g *sampling) Update(u *gameloop.Update) error {
	if u.Tick%max(g.every, 50) == 0 {
		runtime.GC()
		g.sample()
	}
	return g.inputCounter.Update(u)
}

// Play streams: it holds a chunk's worth of records at a time, however big the recording. A
// 2.5 MB recording of 5-byte input records used to take 14 times its size on the heap.
func TestPlayStreamsInBoundedMemory(t *testing.T) {
	small, big := manyInputs(t, 100, 1000), manyInputs(t, 500, 1000)
	var peaks [2]uint64
	for i, data := range [][]byte{small, big} {
		var g *sampling
		peaks[i] = heapPeak(func(sample func()) {
			g = &sampling{sample: sample}
			res, err := replay.Play(t.Context(), bytes.NewReader(data), g, nil)
			if err != nil || !res.Matched() || g.inputs != uint64(len(data)/5)/1000*1000 && g.inputs == 0 {
				t.Fatalf("replay: %v, %v", res, err)
			}
			if res.Recorded != res.Ticks || res.Inputs != int(g.inputs) {
				t.Fatalf("replay: %v; game saw %d inputs", res, g.inputs)
			}
		})
		t.Logf("%d bytes of recording, %d inputs: live heap peak %d bytes", len(data), g.inputs, peaks[i])
	}
	// Five times the recording, and no more memory: what is live is a chunk of records, the
	// loop's input buffer and the decoder's chunk buffer, whatever the recording's size.
	if limit := uint64(2 * replay.MaxChunkSize * 16); peaks[1] > limit {
		t.Errorf("replaying %d bytes held %d bytes live, over %d: the records are not streamed", len(big), peaks[1], limit)
	}
	if peaks[1] > 2*peaks[0]+replay.MaxChunkSize {
		t.Errorf("five times the recording took %d bytes against %d: memory grows with its size", peaks[1], peaks[0])
	}
}

// A Stream tells its header before the replay, and whether it was complete after.
func TestOpenStream(t *testing.T) {
	data := manyInputs(t, 10, 3)
	s, err := replay.Open(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "inputs" || s.TickRate != 60 || s.Complete() {
		t.Fatalf("header %+v, complete %v before playing", s.Header, s.Complete())
	}
	g := &inputCounter{}
	res, err := s.Play(t.Context(), g, nil)
	if err != nil || !res.Matched() || res.Recorded != 10 || g.inputs != 30 || !s.Complete() || s.Cut() != nil {
		t.Fatalf("%v, %v; %d inputs; complete %v, cut %v", res, err, g.inputs, s.Complete(), s.Cut())
	}
	if _, err := s.Play(t.Context(), g, nil); err == nil {
		t.Error("a stream played twice")
	}
	// Cut short: replayed as far as it goes, and said so.
	s, err = replay.Open(bytes.NewReader(data[:len(data)-3]))
	if err != nil {
		t.Fatal(err)
	}
	res, err = s.Play(t.Context(), &inputCounter{}, nil)
	if err != nil || !errors.Is(s.Cut(), replay.ErrTruncated) || !errors.Is(res.Cut, replay.ErrTruncated) || s.Complete() {
		t.Fatalf("cut: %v, %v; cut %v", res, err, s.Cut())
	}
}

// Decode, which holds the whole recording, costs a measured amount per input: the Input
// values themselves. This prints the figure the package documentation gives.
func TestDecodeMemoryPerInput(t *testing.T) {
	data := manyInputs(t, 200, 1000)
	var rec *replay.Recording
	peak := heapPeak(func(sample func()) {
		var err error
		rec, err = replay.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		sample()
	})
	per := float64(peak) / float64(len(rec.Inputs))
	t.Logf("Decode of %d bytes, %d inputs: %d bytes live, %.1f per input, %.1fx the recording", len(data), len(rec.Inputs), peak, per, float64(peak)/float64(len(data)))
	// Up to twice the Input values: a slice grows by doubling.
	if per > 2*float64(sizeofInput)+8 {
		t.Errorf("%.1f bytes per input held; an Input is %d bytes", per, sizeofInput)
	}
}

var sizeofInput = int(unsafe.Sizeof(gameloop.Input{}))

// hostileInputs returns a recording, written by hand, of n key presses in chunks of about
// 60 KB with no progress, checksum or end record: all for tick 1, or (spread) one a tick.
func hostileInputs(n int, spread bool) []byte {
	out := []byte(preamble)
	out = append(out, chunk(header60)...)
	var payload []byte
	for i := range n {
		tick := uint64(1)
		if spread {
			tick = uint64(i + 1)
		}
		body := binary.AppendUvarint(nil, tick) // ran stays 0: the delta is the tick
		payload = append(payload, rec(2, append(body, 1, 1, byte(gameloop.KeyA))...)...)
		if len(payload) > 60000 || i == n-1 {
			out = append(out, chunk(payload)...)
			payload = payload[:0]
		}
	}
	return out
}

// A recording of more than MaxInputsPerTick inputs for one tick is corrupt: Decode says so,
// and Play fails once it reads past the limit, having held no more than the limit's inputs.
// Play used to hold every one of them until their tick: 1.66 M inputs in an 8 MB file kept
// 295 MB live. A Recorder refuses to write such a recording, and Encode to encode one.
func TestMaxInputsPerTick(t *testing.T) {
	data := hostileInputs(replay.MaxInputsPerTick+1, false)
	var fe *replay.FormatError
	rec, err := replay.Decode(bytes.NewReader(data))
	if !errors.As(err, &fe) || !errors.Is(err, replay.ErrCorrupt) || !strings.Contains(err.Error(), "MaxInputsPerTick") {
		t.Fatalf("Decode of %d inputs for one tick: %v, want a corrupt *FormatError naming MaxInputsPerTick", replay.MaxInputsPerTick+1, err)
	}
	if len(rec.Inputs) != replay.MaxInputsPerTick {
		t.Errorf("Decode kept %d inputs before the error, want the %d allowed", len(rec.Inputs), replay.MaxInputsPerTick)
	}
	// Play, many times over the limit: it stops at the limit, and allocates no more than the
	// inputs up to it take (a slice grown by append, which allocates about five times its
	// final size on the way there, growing by a quarter at a time), and a chunk's worth more.
	data = hostileInputs(4*replay.MaxInputsPerTick, false)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = replay.Play(t.Context(), bytes.NewReader(data), &inputCounter{}, nil)
	runtime.ReadMemStats(&after)
	if !errors.As(err, &fe) || !errors.Is(err, replay.ErrCorrupt) {
		t.Fatalf("Play of %d inputs for one tick: %v, want a corrupt *FormatError", 4*replay.MaxInputsPerTick, err)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	if limit := uint64(6 * replay.MaxInputsPerTick * sizeofInput); allocated > limit {
		t.Errorf("Play allocated %d bytes, over %d", allocated, limit)
	}
	t.Logf("Play of %d bytes, %d inputs for tick 1: %v; allocated %d bytes", len(data), 4*replay.MaxInputsPerTick, err, allocated)

	// As many as the limit: a recording, which plays.
	data = hostileInputs(replay.MaxInputsPerTick, false)
	if rec, err = replay.Decode(bytes.NewReader(data)); !errors.Is(err, replay.ErrTruncated) || len(rec.Inputs) != replay.MaxInputsPerTick {
		t.Fatalf("Decode of %d inputs for one tick: %v", replay.MaxInputsPerTick, err)
	}

	var buf bytes.Buffer
	rec.Inputs = append(rec.Inputs, rec.Inputs[0])
	if err := rec.Encode(&buf); err == nil || !strings.Contains(err.Error(), "MaxInputsPerTick") {
		t.Errorf("Encode of %d inputs for one tick: %v, want an error naming MaxInputsPerTick", len(rec.Inputs), err)
	}
	r, err := replay.NewRecorder(&buf, 60, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range replay.MaxInputsPerTick + 1 {
		err = r.Input(&gameloop.Input{Kind: gameloop.KeyPress, Tick: 1})
		if (err != nil) != (i == replay.MaxInputsPerTick) {
			t.Fatalf("Recorder.Input %d for one tick: %v", i+1, err)
		}
	}
}

// Play stops reading once the records say the tick it needs has run, so a recording whose
// inputs run ahead of any progress record (a hostile one: a Recorder closes every chunk with
// one) is replayed holding a chunk's worth of them, not all. It used to hold them all.
func TestPlayInputsWithoutProgress(t *testing.T) {
	const n = 300_000
	data := hostileInputs(n, true)
	var res *replay.Result
	var err error
	peak := heapPeak(func(sample func()) {
		res, err = replay.Play(t.Context(), bytes.NewReader(data), &sampling{sample: sample, every: 5000}, nil)
	})
	if err != nil || res.Ticks != n-1 || res.Inputs != n || res.Trailing != 1 || !errors.Is(res.Cut, replay.ErrTruncated) {
		t.Fatalf("Play: %v, %v; want %d ticks, %d inputs, one after the last tick, cut short", res, err, n-1, n)
	}
	t.Logf("Play of %d bytes, %d inputs a tick apart with no progress record: live heap peak %d bytes", len(data), n, peak)
	if limit := uint64(2 * replay.MaxChunkSize * 16); peak > limit {
		t.Errorf("Play held %d bytes live, over %d: the records are not streamed", peak, limit)
	}
}

// Inputs after the last tick are part of the recording, though no tick followed them: the
// game received them before the recording ended, and the replay delivers them after the last
// tick, so that the game ends in the same state, and says how many there were, as
// TrailingInputs does. It used to drop them, and the game ended in another state.
func TestTrailingInputs(t *testing.T) {
	var buf bytes.Buffer
	r, err := replay.NewRecorder(&buf, 60, nil)
	if err != nil {
		t.Fatal(err)
	}
	for tick := uint64(1); tick <= 3; tick++ {
		if err := r.Input(&gameloop.Input{Kind: gameloop.KeyPress, Tick: tick}); err != nil {
			t.Fatal(err)
		}
		if tick < 3 {
			if err := r.Tick(&gameloop.Update{Tick: tick, Seconds: 1.0 / 60}, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := r.Input(&gameloop.Input{Kind: gameloop.KeyPress, Tick: 3}); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := replay.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil || rec.Ticks != 2 || len(rec.Inputs) != 4 || rec.TrailingInputs() != 2 {
		t.Fatalf("Decode: %v; %d ticks, %d inputs, %d trailing", err, rec.Ticks, len(rec.Inputs), rec.TrailingInputs())
	}
	var games [2]inputCounter
	streamed, err := replay.Play(t.Context(), bytes.NewReader(buf.Bytes()), &games[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := rec.Play(t.Context(), &games[1], nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range []*replay.Result{streamed, decoded} {
		if !res.Matched() || res.Inputs != 4 || res.Trailing != 2 || !strings.Contains(res.String(), "4 inputs (2 after the last tick)") {
			t.Errorf("%v: want 4 inputs delivered, 2 of them after the last tick, said so", res)
		}
		if games[i].inputs != 4 || games[i].ticks != 2 {
			t.Errorf("the game saw %d inputs and %d ticks, want 4 and 2", games[i].inputs, games[i].ticks)
		}
	}
}
