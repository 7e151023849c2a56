package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// TestWindowAgainstHeadless plays the game in an Ebitengine window (a duel built with -tags
// ebiten, under the X server DISPLAY names: Xvfb in the suite) against a headless peer, each
// side a seeded bot: both print the same checksum for tick 600, and the window's recording
// replays matched. It needs cgo and a display; without DISPLAY it is skipped, or fails when
// GAMELOOP_REQUIRE_ALL=1.
func TestWindowAgainstHeadless(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game of 10 seconds")
	}
	if os.Getenv("DISPLAY") == "" {
		if os.Getenv("GAMELOOP_REQUIRE_ALL") == "1" {
			t.Fatal("no DISPLAY for the window (run under xvfb-run), and GAMELOOP_REQUIRE_ALL=1")
		}
		t.Skip("no DISPLAY for the window: run under xvfb-run")
	}
	dir := t.TempDir()
	gui := filepath.Join(dir, "duel-gui")
	// Without -race: Ebitengine under the race detector is slow to build and to run, and the
	// game's code is the same as the headless peer's, which runs with it.
	if out, err := exec.Command("go", "build", "-tags", "ebiten", "-o", gui, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -tags ebiten: %v\n%s", err, out)
	}
	const ticks = "600"
	within := 3*10*time.Second + time.Minute
	rec := filepath.Join(dir, "window.rec")
	w := start(t, "duel -gui -listen", gui, "-gui", "-listen", "127.0.0.1:0", "-ticks", ticks, "-bot", "1", "-record", rec)
	addr := w.waitFor(waitingRE, true, within)
	h := start(t, "duel -headless -connect", bins.duel, "-connect", addr, "-headless", "-ticks", ticks, "-bot", "2")
	sumW, line, _ := wantChecksum(t, w, ticks, within)
	sumH, _, _ := wantChecksum(t, h, ticks, within)
	t.Logf("both: %s", line)
	if sumW != sumH {
		t.Fatalf("tick %s: checksum %s in the window, %s headless", ticks, sumW, sumH)
	}
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	out, err := exec.CommandContext(ctx, bins.duel, "-replay", rec).CombinedOutput()
	if err != nil || !regexp.MustCompile(`(?m)^replay: \d+ ticks, matched \(`).Match(out) {
		t.Fatalf("duel -replay of the window's recording: %v, output %s; want exit 0 and matched", err, out)
	}
	checkRecorded(t, rec, 600, sumW)
}
