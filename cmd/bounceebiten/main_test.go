package main

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/glfw/glfwtest"
	"github.com/gameloop-go/gameloop/replay"
)

// runEnv makes the test binary run the command itself, with the arguments it was given:
// Ebitengine allows one game a process, so each window test runs the binary again.
const runEnv = "BOUNCEEBITEN_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runEnv) != "" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// command returns the command with args, ready to start.
func command(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runEnv+"=1")
	return cmd
}

// play runs the command with args to its end and returns its output.
func play(t *testing.T, args ...string) string {
	t.Helper()
	out, err := command(args...).CombinedOutput()
	if err != nil {
		t.Fatalf("bounceebiten %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// ballPixels counts the pixels of img in the balls' colours.
func ballPixels(t *testing.T, path string) (int, image.Image) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	o, err := parseFlags(nil, new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	a, err := newApp(o)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			for _, ball := range a.colors[1:] {
				if c == ball {
					n++
				}
			}
		}
	}
	return n, img
}

// TestScreenshotsShowBalls runs the game in a window for 1 and 2 seconds of game time: each
// last frame shows balls, and the two differ.
func TestScreenshotsShowBalls(t *testing.T) {
	dir := t.TempDir()
	shot1, shot2 := filepath.Join(dir, "1.png"), filepath.Join(dir, "2.png")
	out := play(t, "-seconds", "1", "-screenshot", shot1, "-stats")
	if !strings.Contains(out, "10 ticks") {
		t.Errorf("-seconds 1 at 10 ticks a second: %s", out)
	}
	play(t, "-seconds", "2", "-screenshot", shot2, "-mode", "extrapolate")
	n1, img1 := ballPixels(t, shot1)
	n2, img2 := ballPixels(t, shot2)
	if n1 < 8*4 || n2 < 8*4 {
		t.Errorf("%d and %d pixels in the balls' colours, want at least 4 for each of 8 balls", n1, n2)
	}
	if img1.Bounds() != img2.Bounds() || img1.Bounds().Dx() != 80*cellWidth {
		t.Fatalf("screenshots of %v and %v, want 640 pixels wide", img1.Bounds(), img2.Bounds())
	}
	same := true
	for y := 0; y < img1.Bounds().Dy() && same; y++ {
		for x := 0; x < img1.Bounds().Dx() && same; x++ {
			same = img1.At(x, y) == img2.At(x, y)
		}
	}
	if same {
		t.Error("the frames after 1 s and 2 s are the same")
	}
}

// TestRecordingInTheWindowReplays plays in a window, adds a ball with the space bar, closes the
// window with its close button, and replays the recording with cmd/bounce: it matches.
func TestRecordingInTheWindowReplays(t *testing.T) {
	glfwtest.RequireTool(t, "xdotool")
	rec := filepath.Join(t.TempDir(), "window.rec")
	cmd := command("-record", rec)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	id := glfwtest.FindWindow(t, "bounceebiten: 8 balls")
	glfwtest.HoldKey(t, id, "space", 20*time.Second, "a ninth ball", func() bool {
		_, err := glfwtest.Search("^bounceebiten: 9 balls$")
		return err == nil
	})
	glfwtest.RequestClose(t, id)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("bounceebiten: %v\n%s", err, out.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the window's close button did not end the game\n%s", out.String())
	}

	f, err := os.Open(rec)
	if err != nil {
		t.Fatal(err)
	}
	r, err := replay.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var space, closed bool
	for _, in := range r.Inputs {
		space = space || in.Kind == gameloop.KeyPress && in.Key == gameloop.KeySpace
		closed = closed || in.Kind == gameloop.Close
	}
	if !space || !closed {
		t.Errorf("the recording holds a press of space: %v, the Close: %v; want both", space, closed)
	}
	// As a user would: go run ./cmd/bounce -replay FILE.
	replayed, err := exec.Command("go", "run", "../bounce", "-replay", rec).CombinedOutput()
	if err != nil || !strings.Contains(string(replayed), "matched") {
		t.Fatalf("bounce -replay: %v\n%s", err, replayed)
	}
	t.Logf("%s", replayed)
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-mode", "sideways"}, {"-seconds", "-1"}, {"-balls", "-3"}, {"-glyphs", "emoji"}, {"extra"},
	} {
		if _, err := parseFlags(args, new(bytes.Buffer)); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
	o, err := parseFlags([]string{"-seconds", "0.01"}, new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newApp(o); err == nil {
		t.Error("-seconds 0.01 at 10 ticks a second: no error, want less than one tick refused")
	}
	if lastTick(2.5, 10) != 25 || lastTick(0, 10) != 0 {
		t.Errorf("lastTick: %d, %d", lastTick(2.5, 10), lastTick(0, 10))
	}
}
