package replay_test

import (
	"bytes"
	"errors"
	"runtime"
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
}

func (g *sampling) Update(u *gameloop.Update) error {
	if u.Tick%50 == 0 {
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
