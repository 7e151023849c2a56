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
	t.Parallel() // real time: two processes playing 10 s
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

// A player who ends its game over WebRTC says goodbye, and the other hears it: in each of 20
// games through a lobby, one headless player plays to tick 1 and exits 0 (once the other has
// the tick too), and the other, playing on, says that it left, not that it was lost for want
// of hearing from it, and exits 1 (its own tick was never reached). The players who leave play
// the left paddle in half the games, the right in the others. Four games run at a time.
func TestLobbyLeave(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 20 games of a second or two")
	}
	const games, atOnce = 20, 4
	url := startLobby(t)
	within := 2 * time.Minute
	joining := regexp.MustCompile(`(joining room ")`)
	sem := make(chan struct{}, atOnce)
	for g := range games {
		t.Run(strconv.Itoa(g), func(t *testing.T) {
			t.Parallel()
			sem <- struct{}{}
			defer func() { <-sem }()
			room := "leave" + strconv.Itoa(g)
			leaverArgs := []string{"-lobby", url, "-room", room, "-headless", "-ticks", "1", "-bot", "1"}
			stayerArgs := []string{"-lobby", url, "-room", room, "-headless", "-ticks", "100000", "-bot", "2"}
			var leaver, stayer *process
			if g%2 == 0 {
				leaver = start(t, "duel -lobby (leaves)", bins.duel, leaverArgs...)
				leaver.waitFor(joining, true, within)
				stayer = start(t, "duel -lobby (stays)", bins.duel, stayerArgs...)
			} else {
				stayer = start(t, "duel -lobby (stays)", bins.duel, stayerArgs...)
				stayer.waitFor(joining, true, within)
				leaver = start(t, "duel -lobby (leaves)", bins.duel, leaverArgs...)
			}
			wantChecksum(t, leaver, "1", within)
			code := stayer.wait(within)
			_, errOut := stayer.output()
			if code != exitError || !strings.Contains(errOut, "duel: the other player left after tick ") ||
				!strings.Contains(errOut, "the other player left before tick 100000 was confirmed") || strings.Contains(errOut, "unheard") {
				t.Fatalf("the player who stayed: exit status %d, stderr:\n%s\nwant 1, and that the other player left", code, errOut)
			}
		})
	}
}

// -netsim puts what a player sends over WebRTC through netsim's conditions: two players under
// poor, each one's datagrams delayed and some dropped, still agree on the checksum of the tick,
// and each says at the end what the simulated network did.
func TestLobbyNetsim(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game of a few seconds")
	}
	t.Parallel() // real time: two processes playing 5 s
	url := startLobby(t)
	within := 3 * time.Minute
	n := "300"
	joining := regexp.MustCompile(`(joining room "netsim")`)
	a := start(t, "duel -lobby -netsim poor (first)", bins.duel, "-lobby", url, "-room", "netsim", "-netsim", "poor", "-headless", "-ticks", n, "-bot", "1")
	a.waitFor(joining, true, within)
	b := start(t, "duel -lobby -netsim poor (second)", bins.duel, "-lobby", url, "-room", "netsim", "-netsim", "poor", "-headless", "-ticks", n, "-bot", "2")
	simRE := regexp.MustCompile(`duel: -netsim poor: (\d+) datagrams sent through it, (\d+) dropped`)
	var sums []string
	for _, p := range []*process{a, b} {
		sum, line, errOut := wantChecksum(t, p, n, within)
		sums = append(sums, sum)
		t.Logf("%s: %s\n%s", p.name, line, errOut)
		m := simRE.FindStringSubmatch(errOut)
		if !strings.Contains(errOut, "duel: -netsim poor: what this side sends goes through latency 100ms ± 50ms, loss 5%") || m == nil {
			t.Fatalf("%s: stderr says nothing of -netsim poor:\n%s", p.name, errOut)
		}
		// The model's fates are drawn from its seed in the order of the datagrams: the same
		// ones are dropped every run, some in the first hundred.
		if sent, dropped := atoi(m[1]), atoi(m[2]); sent < 100 || dropped == 0 {
			t.Errorf("%s: %d datagrams sent through netsim, %d dropped: want some dropped", p.name, sent, dropped)
		}
	}
	if sums[0] != sums[1] {
		t.Fatalf("the players printed checksums %s and %s: want the same", sums[0], sums[1])
	}
}
