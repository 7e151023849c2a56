package main

// Through a relay (-relay) end to end: two headless players and a headless spectator of a match
// at a cmd/relay process, over real UDP on 127.0.0.1.

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

var relayRE = regexp.MustCompile(`serving matches on udp (\S+)`)

// TestHeadlessThroughRelay: two players join a match at a relay, the first playing the left
// paddle, and a spectator watches it there: all three print the same checksum for the tick,
// the players' recordings replay, and the relay's recording of the match, written as it shuts
// down on SIGTERM, replays with duel -replay and matches the checksums the players reported.
func TestHeadlessThroughRelay(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game of 10 seconds or more")
	}
	ticks := testTicks(t)
	n := strconv.Itoa(ticks)
	within := 3*time.Duration(ticks)*time.Second/60 + time.Minute
	dir := t.TempDir()
	relay := start(t, "relay", bins.relay, "-listen", "127.0.0.1:0", "-metrics", "", "-open", "-record", filepath.Join(dir, "relay"))
	addr := relay.waitFor(relayRE, true, within)
	recA, recB := filepath.Join(dir, "a.rec"), filepath.Join(dir, "b.rec")
	a := start(t, "duel a", bins.duel, "-relay", addr, "-match", "final", "-headless", "-ticks", n, "-bot", "1", "-record", recA)
	a.waitFor(regexp.MustCompile(`(left) paddle is yours`), true, within)
	b := start(t, "duel b", bins.duel, "-relay", addr, "-match", "final", "-headless", "-ticks", n, "-bot", "2", "-record", recB)
	s := start(t, "duel -spectate", bins.duel, "-relay", addr, "-match", "final", "-spectate", "-headless", "-ticks", n)
	sums := map[string]string{}
	for _, p := range []*process{a, b, s} {
		sum, line, _ := wantChecksum(t, p, n, within)
		sums[p.name] = sum
		t.Logf("%s: %s", p.name, line)
	}
	if sums[a.name] != sums[b.name] || sums[a.name] != sums[s.name] {
		t.Fatalf("tick %d: checksums %v", ticks, sums)
	}
	if err := relay.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := relay.wait(within); code != 0 {
		_, errOut := relay.output()
		t.Fatalf("relay: exit status %d after SIGTERM\n%s", code, errOut)
	}
	recs, _ := filepath.Glob(filepath.Join(dir, "relay", "final-*.rec"))
	if len(recs) != 1 {
		t.Fatalf("the relay's recordings: %v", recs)
	}
	for _, rec := range []string{recA, recB, recs[0]} {
		ctx, cancel := context.WithTimeout(context.Background(), within)
		out, err := exec.CommandContext(ctx, bins.duel, "-replay", rec).CombinedOutput()
		cancel()
		if err != nil || !regexp.MustCompile(`(?m)^replay: \d+ ticks, matched \(`).Match(out) {
			t.Fatalf("duel -replay %s: %v, output %s; want exit 0 and matched", filepath.Base(rec), err, out)
		}
		t.Logf("duel -replay %s: %s", filepath.Base(rec), out)
	}
}

// TestRelayPlayerStopped: a player's process stopped for 3 s (Ctrl-Z, then fg; a laptop lid)
// comes back, catches up with the relay and plays on: both players print the same checksum
// for a tick well after the stop.
func TestRelayPlayerStopped(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game of 15 seconds")
	}
	const n = "900"
	within := 3*15*time.Second + time.Minute
	relay := start(t, "relay", bins.relay, "-listen", "127.0.0.1:0", "-metrics", "", "-open")
	addr := relay.waitFor(relayRE, true, within)
	a := start(t, "duel a", bins.duel, "-relay", addr, "-match", "lid", "-headless", "-ticks", n, "-bot", "1")
	a.waitFor(regexp.MustCompile(`(left) paddle is yours`), true, within)
	b := start(t, "duel b", bins.duel, "-relay", addr, "-match", "lid", "-headless", "-ticks", n, "-bot", "2")
	b.waitFor(regexp.MustCompile(`(playing): `), true, within)
	time.Sleep(time.Second)
	if err := b.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	if err := b.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	sumA, lineA, _ := wantChecksum(t, a, n, within)
	sumB, lineB, errB := wantChecksum(t, b, n, within)
	t.Logf("a: %s; b: %s", lineA, lineB)
	if sumA != sumB {
		t.Fatalf("tick %s: %s and %s\n%s", n, sumA, sumB, errB)
	}
	relay.cmd.Process.Signal(syscall.SIGTERM)
	relay.wait(within)
}
