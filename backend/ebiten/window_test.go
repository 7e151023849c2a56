package ebiten

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/replay"
	ebiten "github.com/hajimehoshi/ebiten/v2"
)

// windowEnv makes the test binary run windowGame in Ebitengine instead of the tests:
// Ebitengine allows one RunGame a process, on the main thread, so each window test runs the
// binary again. Its value says how: "plain", or "recorded" (wrapped by a replay.Recorder).
const windowEnv = "GAMELOOP_EBITEN_WINDOW"

func TestMain(m *testing.M) {
	if how := os.Getenv(windowEnv); how != "" {
		os.Exit(runWindow(how == "recorded"))
	}
	os.Exit(m.Run())
}

// windowGame ticks 20 times a second until tick 20, filling the screen with a colour that
// changes each tick, and checks each frame it draws.
type windowGame struct {
	ticks, frames uint64
	bad           []string
	lastFrame     uint64
	pixel         color.RGBA
}

func (g *windowGame) Update(u *gameloop.Update) error {
	g.ticks = u.Tick
	if u.Tick == 20 {
		return gameloop.ErrStop
	}
	return nil
}

func (g *windowGame) Draw(screen *ebiten.Image, r *gameloop.Render) error {
	g.frames++
	w, h := screen.Bounds().Dx(), screen.Bounds().Dy()
	switch {
	case r.Alpha < 0 || r.Alpha >= 1:
		g.bad = append(g.bad, fmt.Sprintf("frame %d: alpha %v", r.Frame, r.Alpha))
	case r.Width != w || r.Height != h:
		g.bad = append(g.bad, fmt.Sprintf("frame %d: Render says %dx%d, the screen is %dx%d", r.Frame, r.Width, r.Height, w, h))
	case r.Frame <= g.lastFrame:
		g.bad = append(g.bad, fmt.Sprintf("frame %d after frame %d", r.Frame, g.lastFrame))
	}
	g.lastFrame = r.Frame
	screen.Fill(color.RGBA{R: uint8(10 * r.Tick), G: 200, A: 255})
	g.pixel = screen.At(w/2, h/2).(color.RGBA)
	return nil
}

func (*windowGame) Layout(int, int) (int, int) { return 320, 240 }

// runWindow runs windowGame, recorded or not, and prints what it saw; it returns the exit code.
// A recorded game's recording is replayed headless, and the result printed.
func runWindow(recorded bool) int {
	g := &windowGame{}
	var game gameloop.Game = g
	var recording bytes.Buffer
	var rec *replay.Recorder
	if recorded {
		var err error
		if rec, err = replay.NewRecorder(&recording, 20, nil); err != nil {
			fmt.Println(err)
			return 1
		}
		game = rec.Game(g) // as docs/replay.md records a game
	}
	a, err := New(game, gameloop.Config{TickRate: 20})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	ebiten.SetWindowSize(320, 240)
	if err := Run(a, nil); err != nil {
		fmt.Println("Run:", err)
		return 1
	}
	st := a.Stats()
	fmt.Printf("ticks=%d stats.ticks=%d frames=%d drawn=%d tps=%d pixel=%d,%d,%d\n", g.ticks, st.Ticks, st.Frames, g.frames,
		ebiten.TPS(), g.pixel.R, g.pixel.G, g.pixel.B)
	for _, b := range g.bad {
		fmt.Println("bad:", b)
	}
	if rec != nil {
		if err := rec.Close(); err != nil {
			fmt.Println("recording:", err)
			return 1
		}
		res, err := replay.Play(context.Background(), &recording, &windowGame{}, nil)
		if err != nil {
			fmt.Println("replay:", err)
			return 1
		}
		fmt.Printf("replayed: %d of %d ticks, matched %v\n", res.Ticks, res.Recorded, res.Matched())
	}
	return 0
}

// runInWindow runs the test binary as windowGame in Ebitengine's window, as how says, and
// returns what it printed.
func runInWindow(t *testing.T, how string) string {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY") // unreachable in practice: Ebitengine's init needs one
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), windowEnv+"="+how)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return string(out)
}

// checkWindow checks what windowGame printed: it stopped itself at tick 20, drew every frame,
// and the screen's middle pixel read back is the green it filled the screen with.
func checkWindow(t *testing.T, got string) {
	t.Helper()
	at := strings.Index(got, "ticks=")
	if at < 0 {
		t.Fatalf("no figures in %q", got)
	}
	var ticks, stTicks, frames, drawn, tps, r, gg, b int
	if _, err := fmt.Sscanf(got[at:], "ticks=%d stats.ticks=%d frames=%d drawn=%d tps=%d pixel=%d,%d,%d",
		&ticks, &stTicks, &frames, &drawn, &tps, &r, &gg, &b); err != nil {
		t.Fatalf("%v in %q", err, got)
	}
	if ticks != 20 || stTicks != 20 {
		t.Errorf("the game stopped at tick %d (stats %d), want 20", ticks, stTicks)
	}
	if frames == 0 || drawn < frames {
		t.Errorf("%d frames, %d drawn", frames, drawn)
	}
	if tps != ebiten.SyncWithFPS {
		t.Errorf("Ebitengine's TPS %d, want SyncWithFPS", tps)
	}
	if gg != 200 || b != 0 {
		t.Errorf("the screen's middle pixel read back %d,%d,%d, want green 200", r, gg, b)
	}
	if strings.Contains(got, "bad:") {
		t.Errorf("frames drawn wrong:\n%s", got)
	}
}

// TestInWindow runs a game in Ebitengine's window (under Xvfb in the suite) until it stops
// itself at tick 20.
func TestInWindow(t *testing.T) {
	checkWindow(t, runInWindow(t, "plain"))
}

// TestRecordedInWindow runs the same game wrapped by a replay.Recorder, as docs/replay.md
// records a game: it draws as it does unwrapped, at the size its Layout gives (the recorder's
// wrapper lost both, and the window stayed black), and its recording replays matched.
func TestRecordedInWindow(t *testing.T) {
	got := runInWindow(t, "recorded")
	checkWindow(t, got)
	if !strings.Contains(got, "replayed: 20 of 20 ticks, matched true") {
		t.Errorf("the recording did not replay matched:\n%s", got)
	}
}
