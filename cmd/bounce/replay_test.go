package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/bouncegame"
	"github.com/gameloop-go/gameloop/internal/replaycli"
	"github.com/gameloop-go/gameloop/replay"
)

// scripted plays a script of input on a game in a bench loop: the loop's controls included,
// a pause with input during it, a resize, and a q at the end.
type scripted struct {
	*game
	loop         *gameloop.Loop
	win          *gameloop.HeadlessWindow
	pausedFrames int
}

func (s *scripted) Update(u *gameloop.Update) error {
	err := s.game.Update(u)
	key := func(k gameloop.Key) gameloop.Input { return gameloop.Input{Kind: gameloop.KeyPress, Key: k} }
	ch := func(r rune) gameloop.Input { return gameloop.Input{Kind: gameloop.Char, Rune: r} }
	switch u.Tick {
	case 3:
		s.win.Push(key(gameloop.KeyRight), ch(']')) // 10 Hz to 15
	case 10:
		s.win.Push(key(gameloop.KeySpace), ch('+'), key(gameloop.KeyUp))
	case 20:
		s.win.Push(ch('p')) // Render resumes it after a few frames, with a ball added
	case 30:
		s.win.Push(gameloop.Input{Kind: gameloop.Resize, Width: 61, Height: 19}, key(gameloop.KeyG), ch('['), ch('['))
	case 45:
		s.win.Push(key(gameloop.KeyBackspace), ch('-'), ch(']'))
	case 70:
		s.win.Push(ch('q'))
	}
	return err
}

func (s *scripted) Render(r *gameloop.Render) error {
	if s.loop.Paused() {
		s.pausedFrames++
		if s.pausedFrames == 3 {
			s.win.Push(gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeySpace}, gameloop.Input{Kind: gameloop.Char, Rune: 'p'})
		}
	}
	return s.game.Render(r)
}

// recordScript records the script in a bench loop to a file in dir, and returns its path and
// the game's checksum at the end.
func recordScript(t *testing.T, dir string) (string, uint64) {
	t.Helper()
	opts := options{tickRate: 10, maxFPS: 60, balls: 3, seed: 42, glyphs: "braille"}
	win := gameloop.NewHeadlessWindow(80, 24)
	loop, err := gameloop.New(gameloop.Config{TickRate: opts.tickRate, MaxFPS: opts.maxFPS, Bench: true, Window: win})
	if err != nil {
		t.Fatal(err)
	}
	g := newGame(opts, loop, newView(opts.glyphs, newMemSurface(80, 24)), 80, 24)
	path := filepath.Join(dir, "script.rec")
	rec, err := startRecording(path, loop, startOf(opts, 80, 24))
	if err != nil {
		t.Fatal(err)
	}
	s := &scripted{game: g, loop: loop, win: win}
	err = loop.Run(t.Context(), rec.rec.Game(s))
	if err := errors.Join(err, rec.close()); err != nil {
		t.Fatal(err)
	}
	if s.pausedFrames < 3 {
		t.Fatalf("the script's pause lasted %d frames", s.pausedFrames)
	}
	return path, g.Checksum()
}

