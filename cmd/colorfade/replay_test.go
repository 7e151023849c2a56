package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/glfw/glfwtest"
	"github.com/gameloop-go/gameloop/internal/replaycli"
	"github.com/gameloop-go/gameloop/replay"
)

func TestStartRoundTrip(t *testing.T) {
	if got := string(encodeStart(60)); got != "colorfade-start/1 tps=60" {
		t.Errorf("encodeStart(60) = %q", got)
	}
	if rate, err := parseStart(encodeStart(144)); rate != 144 || err != nil {
		t.Errorf("parseStart(encodeStart(144)) = %d, %v", rate, err)
	}
	for _, meta := range []string{"", "colorfade-start/1", "colorfade-start/2 tps=60", "colorfade-start/1 tps=0", "colorfade-start/1 tps=60 x", "bounce-start/1 tps=60"} {
		if rate, err := parseStart([]byte(meta)); err == nil {
			t.Errorf("parseStart(%q) = %d, want an error", meta, rate)
		}
	}
}

func TestChecksum(t *testing.T) {
	a, b := newGame(nil), newGame(nil)
	if a.Checksum() != b.Checksum() {
		t.Fatal("two new games differ")
	}
	_ = b.Input(key(gameloop.KeyPress, gameloop.KeyUp))
	if a.Checksum() == b.Checksum() {
		t.Error("a key held does not change the checksum")
	}
	_ = a.Input(key(gameloop.KeyPress, gameloop.KeyUp))
	ticks(t, a, 1)
	ticks(t, b, 2)
	if a.Checksum() == b.Checksum() {
		t.Error("one tick more does not change the checksum")
	}
}

// fader holds Up for a while, then Down, then ends the game with Escape, pushing the keys
// into a headless window as the ticks go by.
type fader struct {
	*game
	win *gameloop.HeadlessWindow
}

func (f *fader) Update(u *gameloop.Update) error {
	err := f.game.Update(u)
	switch u.Tick {
	case 5:
		f.win.Push(gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyUp})
	case 70:
		f.win.Push(gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyDown})
	case 80:
		f.win.Push(gameloop.Input{Kind: gameloop.KeyRelease, Key: gameloop.KeyUp}, gameloop.Input{Kind: gameloop.Focus})
	case 100:
		f.win.Push(gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyEscape})
	}
	return err
}

// recordFade records the fader in a bench loop, without a window, and returns the file and
// the game's level at the end.
func recordFade(t *testing.T) (string, float64) {
	t.Helper()
	opts := defaultOptions()
	opts.Record = filepath.Join(t.TempDir(), "fade.rec")
	win := gameloop.NewHeadlessWindow(opts.Width, opts.Height)
	loop, err := gameloop.New(gameloop.Config{TickRate: opts.TickRate, MaxFPS: opts.MaxFPS, Bench: true, Window: win})
	if err != nil {
		t.Fatal(err)
	}
	a := &app{opts: opts, loop: loop, game: newGame(&fakeScreen{})}
	if err := a.play(t.Context(), &fader{game: a.game, win: win}); err != nil {
		t.Fatal(err)
	}
	return opts.Record, a.game.Level()
}

func TestRecordAndReplay(t *testing.T) {
	path, level := recordFade(t)
	// Up from tick 6, Down too from 71 (no change), then the focus lost lets go of both at 81.
	if want := 65.0 / 60 / 2; level < want-1e-9 || level > want+1e-9 {
		t.Fatalf("recorded a fade to %v, want %v", level, want)
	}
	var stdout, stderr bytes.Buffer
	if code := realMain([]string{"-replay", path}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
	}
	if !regexp.MustCompile(`^replay: 100 ticks, matched \(5 inputs, 1 of them after the last tick, 100 checksums, in .*\)\n$`).MatchString(stdout.String()) {
		t.Errorf("printed %q", stdout.String())
	}
}

func TestReplayMismatch(t *testing.T) {
	path, _ := recordFade(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := replay.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	rec.Checksums[49].Sum++
	_, res, err := replayRecording(t.Context(), rec.Header, rec)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := replaycli.PrintResult(&out, res); !errors.Is(err, replaycli.ErrMismatch) {
		t.Errorf("printResult: %v, want replaycli.ErrMismatch", err)
	}
	if want := "replay: MISMATCH at tick 50 of 100: expected checksum "; !strings.HasPrefix(out.String(), want) {
		t.Errorf("printed %q, want it to begin %q", out.String(), want)
	}

	// Damaged files: exit status 1, and an error naming the byte.
	dir := t.TempDir()
	flipped := bytes.Clone(data)
	flipped[len(flipped)/2] ^= 0x80
	for name, b := range map[string][]byte{"cut": data[:len(data)-4], "flipped": flipped} {
		path := filepath.Join(dir, name+".rec")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		if code := realMain([]string{"-replay", path}, &stdout, &stderr); code != 1 || !regexp.MustCompile(` at byte \d+`).MatchString(stderr.String()) {
			t.Errorf("%s: exit status %d, error %q; want 1 and the byte", name, code, stderr.String())
		}
	}
}

// TestRecordInAWindowAndReplay records a session in a real window while Up is held, closes
// the window, and replays the recording headless: it matches, and ends at the same level.
func TestRecordInAWindowAndReplay(t *testing.T) {
	glfwtest.RequireDisplay(t)
	glfwtest.RequireTool(t, "xdotool")
	opts := defaultOptions()
	opts.Title, opts.Width, opts.Height = "colorfade-record", 240, 180
	opts.Record = filepath.Join(t.TempDir(), "window.rec")
	probe := glfwtest.NewProbe()
	var a *app
	running := glfwtest.Start(t, func() error {
		var err error
		if a, err = newApp(opts); err != nil {
			return err
		}
		defer a.close()
		return a.play(context.Background(), &probedGame{game: a.game, probe: probe})
	}, func() {
		probe.Run(t, 10*time.Second, func() { a.win.SetShouldClose(true) })
	})
	id := glfwtest.FindWindow(t, opts.Title)
	level := func() float64 {
		var l float64
		probe.Run(t, 10*time.Second, func() { l = a.game.Level() })
		return l
	}
	glfwtest.HoldKey(t, id, "Up", 10*time.Second, "the level to pass 0.3", func() bool { return level() > 0.3 })
	glfwtest.RequestClose(t, id)
	if err := running.Wait(t, 10*time.Second); err != nil {
		t.Fatalf("Run: %v", err)
	}
	recorded := a.game.Level()

	f, err := os.Open(opts.Record)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := replay.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	g, res, err := replayRecording(t.Context(), rec.Header, rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %d ticks, %d inputs; %v", rec.Ticks, len(rec.Inputs), res)
	if !res.Matched() || res.Ticks == 0 || res.Checked != int(res.Ticks) {
		t.Errorf("replay: %v", res)
	}
	if g.Level() != recorded || recorded <= 0.3 {
		t.Errorf("the replay ended at level %v, the recorded game at %v (want it past 0.3)", g.Level(), recorded)
	}
	var sawUp bool
	for _, in := range rec.Inputs {
		sawUp = sawUp || in.Kind == gameloop.KeyPress && in.Key == gameloop.KeyUp
	}
	if !sawUp {
		t.Errorf("no Up pressed among the %d inputs recorded", len(rec.Inputs))
	}
}
