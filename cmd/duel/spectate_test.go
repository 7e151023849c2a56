package main

// Spectators (-spectate) end to end: two headless players and a spectator through netsim, a
// spectator refused, one whose host is killed, and one in a terminal. The timeouts only bound
// how long a failing test takes.

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/internal/duel"
)

// Two players and a spectator, the player who connects and the spectator through one netsim
// proxy under poor (each its own link): all three print the same checksum for the tick, and
// the spectator's recording holds it and replays matched. The spectator starts first, while
// the host still waits for its player: the host must not take it for the player.
func TestSpectatorThroughNetsimPoor(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game of 10 seconds or more")
	}
	t.Parallel()
	ticks := testTicks(t)
	within := 3*time.Duration(ticks)*time.Second/60 + time.Minute
	n := strconv.Itoa(ticks)
	dir := t.TempDir()
	rec := filepath.Join(dir, "spectator.rec")
	host := start(t, "duel -listen", bins.duel, "-listen", "127.0.0.1:0", "-headless", "-ticks", n, "-bot", "1")
	addr := host.waitFor(waitingRE, true, within)
	proxy := start(t, "netsim", bins.netsim, "-listen", "127.0.0.1:0", "-to", addr, "-preset", "poor", "-seed", "1")
	addr = proxy.waitFor(forwardingRE, false, within)
	spectator := start(t, "duel -spectate", bins.duel, "-spectate", addr, "-headless", "-ticks", n, "-record", rec)
	spectator.waitFor(regexp.MustCompile(`(waiting for the game's host at )`), true, within)
	player := start(t, "duel -connect", bins.duel, "-connect", addr, "-headless", "-ticks", n, "-bot", "2")

	lines := map[string]string{}
	for _, p := range []*process{host, player, spectator} {
		_, line, errOut := wantChecksum(t, p, n, within)
		lines[p.name] = line
		t.Logf("%s: %s", p.name, line)
		if st := regexp.MustCompile(`duel: (spectated )?\d+ ticks in .*`).FindString(errOut); st != "" {
			t.Logf("%s: %s", p.name, st)
		}
	}
	if err := proxy.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	proxy.wait(within)
	out, _ := proxy.output()
	t.Logf("netsim:\n%s", out)
	if lines[host.name] != lines[player.name] || lines[spectator.name] != lines[host.name] {
		t.Fatalf("the three differ: %q", lines)
	}
	sum := checksumRE.FindStringSubmatch(lines[host.name])[2]
	checkRecorded(t, rec, uint64(ticks), sum)
	replayed, code := runDuel(t, within, "-replay", rec)
	if code != 0 || !regexp.MustCompile(`(?m)^replay: \d+ ticks, matched \(`).MatchString(replayed) {
		t.Fatalf("duel -replay of the spectator's recording: exit status %d, output %s; want 0 and matched", code, replayed)
	}
	t.Logf("duel -replay spectator.rec: %s", replayed)
}

// runDuel runs duel with args to its end and returns its output, stdout and stderr together,
// and its exit status.
func runDuel(t *testing.T, within time.Duration, args ...string) (string, int) {
	t.Helper()
	p := start(t, "duel "+strings.Join(args, " "), bins.duel, args...)
	code := p.wait(within)
	out, errOut := p.output()
	return out + errOut, code
}

// playing starts two headless players for ever (100,000 ticks) with the host's extra flags,
// waits until both play, and returns the host's address and the host.
func playing(t *testing.T, hostFlags ...string) (string, *process) {
	t.Helper()
	host := start(t, "duel -listen", bins.duel, append([]string{"-listen", "127.0.0.1:0", "-headless", "-ticks", "100000", "-bot", "1"}, hostFlags...)...)
	addr := host.waitFor(waitingRE, true, time.Minute)
	player := start(t, "duel -connect", bins.duel, "-connect", addr, "-headless", "-ticks", "100000", "-bot", "2")
	playingRE := regexp.MustCompile(`duel: (playing): `)
	host.waitFor(playingRE, true, time.Minute)
	player.waitFor(playingRE, true, time.Minute)
	return addr, host
}

