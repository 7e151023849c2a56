package main

import (
	"context"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay/rtc/lobby"
)

// startLobby serves a lobby on 127.0.0.1 for the test, and returns its WebSocket URL.
func startLobby(t *testing.T) string {
	t.Helper()
	l, err := lobby.New(lobby.Config{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(l)
	t.Cleanup(func() {
		ts.Close()
		_ = l.Close(context.Background())
	})
	return "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws"
}

// Two headless peers meet in a room of a lobby and play over WebRTC: the first to join plays
// the left paddle, both print the same checksum for the tick, and each one's recording holds it
// and replays matched.
func TestLobbyHeadless(t *testing.T) {
	url := startLobby(t)
	dir := t.TempDir()
	ticks := 600
	n := strconv.Itoa(ticks)
	within := 3*time.Duration(ticks)*time.Second/60 + time.Minute
	recA, recB := filepath.Join(dir, "a.rec"), filepath.Join(dir, "b.rec")
	joining := regexp.MustCompile(`(joining room "headless")`)
	a := start(t, "duel -lobby (first)", bins.duel, "-lobby", url, "-room", "headless", "-headless", "-ticks", n, "-bot", "1", "-record", recA)
	a.waitFor(joining, true, within)
	b := start(t, "duel -lobby (second)", bins.duel, "-lobby", url, "-room", "headless", "-headless", "-ticks", n, "-bot", "2", "-record", recB)
	var sums []string
	for i, p := range []*process{a, b} {
		sum, line, errOut := wantChecksum(t, p, n, within)
		sums = append(sums, sum)
		t.Logf("%s: %s\n%s", p.name, line, errOut)
		if side := []string{"the left", "the right"}[i]; !strings.Contains(errOut, "playing: "+side+" paddle is yours") {
			t.Errorf("%s: want %s paddle, the order of joining:\n%s", p.name, side, errOut)
		}
	}
	if sums[0] != sums[1] {
		t.Fatalf("the peers printed checksums %s and %s: want the same", sums[0], sums[1])
	}
	for _, rec := range []string{recA, recB} {
		checkRecorded(t, rec, uint64(ticks), sums[0])
		out, err := exec.Command(bins.duel, "-replay", rec).CombinedOutput()
		if err != nil || !regexp.MustCompile(`(?m)^replay: \d+ ticks, matched \(`).Match(out) {
			t.Fatalf("duel -replay %s: %v, output %s; want exit 0 and matched", filepath.Base(rec), err, out)
		}
	}
}

// A peer alone in its room gives up after -connect-timeout, and says why (exit 1). (The
// lobby's refusals are netplay/rtc/lobby's tests'.)
func TestLobbyTimeout(t *testing.T) {
	url := startLobby(t)
	alone := start(t, "duel -lobby (alone)", bins.duel, "-lobby", url, "-room", "alone", "-headless", "-ticks", "60", "-connect-timeout", "1s")
	if code := alone.wait(time.Minute); code != exitError {
		t.Errorf("alone in the room: exit status %d, want %d", code, exitError)
	}
	if _, errOut := alone.output(); !strings.Contains(errOut, `no game in room "alone"`) || !strings.Contains(errOut, "after 1s") {
		t.Errorf("alone in the room: stderr %q; want it to say that no game started in the room in 1s", errOut)
	}
}
