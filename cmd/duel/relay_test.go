package main

// Through a relay (-relay) end to end: two headless players and a headless spectator of a match
// at a cmd/relay process, over real UDP on 127.0.0.1.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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

// TestRelayRejoinFromSnapshot: the user's check of a phone that changed networks, long into a
// match: a relay that keeps 5 s of ticks and gathers the duel's state every second, two players
// with their tokens; 10 s in, one player's process is killed and started again (a new address)
// with its token: it starts from the latest state snapshot, not the match's first tick (which
// the relay no longer keeps), and both print the same checksum for a tick well after.
func TestRelayRejoinFromSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game of 20 seconds")
	}
	const n = "1200"
	within := 3*20*time.Second + time.Minute
	dir := t.TempDir()
	keys := filepath.Join(dir, "relay.keys")
	if out, err := exec.Command(bins.relay, "-genkey", keys).CombinedOutput(); err != nil {
		t.Fatalf("relay -genkey: %v\n%s", err, out)
	}
	token := func(slot string) string {
		out, err := exec.Command(bins.relay, "-keys", keys, "-token", "-match", "long", "-slot", slot).Output()
		if err != nil {
			t.Fatalf("relay -token: %v", err)
		}
		return strings.TrimSpace(string(out))
	}
	tokA, tokB := token("0"), token("1")
	relay := start(t, "relay", bins.relay, "-listen", "127.0.0.1:0", "-metrics", "127.0.0.1:0", "-keys", keys,
		"-snapshot-every", "60", "-history", "300")
	addr := relay.waitFor(relayRE, true, within)
	api := "http://" + relay.waitFor(regexp.MustCompile(`metrics on http://(\S+)/metrics`), true, within)
	a := start(t, "duel a", bins.duel, "-relay", addr, "-match", "long", "-token", tokA, "-headless", "-ticks", n, "-bot", "1")
	a.waitFor(regexp.MustCompile(`(left) paddle is yours`), true, within)
	b := start(t, "duel b", bins.duel, "-relay", addr, "-match", "long", "-token", tokB, "-headless", "-ticks", n, "-bot", "2")
	// Until the relay no longer keeps the match's first tick, with a snapshot taken since.
	deadline := time.Now().Add(20 * time.Second)
	for {
		var ms []struct {
			Confirmed, Snapshot uint64
		}
		if err := getJSON(api+"/matches", &ms); err != nil {
			t.Fatal(err)
		}
		if len(ms) == 1 && ms[0].Confirmed > 600 && ms[0].Snapshot > 300 {
			break
		}
		if time.Now().After(deadline) {
			outA, errA := a.output()
			outB, errB := b.output()
			_, errR := relay.output()
			t.Fatalf("the match: %+v\na: %s\n%s\nb: %s\n%s\nrelay: %s", ms, outA, errA, outB, errB, errR)
		}
		time.Sleep(100 * time.Millisecond)
	}
	a.cmd.Process.Kill()
	a.wait(within)
	a2 := start(t, "duel a again", bins.duel, "-relay", addr, "-match", "long", "-token", tokA, "-headless", "-ticks", n, "-bot", "1")
	sumA, lineA, errA := wantChecksum(t, a2, n, within)
	sumB, lineB, _ := wantChecksum(t, b, n, within)
	t.Logf("a again: %s; b: %s", lineA, lineB)
	if sumA != sumB {
		t.Fatalf("tick %s: %s and %s\n%s", n, sumA, sumB, errA)
	}
	resp, err := http.Get(api + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !regexp.MustCompile(`(?m)^relay_snapshot_starts_total 1$`).Match(metrics) || !regexp.MustCompile(`(?m)^relay_rejoins_total 1$`).Match(metrics) {
		t.Fatalf("the relay's metrics:\n%s", metrics)
	}
	relay.cmd.Process.Signal(syscall.SIGTERM)
	relay.wait(within)
}

// getJSON decodes the JSON at url into v.
func getJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}
