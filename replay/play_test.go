package replay_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/replay"
)

// TestRecordWithEvents records with Loop.Events, as the Recorder's documentation shows, and
// replays the recording.
func TestRecordWithEvents(t *testing.T) {
	clock := gameloop.NewManualClock()
	win := &scriptWindow{HeadlessWindow: gameloop.NewHeadlessWindow(80, 24), clock: clock, script: makeScript(2, 40, 5e9)}
	loop, err := gameloop.New(gameloop.Config{MaxFPS: 50, Clock: clock, Window: win})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	rec, err := replay.NewRecorder(&buf, loop.Config().TickRate, &replay.RecordOptions{ChecksumEvery: 7})
	if err != nil {
		t.Fatal(err)
	}
	game := newBounce()
	for ev := range loop.Events(t.Context()) {
		switch ev := ev.(type) {
		case *gameloop.Input:
			if err := errors.Join(rec.Input(ev), game.Input(ev)); err != nil {
				t.Fatal(err)
			}
		case *gameloop.Update:
			if err := errors.Join(game.Update(ev), rec.Tick(ev, game.Checksum)); err != nil {
				t.Fatal(err)
			}
		}
		if rec.Ticks() == 300 {
			break
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	recording := decode(t, buf.Bytes())
	if len(recording.Checksums) != 300/7 || len(recording.Inputs) == 0 {
		t.Fatalf("%d checksums, %d inputs; want %d checksums and some input", len(recording.Checksums), len(recording.Inputs), 300/7)
	}
	res, err := recording.Play(t.Context(), newBounce(), nil)
	if err != nil || !res.Matched() || res.Checked != 300/7 || res.Cut != nil {
		t.Fatalf("%v, %v", res, err)
	}
	if s := res.String(); !strings.HasPrefix(s, "matched: 300 ticks,") {
		t.Fatalf("String() = %q", s)
	}
}

func TestRecorderMisuse(t *testing.T) {
	press := func(tick uint64) *gameloop.Input {
		return &gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyA, Tick: tick}
	}
	tests := []struct {
		name string
		use  func(r *replay.Recorder) error
		want string
	}{
		{"input without its tick", func(r *replay.Recorder) error { return r.Input(press(0)) }, "the last tick recorded was 0"},
		{"input ahead", func(r *replay.Recorder) error { return r.Input(press(2)) }, "comes before tick 2"},
		{"input behind", func(r *replay.Recorder) error {
			_ = r.Tick(&gameloop.Update{Tick: 1}, nil)
			return r.Input(press(1))
		}, "comes before tick 1, but the last tick recorded was 1"},
		{"input of no kind", func(r *replay.Recorder) error { return r.Input(&gameloop.Input{Tick: 1}) }, "input kind 0"},
		{"tick skipped", func(r *replay.Recorder) error { return r.Tick(&gameloop.Update{Tick: 2}, nil) }, "Tick(2) after tick 0"},
		{"tick repeated", func(r *replay.Recorder) error {
			_ = r.Tick(&gameloop.Update{Tick: 1}, nil)
			return r.Tick(&gameloop.Update{Tick: 1}, nil)
		}, "Tick(1) after tick 1"},
		{"checksum of another tick", func(r *replay.Recorder) error { return r.Checksum(3, 0) }, "checksum for tick 3"},
		{"used after Close", func(r *replay.Recorder) error {
			_ = r.Close()
			return r.Tick(&gameloop.Update{Tick: 1}, nil)
		}, "after Close"},
		{"the first error stays", func(r *replay.Recorder) error {
			_ = r.Tick(&gameloop.Update{Tick: 5}, nil)
			return r.Tick(&gameloop.Update{Tick: 1}, nil)
		}, "Tick(5) after tick 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := replay.NewRecorder(&bytes.Buffer{}, 60, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.use(r); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func TestNewRecorderOptions(t *testing.T) {
	tests := []struct {
		rate int
		opts *replay.RecordOptions
		want string
	}{
		{0, nil, "tick rate 0"},
		{gameloop.MaxRate + 1, nil, "tick rate 1000001"},
		{60, &replay.RecordOptions{Name: strings.Repeat("x", replay.MaxNameLen+1)}, "Name"},
		{60, &replay.RecordOptions{Name: "\xff"}, "Name"},
		{60, &replay.RecordOptions{Meta: make([]byte, replay.MaxMetaLen+1)}, "Meta"},
		{60, &replay.RecordOptions{ChecksumEvery: -1}, "ChecksumEvery"},
		{60, &replay.RecordOptions{FlushEvery: -1}, "FlushEvery"},
	}
	for _, tt := range tests {
		if _, err := replay.NewRecorder(&bytes.Buffer{}, tt.rate, tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewRecorder(%d, %+v): error %v, want one saying %q", tt.rate, tt.opts, err, tt.want)
		}
	}
}

// shortWriter accepts n bytes, then fails.
type shortWriter struct {
	n   int
	err error
}

func (w *shortWriter) Write(b []byte) (int, error) {
	if len(b) > w.n {
		n := w.n
		w.n = 0
		return n, w.err
	}
	w.n -= len(b)
	return len(b), nil
}

// TestRecorderWriteError checks that a failing writer's error comes back wrapped, from the
// call that wrote and every one after.
func TestRecorderWriteError(t *testing.T) {
	full := errors.New("disk full")
	if _, err := replay.NewRecorder(&shortWriter{n: 5, err: full}, 60, nil); !errors.Is(err, full) {
		t.Fatalf("NewRecorder: error %v, want %v", err, full)
	}
	r, err := replay.NewRecorder(&shortWriter{n: 100, err: full}, 60, &replay.RecordOptions{FlushEvery: 10})
	if err != nil {
		t.Fatal(err)
	}
	var tick uint64
	for tick = 1; tick < 100; tick++ {
		if err = r.Tick(&gameloop.Update{Tick: tick}, func() uint64 { return tick }); err != nil {
			break
		}
	}
	if !errors.Is(err, full) || !strings.Contains(err.Error(), "writing at byte") {
		t.Fatalf("error %v at tick %d, want %v", err, tick, full)
	}
	if err := r.Close(); !errors.Is(err, full) {
		t.Fatalf("Close: error %v, want %v", err, full)
	}
}

// failingGame fails at a tick, or stops itself.
type failingGame struct {
	*bounceGame
	at  uint64
	err error
}

func (g failingGame) Update(u *gameloop.Update) error {
	if err := g.bounceGame.Update(u); err != nil {
		return err
	}
	if u.Tick == g.at {
		return g.err
	}
	return nil
}

func TestPlayErrors(t *testing.T) {
	data, _ := record(t, session{ticks: 100, inputs: 10, seed: 1})
	recording := decode(t, data)
	boom := errors.New("boom")

	_, err := recording.Play(t.Context(), newBounce(), &replay.PlayOptions{Config: &gameloop.Config{Lazy: true}})
	if err == nil || !strings.Contains(err.Error(), "Lazy") {
		t.Errorf("lazy: error %v", err)
	}
	_, err = recording.Play(t.Context(), untilTick{}, &replay.PlayOptions{Config: &gameloop.Config{Bench: true, MaxFPS: -1}})
	var ce *gameloop.ConfigError
	if !errors.As(err, &ce) {
		t.Errorf("bad config: error %v, want a *gameloop.ConfigError", err)
	}
	_, err = recording.Play(t.Context(), &noChecksum{}, nil)
	if err == nil || !strings.Contains(err.Error(), "no Checksum method") {
		t.Errorf("no checksum: error %v", err)
	}
	// A checksum function of its own makes it replayable.
	g := newBounce()
	res, err := recording.Play(t.Context(), &noChecksum{g}, &replay.PlayOptions{Checksum: g.Checksum})
	if err != nil || !res.Matched() {
		t.Errorf("PlayOptions.Checksum: %v, %v", res, err)
	}

	res, err = recording.Play(t.Context(), failingGame{newBounce(), 40, boom}, nil)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "tick 40") || res.Ticks != 39 {
		t.Errorf("failing game: %v, %v", res, err)
	}
	res, err = recording.Play(t.Context(), failingGame{newBounce(), 40, gameloop.ErrStop}, nil)
	if err != nil || res.Matched() || res.Ticks != 40 || !strings.HasPrefix(res.String(), "STOPPED at tick 40 of 100") {
		t.Errorf("game stopping early: %v, %v", res, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err = recording.Play(ctx, newBounce(), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v", err)
	}

	for _, bad := range [][]byte{nil, []byte("not a recording"), data[:5]} {
		if res, err := replay.Play(t.Context(), bytes.NewReader(bad), newBounce(), nil); err == nil || res != nil {
			t.Errorf("Play(%q): %v, %v; want an error", bad, res, err)
		}
	}
	flipped := bytes.Clone(data)
	flipped[len(flipped)/2] ^= 4
	if _, err := replay.Play(t.Context(), bytes.NewReader(flipped), newBounce(), nil); !errors.Is(err, replay.ErrCorrupt) {
		t.Errorf("bit flipped: error %v", err)
	}
}

type noChecksum struct{ *bounceGame }

func (g *noChecksum) Checksum() {} // not a Checksummer

// TestPlayMismatchString checks how a mismatch reads.
func TestPlayMismatchString(t *testing.T) {
	data, _ := record(t, session{ticks: 100, inputs: 10, seed: 1})
	recording := decode(t, data)
	recording.Checksums[49].Sum ^= 1
	res, err := recording.Play(t.Context(), newBounce(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Mismatch == nil || res.Mismatch.Tick != 50 || res.Ticks != 50 || res.Checked != 50 || res.Matched() {
		t.Fatalf("%+v", res)
	}
	if s := res.String(); !strings.HasPrefix(s, "MISMATCH at tick 50: recorded checksum") || !strings.Contains(s, "(49 earlier checksums matched)") {
		t.Fatalf("String() = %q", s)
	}
}

// frameGame counts the frames it is asked to draw.
type frameGame struct {
	*bounceGame
	variable, render int
}

func (g *frameGame) VariableUpdate(*gameloop.VariableUpdate) error { g.variable++; return nil }
func (g *frameGame) Render(*gameloop.Render) error                 { g.render++; return nil }

// TestPlayWindow replays into a window to watch: frames go to the game with Frames, not
// without, and closing the window ends the replay.
func TestPlayWindow(t *testing.T) {
	data, _ := record(t, session{ticks: 100, inputs: 10, seed: 1})
	recording := decode(t, data)
	for _, frames := range []bool{false, true} {
		win := gameloop.NewHeadlessWindow(80, 24)
		g := &frameGame{bounceGame: newBounce()}
		res, err := recording.Play(t.Context(), g, &replay.PlayOptions{Frames: frames, Config: &gameloop.Config{Bench: true, MaxFPS: 30, Window: win}})
		if err != nil || !res.Matched() {
			t.Fatalf("%v, %v", res, err)
		}
		if drawn := g.render > 0 && g.variable == g.render; drawn != frames || uint64(win.Swaps()) < 100/2 {
			t.Fatalf("Frames %v: %d variable updates, %d renders, %d swaps", frames, g.variable, g.render, win.Swaps())
		}
	}
	// The window's own input is dropped; closing it ends the replay.
	win := gameloop.NewHeadlessWindow(80, 24)
	win.Push(gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeySpace})
	win.Close()
	res, err := recording.Play(t.Context(), newBounce(), &replay.PlayOptions{Config: &gameloop.Config{Bench: true, Window: win}})
	if err != nil || res.Ticks != 0 {
		t.Fatalf("closed window: %v, %v", res, err)
	}
}

// TestPlayNoFrames records and replays a loop that draws no frames, as a server's match is run:
// its input reaches the recording, and the replay, in real time or in bench mode, matches it
// and draws nothing even when asked to pass frames on.
func TestPlayNoFrames(t *testing.T) {
	data, st := record(t, session{ticks: 6, inputs: 4, seed: 3, cfg: gameloop.Config{NoFrames: true}})
	if st.Frames != 0 {
		t.Fatalf("recording loop drew %d frames", st.Frames)
	}
	recording := decode(t, data)
	for _, cfg := range []gameloop.Config{{NoFrames: true}, {NoFrames: true, Bench: true}} {
		g := &frameGame{bounceGame: newBounce()}
		res, err := recording.Play(t.Context(), g, &replay.PlayOptions{Frames: true, Config: &cfg})
		if err != nil || !res.Matched() || res.Ticks != 6 || res.Inputs != 4 {
			t.Fatalf("%+v: %v, %v", cfg, res, err)
		}
		if g.variable != 0 || g.render != 0 {
			t.Errorf("%+v: %d variable updates, %d renders", cfg, g.variable, g.render)
		}
	}
}

// TestPlayEmpty replays a recording of no ticks.
func TestPlayEmpty(t *testing.T) {
	var buf bytes.Buffer
	r, err := replay.NewRecorder(&buf, 60, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	res, err := replay.Play(t.Context(), &buf, newBounce(), nil)
	if err != nil || !res.Matched() || res.Ticks != 0 {
		t.Fatalf("%v, %v", res, err)
	}
}

// TestKilledWhileRecording runs a recording program that kills itself without closing its
// Recorder, as a crash would: the file must read up to its last whole chunk, and replay.
func TestKilledWhileRecording(t *testing.T) {
	if os.Getenv("REPLAY_TEST_KILL_FILE") != "" {
		t.Skip("the recording child runs TestRecordAndDie")
	}
	path := filepath.Join(t.TempDir(), "killed.rec")
	cmd := exec.Command(os.Args[0], "-test.run=^TestRecordAndDie$")
	cmd.Env = append(os.Environ(), "REPLAY_TEST_KILL_FILE="+path)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("the recording child did not die: %v\n%s", err, out)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := replay.Play(t.Context(), f, newBounce(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res.Cut, replay.ErrTruncated) || !res.Matched() || res.Ticks < 400 || res.Ticks > 450 {
		t.Fatalf("%v; want a cut recording of 400 to 450 ticks, matched", res)
	}
	t.Log(res)
}

// TestRecordAndDie is the child of TestKilledWhileRecording: it records 450 ticks of bounce,
// writing a chunk every 25, and kills itself in the middle of writing one.
func TestRecordAndDie(t *testing.T) {
	path := os.Getenv("REPLAY_TEST_KILL_FILE")
	if path == "" {
		t.Skip("run by TestKilledWhileRecording")
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	clock := gameloop.NewManualClock()
	loop, err := gameloop.New(gameloop.Config{Bench: true, Clock: clock, Window: &scriptWindow{
		HeadlessWindow: gameloop.NewHeadlessWindow(80, 24), clock: clock, script: makeScript(4, 50, 7e9)}})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := replay.NewRecorder(&dyingWriter{f: f, dieAfter: 450 / 25}, 60, &replay.RecordOptions{FlushEvery: 25})
	if err != nil {
		t.Fatal(err)
	}
	err = loop.Run(t.Context(), rec.Game(untilTick{newBounce(), 1000}))
	t.Fatalf("still alive after 1000 ticks: %v", err)
}

// dyingWriter writes to f, and in the middle of its dieAfter-th chunk kills the process.
type dyingWriter struct {
	f        *os.File
	dieAfter int
	writes   int
}

func (w *dyingWriter) Write(b []byte) (int, error) {
	w.writes++
	if w.writes == w.dieAfter+2 { // the preamble and the header chunk come first
		if _, err := w.f.Write(b[:len(b)/2]); err != nil {
			return 0, err
		}
		p, err := os.FindProcess(os.Getpid())
		if err == nil {
			err = p.Kill()
		}
		if err != nil {
			return 0, err
		}
		select {} // wait for the signal
	}
	return w.f.Write(b)
}

// TestPlayBadRecording checks that a Recording made by hand that no Recorder could have made is
// refused, not replayed wrong.
func TestPlayBadRecording(t *testing.T) {
	press := func(tick uint64) gameloop.Input {
		return gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeySpace, Tick: tick}
	}
	for name, rec := range map[string]*replay.Recording{
		"tick rate 0":             {Ticks: 10},
		"input at tick 0":         {Header: replay.Header{TickRate: 60}, Ticks: 10, Inputs: []gameloop.Input{press(0)}},
		"inputs out of order":     {Header: replay.Header{TickRate: 60}, Ticks: 10, Inputs: []gameloop.Input{press(5), press(4)}},
		"input beyond the end":    {Header: replay.Header{TickRate: 60}, Ticks: 10, Inputs: []gameloop.Input{press(12)}},
		"input of no kind":        {Header: replay.Header{TickRate: 60}, Ticks: 10, Inputs: []gameloop.Input{{Tick: 3}}},
		"checksums out of order":  {Header: replay.Header{TickRate: 60}, Ticks: 10, Checksums: []replay.Checksum{{Tick: 5}, {Tick: 5}}},
		"checksum beyond the end": {Header: replay.Header{TickRate: 60}, Ticks: 10, Checksums: []replay.Checksum{{Tick: 11}}},
	} {
		if res, err := rec.Play(t.Context(), newBounce(), nil); err == nil {
			t.Errorf("%s: %v, no error", name, res)
		}
		if err := rec.Encode(&bytes.Buffer{}); err == nil {
			t.Errorf("%s: encoded", name)
		}
	}
}