func decodeFile(t *testing.T, path string) *replay.Recording {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := replay.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestRecordAndReplayControls records a session in which the tick rate, the time scale, the
// window's size and the balls change, with input during a pause, and replays it.
func TestRecordAndReplayControls(t *testing.T) {
	path, final := recordScript(t, t.TempDir())
	rec := decodeFile(t, path)
	if rec.Ticks != 70 || len(rec.Inputs) < 15 || len(rec.Checksums) != 70 {
		t.Fatalf("recorded %d ticks, %d inputs, %d checksums: want 70 ticks (q after 70), every input and checksum",
			rec.Ticks, len(rec.Inputs), len(rec.Checksums))
	}
	wantRates := []replay.RateChange{{Tick: 4, Rate: 15}, {Tick: 31, Rate: 5}, {Tick: 46, Rate: 10}}
	if !equalRates(rec.RateChanges, wantRates) {
		t.Errorf("rate changes %v, want %v", rec.RateChanges, wantRates)
	}
	if rec.Checksums[len(rec.Checksums)-1].Sum != final {
		t.Errorf("last checksum %016x, the game ended at %016x", rec.Checksums[len(rec.Checksums)-1].Sum, final)
	}

	var stdout, stderr bytes.Buffer
	// The game's flags are ignored: the recording says how it starts.
	if code := realMain([]string{"-replay", path, "-seed", "7", "-balls", "9", "-tps", "60", "-glyphs", "half"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
	}
	// q came after the last tick: counted with the others, and said so.
	want := fmt.Sprintf(`^replay: 70 ticks, matched \(%d inputs, %d of them after the last tick, 70 checksums, in .*\)\n$`, len(rec.Inputs), rec.TrailingInputs())
	if rec.TrailingInputs() == 0 || !regexp.MustCompile(want).MatchString(stdout.String()) {
		t.Errorf("printed %q, want %s", stdout.String(), want)
	}
}

func equalRates(a, b []replay.RateChange) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestReplayMismatch replays recordings that differ from what the game does: a checksum
// changed, and a different seed.
func TestReplayMismatch(t *testing.T) {
	path, _ := recordScript(t, t.TempDir())

	rec := decodeFile(t, path)
	rec.Checksums[40].Sum ^= 1
	var out bytes.Buffer
	err := playRecording(t.Context(), rec.Header, rec, &out)
	if !errors.Is(err, replaycli.ErrMismatch) {
		t.Fatalf("a changed checksum: %v, want replaycli.ErrMismatch", err)
	}
	want := "replay: MISMATCH at tick 41 of 70: expected checksum "
	if !strings.HasPrefix(out.String(), want) || !strings.Contains(out.String(), "(40 checksums matched before it)") {
		t.Errorf("printed %q, want it to begin %q", out.String(), want)
	}

	rec = decodeFile(t, path)
	s, err := bouncegame.ParseStart(rec.Meta)
	if err != nil {
		t.Fatal(err)
	}
	s.Seed++
	rec.Meta = s.Encode()
	out.Reset()
	if err := playRecording(t.Context(), rec.Header, rec, &out); !errors.Is(err, replaycli.ErrMismatch) || !strings.HasPrefix(out.String(), "replay: MISMATCH at tick 1 ") {
		t.Errorf("another seed: %v, printed %q; want a mismatch at tick 1", err, out.String())
	}
}

func TestReplayRejects(t *testing.T) {
	path, _ := recordScript(t, t.TempDir())
	rec := decodeFile(t, path)
	var out bytes.Buffer
	rec.Name = "colorfade"
	if err := playRecording(t.Context(), rec.Header, rec, &out); err == nil || !strings.Contains(err.Error(), `a recording of "colorfade"`) {
		t.Errorf("a recording of another game: %v", err)
	}
	rec = decodeFile(t, path)
	rec.TickRate = 60
	if err := playRecording(t.Context(), rec.Header, rec, &out); err == nil || !strings.Contains(err.Error(), "meta says 10 ticks per second, its header 60") {
		t.Errorf("a header that disagrees with the meta: %v", err)
	}
}

// TestRecordHeadlessAndReplay records a headless run with the command's flags and replays it.
func TestRecordHeadlessAndReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "headless.rec")
	var stdout, stderr bytes.Buffer
	if code := realMain([]string{"-headless", "-seconds", "0.2", "-tps", "120", "-balls", "9", "-glyphs", "half", "-record", path}, &stdout, &stderr); code != 0 {
		t.Fatalf("recording: exit status %d; stderr:\n%s", code, stderr.String())
	}
	ticks := regexp.MustCompile(`(?m)^ticks +(\d+)$`).FindStringSubmatch(stdout.String())
	if ticks == nil {
		t.Fatalf("no tick count in:\n%s", stdout.String())
	}
	sum := regexp.MustCompile(`(?m)^checksum +([0-9a-f]{16})$`).FindStringSubmatch(stdout.String())
	rec := decodeFile(t, path)
	if got, want := string(rec.Meta), "bounce-start/1 seed=1 balls=9 width=80 height=24 glyphs=half tps=120"; got != want {
		t.Errorf("meta %q, want %q", got, want)
	}
	if n := len(rec.Checksums); n == 0 || sum == nil || rec.Checksums[n-1].Sum != mustHex(t, sum[1]) {
		t.Errorf("the last recorded checksum is not the final one printed, %v", sum)
	}
	stdout.Reset()
	if code := realMain([]string{"-replay", path}, &stdout, &stderr); code != 0 {
		t.Fatalf("replay: exit status %d\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
	}
	if want := "replay: " + ticks[1] + " ticks, matched "; !strings.HasPrefix(stdout.String(), want) {
		t.Errorf("printed %q, want it to begin %q", stdout.String(), want)
	}
}

func mustHex(t *testing.T, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestReplayDamaged replays a recording cut short and one with a byte changed: exit status 1,
// and an error that names the byte.
func TestReplayDamaged(t *testing.T) {
	dir := t.TempDir()
	path, _ := recordScript(t, dir)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.rec")
	flipped := filepath.Join(dir, "flipped.rec")
	tampered := filepath.Join(dir, "tampered.rec")
	damaged := bytes.Clone(data)
	damaged[len(damaged)/2] ^= 0x10
	for name, b := range map[string][]byte{cut: data[:len(data)-5], flipped: damaged, tampered: tamperChecksum(t, data, 30)} {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		path   string
		stdout string // regexps
		stderr string
	}{
		{cut, `^replay: \d+ ticks, matched as far as the recording goes, but it was cut short`, `cut short at byte \d+`},
		{flipped, `^$`, `corrupt.* at byte \d+`},
		{tampered, `^replay: MISMATCH at tick 30 of 70: expected checksum [0-9a-f]{16}, got [0-9a-f]{16}`, `did not match the recording at tick 30`},
		{filepath.Join(dir, "none.rec"), `^$`, `no such file`},
	} {
		var stdout, stderr bytes.Buffer
		if code := realMain([]string{"-replay", tt.path}, &stdout, &stderr); code != 1 {
			t.Errorf("%s: exit status %d, want 1", filepath.Base(tt.path), code)
		}
		if !regexp.MustCompile(tt.stdout).MatchString(stdout.String()) {
			t.Errorf("%s: printed %q, want %q", filepath.Base(tt.path), stdout.String(), tt.stdout)
		}
		if !regexp.MustCompile(tt.stderr).MatchString(stderr.String()) {
			t.Errorf("%s: error %q, want %q", filepath.Base(tt.path), stderr.String(), tt.stderr)
		}
	}
}

// tamperChecksum returns a copy of the recording data with the checksum of tick changed (a
// bit flipped) and the CRC of its chunk made right again, so that it reads as a good
// recording whose checksums are not the game's. It walks the chunks and records as FORMAT.md
// lays them out.
func tamperChecksum(t *testing.T, data []byte, tick uint64) []byte {
	t.Helper()
	const preamble = 10 // magic and version
	out := bytes.Clone(data)
	var ran uint64
	for off := preamble; off+8 <= len(out); {
		length := int(binary.LittleEndian.Uint32(out[off:]))
		payload := out[off+8 : off+8+length]
		for p := 0; p < len(payload); {
			kind := payload[p]
			bodyLen, n := binary.Uvarint(payload[p+1:])
			body := payload[p+1+n : p+1+n+int(bodyLen)]
			switch kind {
			case 3, 4, 5: // checksum, progress, end: each sets ran
				delta, _ := binary.Uvarint(body)
				ran += delta
				if kind == 3 && ran == tick {
					body[len(body)-1] ^= 0x01 // the sum's top byte
					binary.LittleEndian.PutUint32(out[off+4:], crc32.ChecksumIEEE(payload))
					return out
				}
			}
			p += 1 + n + int(bodyLen)
		}
		off += 8 + length
	}
	t.Fatalf("no checksum for tick %d in the recording", tick)
	return nil
}