// A host with -spectators 0 refuses a spectator, which says so and exits 1; the players play
// on.
func TestSpectatorRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game for a few seconds")
	}
	t.Parallel()
	addr, host := playing(t, "-spectators", "0")
	out, code := runDuel(t, time.Minute, "-spectate", addr, "-headless", "-ticks", "60")
	want := "duel: the game at " + addr + " refuses spectators: it takes none (-spectators 0)"
	if code != exitError || !strings.Contains(out, want) || checksumRE.MatchString(out) {
		t.Fatalf("duel -spectate of a host with -spectators 0: exit status %d, output\n%s\nwant %d and %q", code, out, exitError, want)
	}
	select {
	case <-host.done:
		out, errOut := host.output()
		t.Fatalf("the host exited (%v) when a spectator was refused:\nstdout: %s\nstderr: %s", host.err, out, errOut)
	default:
	}
}

// A spectator whose host is killed says that the host is not heard from, then that it was
// lost, and exits 1.
func TestSpectatorHostKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game for a few seconds")
	}
	t.Parallel()
	addr, host := playing(t)
	spectator := start(t, "duel -spectate", bins.duel, "-spectate", addr, "-headless", "-ticks", "100000")
	spectator.waitFor(regexp.MustCompile(`duel: (spectating) the game at `), true, time.Minute)
	if err := host.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	host.wait(time.Minute)
	code := spectator.wait(time.Minute)
	_, errOut := spectator.output()
	for _, want := range []string{
		"duel: the game's host is not heard from: disconnecting in ",
		"duel: the game's host at " + addr + " was lost after tick ",
		"(unheard for 2s), before tick 100000",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the spectator's stderr has no %q", want)
		}
	}
	if code != exitError {
		t.Errorf("the spectator exited %d, want %d", code, exitError)
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", errOut)
	}
}

// A spectator in a terminal shows the game as the players see it: the field, the border saying
// it spectates, and the status line with the ticks behind and a confirmed tick's checksum,
// which is the host's for that tick (from the host's recording). q quits, exit 0.
func TestTerminalSpectator(t *testing.T) {
	tmux := lookPathTmux(t)
	if testing.Short() {
		t.Skip("plays a game of 10 seconds")
	}
	t.Parallel()
	dir := t.TempDir()
	rec := filepath.Join(dir, "host.rec")
	const ticks = 600
	host := start(t, "duel -listen", bins.duel, "-listen", "127.0.0.1:0", "-headless", "-ticks", strconv.Itoa(ticks), "-bot", "1", "-record", rec)
	addr := host.waitFor(waitingRE, true, time.Minute)
	player := start(t, "duel -connect", bins.duel, "-connect", addr, "-headless", "-ticks", strconv.Itoa(ticks), "-bot", "2")

	tm := &tmuxServer{t: t, bin: tmux, socket: filepath.Join(dir, "tmux.sock")}
	t.Cleanup(func() { _ = exec.Command(tm.bin, "-S", tm.socket, "kill-server").Run() })
	p := tm.session("duel-spectator", "-spectate", addr)
	statusRE := regexp.MustCompile(`^spectating ping \d+ms behind \d+ tick (\d+) sync (\d+) ([0-9a-f]{16})$`)
	s := p.waitFor("the game, spectated, with a confirmed tick", func(s screen) bool {
		return len(s) == duel.ViewHeight && strings.HasPrefix(s[0], "┌─ duel ") && strings.Contains(s[0], " spectating, q quits ") &&
			statusRE.MatchString(s.status()) && strings.Contains(s.String(), "●")
	})
	m := statusRE.FindStringSubmatch(s.status())
	if s[duel.ViewHeight-2] != "spectating the game at "+addr {
		t.Errorf("message row %q", s[duel.ViewHeight-2])
	}
	t.Logf("the spectator's screen:\n%s", s)
	p.sendKeys("-l", "q")
	p.waitExit(0)

	for _, pr := range []*process{host, player} {
		if code := pr.wait(time.Minute); code != 0 {
			out, errOut := pr.output()
			t.Fatalf("%s: exit status %d:\nstdout: %s\nstderr: %s", pr.name, code, out, errOut)
		}
	}
	synced, _ := strconv.ParseUint(m[2], 10, 64)
	checkRecorded(t, rec, synced, m[3])
}
